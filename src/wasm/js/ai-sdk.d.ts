// ---- compaction-core/ai-sdk: compaction at every model call of the Vercel AI SDK. ----
// Structural types only: nothing is imported from `ai`, so the same declarations fit
// ai@6 (LanguageModelV3) and ai@7 (LanguageModelV4).
import type { ChatCompactorOptions, CompactionResult, SummarizeContext, SummaryAnswer, SummaryRequest } from "../bundler/compaction_core.js";

/** What the wrapper needs of a language model (any AI SDK LanguageModelV2/V3/V4). */
export interface LanguageModelLike {
  readonly specificationVersion: string;
  readonly provider: string;
  readonly modelId: string;
  doGenerate(options: never): PromiseLike<unknown>;
  doStream(options: never): PromiseLike<unknown>;
}

/** A store of conversation states: a `Map`, Redis, Cloudflare KV, a database table. */
export interface CompactionStore {
  get(key: string): unknown | Promise<unknown>;
  /**
   * Writes a state. `previousVersion` is the version this write starts from: a store that can
   * compare-and-set may refuse a stale write by returning `false` (the stored state then wins).
   */
  set(key: string, value: CompactionEntry, previousVersion: number): unknown | Promise<unknown>;
}

/** What the wrapper writes to a store: a conversation's state, or an alias of it. */
export type CompactionEntry = CompactionState | CompactionAlias;

/**
 * Written beside a state (with `previousVersion` 0) when a call compacted: the compacted
 * prompt's own key, which a framework that keeps the compacted messages (ai@7's `prepareStep`)
 * hands back, leads to the conversation's state under `alias`.
 */
export interface CompactionAlias {
  v: 1;
  /** The key the conversation's state is stored under. */
  alias: string;
}

/** What the wrapper stores per conversation (plain JSON). */
export interface CompactionState {
  v: 1;
  /** Increases with every write. */
  version: number;
  /**
   * The version whose write made the compaction the chat holds (0: none yet). A write finds
   * another process's compaction by it: one written since its call read the state stands.
   */
  compactedIn?: number;
  /** The chat's `save()`: window, usage, failures, and the compaction it re-applies. */
  chat: unknown;
}

/** The summarizer: an AI SDK model (called unwrapped, reasoning off, with the cap) or a `summarize` function. */
export type Summarizer = LanguageModelLike | ((request: SummaryRequest, context: SummarizeContext) => Promise<SummaryAnswer | string> | SummaryAnswer | string);

/** Options of `withCompaction`, `compactionMiddleware` and `compactionPrepareStep`. */
export interface CompactionOptions extends Partial<Omit<ChatCompactorOptions, "format">> {
  /** Default: the wrapped model itself, called unwrapped. */
  summarizer?: Summarizer;
  /** Where each conversation's state lives (default: a `Map` in this process). */
  store?: CompactionStore;
  /** The conversation's key; default: a fingerprint of the prompt's opening (system and first user message). */
  key?: (prompt: readonly unknown[]) => string | Promise<string>;
  /**
   * Called after every run that did something (COMPRESSED, or a failure), once its state is in the
   * store: archive `result.replaced` here. A run dropped for another process's compaction of the
   * same conversation (written first) is not reported.
   */
  onCompaction?: (result: CompactionResult<object>) => void | Promise<void>;
  /** Errors the wrapper caught and did not throw (an `onCompaction` that threw, a store that failed after the call). */
  onError?: (error: unknown) => void;
}

/** The context indicator a step's `providerMetadata.compaction` carries. */
export interface ContextIndicator {
  percentUsed: number;
  tier: "safe" | "warn" | "auto" | "hard";
  usedTokens: number;
  maxTokens: number;
  tokensUntilAuto: number;
  lastCompaction: { originalTokenCount: number; newTokenCount: number; method: "summarized" | "cleared" | "ledger" | null } | null;
}

/** A `wrapLanguageModel` middleware (`specificationVersion` "v3" for ai@6, "v4" for ai@7). */
export interface CompactionMiddleware<V extends "v3" | "v4" = "v3"> {
  readonly specificationVersion: V;
  transformParams<P extends { prompt: readonly unknown[] }>(options: { type: "generate" | "stream"; params: P; model: LanguageModelLike }): Promise<P>;
  wrapGenerate<R extends object>(options: { doGenerate: () => PromiseLike<R>; params: object }): Promise<R>;
  wrapStream<R extends { stream: ReadableStream<unknown> }>(options: { doStream: () => PromiseLike<R>; params: object }): Promise<R>;
}

/**
 * `model` with compaction before every model call: the one-line wrap. Works unchanged with
 * `generateText`, `streamText` and `ToolLoopAgent`; keeps the model's `specificationVersion`.
 *
 * @example
 * ```ts
 * const model = withCompaction(openai("gpt-4o-mini"));
 * ```
 */
export function withCompaction<M extends LanguageModelLike>(model: M, options?: CompactionOptions): M;

/** The same as a middleware for `wrapLanguageModel({ model, middleware })`. */
export function compactionMiddleware<V extends "v3" | "v4" = "v3">(options?: CompactionOptions & { specificationVersion?: V }): CompactionMiddleware<V>;

/** A `prepareStep` that returns the step's compacted messages (`system` and `tools` declare the overhead). */
export function compactionPrepareStep(options?: CompactionOptions & { system?: string; tools?: unknown }): {
  <S extends { messages: readonly unknown[]; model: unknown; steps?: readonly { usage?: unknown }[] }>(step: S): Promise<{ messages: S["messages"] }>;
  /** Pass as `onStepFinish` so each step's usage is taken at once. */
  onStepFinish(step: { usage?: unknown }): Promise<void>;
};

/**
 * A `messageMetadata` function for `toUIMessageStreamResponse`: the indicator under `key`
 * ("context") of the assistant message's metadata, from each finished step.
 */
export function contextUsageMetadata(options?: { key?: string; extra?: (options: { part: unknown }) => Record<string, unknown> | undefined }): (options: { part: { type: string; providerMetadata?: unknown } }) => Record<string, unknown> | undefined;

/** The default conversation key of a prompt. */
export function conversationKey(prompt: readonly unknown[]): string;

/** An AI SDK usage object (V3/V4 nested, V2 flat) as provider counts, or null. */
export function usageCounts(usage: unknown): { input_tokens: number; output_tokens: number } | null;
