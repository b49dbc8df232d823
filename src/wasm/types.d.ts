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

/** Which estimator counts text: the spec's rule (`"reference"`). */
export type Estimator = "reference";

/** Options for token estimation. */
export interface EstimateOptions {
  /** Tokens per image or document (default 1 600). */
  imageTokenEstimate?: number;
  /** Which estimator (default `"reference"`). */
  estimator?: Estimator;
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
  | "INVALID_STATE" | "BUSY" | "STALE_REQUEST";

/** Every error this library throws: `name` is `"CompactionError"`. */
export interface CompactionError extends Error {
  name: "CompactionError";
  code: CompactionErrorCode;
  /** The host's own error, when its callback failed. */
  cause?: unknown;
}
