// The search tree as SVG: depth to the right, one row per leaf, a parent level with the middle
// of its children. Nodes are {id, parent, action_name, reward, done}; ids index the array.

import { element } from "./svg.js";

const COLUMN = 170; // px per depth
const ROW = 26; // px per leaf
const MARGIN = 14;

export function formatReward(value) {
  if (value === null || value === undefined) return "–";
  return (value >= 0 ? "+" : "") + value.toFixed(4);
}

// Positions {id: {x, y, depth}} of the nodes reachable from the roots (nodes without parent).
export function layoutTree(nodes) {
  const children = new Map();
  const roots = [];
  for (const node of nodes) {
    if (!node) continue;
    if (node.parent === null || node.parent === undefined) roots.push(node.id);
    else {
      if (!children.has(node.parent)) children.set(node.parent, []);
      children.get(node.parent).push(node.id);
    }
  }
  const positions = new Map();
  let row = 0;
  // Iterative post-order, so that deep trees (long episodes) do not overflow the stack.
  for (const root of roots) {
    const stack = [{ id: root, depth: 0, visited: false }];
    while (stack.length) {
      const item = stack.pop();
      const kids = children.get(item.id) || [];
      if (!item.visited && kids.length) {
        stack.push({ ...item, visited: true });
        for (let k = kids.length - 1; k >= 0; k--) stack.push({ id: kids[k], depth: item.depth + 1, visited: false });
        continue;
      }
      let y;
      if (kids.length) {
        y = (positions.get(kids[0]).y + positions.get(kids[kids.length - 1]).y) / 2;
      } else {
        y = row++;
      }
      positions.set(item.id, { depth: item.depth, y });
    }
  }
  return { positions, rows: row };
}

// Draws the tree into `container`; `current` is highlighted with its path from the root, and
// clicking a node calls onSelect(id).
export function renderTree(container, nodes, current, onSelect, rootLabel = "start") {
  container.replaceChildren();
  const { positions, rows } = layoutTree(nodes);
  let depth = 0;
  for (const p of positions.values()) depth = Math.max(depth, p.depth);
  const width = MARGIN * 2 + (depth + 1) * COLUMN;
  const height = MARGIN * 2 + Math.max(1, rows) * ROW;
  const svg = element("svg", { width, height, viewBox: `0 0 ${width} ${height}`, id: "tree-svg" }, container);
  const at = (id) => {
    const p = positions.get(id);
    return { x: MARGIN + 8 + p.depth * COLUMN, y: MARGIN + p.y * ROW + ROW / 2 };
  };
  const onPath = new Set();
  for (let id = current; id !== null && id !== undefined && nodes[id]; id = nodes[id].parent) onPath.add(id);
  const edges = element("g", { class: "edges" }, svg);
  const layer = element("g", { class: "nodes" }, svg);
  for (const node of nodes) {
    if (!node || !positions.has(node.id)) continue;
    const { x, y } = at(node.id);
    if (node.parent !== null && node.parent !== undefined && positions.has(node.parent)) {
      const from = at(node.parent);
      const middle = (from.x + x) / 2;
      element(
        "path",
        {
          class: onPath.has(node.id) ? "edge on-path" : "edge",
          d: `M${from.x},${from.y} C${middle},${from.y} ${middle},${y} ${x},${y}`,
        },
        edges,
      );
    }
    const classes = ["node"];
    if (node.id === current) classes.push("current");
    if (node.done) classes.push("done");
    const g = element(
      "g",
      {
        class: classes.join(" "),
        "data-id": node.id,
        "data-parent": node.parent ?? "",
        "data-action": node.action_name ?? "",
        "data-current": node.id === current ? "true" : "false",
        transform: `translate(${x},${y})`,
      },
      layer,
    );
    element("circle", { r: 6 }, g);
    const label = element("text", { class: "label", x: 10, y: -2 }, g);
    label.textContent = node.action_name ?? rootLabel;
    const reward = element("text", { class: "reward muted", x: 10, y: 10 }, g);
    reward.textContent = node.parent === null || node.parent === undefined ? "" : formatReward(node.reward);
    const title = element("title", {}, g);
    title.textContent = `state ${node.id}: cumulative reward ${formatReward(node.cumulative_reward)}`;
    g.addEventListener("click", () => onSelect(node.id));
  }
  return svg;
}
