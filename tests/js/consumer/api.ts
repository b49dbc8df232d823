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

import {
  ChatCompactor, CompressionStatus,
  type CompactionResult, type SummaryRequest, type SummaryAnswer, type Summarize, type SavedState, type UsageUpdate,
} from "compaction-core";

async function session(): Promise<void> {
  const chat = new ChatCompactor({ window: 128_000, excludeMessages: 3, consecutiveFailures: 0 });
  const legacy = new ChatCompactor({ window: 128_000, hasFailedCompressionAttempt: true });
  const update: UsageUpdate = chat.reportUsage({ promptTokenCount: 1000, totalTokenCount: 1200 });
  chat.reportUsage({ prompt_tokens: 1000, completion_tokens: 20, total_tokens: 1020 });
  chat.reportUsage({ usageMetadata: { totalTokenCount: 5 } });
  const summarize: Summarize = async (request: SummaryRequest): Promise<SummaryAnswer> => {
    const cap: number = request.config.maxOutputTokens;
    const off: false = request.config.thinkingConfig.includeThoughts;
    void [cap, off];
    return { text: "summary", finishReason: "STOP", usage: { promptTokenCount: 900, candidatesTokenCount: 40 } };
  };
  const controller = new AbortController();
  const r: CompactionResult = await chat.beforeSend(history, { role: "user", parts: [{ text: "next" }] }, summarize, { signal: controller.signal });
  if (r.status === CompressionStatus.COMPRESSED) {
    const next: Content[] = r.history;
    const gone: Content[] = r.replaced;
    void [next, gone];
  }
  const m: CompactionResult = await chat.compact(history, () => "plain string summary", { focus: "the API" });
  const saved: SavedState = chat.save();
  const again: ChatCompactor = ChatCompactor.restore(saved);
  const indicator: ContextReport = again.usage();
  const t: Thresholds = again.thresholds;
  const busy: boolean = again.busy;
  again.setWindow(1_000_000);
  void [legacy, update, m, indicator, t, busy, again.window, again.lastPromptTokenCount, again.consecutiveFailures];
  chat.free();
}
void session;

import { ladderConstants, type LadderConstants, type SummarizeContext } from "compaction-core";
const constants: LadderConstants = ladderConstants();
const tags: string = constants.summaryOpenTag + constants.summaryCloseTag;
const withSignal: Summarize = async (request: SummaryRequest, { signal }: SummarizeContext) => {
  const aborted: boolean = signal.aborted;
  return aborted ? "" : { text: request.systemInstruction };
};
void [tags, withSignal];

import { estimateTextTokens, type EstimateOptions, type TipContext, type TokenizerFamily, type Estimator } from "compaction-core";
const family: TokenizerFamily = "o200k";
const which: Estimator = "conservative";
const opts: EstimateOptions = { estimator: which, tokenizer: family, imageTokenEstimate: 258 };
const ctx: TipContext = { lastPromptTokenCount: 1000, contextWindowSize: 32_000, sessionPromptCount: 3, lastShown: { "context-warn": 1 } };
const count: number = estimateTextTokens("hello", opts) + estimateContentTokens([], opts);
void [ctx, count];

// Fitting the window (every send fits, docs/behaviour.md) and the ledger (the ledger, docs/behaviour.md).
import { slimMessage, type ChatCompactorOptions, type LedgerOptions, type SummaryCheck } from "compaction-core";
async function fitting(): Promise<void> {
  const ledger: LedgerOptions = { enabled: true, written: ["save_document"], pathArguments: ["doc"], userWordsBudget: 512 };
  const options: ChatCompactorOptions = { window: 128_000, maxOutputTokens: 16_384, clearToolOutputs: true, ledger };
  const chat = new ChatCompactor(options);
  chat.setWindow(128_000, 16_384);
  chat.setWindow(200_000, null);
  chat.setWindow(200_000);
  const saved: SavedState = chat.save();
  const limit: number | undefined = saved.options.maxOutputTokens;
  const clearing: boolean | undefined = saved.options.clearToolOutputs;
  const enabled: boolean = saved.options.ledger.enabled;
  const written: string[] | undefined = saved.options.ledger.written;
  let message: Content = { role: "user", parts: [{ text: "a long paste" }] };
  const r: CompactionResult = await chat.beforeSend(history, message, () => "summary");
  const check: SummaryCheck | null = r.summaryCheck;
  const sections: Record<string, boolean> | undefined = check?.sections;
  const missing: string[] | undefined = check?.missingFiles;
  const calls: number = r.summaryCalls;
  const method: "summarized" | "cleared" | "ledger" | null = r.method;
  if (r.noopReason === "messageTooLarge" || r.noopReason === "wouldNotFit") {
    const over: number | undefined = r.overBy;
    message = slimMessage(message, chat.thresholds.auto / 2, { estimator: "conservative" });
    void over;
  }
  const slim: Content = slimMessage(message, 1_000);
  void [limit, clearing, enabled, written, sections, missing, calls, method, slim];
}
void fitting;

// The message formats (docs/api.md): a history in the host's own message type, the model table, the
// reference's status names, the SDKs' usage objects with nulls.
import { modelLimits, type ModelLimits, type MessageFormat, type UsageReport } from "compaction-core";
interface OpenAiMessage { role: "system" | "user" | "assistant" | "tool"; content: string | null; tool_call_id?: string }
async function ownShapes(): Promise<void> {
  const format: MessageFormat = "openai";
  const chat = new ChatCompactor<OpenAiMessage>({ model: "gpt-4o", format });
  const history: OpenAiMessage[] = [{ role: "system", content: "Be brief." }, { role: "user", content: "hi" }];
  const r = await chat.beforeSend(history, { role: "user", content: "next" }, async (_request, { signal }) => {
    void signal;
    return { text: "summary", finishReason: "stop" };
  });
  const kept: OpenAiMessage[] = r.history;
  const limits: ModelLimits = modelLimits("claude-sonnet-4-5");
  const max: number | null = limits.maxOutputTokens;
  const inflated: number = CompressionStatus.COMPRESSION_FAILED_INFLATED_TOKEN_COUNT;
  const usage: UsageReport = { input_tokens: 10, output_tokens: 2, cache_creation_input_tokens: null, cache_read_input_tokens: null };
  const aiSdk: UsageReport = { inputTokens: 10, outputTokens: undefined, totalTokens: 12, outputTokenDetails: { reasoningTokens: 1 } };
  chat.reportUsage(usage);
  chat.reportUsage(aiSdk);
  void [kept, max, inflated];
}
void ownShapes;
