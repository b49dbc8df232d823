// ---- Shapes of the compaction-core API, declared once. ----

/** Which rule set a threshold: proportional, absolute, or (hard only) collapsed onto auto. */
export type ThresholdRule = "pct" | "abs" | "auto";

/** The three-tier ladder for one context window. */
export interface Thresholds {
  /** The raw context window. */
  window: number;
  /** `window − 20 000`, clamped at 0. */
  effectiveWindow: number;
  /** From here the user is told the context is getting full. */
  warn: number;
  /** From here compaction runs before the next send. */
  auto: number;
  /** From here compaction is forced before the send. */
  hard: number;
  warnRule: ThresholdRule;
  autoRule: ThresholdRule;
  hardRule: ThresholdRule;
}

/** Where a token count stands on the ladder. */
export type Tier = "safe" | "warn" | "auto" | "hard";

/** A text part; `thought: true` marks a model's thought summary. */
export interface TextPart { text: string; thought?: boolean; thoughtSignature?: string }
/** A tool call requested by the model. */
export interface FunctionCallPart {
  functionCall: { id?: string; name: string; args?: Record<string, JsonValue> };
  thoughtSignature?: string;
}
/** A tool result; `parts` may carry media returned by the tool. */
export interface FunctionResponsePart {
  functionResponse: { id?: string; name: string; response?: Record<string, JsonValue>; parts?: Part[] };
}
/** An image or document sent inline (base64). */
export interface InlineDataPart { inlineData: { mimeType: string; data: string } }
/** An image or document by reference. */
export interface FileDataPart { fileData: { mimeType: string; fileUri: string } }
/** Any other part kind: tolerated, counted by its JSON text. */
export type UnknownPart = { [key: string]: JsonValue };
/** One part of a message (Gemini `Part`). */
export type Part = TextPart | FunctionCallPart | FunctionResponsePart | InlineDataPart | FileDataPart | UnknownPart;
/** One message (Gemini `Content`). `"assistant"` is read as `"model"`. */
export interface Content { role: "user" | "model" | (string & {}); parts: Part[] }

/** Plain JSON data. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * Which estimator counts tokens: the spec's rule (`"reference"`: characters ÷ 4, JSON ÷ 2), or character
 * classes with fitted weights, unbiased (`"calibrated"`) or leaning high so it rarely under-counts (`"conservative"`).
 */
export type Estimator = "reference" | "calibrated" | "conservative";

/** Which tokenizer the calibrated estimators imitate; `"universal"` when the model's is unknown. */
export type TokenizerFamily =
  | "universal" | "o200k" | "cl100k" | "claude" | "qwen" | "gemini" | "llama3" | "deepseek";

/** The message shape a history is in (default `"gemini"`). */
export type MessageFormat = "gemini" | "openai" | "anthropic" | "ai-sdk" | "langchain" | "openai-responses";

/** What `modelLimits` returns. */
export interface ModelLimits {
  /** The context window, in tokens (131,072 for an unknown model). */
  window: number;
  /** The model's output limit, or `null` when none is published. */
  maxOutputTokens: number | null;
  /** Whether the model is in the table. */
  known: boolean;
  /** The table's family the id matched. */
  family?: string;
  /** For an unknown model: that the fallback is used. */
  warning?: string;
}

/** Options for token estimation. */
export interface EstimateOptions {
  /**
   * The messages' shape: `"gemini"` (default), `"openai"`, `"anthropic"`, `"ai-sdk"`,
   * `"langchain"` (LangChain message instances or their JSON; the library's own
   * messages come back as LangChain's serialised form, `{ lc, type, id, kwargs }`,
   * which LangChain's message reducers revive) or `"openai-responses"` (Responses
   * API input items, and the Agents SDK's).
   */
  format?: MessageFormat;
  /** Tokens per image or document (default 1 600). */
  imageTokenEstimate?: number;
  /** Which estimator (default `"reference"` for the estimate functions). */
  estimator?: Estimator;
  /** The tokenizer family for the calibrated estimators (default `"universal"`). */
  tokenizer?: TokenizerFamily;
}

/** A context tip. */
export interface Tip {
  id: "context-warn" | "context-high" | "context-critical";
  text: string;
  priority: number;
  cooldownPrompts: number;
  tier: Tier;
}

/** What tip selection looks at. */
export interface TipContext {
  lastPromptTokenCount: number;
  /** Without it (and without `thresholds`) no context tip is shown. */
  contextWindowSize?: number;
  /** If absent, derived from `contextWindowSize`. */
  thresholds?: Thresholds;
  sessionPromptCount?: number;
  /** Tip id → the session prompt count when it was last shown. */
  lastShown?: Record<string, number>;
}

/** The `/context` data and the usage indicator. */
export interface ContextReport {
  tokens: number;
  thresholds: Thresholds;
  tier: Tier;
  /** `tokens / window × 100`. */
  percentUsed: number;
  /** Tokens left before `auto` (0 at or past it). */
  tokensUntilAuto: number;
  /** `warn <= tokens < auto`: show the footer indicator. */
  showFooter: boolean;
}

/** A settings file as parsed JSON; keys nested or dotted. */
export interface SettingsFile {
  chatCompression?: { imageTokenEstimate?: number; /** @deprecated removed: ignored with a warning */ contextPercentageThreshold?: number };
  compaction?: { excludeMessages?: number; excludeContextWindowPercent?: number };
  "chatCompression.imageTokenEstimate"?: number;
  /** @deprecated removed: ignored with a warning */
  "chatCompression.contextPercentageThreshold"?: number;
  "compaction.excludeMessages"?: number;
  "compaction.excludeContextWindowPercent"?: number;
  [key: string]: JsonValue | undefined;
}

/** The settings this library reads, defaults filled in. */
export interface Settings {
  imageTokenEstimate: number;
  excludeMessages: number;
  excludeContextWindowPercent: number;
}

/** Result of `loadSettings`. */
export interface LoadedSettings { settings: Settings; warnings: string[] }

/** Stable codes of `CompactionError`. */
export type CompactionErrorCode =
  | "INVALID_WINDOW" | "INVALID_ARGUMENT" | "INVALID_CONTENT" | "INVALID_SETTINGS"
  | "INVALID_STATE" | "BUSY" | "STALE_REQUEST" | "INVALID_ANSWER";

/** Every error this library throws: `name` is `"CompactionError"`. */
export interface CompactionError extends Error {
  name: "CompactionError";
  code: CompactionErrorCode;
  /** The host's own error: what its callback threw, or what reading its value (a getter, `toJSON`, a proxy) threw. */
  cause?: unknown;
}

/** Options of `new ChatCompactor(options)`. Unknown keys are rejected. */
export interface ChatCompactorOptions {
  /** The model's context window, in tokens (≥ 1); may be left out when `model` is given. */
  window?: number;
  /** A model id (`"gpt-4o"`, `"claude-sonnet-4-5"`, …): sets `window` and `maxOutputTokens` from the library's table (`modelLimits`); explicit values win. */
  model?: string;
  /**
   * The messages' shape: `"gemini"` (default), `"openai"`, `"anthropic"`, `"ai-sdk"`,
   * `"langchain"` (LangChain message instances or their JSON; the library's own
   * messages come back as LangChain's serialised form, `{ lc, type, id, kwargs }`,
   * which LangChain's message reducers revive) or `"openai-responses"` (Responses
   * API input items, and the Agents SDK's).
   */
  format?: MessageFormat;
  /** Non-forced failures in a row so far (default 0; the breaker opens at 3). */
  consecutiveFailures?: number;
  /** @deprecated pass `consecutiveFailures`: true maps to 3, false to 0 (warns once). */
  hasFailedCompressionAttempt?: boolean;
  /** Tokens per image or document (default 1 600). */
  imageTokenEstimate?: number;
  /** Which estimator counts tokens for the thresholds (default `"conservative"`: it rarely under-counts). */
  estimator?: Estimator;
  /** The tokenizer family of the model (default: the family of `model` — gpt-4o/4.1/5 and o-series → `"o200k"`, gpt-4/3.5 → `"cl100k"`, claude → `"claude"`, gemini/gemma → `"gemini"`, qwen → `"qwen"`, llama 3 → `"llama3"`, deepseek → `"deepseek"` — else `"universal"`). */
  tokenizer?: TokenizerFamily;
  /** Recent user/model pairs kept verbatim (default 2). */
  excludeMessages?: number;
  /** Percent of the window kept as recent messages (default 2). */
  excludeContextWindowPercent?: number;
  /** Replaces the default compaction prompt. */
  systemPrompt?: string;
  /** Appended to the compaction prompt on every run. */
  extraInstructions?: string;
  /**
   * The model's output limit, in tokens (a whole number ≥ 1; default: none). The summary call's
   * `maxOutputTokens` is the smallest of 20 000, this and what the window leaves; the ladder keeps
   * its 20 000 reserve whatever this is. Set it for models whose limit is below 20 000 (gpt-4o:
   * 16 384), or every summary call is rejected by the provider. `setWindow(window, limit)` changes it.
   */
  maxOutputTokens?: number;
  /**
   * Before summarizing, replace the tool outputs older than the kept tail with a one-line marker
   * (default false). When that alone brings the prompt below `warn`, no summary call is made:
   * the result is COMPRESSED with `method: "cleared"`.
   */
  clearToolOutputs?: boolean;
  /**
   * What the provider counts in every prompt besides the messages (system prompt, tool schemas), in
   * tokens. The gap between the provider's count and the estimate of the history is this fixed part
   * plus the estimator's error, which scales with the history and goes away with it on a compaction
   * (the usage-gap model; docs/guides/ai-sdk.md). Default: none declared, the whole gap scales.
   * `setOverhead` changes it; the AI SDK adapter sets it from each call's system prompt and tools.
   */
  overheadTokens?: number;
  /**
   * `"ledger"`: when a forced run fails (the callback threw or rejected; the summary was empty,
   * truncated, unusable or inflating) and the next send would not fit, compact without a model:
   * the replaced part becomes the library's own record (the previous summary, the files changed,
   * the user's own words, a line saying the summary model was unavailable). The result is
   * COMPRESSED with `method: "ledger"` and the summarizer's failure as `cause`. Default `"none"`.
   */
  fallback?: "none" | "ledger";
  /** What compaction records from the replaced messages beside the model's summary (on by default). */
  ledger?: LedgerOptions;
}

/**
 * The ledger: facts a program can read from the replaced messages, written after the model's
 * summary in a section marked as recorded by compaction — the files tool calls created, wrote,
 * edited, moved or deleted (with the last operation), and the user's own words (newest first,
 * within a budget). The name lists are added to the library's own (`write_file`, `edit`,
 * `apply_patch`, `str_replace_based_edit_tool`, … ; `path`, `file_path`, `filePath`, `target`, …)
 * and checked before them; names compare loosely (case, `_` and `-` ignored).
 *
 * @example
 * ```ts
 * new ChatCompactor({ window: 128_000, ledger: { written: ["save_document"], pathArguments: ["doc"] } });
 * new ChatCompactor({ window: 128_000, ledger: { enabled: false } }); // no ledger, summaryCheck null
 * ```
 */
export interface LedgerOptions {
  /** Whether compaction adds a ledger at all (default true). */
  enabled?: boolean;
  /** Tools that create the files in their path arguments. */
  created?: string[];
  /** Tools that write whole files. */
  written?: string[];
  /** Tools that edit files. */
  edited?: string[];
  /** Tools that move a source to a destination. */
  moved?: string[];
  /** Tools that delete files. */
  deleted?: string[];
  /** Tools whose `command` argument says the operation (`str_replace_based_edit_tool`). */
  commandTools?: string[];
  /** Tools whose arguments hold a patch (`*** Update File: x`, `+++ b/x`). */
  patchTools?: string[];
  /** Arguments that name the file a tool changes. */
  pathArguments?: string[];
  /** Arguments that name where a move starts. */
  sourceArguments?: string[];
  /** Arguments that name where a move ends. */
  destinationArguments?: string[];
  /** Tokens the user's words may take (≥ 0); default 2% of the window, between 512 and 4 096. */
  userWordsBudget?: number;
}

/**
 * What the model's summary has of what the prompt asked: each required section (the prompt's
 * `## ` headings; for the default prompt User intent and requirements, Task status, Files,
 * Decisions and constraints, Next steps) → whether the summary has it as a heading, a bold line
 * or a label; and the ledger's files the summary does not name. The ledger fills in what is
 * missing in any case: this is for a host that logs or retries.
 *
 * @example
 * ```ts
 * if (result.summaryCheck && result.summaryCheck.missingFiles.length > 0) {
 *   console.info("the summary left out", result.summaryCheck.missingFiles, "(the ledger keeps them)");
 * }
 * ```
 */
export interface SummaryCheck {
  sections: Record<string, boolean>;
  missingFiles: string[];
}

/** What `save()` returns and `ChatCompactor.restore` takes: plain JSON. */
export interface SavedState {
  version: 1;
  window: number;
  options: {
    imageTokenEstimate: number; estimator: Estimator; tokenizer: TokenizerFamily;
    excludeMessages: number; excludeContextWindowPercent: number;
    systemPrompt: string | null; extraInstructions: string | null;
    /** The ledger options as given (empty lists left out); `enabled` always written. */
    ledger: LedgerOptions & { enabled: boolean };
    /** Written only when set. */
    maxOutputTokens?: number;
    /** Written only when true. */
    clearToolOutputs?: boolean;
    /** Written only when not `"gemini"`. */
    format?: MessageFormat;
    /** Written only when set. */
    overheadTokens?: number;
    /** Written only when `"ledger"`. */
    fallback?: "ledger";
  };
  consecutiveFailures: number;
  lastPromptTokenCount: number;
  nextRequestId: number;
  /**
   * The last compaction, for `reapply` (written once there is one): the prefix it replaced, as
   * `[message count, fingerprint]`, and the head that replaced it, in the chat's message format.
   */
  compaction?: { replaced: [number, string]; head: object[] };
  /** The prompt the last usage measured, as `[message count, fingerprint]` (written once known). */
  anchor?: [number, string];
  /** The prompt being sent, as `[message count, fingerprint]` (written between a check and its usage). */
  sending?: [number, string];
  /**
   * How the fingerprints above were made (written with them): 2, a walk over each message's JSON
   * value. A state without it that has them (written before) is read as well: its fingerprints
   * are of each message's JSON text.
   */
  fingerprints?: 2;
}

/** A provider's usage object: Gemini `usageMetadata`, OpenAI `usage`, Anthropic `usage`, or a wrapper holding one. */
/** A count as the SDKs declare it: a number, or `null` / absent. */
type Count = number | null | undefined;

/**
 * A provider's usage object, as its SDK declares it (nulls are absent
 * values): Gemini `usageMetadata`, OpenAI `usage` (chat or Responses),
 * Anthropic `usage`, the AI SDK's `LanguageModelUsage` — or a whole response
 * holding one (`{ usage }`, `{ usageMetadata }`, the AI SDK's `{ totalUsage }`).
 * Reasoning / thinking tokens of the answer are not counted into the next prompt.
 */
export type UsageReport =
  | { promptTokenCount?: Count; candidatesTokenCount?: Count; thoughtsTokenCount?: Count; totalTokenCount?: Count; cachedContentTokenCount?: Count }
  | { prompt_tokens?: Count; completion_tokens?: Count; total_tokens?: Count; completion_tokens_details?: { reasoning_tokens?: Count } | null; prompt_tokens_details?: { cached_tokens?: Count } | null }
  | { input_tokens?: Count; output_tokens?: Count; total_tokens?: Count; output_tokens_details?: { reasoning_tokens?: Count; thinking_tokens?: Count } | null; cache_creation_input_tokens?: Count; cache_read_input_tokens?: Count }
  | { inputTokens?: Count; outputTokens?: Count; totalTokens?: Count; reasoningTokens?: Count; cachedInputTokens?: Count; outputTokenDetails?: { reasoningTokens?: Count } | null; inputTokenDetails?: object | null }
  | { usageMetadata?: UsageReport | null }
  | { usage?: UsageReport | null }
  | { totalUsage?: UsageReport | null };

/** The counts read from a usage object: only those it carried. */
export interface Usage { inputTokens?: number; outputTokens?: number; thoughtsTokens?: number; totalTokens?: number }

/** What `reportUsage` took. */
export interface UsageUpdate {
  /** Whether a prompt size could be taken. */
  taken: boolean;
  lastPromptTokenCount: number;
  usage: Usage;
  /** Fields present but ignored, and why. */
  ignored: string[];
}

/**
 * The summarization call, provider-neutral. Gemini: `systemInstruction`, `contents`, `config` as is.
 * OpenAI-compatible: a system message, then the contents as messages; `max_tokens` = `maxOutputTokens`, no reasoning.
 * Anthropic: `system`, `messages`, `max_tokens` = `maxOutputTokens`, no `thinking`.
 * `maxOutputTokens` is the smallest of 20 000, the chat's `maxOutputTokens` and what the window leaves; the request's
 * input fits the window beside it. A later request of the same run opens with the summary so far.
 */
export interface SummaryRequest {
  systemInstruction: string;
  contents: Content[];
  config: { maxOutputTokens: number; thinkingConfig: { includeThoughts: false } };
}

/** The host's answer: the summary text, the provider's stop reason, and the call's usage. */
export interface SummaryAnswer { text: string; finishReason?: string | null; usage?: UsageReport | null }

/** What `summarize` gets beside the request. */
export interface SummarizeContext {
  /** Aborts when the run is aborted (your `signal`, or one the library makes): pass it to your HTTP call. */
  signal: AbortSignal;
}

/**
 * The host's side query: runs `request` through a model. A thrown error or rejection is a failed run. One run may call
 * it several times, one call after the other (`CompactionResult.summaryCalls`).
 */
export type Summarize = (request: SummaryRequest, context: SummarizeContext) => Promise<SummaryAnswer | string> | SummaryAnswer | string;

/** The library's constants, from `ladderConstants()`. */
export interface LadderConstants {
  /** `auto` is at least `pct × window` (0.7). */
  pct: number;
  /** `warn` is at least `(pct − warnPctOffset) × window` (0.1). */
  warnPctOffset: number;
  /** The summarization call's `maxOutputTokens` (20 000). */
  compactMaxOutputTokens: number;
  /** Reserved for the summary: `effectiveWindow = window − summaryReserve` (20 000). */
  summaryReserve: number;
  /** `auto` is at least `effectiveWindow − autocompactBuffer` (13 000). */
  autocompactBuffer: number;
  /** `warn` is at least `auto − warnBuffer` (20 000). */
  warnBuffer: number;
  /** `hard` is at least `effectiveWindow − hardBuffer` (3 000). */
  hardBuffer: number;
  /** Non-forced failures in a row that open the breaker (3). */
  maxConsecutiveFailures: number;
  /** Tokens per image or document when not set (1 600). */
  defaultImageTokenEstimate: number;
  /** The tag the summary message opens with. */
  summaryOpenTag: string;
  /** The tag the summary message closes with. */
  summaryCloseTag: string;
  /** The model's acknowledgement that follows the summary. */
  acknowledgement: string;
  /** The message that bridges the summary to the kept messages. */
  bridge: string;
}

/** What `reapply` found and made. */
export interface Reapplied<M extends object = Content> {
  /** The prompt with the last compaction applied: its head, then your own objects. */
  history: M[];
  /** `none`: no compaction to re-apply; `applied`; `current`: it was applied already; `diverged`: a new or edited conversation. */
  match: "none" | "applied" | "current" | "diverged";
  /** How many first messages of `history` the last reported usage measured; null when none. */
  covered: number | null;
}

/** Options of `beforeSend`. */
export interface BeforeSendOptions {
  signal?: AbortSignal;
  /** Declares the call's fixed overhead first, as `setOverhead` does. */
  overhead?: Overhead;
}

/**
 * What a prompt carries besides the messages: a number of tokens, `null` for none, or the call's
 * system prompt and tool schemas, estimated with the chat's estimator.
 */
export type Overhead = number | null | { system?: string | null; tools?: unknown };
/** Options of `compact`. */
export interface CompactOptions { focus?: string; signal?: AbortSignal }

/** The outcome of `beforeSend` or `compact`. */
export interface CompactionResult<M extends object = Content> {
  /** A `CompressionStatus` number. */
  status: CompressionStatus;
  statusName: "COMPRESSED" | "INFLATED" | "TOKEN_COUNT_ERROR" | "EMPTY_SUMMARY" | "NOOP" | "OUTPUT_TRUNCATED" | "SUMMARIZER_FAILED" | "ABORTED";
  /** COMPRESSED: the new history (summary, acknowledgement, the kept messages — your own objects). Otherwise the very array you passed. */
  history: M[];
  /** COMPRESSED: the messages the summary replaced — export them before they are gone. Otherwise empty. */
  replaced: M[];
  /** Index in your history where the verbatim tail starts. */
  keptFrom: number;
  trigger: "auto" | "hard" | "manual" | null;
  forced: boolean;
  /**
   * NOOP: why. `messageTooLarge`: the message about to be sent is, alone with the smallest
   * compacted history, at or above `hard` — no compaction can make it fit, so none ran; shorten it
   * (`slimMessage`) or tell the user (`overBy` says by how much). `wouldNotFit`: an auto run could
   * not bring the next prompt below `auto` (the message is too large for that, though below
   * `hard`), so it was not started; send as is.
   */
  noopReason: "belowAuto" | "breakerOpen" | "nothingToCompress" | "messageTooLarge" | "wouldNotFit" | null;
  /** With `noopReason: "messageTooLarge"` only: tokens above `hard` of the smallest possible prompt. */
  overBy?: number;
  /** The estimated prompt size the decision was made on. */
  estimate: number;
  tier: Tier;
  originalTokenCount: number;
  newTokenCount: number;
  /** Whether `newTokenCount` comes from the estimator rather than the call's usage. */
  newTokenCountEstimated: boolean;
  consecutiveFailures: number;
  /** The summary message's text (the model's summary, then the ledger's section); null when none was made. */
  summary: string | null;
  /** COMPRESSED by a summary and INFLATED, with the ledger on: what the model's summary has of what was asked. Otherwise null (also for `method: "cleared"`). */
  summaryCheck: SummaryCheck | null;
  /**
   * Summary calls this run made (answered, failed or aborted): 0 for NOOP and for a run that only
   * cleared tool outputs; more than 1 when the part to summarize was larger than one request can
   * hold and was summarized in successive chunks, each request carrying the summary so far.
   */
  summaryCalls: number;
  /**
   * How the run compacts: by summary calls, by clearing old tool outputs without a call, or by the
   * library's own record when the summarizer failed (`fallback: "ledger"`); null for NOOP.
   */
  method: "summarized" | "cleared" | "ledger" | null;
  /**
   * SUMMARIZER_FAILED, and COMPRESSED with `method: "ledger"`: what your callback threw or rejected
   * with, or a `CompactionError` (`INVALID_ANSWER`) saying why the summary was unusable.
   */
  cause?: unknown;
}
