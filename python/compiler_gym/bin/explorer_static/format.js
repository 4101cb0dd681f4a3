// Rewards as their kind reads: /api/v4/describe's reward_formats name each reward's kind.
//   count, bytes: integers ("+1328"), differences of integer costs;
//   ratio:        four decimals ("+0.0222"), costs normalized by the initial or a baseline cost;
//   seconds:      three significant digits and a unit ("-1.25 ms"), runtimes;
//   float:        three decimals ("+18.672"), any other number (GFLOP/s);
//   unknown:      four decimals (a database's rewards, whose space is not recorded).

function seconds(value) {
  const size = Math.abs(value);
  if (size === 0) return "0 s";
  if (size >= 1) return `${value.toPrecision(3)} s`;
  if (size >= 1e-3) return `${(value * 1e3).toPrecision(3)} ms`;
  if (size >= 1e-6) return `${(value * 1e6).toPrecision(3)} µs`;
  return `${(value * 1e9).toPrecision(3)} ns`;
}

// `value` (a number, or null for none) as text; `signed` puts "+" before what is not negative
// (a reward's change), as the tree and the ranking show it.
export function formatReward(value, kind, { signed = true } = {}) {
  if (value === null || value === undefined) return "–";
  const sign = signed && value >= 0 ? "+" : "";
  switch (kind) {
    case "count":
    case "bytes":
      // A sum of integer deltas is an integer; anything else is shown, not rounded away.
      return sign + (Number.isInteger(value) ? String(value) : value.toFixed(4));
    case "ratio":
      return sign + value.toFixed(4);
    case "seconds":
      return sign + seconds(value);
    case "float":
      return sign + value.toFixed(3);
    default:
      return sign + value.toFixed(4);
  }
}
