// The state's diff against its parent and the ranking of every action from it, as the API
// answers them (/api/v4/diff, /api/v4/rank).

// A unified diff, one span per line classed by its kind (file, hunk, add, del, context): the
// element's text is the diff's text.
export function renderDiff(container, diff) {
  container.replaceChildren();
  if (!diff || !diff.diff) return;
  const lines = diff.diff.split("\n");
  const fragment = document.createDocumentFragment();
  lines.forEach((line, i) => {
    let kind = "context";
    if (i < 2 && (line.startsWith("---") || line.startsWith("+++"))) kind = "file";
    else if (line.startsWith("@@")) kind = "hunk";
    else if (line.startsWith("+")) kind = "add";
    else if (line.startsWith("-")) kind = "del";
    const e = document.createElement("span");
    e.className = `line ${kind}`;
    e.textContent = i < lines.length - 1 ? `${line}\n` : line;
    fragment.appendChild(e);
  });
  container.appendChild(fragment);
}

// What a diff's heading says of it.
export function diffSummary(diff) {
  if (!diff) return "";
  if (!diff.diff) return `the same text as state #${diff.parent}'s`;
  return `state #${diff.parent} → #${diff.node} (${diff.action_name}): +${diff.added} −${diff.removed} lines`;
}

// The ranking as a table, best first: rank, action, reward and a bar of its size; an action
// taken from there (childOf(action) is its state, else undefined) is marked. Clicking a row
// calls onTake(action index). Ties share a rank.
export function renderRanking(tbody, ranking, format, onTake, childOf = () => undefined) {
  tbody.replaceChildren();
  if (!ranking) return;
  const largest = Math.max(1e-12, ...ranking.ranking.map((r) => Math.abs(r.reward ?? 0)));
  let rank = 0;
  let previous;
  ranking.ranking.forEach((row, i) => {
    if (row.reward !== previous) rank = i + 1;
    previous = row.reward;
    const tr = document.createElement("tr");
    const direction = row.reward === null ? "failed" : row.reward > 0 ? "better" : row.reward < 0 ? "worse" : "same";
    const child = childOf(row.action) ?? row.child;
    tr.className = direction + (child !== null && child !== undefined ? " taken" : "");
    Object.assign(tr.dataset, {
      action: row.action_name,
      index: row.action,
      reward: row.reward === null ? "" : String(row.reward),
      rank,
    });
    tr.title = child !== null && child !== undefined ? `taken: state #${child}` : "click to take this action";
    const cells = [
      String(rank),
      row.action_name,
      row.reward === null ? "error" : format(row.reward),
    ];
    for (const [k, text] of cells.entries()) {
      const td = document.createElement("td");
      td.textContent = text;
      if (k === 1) td.className = "action";
      if (k === 2) td.className = "number";
      tr.appendChild(td);
    }
    const barCell = document.createElement("td");
    barCell.className = "bar-cell";
    const bar = document.createElement("span");
    bar.className = `bar ${direction}`;
    bar.style.width = `${(100 * Math.abs(row.reward ?? 0)) / largest}%`;
    barCell.appendChild(bar);
    tr.appendChild(barCell);
    tr.addEventListener("click", () => onTake(row.action));
    tbody.appendChild(tr);
  });
}

// "122 actions: 37 better, 80 the same, 5 worse, 0 failed".
export function rankingSummary(ranking) {
  if (!ranking) return "";
  const count = { better: 0, same: 0, worse: 0, failed: 0 };
  for (const { reward } of ranking.ranking) {
    count[reward === null ? "failed" : reward > 0 ? "better" : reward < 0 ? "worse" : "same"] += 1;
  }
  return `${ranking.ranking.length} actions: ${count.better} better, ${count.same} the same, ${count.worse} worse, ${count.failed} failed`;
}
