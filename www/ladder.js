// The ladder drawn as one bar from 0 to the window: the safe / warn / auto /
// hard bands, the 20K summary reserve, each threshold labelled with the rule
// that set it, and a marker for the current prompt size.
import { percent, position, short, tokens } from "./format.js";

const RULE_SHORT = { pct: "pct", abs: "abs", auto: "= auto" };
/** What each rule means, per threshold (docs/spec.md §1), from the library's own constants. */
let RULES = {};
/** The summary reserve at the top of the window, from the library. */
let RESERVE = 0;

/** Takes the ladder's constants from the library (`ladderConstants()`); call once, before drawing. */
export function useLadderConstants(c) {
  // 0.7 − 0.1 in doubles is 0.6 with a tail: round for the label only.
  const warnPct = Math.round((c.pct - c.warnPctOffset) * 1e6) / 1e6;
  RULES = {
    warn: { pct: `proportional: ${warnPct} × window`, abs: `absolute: auto − ${tokens(c.warnBuffer)}` },
    auto: { pct: `proportional: ${c.pct} × window`, abs: `absolute: effective window − ${tokens(c.autocompactBuffer)}` },
    hard: { abs: `absolute: effective window − ${tokens(c.hardBuffer)}`, auto: "collapsed onto auto (small window)" },
  };
  RESERVE = c.summaryReserve;
}

export function ruleText(name, rule) {
  return RULES[name]?.[rule] ?? rule;
}

const $ = (id) => document.getElementById(id);
const cell = (id) => document.querySelector(`[data-testid="${id}"]`);

function band(id, from, to, window) {
  const el = $(id);
  const left = position(from, window);
  const width = Math.max(0, position(to, window) - left);
  el.style.left = `${left}%`;
  el.style.width = `${width}%`;
  el.hidden = width === 0;
}

/** Draws the bar and fills the table for `t` (from computeThresholds). */
export function renderLadder(t) {
  const w = t.window;
  band("band-safe", 0, t.warn, w);
  band("band-warn", t.warn, t.auto, w);
  band("band-auto", t.auto, t.hard, w);
  band("band-hard", t.hard, w, w);
  // The reserve sits at the top of the window whatever the thresholds are.
  band("band-reserve", Math.min(t.effectiveWindow, w), w, w);
  $("band-reserve").title = `${tokens(w - t.effectiveWindow)} tokens kept for the summary's output`;

  const ticks = $("ladder-ticks");
  ticks.replaceChildren();
  const collapsed = t.hardRule === "auto";
  const marks = [
    ["warn", t.warn, t.warnRule],
    ["auto", t.auto, t.autoRule],
    ["hard", t.hard, t.hardRule],
  ];
  marks.forEach(([name, value, rule], row) => {
    const at = position(value, w);
    const tick = document.createElement("div");
    tick.className = `tick tick-${name} row-${row}`;
    tick.style.left = `${at}%`;
    tick.dataset.testid = `tick-${name}`;
    tick.dataset.value = String(value);
    tick.dataset.rule = rule;
    const label = document.createElement("span");
    label.className = at > 70 ? "label end" : at < 30 ? "label start" : "label";
    label.textContent = name === "hard" && collapsed
      ? `hard = auto ${tokens(value)}`
      : `${name} ${tokens(value)} · ${RULE_SHORT[rule] ?? rule}`;
    tick.append(label);
    ticks.append(tick);
  });
  const reserve = w - t.effectiveWindow;
  $("ladder-end").textContent = t.effectiveWindow === 0 && w > 0
    ? `window ${tokens(w)} · hatched: all of it is within the ${tokens(RESERVE)} reserve`
    : reserve > 0 ? `window ${tokens(w)} · hatched: ${tokens(reserve)} reserve` : `window ${tokens(w)}`;

  const reserveShown = w > 0 && t.effectiveWindow < w;
  $("band-reserve").hidden = !reserveShown;
  $("ladder-caption").textContent = caption(t);

  for (const key of ["window", "effectiveWindow", "warn", "auto", "hard"]) {
    const el = cell(`ladder-${key}`);
    el.textContent = tokens(t[key]);
    el.dataset.value = String(t[key]);
    const pct = cell(`ladder-${key}-pct`);
    if (pct) pct.textContent = w > 0 ? percent((t[key] / w) * 100) : "—";
  }
  for (const key of ["warn", "auto", "hard"]) {
    const el = cell(`ladder-${key}Rule`);
    el.textContent = ruleText(key, t[`${key}Rule`]);
    el.dataset.rule = t[`${key}Rule`];
  }
}

function caption(t) {
  const w = t.window;
  const parts = [w === 0
    ? "A window of 0 tokens: every threshold is 0."
    : `Window ${short(w)}: warn at ${tokens(t.warn)}, auto at ${tokens(t.auto)}, hard at ${tokens(t.hard)}.`];
  if (t.hardRule === "auto") {
    parts.push("On a window this small hard collapses onto auto: there is no [auto, hard) band, every compaction is forced and the failure breaker never comes into play.");
  }
  if (t.effectiveWindow === 0) parts.push(`The window is smaller than the ${tokens(RESERVE)}-token reserve: the effective window is reported as 0.`);
  return parts.join(" ");
}

/** Moves the marker to `tokens` on the bar. */
export function renderMarker(count, t, tier) {
  const marker = $("ladder-marker");
  const at = position(count, t.window);
  marker.style.left = `${at}%`;
  marker.dataset.tier = tier;
  const label = $("ladder-marker-label");
  label.textContent = `${tokens(count)} tokens`;
  label.className = at > 75 ? "end" : at < 25 ? "start" : "";
}
