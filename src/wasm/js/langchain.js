// Compaction for LangChain agents (`compaction-core/langchain`): one
// middleware in `createAgent({ middleware: [compactionMiddleware(options)] })`.
// Plain JS; nothing from langchain is imported at run time. What LangChain
// must provide it provides through its own coercion: the middleware returns
// `{ type: "remove", id: "__remove_all__" }` (which LangGraph's messages
// reducer turns into `RemoveMessage(REMOVE_ALL_MESSAGES)`) and the library's
// own messages in LangChain's serialised form (`{ lc, type, id, kwargs }`,
// revived by the same reducer); the kept messages are the state's own
// instances. So it works with any @langchain/core 1.x without a second copy
// of it in the bundle, and without a peer dependency to keep in step.
//
// At every model call (`beforeModel`, which sees the state's messages
// without the system prompt):
// 1. finds the conversation's compactor (by `thread_id`, else by its first
//    message's id);
// 2. reports the usage of each new `AIMessage` once, by id (an old
//    AIMessage kept after a compaction would otherwise report its
//    pre-compaction size again): the provider's count of the last prompt,
//    system prompt and tool schemas included;
// 3. checks the call with what came after that AIMessage as pending (the
//    user's message, or every ToolMessage of one step), compacting through
//    the summarizer when due — and when the summarizer fails past `hard`,
//    through the library's own record (`fallback: "ledger"`, on by default
//    here: a tool loop cannot survive a refused request);
// 4. on a compaction, replaces the state's messages: remove all, then the
//    compacted list.
import { ChatCompactor, CompressionStatus, modelLimits } from "compaction-core";
import { langchainSummarizer } from "./summarizers.js";

const REMOVE_ALL = { type: "remove", id: "__remove_all__" };
/** Conversations a middleware keeps (least recently used beyond this are freed). */
const MAX_CONVERSATIONS = 256;
let unique = 0;

/** A message's LangChain type (`human`, `ai`, `tool`, `system`), from an instance or a plain message. */
function typeOf(message) {
  if (message === null || typeof message !== "object") return undefined;
  // v1 instances and plain messages carry `type`; serialised ones their class.
  if (typeof message.type === "string" && message.type !== "constructor") return message.type;
  if (message.lc === 1 && Array.isArray(message.id)) {
    const cls = String(message.id[message.id.length - 1]).replace(/Chunk$/, "");
    return { HumanMessage: "human", AIMessage: "ai", ToolMessage: "tool", SystemMessage: "system" }[cls];
  }
  return undefined;
}

/** A message's fields (an instance's own, or the kwargs of its JSON). */
function fields(message) {
  return message && message.lc === 1 && message.kwargs ? message.kwargs : message;
}

/** The tokenizer family the library imitates for a model id (`o200k` for OpenAI's, `claude`, `qwen`), or undefined. */
export function tokenizerFor(name) {
  if (typeof name !== "string") return undefined;
  const id = name.toLowerCase().replace(/^[a-z-]+[:/]/, "");
  if (/^(gpt-4o|gpt-4\.1|gpt-5|o[1-9]|chatgpt|gpt-oss)/.test(id)) return "o200k";
  if (/^(gpt-4|gpt-3\.5)/.test(id)) return "cl100k";
  if (/^claude/.test(id)) return "claude";
  if (/qwen/.test(id)) return "qwen";
  return undefined;
}

/**
 * The compactor's limits: `window` when given; the model's profile
 * (`maxInputTokens`, `maxOutputTokens`) or the library's table by its name;
 * the tokenizer family its name implies.
 */
function limitsOf(model, window) {
  const limits = {};
  let name;
  if (typeof model === "string") name = model;
  else if (model && typeof model === "object") {
    name = typeof model.model === "string" ? model.model : typeof model.modelName === "string" ? model.modelName : undefined;
    let profile;
    try {
      profile = model.profile;
    } catch {
      profile = undefined;
    }
    if (profile && typeof profile.maxInputTokens === "number") limits.window = profile.maxInputTokens;
    if (profile && typeof profile.maxOutputTokens === "number") limits.maxOutputTokens = profile.maxOutputTokens;
  }
  if (name !== undefined && limits.window === undefined && modelLimits(name).known) limits.model = name;
  if (typeof window === "number") limits.window = window;
  if (limits.window === undefined && limits.model === undefined) {
    throw new TypeError(
      "compactionMiddleware: options.window (the model's context window, in tokens) or options.model (a chat model with a profile, or a model id the library knows) is required",
    );
  }
  const tokenizer = tokenizerFor(name);
  if (tokenizer) limits.tokenizer = tokenizer;
  return limits;
}

/** The `summarize` callback: a LangChain chat model, or the host's own function. */
function summarizerOf(summarizer, maxOutputTokens) {
  if (typeof summarizer === "function") return summarizer;
  if (summarizer && typeof summarizer === "object" && typeof summarizer.invoke === "function") {
    return langchainSummarizer(summarizer, maxOutputTokens === undefined ? {} : { maxOutputTokens });
  }
  throw new TypeError("compactionMiddleware: options.summarizer must be a LangChain chat model or a summarize function (request, { signal }) => answer");
}

/**
 * The middleware. `options`: `summarizer` (a chat model or a summarize
 * function), `window` or `model` (a chat model whose profile or name gives
 * the window), `summaryMaxOutputTokens` (the summarizer's own output limit),
 * `onCompaction(result)` (told of every run that did something, compacted
 * or failed), and any `ChatCompactor` option (`excludeMessages`,
 * `estimator`, `tokenizer`, …).
 */
export function compactionMiddleware(options) {
  if (options === null || typeof options !== "object") {
    throw new TypeError("compactionMiddleware: options must be an object { summarizer, window | model, ... }");
  }
  const { summarizer, model, window, summaryMaxOutputTokens, onCompaction, name, ...compactorOptions } = options;
  const summarize = summarizerOf(summarizer, summaryMaxOutputTokens);
  const limits = limitsOf(model, window);
  if (onCompaction !== undefined && typeof onCompaction !== "function") {
    throw new TypeError("compactionMiddleware: options.onCompaction must be a function");
  }
  const chatOptions = { fallback: "ledger", ...limits, ...compactorOptions, format: "langchain" };
  // Checked now, so a bad option fails at createAgent, not at the first call.
  new ChatCompactor(chatOptions).free();
  /** key → { chat, reported: Set of AIMessage ids whose usage was reported } */
  const conversations = new Map();

  function conversation(key) {
    let entry = conversations.get(key);
    if (entry) {
      conversations.delete(key);
    } else {
      entry = { chat: new ChatCompactor(chatOptions), reported: new Set() };
      if (conversations.size >= MAX_CONVERSATIONS) {
        const [oldest, old] = conversations.entries().next().value;
        conversations.delete(oldest);
        old.chat.free();
      }
    }
    conversations.set(key, entry);
    return entry;
  }

  async function beforeModel(state, runtime) {
    const messages = state?.messages;
    if (!Array.isArray(messages) || messages.length === 0) return undefined;
    const thread = runtime?.configurable?.thread_id;
    const key = thread !== undefined && thread !== null ? `thread:${String(thread)}` : `first:${String(fields(messages[0])?.id)}`;
    const entry = conversation(key);
    const { chat, reported } = entry;

    // The last AIMessage with usage: its prompt and answer are what the
    // provider counted; what follows it is pending.
    let last = -1;
    for (let i = messages.length - 1; i >= 0; i--) {
      if (typeOf(messages[i]) === "ai") {
        last = i;
        break;
      }
    }
    const ai = last >= 0 ? fields(messages[last]) : undefined;
    const usage = ai?.usage_metadata;
    const id = ai?.id;
    if (usage && typeof usage.input_tokens === "number" && id !== undefined && !reported.has(id)) {
      chat.reportUsage({ input_tokens: usage.input_tokens, output_tokens: typeof usage.output_tokens === "number" ? usage.output_tokens : 0 });
    }
    // Every AIMessage now in the state has been seen: none reports again.
    reported.clear();
    for (const m of messages) if (typeOf(m) === "ai" && fields(m)?.id !== undefined) reported.add(fields(m).id);

    // Everything after the last AIMessage is what its usage did not see.
    const split = last >= 0 && last < messages.length - 1 ? last + 1 : messages.length - 1;
    const pending = messages.slice(split);
    const history = messages.slice(0, split);
    const result = await chat.beforeSend(history, pending, summarize, runtime?.signal ? { signal: runtime.signal } : undefined);
    if (result.status !== CompressionStatus.COMPRESSED) {
      if (result.status !== CompressionStatus.NOOP && onCompaction) onCompaction(result);
      return undefined;
    }
    // The library's messages get ids, so the conversation is found again by
    // its first message when there is no thread id.
    const next = [...result.history, ...pending].map((m) => {
      if (m && m.lc === 1 && m.kwargs && m.kwargs.id === undefined) {
        return { ...m, kwargs: { ...m.kwargs, id: `compaction-${Date.now().toString(36)}-${(unique++).toString(36)}` } };
      }
      return m;
    });
    if (thread === undefined || thread === null) {
      conversations.delete(key);
      conversations.set(`first:${String(fields(next[0])?.id)}`, entry);
    }
    if (onCompaction) onCompaction(result);
    return { messages: [REMOVE_ALL, ...next] };
  }

  return {
    // What langchain's createMiddleware returns: its brand (a global symbol) and the hooks.
    [Symbol.for("AgentMiddleware")]: true,
    name: typeof name === "string" ? name : "CompactionMiddleware",
    beforeModel,
  };
}
