// Compaction for the OpenAI Agents SDK (`compaction-core/openai-agents`):
// `CompactionSession`, a `Session` for `run(agent, input, { session })` that
// wraps any session (its own in-memory list by default) and keeps its items
// within the window; and `compactionGuard`, a per-call `callModelInputFilter`
// for what a session cannot do. Plain JS; nothing from @openai/agents is
// imported (a Session is an interface: getSessionId, getItems, addItems,
// popItem, clearSession).
//
// A session is read once before a run and written after it: it cannot act
// between the model calls of one run, and it sees no usage. So the session
// compacts the stored items when they are read (the estimate only), and the
// guard checks every model call of a run (the run's input items, the
// agent's instructions and tool schemas counted as pinned), compacting that
// call's input when due and re-applying its compaction to the later calls
// of the run, which the SDK rebuilds from the uncompacted items.
import { ChatCompactor, CompressionStatus, modelLimits } from "compaction-core";
import { responsesSummarizer } from "./summarizers.js";

const FORMAT = "openai-responses";
let sessions = 0;

/** The session used when none is given: items in memory. */
class MemoryItems {
  #items = [];
  #id = `compaction-session-${Date.now().toString(36)}-${(sessions++).toString(36)}`;
  async getSessionId() {
    return this.#id;
  }
  async getItems(limit) {
    return limit === undefined || limit === null ? this.#items.slice() : this.#items.slice(-limit);
  }
  async addItems(items) {
    this.#items.push(...items);
  }
  async popItem() {
    return this.#items.pop();
  }
  async clearSession() {
    this.#items = [];
  }
}

/** The `summarize` callback: a function, or `{ client, model }` for the Responses API. */
function summarizerOf(summarizer, name) {
  if (typeof summarizer === "function") return summarizer;
  if (summarizer && typeof summarizer === "object" && summarizer.client && typeof summarizer.model === "string") {
    const { client, ...options } = summarizer;
    return responsesSummarizer(client, options);
  }
  throw new TypeError(`${name}: options.summarizer must be a summarize function or { client, model } (an OpenAI client and the model that writes the summary)`);
}

/** The compactor's options: the window, or a model id from the library's table, and the tokenizer of OpenAI's models. */
function compactorOptions(name, { window, model, ...rest }) {
  // The ledger fallback on by default: a run cannot survive a refused request.
  const options = { fallback: "ledger", ...rest, format: FORMAT };
  if (typeof model === "string" && modelLimits(model).known) options.model = model;
  if (typeof window === "number") options.window = window;
  if (options.window === undefined && options.model === undefined) {
    throw new TypeError(`${name}: options.window (the model's context window, in tokens) or options.model (a model id the library knows) is required`);
  }
  if (options.tokenizer === undefined && (model === undefined || /^(gpt-4o|gpt-4\.1|gpt-5|o\d|gpt-oss)/.test(model))) options.tokenizer = "o200k";
  // Checked now, so a bad option fails at once, not at the first run.
  new ChatCompactor(options).free();
  return options;
}

/**
 * One check of `items` (the last one pending): the compactor is made for
 * the check from the carried failure count, since no usage reaches a
 * session or a filter and every check estimates the whole list.
 */
async function check(state, options, items, summarize, signal) {
  const chat = new ChatCompactor({ ...options, consecutiveFailures: state.failures });
  try {
    const result = await chat.beforeSend(items.slice(0, -1), items[items.length - 1], summarize, signal ? { signal } : undefined);
    state.failures = chat.consecutiveFailures;
    return result;
  } finally {
    chat.free();
  }
}

/**
 * A `Session` that keeps its items within the window: when the items are
 * read (before each run), a list over the compaction threshold is compacted
 * (the summary, then the kept items as they were stored) and written back to
 * the wrapped session.
 */
export class CompactionSession {
  #session;
  #summarize;
  #options;
  #onCompaction;
  #state = { failures: 0 };

  constructor(options) {
    if (options === null || typeof options !== "object") {
      throw new TypeError("CompactionSession: options must be an object { summarizer, window | model, session? }");
    }
    const { session, summarizer, onCompaction, ...rest } = options;
    if (session !== undefined && (session === null || typeof session.getItems !== "function" || typeof session.addItems !== "function" || typeof session.clearSession !== "function")) {
      throw new TypeError("CompactionSession: options.session must be a Session (getSessionId, getItems, addItems, popItem, clearSession)");
    }
    this.#session = session ?? new MemoryItems();
    this.#summarize = summarizerOf(summarizer, "CompactionSession");
    this.#options = compactorOptions("CompactionSession", rest);
    this.#onCompaction = onCompaction;
  }

  getSessionId() {
    return this.#session.getSessionId();
  }

  async getItems(limit) {
    const items = await this.#session.getItems();
    const kept = await this.#compact(items);
    return limit === undefined || limit === null ? kept : kept.slice(-limit);
  }

  addItems(items) {
    return this.#session.addItems(items);
  }

  popItem() {
    return this.#session.popItem();
  }

  clearSession() {
    return this.#session.clearSession();
  }

  /** Compacts the stored items when due; returns what is stored afterwards. */
  async #compact(items) {
    if (!Array.isArray(items) || items.length < 2) return items;
    const result = await check(this.#state, this.#options, items, this.#summarize);
    if (result.status === CompressionStatus.NOOP) return items;
    this.#onCompaction?.(result);
    if (result.status !== CompressionStatus.COMPRESSED) return items;
    const next = [...result.history, items[items.length - 1]];
    await this.#session.clearSession();
    await this.#session.addItems(next);
    return next;
  }
}

/** A short fingerprint of a list of items (FNV-1a over their JSON). */
function fingerprint(items) {
  const text = JSON.stringify(items);
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return `${text.length}:${(h >>> 0).toString(16)}`;
}

/** The agent's tool schemas as text, counted as part of every call's prompt. */
function toolsText(agent) {
  try {
    const tools = Array.isArray(agent?.tools) ? agent.tools : [];
    if (tools.length === 0) return "";
    return JSON.stringify(tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })));
  } catch {
    return "";
  }
}

/**
 * A `callModelInputFilter` that keeps every model call of a run within the
 * window: the call's input items are checked (the instructions and the tool
 * schemas counted as pinned messages), compacted when due, and a compaction
 * is re-applied (by the fingerprint of the items it replaced, without a
 * summary call) to the later calls, which the SDK builds from the
 * uncompacted items.
 */
export function compactionGuard(options) {
  if (options === null || typeof options !== "object") {
    throw new TypeError("compactionGuard: options must be an object { summarizer, window | model }");
  }
  const { summarizer, onCompaction, ...rest } = options;
  const summarize = summarizerOf(summarizer, "compactionGuard");
  const chatOptions = compactorOptions("compactionGuard", rest);
  const state = { failures: 0 };
  /** Compactions to re-apply: { count, print, replacement } (the last 64). */
  const applied = [];

  return async function callModelInputFilter({ modelData, agent }) {
    let input = Array.isArray(modelData?.input) ? modelData.input : [];
    for (const record of applied) {
      if (input.length > record.count && fingerprint(input.slice(0, record.count)) === record.print) {
        input = [...record.replacement, ...input.slice(record.count)];
      }
    }
    if (input.length < 2) return { ...modelData, input };
    // The instructions and the tool schemas are sent with every call:
    // pinned messages, counted and never summarized, taken out after.
    const pinned = [];
    if (typeof modelData.instructions === "string" && modelData.instructions !== "") pinned.push({ role: "developer", content: modelData.instructions });
    const tools = toolsText(agent);
    if (tools !== "") pinned.push({ role: "developer", content: tools });
    const result = await check(state, chatOptions, [...pinned, ...input], summarize);
    if (result.status !== CompressionStatus.NOOP) onCompaction?.(result);
    if (result.status !== CompressionStatus.COMPRESSED) return { ...modelData, input };
    const history = result.history.slice(pinned.length);
    const keptFrom = result.keptFrom - pinned.length;
    const replacement = history.slice(0, history.length - (input.length - 1 - keptFrom));
    applied.push({ count: keptFrom, print: fingerprint(input.slice(0, keptFrom)), replacement });
    if (applied.length > 64) applied.shift();
    return { ...modelData, input: [...history, input[input.length - 1]] };
  };
}
