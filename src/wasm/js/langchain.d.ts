// ---- compaction-core/langchain: compaction as one LangChain agent middleware. ----
// Types only from langchain and @langchain/core (the host's own); nothing is
// imported from them at run time.

import type { AgentMiddleware } from "langchain";
import type { ChatCompactorOptions, CompactionResult, Summarize } from "../bundler/compaction_core.js";

/** The part of a LangChain chat model the middleware uses: `invoke` to summarize; `profile`, `model` for the window. */
export interface LangChainChatModelLike {
  invoke(input: { role: string; content: string }[], options?: { signal?: AbortSignal }): PromiseLike<unknown>;
  profile?: { maxInputTokens?: number; maxOutputTokens?: number } | object;
  model?: string;
  modelName?: string;
  maxTokens?: number;
}

/** Options of `compactionMiddleware`: its own, and any `ChatCompactor` option (`fallback` is `"ledger"` unless given: a tool loop cannot survive a refused request). */
export interface CompactionMiddlewareOptions extends Omit<ChatCompactorOptions, "window" | "model" | "format"> {
  /** Who writes the summary: a LangChain chat model (its output capped per request), or a summarize function. */
  summarizer: LangChainChatModelLike | Summarize;
  /** The agent model's context window, in tokens. Either this or `model`. */
  window?: number;
  /** The agent's chat model (its profile's `maxInputTokens`, or its name in the library's table), or a model id. */
  model?: LangChainChatModelLike | string;
  /** The summarizer model's own output limit, when it is below the request's cap. */
  summaryMaxOutputTokens?: number;
  /** Called with every check that did something: a compaction, or a failed one (the history then unchanged). */
  onCompaction?: (result: CompactionResult<object>) => void;
  /** The middleware's name (default `"CompactionMiddleware"`). */
  name?: string;
}

/**
 * A middleware for `createAgent({ middleware: [...] })` that keeps every model call within the window:
 * at each call (`beforeModel`) it reads the last `AIMessage`'s usage once, checks the pending part (the
 * user's message, or one step's `ToolMessage`s), and when due replaces the state's messages with the
 * compacted list (pinned system messages, the summary, the kept tail as the state's own messages).
 * @example
 * const agent = createAgent({
 *   model: "openai:gpt-4o-mini",
 *   tools: [readFile],
 *   middleware: [compactionMiddleware({ model: "gpt-4o-mini", summarizer: new ChatOpenAI({ model: "gpt-4o-mini" }) })],
 * });
 */
export function compactionMiddleware(options: CompactionMiddlewareOptions): AgentMiddleware;
