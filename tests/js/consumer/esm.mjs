import { computeThresholds, estimateContentTokens } from "compaction-core";
let code;
try { computeThresholds(-1); } catch (e) { code = `${e.name} ${e.code}`; }
console.log("esm", computeThresholds(200_000).auto, estimateContentTokens([{ role: "user", parts: [{ text: "hello world" }] }]), code);
