// Uses the whole public API with its declared types; `tsc --noEmit` must accept it.
import {
  computeThresholds, currentTier, estimateContentTokens, estimatePromptTokens, selectTip,
  contextReport, formatContextReport, loadSettings,
  type Thresholds, type Tier, type Content, type Tip, type ContextReport, type LoadedSettings, type CompactionError,
} from "compaction-core";

const t: Thresholds = computeThresholds(200_000);
const tier: Tier = currentTier(150_000, t);
const history: Content[] = [
  { role: "user", parts: [{ text: "hi" }] },
  { role: "model", parts: [{ functionCall: { name: "read_file", args: { path: "a.rs" } } }] },
  { role: "user", parts: [{ functionResponse: { name: "read_file", response: { output: "fn a() {}" } } }] },
  { role: "user", parts: [{ inlineData: { mimeType: "image/png", data: "" } }] },
];
const n: number = estimateContentTokens(history, { imageTokenEstimate: 258, estimator: "reference" });
const p: number = estimatePromptTokens(history, { role: "user", parts: [{ text: "next" }] }, 0);
const tip: Tip | undefined = selectTip({ lastPromptTokenCount: p, contextWindowSize: 200_000, lastShown: { "context-warn": 1 } });
const report: ContextReport = contextReport(n, 200_000);
const text: string = formatContextReport(n, 200_000);
const loaded: LoadedSettings = loadSettings({ compaction: { excludeMessages: 3 } });
try { computeThresholds(-1); } catch (e) { const err = e as CompactionError; const code: string = err.code; void code; }
void [tier, tip, report, text, loaded];
