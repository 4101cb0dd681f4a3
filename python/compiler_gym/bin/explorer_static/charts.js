// Charts in plain SVG: features as horizontal bars, the cumulative reward as a line.

import { element } from "./svg.js";

function text(parent, content, attributes) {
  const t = element("text", attributes, parent);
  t.textContent = content;
  return t;
}

// One row per feature of `values` ({name: number}); a feature that changed from `previous`
// is coloured by the direction of the change and shows it.
export function renderBars(container, values, previous) {
  container.replaceChildren();
  if (!values) {
    container.textContent = "no features for this state";
    return;
  }
  const names = Object.keys(values);
  const ROW = 15;
  const NAME = 170;
  const BAR = 220;
  const width = NAME + BAR + 110;
  const svg = element("svg", { width, height: names.length * ROW + 4, class: "bar-chart" }, container);
  const largest = Math.max(1, ...names.map((n) => Math.abs(values[n])));
  names.forEach((name, i) => {
    const value = values[name];
    const before = previous ? previous[name] : undefined;
    const delta = before === undefined ? 0 : value - before;
    const direction = delta > 0 ? "up" : delta < 0 ? "down" : "same";
    const g = element(
      "g",
      {
        class: `bar ${direction}`,
        transform: `translate(0,${i * ROW + 2})`,
        "data-name": name,
        "data-value": value,
      },
      svg,
    );
    text(g, name, { x: NAME - 6, y: 11, "text-anchor": "end" });
    element("rect", { class: "value", x: NAME, y: 2, height: ROW - 4, width: (BAR * Math.abs(value)) / largest }, g);
    text(g, String(value), { x: NAME + BAR + 6, y: 11 });
    if (delta !== 0) text(g, (delta > 0 ? "+" : "") + delta, { class: `delta ${direction}`, x: NAME + BAR + 56, y: 11 });
    element("title", {}, g).textContent = `${name}: ${value}${before === undefined ? "" : ` (was ${before})`}`;
  });
}

// The cumulative reward along the path to the current state: points [{step, value}], values
// written by `format`.
export function renderLine(container, points, format = (v) => v.toFixed(3)) {
  container.replaceChildren();
  const width = 420;
  const height = 150;
  const left = 56;
  const bottom = 22;
  const svg = element("svg", { width, height, class: "line-chart" }, container);
  const values = points.map((p) => p.value ?? 0);
  const low = Math.min(0, ...values);
  const high = Math.max(0, ...values);
  const span = high - low || 1;
  const steps = Math.max(1, points.length - 1);
  const x = (i) => left + ((width - left - 10) * i) / steps;
  const y = (v) => 8 + (height - bottom - 8) * (1 - (v - low) / span);
  element("line", { class: "axis", x1: left, x2: width - 10, y1: y(0), y2: y(0) }, svg);
  element("line", { class: "axis", x1: left, x2: left, y1: 8, y2: height - bottom }, svg);
  text(svg, format(high), { x: left - 4, y: 14, "text-anchor": "end", class: "muted" });
  text(svg, format(low), { x: left - 4, y: height - bottom, "text-anchor": "end", class: "muted" });
  text(svg, "steps", { x: width - 10, y: height - 4, "text-anchor": "end", class: "muted" });
  if (points.length > 1) {
    element("polyline", { class: "line", points: points.map((p, i) => `${x(i)},${y(p.value ?? 0)}`).join(" ") }, svg);
  }
  points.forEach((p, i) => {
    const dot = element("circle", { class: i === points.length - 1 ? "point current" : "point", cx: x(i), cy: y(p.value ?? 0), r: 3 }, svg);
    element("title", {}, dot).textContent = `step ${i}: ${p.value === null ? "unknown" : format(p.value)}`;
  });
}
