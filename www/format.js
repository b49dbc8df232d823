// Number formatting shared by every panel: the same thousands separators as
// the library's own /context block.

const tokensFormat = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });
const percentFormat = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1 });

/** 147000 → "147,000"; fractional thresholds keep two decimals. */
export function tokens(n) {
  return tokensFormat.format(n);
}

/** 85 → "85%", 73.456 → "73.5%". */
export function percent(n) {
  return `${percentFormat.format(n)}%`;
}

/** 200000 → "200K", 1000000 → "1M": for short labels only. */
export function short(n) {
  if (n >= 1e6 && n % 1e5 === 0) return `${n / 1e6}M`;
  if (n >= 1e3) return `${percentFormat.format(n / 1e3)}K`;
  return tokens(n);
}

/** Share of `window` as a CSS percentage, clamped to the bar. */
export function position(value, window) {
  if (!(window > 0)) return 0;
  return Math.min(100, Math.max(0, (value / window) * 100));
}
