// Compaction for the Vercel AI SDK (`compaction-core/ai-sdk`): one import and
// one wrap. Plain JS; nothing from `ai` is imported at run time, so it works
// with `ai@6` (LanguageModelV3) and `ai@7` (LanguageModelV4) alike: the
// wrapper keeps the inner model's `specificationVersion` (ai@6 refuses "v4",
// ai@7 takes v2–v4).
//
// At every model call of a tool loop (generateText / streamText with tools
// and stopWhen, ToolLoopAgent) the SDK hands the provider-level prompt over,
// rebuilt uncompacted from the app's messages. For each call the wrapper:
// 1. finds the conversation's state in the store (key: a fingerprint of the
//    prompt's opening, up to its first user message; or `options.key`);
// 2. re-applies the conversation's last compaction (`chat.reapply`: by
//    content fingerprint, no summary call), and declares the call's tool
//    schemas as the prompt's fixed overhead (the usage-gap model);
// 3. checks the call with everything after what the last usage measured as
//    pending (the user's message, or the step's tool results), compacting
//    through the summarizer when due;
// 4. sends the (compacted) prompt, reads the call's usage — from the result,
//    or from the stream's `finish` part — and saves the state.
import { ChatCompactor, slimMessage } from "compaction-core";
import { renderTurns } from "./summarizers.js";

const STATE_VERSION = 1;

/** 64 bits of FNV-1a over a string (two 32-bit lanes), as 16 hex digits. */
function hash(text) {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 13);
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}

/**
 * The conversation a prompt belongs to, without the app's help: its system
 * messages and its first user message. Two conversations that open alike
 * share a key; the state's own fingerprints then tell them apart (a prompt
 * that does not continue the stored one is a new conversation).
 */
export function conversationKey(prompt) {
  const opening = [];
  for (const message of prompt) {
    opening.push(message);
    if (message && message.role === "user") break;
  }
  return `compaction:${hash(JSON.stringify(opening))}`;
}

/** A usage object of the AI SDK (V3/V4 nested, V2 flat) as provider counts; null without an input count. */
export function usageCounts(usage) {
  if (usage === null || typeof usage !== "object") return null;
  const count = (v) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined);
  const nested = (v, key) => (v !== null && typeof v === "object" ? count(v[key]) : count(v));
  const input = nested(usage.inputTokens, "total");
  if (input === undefined) return null;
  const out = usage.outputTokens;
  // Thinking is not sent back: the answer's text is what enters the next prompt.
  const output = (out !== null && typeof out === "object" ? count(out.text) ?? count(out.total) : count(out)) ?? 0;
  return { input_tokens: input, output_tokens: output };
}

/** A provider-level prompt message: user and assistant text as content parts. */
function providerMessage(message) {
  if (message && typeof message.content === "string" && (message.role === "user" || message.role === "assistant")) {
    return { ...message, content: [{ type: "text", text: message.content }] };
  }
  return message;
}

/** The core's summary request as an AI SDK provider-level prompt: text turns, no tools. */
function summaryPrompt(request) {
  return [
    { role: "system", content: request.systemInstruction },
    ...renderTurns(request.contents).map((t) => ({ role: t.role, content: [{ type: "text", text: t.text }] })),
  ];
}

/** The `summarize` callback for a summarizer option: a model (called unwrapped) or a function. */
function summarizeWith(summarizer) {
  if (typeof summarizer === "function") return summarizer;
  return async (request, { signal }) => {
    const call = {
      prompt: summaryPrompt(request),
      maxOutputTokens: request.config.maxOutputTokens,
      abortSignal: signal,
    };
    // V4 call options say "no reasoning" themselves; V3 has no such field.
    if (summarizer.specificationVersion === "v4") call.reasoning = "none";
    const result = await summarizer.doGenerate(call);
    const text = (result.content ?? [])
      .filter((p) => p && p.type === "text")
      .map((p) => p.text)
      .join("");
    const reason = result.finishReason;
    const finishReason = typeof reason === "string" ? reason : reason?.unified;
    return { text, finishReason: finishReason ?? null, usage: usageCounts(result.usage) };
  };
}

/** Whether a store's answer is a promise (or any thenable) to wait for. */
function isThenable(value) {
  return value !== null && (typeof value === "object" || typeof value === "function") && typeof value.then === "function";
}

/** Whether a stored value is a conversation's state written by this version of the wrapper. */
function isState(entry) {
  return entry !== null && typeof entry === "object" && entry.v === STATE_VERSION && typeof entry.version === "number";
}

/** `stored` (`{ version, compactedIn }`) follows the state `entry`; returns `entry`. */
function adopt(entry, stored) {
  stored.version = entry.version;
  stored.compactedIn = entry.compactedIn ?? 0;
  return entry;
}

/** A Map (sync) or any store with async `get(key)` / `set(key, value)`. */
function checkStore(store) {
  if (store === null || typeof store !== "object" || typeof store.get !== "function" || typeof store.set !== "function") {
    throw new TypeError("compaction-core/ai-sdk: options.store must have get(key) and set(key, value) (a Map, Redis, KV…)");
  }
  return store;
}

/** The options of a ChatCompactor, from the wrapper's. */
function chatOptions(options, model) {
  const { summarizer, store, key, onCompaction, onError, specificationVersion, system, tools, ...chat } = options;
  // The model's id gives the window and output limit from the model table
  // (an explicit window or maxOutputTokens wins) and the estimator's family.
  if (chat.model === undefined && typeof model?.modelId === "string") chat.model = model.modelId;
  if (chat.format === undefined) chat.format = "ai-sdk";
  if (chat.fallback === undefined && FALLBACK_SUPPORTED) chat.fallback = "ledger";
  return chat;
}

// Whether the core has the ledger fallback (fallback: "ledger", docs/behaviour.md): on by default here.
let FALLBACK_SUPPORTED = false;
try {
  new ChatCompactor({ window: 32_000, fallback: "ledger" }).free();
  FALLBACK_SUPPORTED = true;
} catch {
  FALLBACK_SUPPORTED = false;
}

/**
 * The engine shared by the middleware, `withCompaction` and
 * `compactionPrepareStep`: per conversation, the state in the store and the
 * check of one call.
 */
function engine(options = {}) {
  if (options === null || typeof options !== "object") throw new TypeError("compaction-core/ai-sdk: options must be an object");
  const store = checkStore(options.store ?? new Map());
  // One call at a time per conversation in this process.
  const locks = new Map();
  async function locked(key, work) {
    const before = locks.get(key) ?? Promise.resolve();
    let release;
    const mine = new Promise((r) => (release = r));
    const chain = before.then(() => mine);
    locks.set(key, chain);
    await before;
    try {
      return await work();
    } finally {
      release();
      if (locks.get(key) === chain) locks.delete(key);
    }
  }

  async function load(key, model) {
    let entry = await store.get(key);
    // A prompt that is compacted already (ai@7 keeps what prepareStep
    // returned) opens with the summary: its key points to the conversation's.
    if (entry && typeof entry === "object" && typeof entry.alias === "string") {
      key = entry.alias;
      entry = await store.get(key);
    }
    const stored = { version: 0, compactedIn: 0 };
    if (isState(entry)) return { key, chat: ChatCompactor.restore(adopt(entry, stored).chat), stored };
    return { key, chat: new ChatCompactor(chatOptions(options, model)), stored };
  }

  /**
   * Saves the chat, unless the store holds a compaction of this
   * conversation written since `stored` was read (another process compacted
   * meanwhile), or its `set` refuses the write as stale (returns false):
   * then the stored state stands, and is returned for the caller to
   * re-apply; this call's own compaction, if any, is dropped. `stored`
   * (`{ version, compactedIn }`) follows what the store holds.
   */
  async function save(key, chat, stored, compacted) {
    // A sync store (the default Map, or one shared by wrappers in one
    // process) is read and written in one synchronous stretch, so no other
    // call's write comes between the check and this write.
    let latest = store.get(key);
    if (isThenable(latest)) latest = await latest;
    if (isState(latest) && (latest.compactedIn ?? 0) !== stored.compactedIn && latest.chat?.compaction) return adopt(latest, stored);
    const version = stored.version + 1;
    const entry = { v: STATE_VERSION, version, compactedIn: compacted ? version : stored.compactedIn, chat: chat.save() };
    let written = store.set(key, entry, stored.version);
    if (isThenable(written)) written = await written;
    if (written === false) {
      const now = await store.get(key);
      return isState(now) ? adopt(now, stored) : null;
    }
    adopt(entry, stored);
    return null;
  }

  /**
   * Checks one model call's prompt: the prompt to send (provider-level, or
   * model messages for prepareStep) and the call's context for `finish`.
   */
  async function check(prompt, { model, tools, signal, key: givenKey, provider = true }) {
    const asked = givenKey ?? (typeof options.key === "function" ? await options.key(prompt) : conversationKey(prompt));
    return locked(asked, async () => {
      const loaded = await load(asked, model);
      const { key } = loaded;
      let { chat } = loaded;
      try {
        chat.setOverhead(tools && (!Array.isArray(tools) || tools.length > 0) ? { tools } : null);
        let { history, covered } = chat.reapply(prompt);
        let split = history.length - 1;
        if (covered !== null && covered <= history.length) {
          split = covered + (history[covered]?.role === "assistant" ? 1 : 0);
        }
        split = Math.max(0, Math.min(split, history.length));
        const summarize = summarizeWith(options.summarizer ?? model);
        const run = signal ? { signal } : undefined;
        let pending = history.slice(split);
        let result = await chat.beforeSend(history.slice(0, split), pending, summarize, run);
        if (result.noopReason === "messageTooLarge" && pending.length > 0) {
          // A tool output no compaction can make room for (say 30,000
          // tokens in a 32,000 window): this call sends it cut to its head
          // and end, within half the room below auto, and the history is
          // compacted around it if it must.
          const budget = Math.max(256, Math.floor(chat.thresholds.auto / 2 / pending.length));
          pending = pending.map((m) => slimMessage(m, budget, { format: "ai-sdk" }));
          result = await chat.beforeSend(history.slice(0, split), pending, summarize, run);
        }
        const compacted = result.statusName === "COMPRESSED";
        history = compacted ? [...result.history, ...pending] : [...history.slice(0, split), ...pending];
        const winner = await save(key, chat, loaded.stored, compacted);
        if (winner) {
          // Another process compacted this conversation at the same time:
          // its result stands and is re-applied; this call's run is dropped,
          // unreported.
          chat.free();
          chat = ChatCompactor.restore(winner.chat);
          history = chat.reapply(prompt).history;
        } else if (compacted || result.status !== 5) {
          // Reported once it is the conversation's state in the store.
          try {
            await options.onCompaction?.(result);
          } catch (error) {
            options.onError?.(error);
          }
        }
        if (compacted && !givenKey && typeof options.key !== "function") {
          // The compacted prompt's own key leads back to this conversation.
          const alias = conversationKey(history);
          if (alias !== key) await store.set(alias, { v: STATE_VERSION, alias: key }, 0);
        }
        const sent = provider ? history.map(providerMessage) : history;
        return { prompt: sent, context: { key, chat, stored: loaded.stored, result } };
      } catch (error) {
        chat.free();
        throw error;
      }
    });
  }

  /** Takes the call's usage and saves the state; frees the chat. */
  async function finish(context, usage) {
    const { key, chat } = context;
    try {
      const counts = usageCounts(usage);
      if (counts) chat.reportUsage(counts);
      await locked(key, () => save(key, chat, context.stored, false));
      return chat.usage();
    } finally {
      chat.free();
    }
  }

  return { check, finish };
}

/** The indicator a call's result carries in `providerMetadata.compaction`. */
function indicator(report, result) {
  return {
    percentUsed: report.percentUsed,
    tier: report.tier,
    usedTokens: report.tokens,
    maxTokens: report.thresholds.window,
    tokensUntilAuto: report.tokensUntilAuto,
    lastCompaction:
      result && result.statusName === "COMPRESSED"
        ? { originalTokenCount: result.originalTokenCount, newTokenCount: result.newTokenCount, method: result.method }
        : null,
  };
}

/**
 * A `wrapLanguageModel` middleware that compacts at every model call. Pass
 * `specificationVersion: "v4"` for ai@7's types (it is not read at run time).
 */
export function compactionMiddleware(options = {}) {
  const { check, finish } = engine(options);
  const contexts = new WeakMap();
  async function after(params, usage) {
    const context = contexts.get(params);
    if (!context) return null;
    contexts.delete(params);
    try {
      return indicator(await finish(context, usage), context.result);
    } catch (error) {
      options.onError?.(error);
      return null;
    }
  }
  return {
    specificationVersion: options.specificationVersion ?? "v3",
    async transformParams({ params, model }) {
      const { prompt, context } = await check(params.prompt, { model, tools: params.tools, signal: params.abortSignal });
      const next = { ...params, prompt };
      contexts.set(next, context);
      return next;
    },
    async wrapGenerate({ doGenerate, params }) {
      let result;
      try {
        result = await doGenerate();
      } catch (error) {
        await after(params, undefined);
        throw error;
      }
      const meta = await after(params, result.usage);
      if (!meta) return result;
      return { ...result, providerMetadata: { ...result.providerMetadata, compaction: meta } };
    },
    async wrapStream({ doStream, params }) {
      let streamed;
      try {
        streamed = await doStream();
      } catch (error) {
        await after(params, undefined);
        throw error;
      }
      let usage;
      let done = false;
      const close = async () => {
        if (done) return null;
        done = true;
        return after(params, usage);
      };
      const stream = streamed.stream.pipeThrough(
        new TransformStream({
          async transform(part, controller) {
            if (part && part.type === "finish") {
              // When streaming, usage arrives only in the finish part.
              usage = part.usage;
              const meta = await close();
              controller.enqueue(meta ? { ...part, providerMetadata: { ...part.providerMetadata, compaction: meta } } : part);
              return;
            }
            controller.enqueue(part);
          },
          async flush() {
            await close();
          },
        }),
      );
      return { ...streamed, stream };
    },
  };
}

/**
 * `model` with compaction at every call: works unchanged with generateText,
 * streamText and ToolLoopAgent. The wrapper keeps the model's
 * specificationVersion, provider and modelId.
 */
export function withCompaction(model, options = {}) {
  if (model === null || typeof model !== "object" || typeof model.doGenerate !== "function") {
    throw new TypeError("compaction-core/ai-sdk: withCompaction needs a language model object (e.g. openai(\"gpt-4o-mini\"))");
  }
  const middleware = compactionMiddleware(options);
  const call = async (type, params) => {
    const next = await middleware.transformParams({ type, params, model });
    const doGenerate = () => model.doGenerate(next);
    const doStream = () => model.doStream(next);
    return type === "generate"
      ? middleware.wrapGenerate({ doGenerate, doStream, params: next, model })
      : middleware.wrapStream({ doGenerate, doStream, params: next, model });
  };
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    get supportedUrls() {
      return model.supportedUrls;
    },
    doGenerate: (params) => call("generate", params),
    doStream: (params) => call("stream", params),
  };
}

/**
 * For apps that prefer `prepareStep`: returns the step's compacted
 * `messages` (model messages). ai@6 forgets what prepareStep returned and
 * hands the original back at the next step: the compaction is re-applied
 * there without a summary call; ai@7 keeps it: re-applying is a no-op.
 * Usage: pass the step's model (the one you call), and report each step's
 * usage by leaving `onStepFinish` to the returned object's `onStepFinish`.
 */
export function compactionPrepareStep(options = {}) {
  const { check, finish } = engine(options);
  let pending = null;
  const prepareStep = async ({ messages, model, steps }) => {
    // The previous step's usage, if onStepFinish was not wired.
    if (pending && steps && steps.length > 0) {
      const last = steps[steps.length - 1];
      const context = pending;
      pending = null;
      await finish(context, last.usage);
    } else if (pending) {
      pending.chat.free();
      pending = null;
    }
    const system = options.system;
    const prompt = typeof system === "string" ? [{ role: "system", content: system }, ...messages] : messages;
    const { prompt: sent, context } = await check(prompt, { model, tools: options.tools, provider: false });
    pending = context;
    const out = typeof system === "string" ? sent.filter((m, i) => !(i === 0 && m.role === "system")) : sent;
    return { messages: out };
  };
  prepareStep.onStepFinish = async (step) => {
    if (!pending) return;
    const context = pending;
    pending = null;
    await finish(context, step.usage);
  };
  return prepareStep;
}

/**
 * A `messageMetadata` function for `toUIMessageStreamResponse`: puts the
 * context indicator (percent used, tier, tokens until auto, the last
 * compaction) into the message's metadata under `key` ("context"), from
 * each step's `providerMetadata.compaction`.
 */
export function contextUsageMetadata({ key = "context", extra } = {}) {
  return ({ part }) => {
    const extraValue = typeof extra === "function" ? extra({ part }) : undefined;
    const meta = part && part.type === "finish-step" ? part.providerMetadata?.compaction : undefined;
    if (!meta && extraValue === undefined) return undefined;
    return { ...(extraValue ?? {}), ...(meta ? { [key]: meta } : {}) };
  };
}
