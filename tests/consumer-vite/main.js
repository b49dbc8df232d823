import { computeThresholds, formatContextReport, estimateContentTokens } from "compaction-core";

const t = computeThresholds(200_000);
const n = estimateContentTokens([{ role: "user", parts: [{ text: "hello world" }] }]);
document.getElementById("out").textContent = JSON.stringify({ auto: t.auto, tokens: n }) + "\n" + formatContextReport(150_000, 200_000);
document.body.dataset.ready = "yes";
