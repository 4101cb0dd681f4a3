// What tree.js and charts.js draw with: SVG elements made from an attribute object.

const SVG = "http://www.w3.org/2000/svg";

// A new SVG element `name` with `attributes`, appended to `parent` when one is given.
export function element(name, attributes, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}
