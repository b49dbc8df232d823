// ---- compaction-core/openai-agents: a compacting Session and a per-call guard for @openai/agents. ----
// Types only from @openai/agents (the host's own); nothing is imported from it at run time.

import type { AgentInputItem, CallModelInputFilter, Session } from "@openai/agents";
import type { ChatCompactorOptions, CompactionResult, Summarize } from "../bundler/compaction_core.js";

/** The part of an OpenAI client the summarizer calls (`client.responses.create`). */
export interface ResponsesClientLike {
  responses: { create(body: object, options?: { signal?: AbortSignal }): PromiseLike<object> };
}

/** Options shared by the session and the guard, and any `ChatCompactor` option (`fallback` is `"ledger"` unless given). */
export interface AgentsCompactionOptions extends Omit<ChatCompactorOptions, "window" | "model" | "format"> {
  /** Who writes the summary: a summarize function, or an OpenAI client and model (the Responses API, reasoning turned down, capped). */
  summarizer: Summarize | { client: ResponsesClientLike; model: string; maxOutputTokens?: number };
  /** The agent model's context window, in tokens. Either this or `model`. */
  window?: number;
  /** The agent's model id, for the library's table (window, output limit). */
  model?: string;
  /** Told of every check that did something: a compaction, or a failed one (the items then unchanged). */
  onCompaction?: (result: CompactionResult<object>) => void;
}

/** Options of `new CompactionSession(options)`. */
export interface CompactionSessionOptions extends AgentsCompactionOptions {
  /** The session whose items are kept within the window (default: items in memory). */
  session?: Session;
}

/**
 * A `Session` for `run(agent, input, { session })` that keeps its items within the window: when they are read
 * before a run, a list over the compaction threshold is compacted and written back to the wrapped session.
 * A session is read once per run and sees no usage: pair it with `compactionGuard` for the model calls of a run.
 * @example
 * const session = new CompactionSession({ model: "gpt-4o-mini", summarizer: { client: new OpenAI(), model: "gpt-4o-mini" } });
 * await run(agent, "Refactor src/", { session, callModelInputFilter: compactionGuard({ model: "gpt-4o-mini", summarizer: { client, model: "gpt-4o-mini" } }) });
 */
export class CompactionSession implements Session {
  constructor(options: CompactionSessionOptions);
  getSessionId(): Promise<string>;
  getItems(limit?: number): Promise<AgentInputItem[]>;
  addItems(items: AgentInputItem[]): Promise<void>;
  popItem(): Promise<AgentInputItem | undefined>;
  clearSession(): Promise<void>;
}

/**
 * A `callModelInputFilter` (run option or `RunConfig`) that keeps every model call of a run within the window:
 * the instructions and the agent's tool schemas counted, the input compacted when due, the compaction
 * re-applied to the run's later calls without another summary.
 */
export function compactionGuard(options: AgentsCompactionOptions): CallModelInputFilter;
