// The simulator's plot: prompt tokens per request as an SVG line, the
// thresholds of the current window as horizontal lines, compaction runs as
// circles. Drawn in CSS pixels at the container's width so that the text
// stays readable on a phone.
import { short, tokens } from "./format.js";

const SVG = "http://www.w3.org/2000/svg";

function el(name, attrs, text) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * points: [{ x: request number, y: prompt tokens }] in order (a compaction
 * adds a second point at the same x, the size after it);
 * runs: [{ x, y, compressed: boolean }].
 */
export function renderPlot(container, { points, runs, thresholds }) {
  const width = Math.max(260, container.clientWidth || 600);
  const height = width < 500 ? 220 : 280;
  const m = { left: 44, right: 12, top: 10, bottom: 30 };
  const w = thresholds.window;
  const yMax = Math.max(w, ...points.map((p) => p.y), 1) * 1.04;
  const xMax = Math.max(10, ...points.map((p) => p.x));
  const sx = (x) => m.left + (x / xMax) * (width - m.left - m.right);
  const sy = (y) => height - m.bottom - (y / yMax) * (height - m.top - m.bottom);

  const last = points.at(-1);
  const svg = el("svg", {
    width, height, viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": last ? `Prompt tokens per request: ${points.length} points, the last ${tokens(last.y)} tokens` : "Prompt tokens per request: no request yet",
  });

  // Axes: five ticks up to the window, and request numbers.
  for (let i = 0; i <= 4; i++) {
    const v = (w * i) / 4;
    svg.append(el("line", { x1: m.left, x2: width - m.right, y1: sy(v), y2: sy(v), class: "grid" }));
    svg.append(el("text", { x: m.left - 6, y: sy(v) + 4, "text-anchor": "end", class: "axis" }, short(v)));
  }
  const step = Math.max(1, Math.ceil(xMax / (width < 500 ? 4 : 8) / 5) * 5);
  for (let x = 0; x <= xMax; x += step) {
    svg.append(el("text", { x: sx(x), y: height - m.bottom + 16, "text-anchor": "middle", class: "axis" }, String(x)));
  }
  svg.append(el("text", { x: width - m.right, y: height - 2, "text-anchor": "end", class: "axis" }, "requests"));

  for (const [name, value] of [["warn", thresholds.warn], ["auto", thresholds.auto], ["hard", thresholds.hard], ["window", w]]) {
    const line = el("line", { x1: m.left, x2: width - m.right, y1: sy(value), y2: sy(value), class: `threshold threshold-${name}` });
    line.append(el("title", {}, `${name} ${tokens(value)}`));
    svg.append(line);
  }

  if (points.length) {
    svg.append(el("polyline", {
      points: points.map((p) => `${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join(" "),
      class: "usage-line", "data-testid": "plot-line", "data-points": points.length,
    }));
  }
  for (const r of runs) {
    const dot = el("circle", { cx: sx(r.x), cy: sy(r.y), r: 5, class: r.compressed ? "run run-ok" : "run run-failed" });
    dot.append(el("title", {}, r.label));
    svg.append(dot);
  }
  container.replaceChildren(svg);

  const legend = document.createElement("p");
  legend.className = "plot-legend";
  for (const [name, value] of [["warn", thresholds.warn], ["auto", thresholds.auto], ["hard", thresholds.hard], ["window", w]]) {
    const item = document.createElement("span");
    item.className = `legend legend-${name}`;
    item.textContent = `${name} ${tokens(value)}`;
    legend.append(item);
  }
  container.append(legend);
}
