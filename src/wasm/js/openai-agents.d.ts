// ---- compaction-core/openai-agents: a compacting Session and a per-call guard for @openai/agents. ----
// Structural types only: nothing is imported from @openai/agents.

import type { ChatCompactorOptions, CompactionResult, Summarize } from "../bundler/compaction_core.js";

/** An item of an Agents SDK session (`AgentInputItem`): Responses items in the SDK's spelling. */
export type AgentItem = { [key: string]: unknown };

/** The Agents SDK's `Session` interface. */
export interface SessionLike {
  getSessionId(): Promise<string>;
  getItems(limit?: number): Promise<AgentItem[]>;
  addItems(items: AgentItem[]): Promise<void>;
  popItem(): Promise<AgentItem | undefined>;
  clearSession(): Promise<void>;
}

/** The part of an OpenAI client the summarizer calls (`client.responses.create`). */
export interface ResponsesClientLike {
  responses: { create(body: object, options?: { signal?: AbortSignal }): PromiseLike<object> };
}

/** Options shared by the session and the guard. */
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
  session?: SessionLike;
}

/**
 * A `Session` for `run(agent, input, { session })` that keeps its items within the window: when they are read
 * before a run, a list over the compaction threshold is compacted and written back to the wrapped session.
 * A session is read once per run and sees no usage: pair it with `compactionGuard` for the model calls of a run.
 * @example
 * const session = new CompactionSession({ model: "gpt-4o-mini", summarizer: { client: new OpenAI(), model: "gpt-4o-mini" } });
 * await run(agent, "Refactor src/", { session, callModelInputFilter: compactionGuard({ model: "gpt-4o-mini", summarizer: { client, model: "gpt-4o-mini" } }) });
 */
export class CompactionSession implements SessionLike {
  constructor(options: CompactionSessionOptions);
  getSessionId(): Promise<string>;
  getItems(limit?: number): Promise<AgentItem[]>;
  addItems(items: AgentItem[]): Promise<void>;
  popItem(): Promise<AgentItem | undefined>;
  clearSession(): Promise<void>;
}

/** What a `callModelInputFilter` receives and returns (the SDK's `ModelInputData`). */
export interface ModelInputDataLike {
  input: AgentItem[];
  instructions?: string;
}

/**
 * A `callModelInputFilter` (run option or `RunConfig`) that keeps every model call of a run within the window:
 * the instructions and the agent's tool schemas counted, the input compacted when due, the compaction
 * re-applied to the run's later calls without another summary.
 */
export function compactionGuard(options: AgentsCompactionOptions): (args: { modelData: ModelInputDataLike; agent: unknown; context: unknown }) => Promise<ModelInputDataLike>;
