// The search tree as a compact outline: one row per state, its action's full name and reward.
// A chain of single children stays in one column (an episode of 100 actions is 100 rows, not
// 100 indents); a state with several children indents each child's subtree one column, with
// guide lines (├ └ │) to its parent. A row's depth is in its left gutter. Rows of a collapsed
// state's descendants are not drawn (it shows how many it hides). Nodes are
// {id, parent, action_name, reward, cumulative_reward, done}; ids index the array.

// The children of each node, and the roots (nodes without a parent in `nodes`).
function structure(nodes) {
  const children = new Map();
  const roots = [];
  for (const node of nodes) {
    if (!node) continue;
    const parent = node.parent;
    if (parent === null || parent === undefined || !nodes[parent]) roots.push(node.id);
    else {
      if (!children.has(parent)) children.set(parent, []);
      children.get(parent).push(node.id);
    }
  }
  return { children, roots };
}

// The rows to draw, in order: {id, depth, columns, children, hidden}. `columns` are the guide
// cells left of the row: "pipe" (a line down), "tee" (├), "elbow" (└) or "blank". `hidden`
// counts the descendants a collapsed row hides. Iterative: long episodes are deep.
export function treeRows(nodes, collapsed = new Set()) {
  const { children, roots } = structure(nodes);
  // Descendants per node, children before parents.
  const size = new Map();
  const order = [];
  const pending = [...roots];
  while (pending.length) {
    const id = pending.pop();
    order.push(id);
    for (const kid of children.get(id) || []) pending.push(kid);
  }
  for (let k = order.length - 1; k >= 0; k--) {
    const id = order[k];
    let total = 0;
    for (const kid of children.get(id) || []) total += 1 + size.get(kid);
    size.set(id, total);
  }
  const rows = [];
  // `open`: per column, whether a later sibling's row comes below (its line goes on down).
  const stack = roots
    .slice()
    .reverse()
    .map((id) => ({ id, depth: 0, open: [], join: null }));
  while (stack.length) {
    const { id, depth, open, join } = stack.pop();
    const kids = children.get(id) || [];
    const folded = kids.length > 0 && collapsed.has(id);
    const columns = open.map((more, k) => {
      if (k === open.length - 1 && join) return join;
      return more ? "pipe" : "blank";
    });
    rows.push({ id, depth, columns, children: kids.length, hidden: folded ? size.get(id) : 0 });
    if (folded) continue;
    if (kids.length === 1) {
      stack.push({ id: kids[0], depth: depth + 1, open, join: null });
    } else {
      for (let k = kids.length - 1; k >= 0; k--) {
        const last = k === kids.length - 1;
        stack.push({ id: kids[k], depth: depth + 1, open: [...open, !last], join: last ? "elbow" : "tee" });
      }
    }
  }
  return rows;
}

function span(parent, className, text) {
  const e = document.createElement("span");
  e.className = className;
  if (text !== undefined) e.textContent = text;
  parent.appendChild(e);
  return e;
}

// Draws the tree into `container`. `current` is highlighted with its path from the root, and
// its collapsed ancestors are expanded (it is always shown). Clicking a row calls
// onSelect(id), its toggle onToggle(id); `format(reward)` writes a reward.
export function renderTree(container, nodes, current, { onSelect, onToggle, collapsed, format, rootLabel = "start" }) {
  const onPath = new Set();
  for (let id = current; id !== null && id !== undefined && nodes[id]; id = nodes[id].parent) {
    onPath.add(id);
    if (id !== current) collapsed.delete(id);
  }
  const rows = treeRows(nodes, collapsed);
  const fragment = document.createDocumentFragment();
  let shown = null;
  for (const row of rows) {
    const node = nodes[row.id];
    const isRoot = node.parent === null || node.parent === undefined;
    const e = document.createElement("div");
    const classes = ["node"];
    if (row.id === current) classes.push("current");
    if (onPath.has(row.id)) classes.push("on-path");
    if (node.done) classes.push("done");
    if (node.error) classes.push("failed");
    e.className = classes.join(" ");
    e.setAttribute("role", "treeitem");
    e.setAttribute("aria-level", String(row.depth + 1));
    e.setAttribute("aria-selected", row.id === current ? "true" : "false");
    if (row.children) e.setAttribute("aria-expanded", row.hidden ? "false" : "true");
    Object.assign(e.dataset, {
      id: row.id,
      parent: node.parent ?? "",
      action: node.action_name ?? "",
      depth: row.depth,
      current: row.id === current ? "true" : "false",
    });
    span(e, "depth", String(row.depth));
    for (const column of row.columns) span(e, `guide ${column}`);
    if (row.children) {
      const toggle = document.createElement("button");
      toggle.type = "button";
      toggle.className = "toggle";
      toggle.textContent = row.hidden ? "▸" : "▾";
      toggle.title = row.hidden ? `expand (${row.hidden} states hidden)` : "collapse";
      toggle.addEventListener("click", (event) => {
        event.stopPropagation();
        onToggle(row.id);
      });
      e.appendChild(toggle);
    } else {
      span(e, "toggle leaf");
    }
    span(e, "dot");
    span(e, "label", node.action_name ?? rootLabel);
    span(e, "reward", isRoot ? "" : format(node.reward));
    if (row.hidden) span(e, "hidden-count", `+${row.hidden}`);
    e.title = `state ${row.id}, ${row.depth} actions deep: cumulative reward ${format(node.cumulative_reward)}`;
    e.addEventListener("click", () => onSelect(row.id));
    fragment.appendChild(e);
    if (row.id === current) shown = e;
  }
  container.replaceChildren(fragment);
  if (shown) {
    // The container alone scrolls (the page stays where the reader is); #tree is the rows'
    // offsetParent (position: relative).
    const top = shown.offsetTop;
    const bottom = top + shown.offsetHeight;
    if (top < container.scrollTop) container.scrollTop = top;
    else if (bottom > container.scrollTop + container.clientHeight) container.scrollTop = bottom - container.clientHeight;
  }
  return rows;
}
