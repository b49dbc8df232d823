// The benchmarks' shared timing: the median and quantile of samples, and
// the race that times candidates turn about (./estimator_speed.mjs,
// ./first_send.mjs).

/** Median of a list of numbers. */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** The `q` quantile (0..1) of a list of numbers, nearest rank. */
export function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

/**
 * Times `run(candidate)` for each candidate, `warmup` rounds then `rounds`
 * timed ones, the candidates taking turns within each round (the first
 * rotates, so no one always runs after the same neighbour, and a change in
 * machine load hits them alike). A candidate's `before()`, if any, runs
 * untimed before each of its turns. `run` may return a promise, which is
 * awaited inside the timing; a plain value is not awaited. Returns, per
 * candidate, the median round in ms and the last value `run` gave (kept,
 * so the calls cannot be optimized away).
 */
export async function race(candidates, rounds, warmup, run) {
  const times = candidates.map(() => []);
  const totals = candidates.map(() => 0);
  for (let round = 0; round < warmup + rounds; round++) {
    for (let k = 0; k < candidates.length; k++) {
      const i = (k + round) % candidates.length;
      const c = candidates[i];
      c.before?.();
      const start = process.hrtime.bigint();
      let total = run(c);
      if (total instanceof Promise) total = await total;
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (round >= warmup) times[i].push(ms);
      totals[i] = total;
    }
  }
  return times.map((ts, i) => ({ ms: median(ts), total: totals[i] }));
}
