const { computeThresholds, currentTier } = require("compaction-core");
const t = computeThresholds(128_000);
console.log("cjs", t.auto, currentTier(200_000, t));
