// The JavaScript API of compaction-core, written by hand over the wasm's
// JSON-text exports (src/wasm/mod.rs, one-liners over src/json_api/).
//
// Why JS owns the boundary: every interaction with the host — reading its
// values (JSON.stringify, getters, proxies, toJSON), its `summarize`
// callback, its abort signal, promises — happens here, in plain JS, inside
// try/catch. The wasm only ever receives strings and numbers and returns a
// JSON envelope string: `{"ok": value}` or `{"error": {code, message}}`. So
// nothing the host passes can unwind through the wasm, leak its stack or
// leave a promise unsettled; every failure is a `CompactionError` with a
// stable `code`.
//
// `./wasm.js` is the wasm-bindgen glue of the target being built (web,
// bundler or node) and `./statuses.js` the core's list of statuses and its
// steps' keys; scripts/build stages both next to this file.
import * as wasm from "./wasm.js";
// The statuses, name → number, and the keys of a compaction's steps
// (json_api's Step: summarize, done, needHistory), name → key, written by
// scripts/build from the core's lists.
import { STATUS_ALIASES, STATUSES, STEPS } from "./statuses.js";
import { fingerprint, foldPrints, laneHex, valueFingerprint } from "./fingerprint.js";

const ERROR_NAME = "CompactionError";
const BUSY_MESSAGE = "the chat is in use by another call; wait for it to finish";
const FREED_MESSAGE = "this chat was freed";

/** A real `Error` named `CompactionError` with `.code` (and `.cause` when given). */
function compactionError(code, message, cause) {
  const error = new Error(message);
  error.name = ERROR_NAME;
  error.code = code;
  if (arguments.length > 2) error.cause = cause;
  return error;
}

/** Reads a wasm envelope: the value, or a thrown `CompactionError`. */
function unwrap(text) {
  const envelope = JSON.parse(text);
  if (envelope.error) throw compactionError(envelope.error.code, envelope.error.message);
  return envelope.ok;
}

/**
 * A host value described for error messages in the core's words
 * (`read::describe` in src/read.rs: "null", "an array", "the string \"…\"",
 * "the number 3", "the boolean true", "an object", "a function", "a
 * Symbol"), so a bad value reads the same whichever side finds it; never
 * throws.
 */
function describe(value) {
  const type = typeof value;
  try {
    if (value === null) return "null";
    if (Array.isArray(value)) return "an array";
  } catch {
    // A revoked proxy: Array.isArray throws. Described by its typeof.
  }
  switch (type) {
    case "string":
      return value.length > 40 ? "a string" : `the string ${JSON.stringify(value)}`;
    case "number":
      return `the number ${String(value)}`;
    case "boolean":
      return `the boolean ${value}`;
    case "object":
      return "an object";
    case "function":
      return "a function";
    case "symbol":
      return "a Symbol";
    case "bigint":
      return "a BigInt";
    default:
      return type;
  }
}

/** The message of a thrown host value; never throws. */
function thrownMessage(error) {
  try {
    if (error !== null && (typeof error === "object" || typeof error === "function")) {
      const message = error.message;
      if (typeof message === "string") return message;
    }
    if (typeof error === "string") return error;
  } catch {
    // A throwing `message` getter or a revoked proxy: describe it instead.
  }
  return describe(error);
}

/** A plain `number` argument, checked before it reaches the wasm (no silent coercion). */
function number(value, name) {
  if (typeof value !== "number") {
    throw compactionError("INVALID_ARGUMENT", `${name} must be a number, got ${describe(value)}`);
  }
  return value;
}

/**
 * Writes a non-finite number as `{"$nonFinite": "NaN"}` (or "Infinity",
 * "-Infinity"), and a function or a Symbol as `{"$unwritable": "function"}`
 * (or "Symbol"), so the core can name the field and its value instead of
 * reading JSON.stringify's silent `null`, or the field's default where
 * JSON.stringify leaves the field out.
 */
function nonFinite(_key, value) {
  const type = typeof value;
  if (type === "number") return Number.isFinite(value) ? value : { $nonFinite: String(value) };
  return type === "function" || type === "symbol" ? { $unwritable: type === "symbol" ? "Symbol" : type } : value;
}

/**
 * A host value as JSON text. `undefined` (also: an argument not given) is
 * `missing`; a value JSON.stringify throws on (a throwing toJSON or getter,
 * a revoked proxy, a BigInt, a cycle, nesting deeper than the engine's
 * stack) or cannot write (a function, a Symbol) is a `code` error naming
 * `name`. Option-like values keep their non-finite numbers (`strict`).
 */
function toJson(value, name, code, strict, missing) {
  if (value === undefined) return missing;
  let text;
  try {
    text = strict ? JSON.stringify(value, nonFinite) : JSON.stringify(value);
  } catch (error) {
    throw compactionError(code, `${name} is not plain data: ${thrownMessage(error)}`, error);
  }
  if (text === undefined) throw compactionError(code, `${name} cannot be ${describe(value)}`);
  return text;
}

/** An option-like argument (options, usage, tip context, settings, state) as JSON text. */
function optionsJson(value, name, missing = "null") {
  return toJson(value, name, "INVALID_ARGUMENT", true, missing);
}

/** A message or a message list as JSON text (plain stringify: NaN is null, as in JSON). */
function contentJson(value, name) {
  return toJson(value, name, "INVALID_CONTENT", false, "null");
}

/** An optional options argument: `undefined` and `null` mean "not given" (""). */
function optionalJson(value, name) {
  return value === undefined || value === null ? "" : optionsJson(value, name);
}

/** Whether `value` is an array; a revoked proxy is an INVALID_CONTENT error naming `name`. */
function isArray(value, name) {
  try {
    return Array.isArray(value);
  } catch (error) {
    throw compactionError("INVALID_CONTENT", `${name} cannot be read: ${thrownMessage(error)}`, error);
  }
}

/** A message list argument: an array, as JSON text. */
function historyJson(value, name) {
  if (!isArray(value, name)) {
    throw compactionError("INVALID_CONTENT", `${name} must be an array of messages, got ${describe(value)}`);
  }
  return contentJson(value, name);
}

/** Reads `options[key]` of an optional options object; a throwing getter is INVALID_ARGUMENT. */
function option(options, key) {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== "object" && typeof options !== "function") {
    throw compactionError("INVALID_ARGUMENT", `options must be an object, got ${describe(options)}`);
  }
  try {
    return options[key];
  } catch (error) {
    throw compactionError("INVALID_ARGUMENT", `options.${key} could not be read: ${thrownMessage(error)}`, error);
  }
}

const warned = new Set();

/** Prints `message` with `console.warn` the first time it is seen (per page or process). */
function warnOnce(message) {
  if (warned.has(message)) return;
  warned.add(message);
  try {
    console.warn(message);
  } catch {
    // A host that replaced console.warn with something that throws still gets the warning returned.
  }
}

/**
 * The statuses of a compaction, numbered as in the reference implementation
 * (1–6) plus this library's 7 and 8; frozen, with the reverse mapping
 * (`CompressionStatus[1] === "COMPRESSED"`) as a TypeScript enum has.
 */
export const CompressionStatus = Object.freeze(
  Object.fromEntries([
    ...Object.entries(STATUSES).flatMap(([name, code]) => [[name, code], [code, name]]),
    // The reference's names for the same numbers (name → number only, so
    // CompressionStatus[2] stays "INFLATED").
    ...Object.entries(STATUS_ALIASES),
  ]),
);

/** The three-tier ladder for a context window of `window` tokens. */
export function computeThresholds(window) {
  return unwrap(wasm.compute_thresholds(number(window, "window")));
}

/** The tier a prompt of `tokens` tokens is in (`hard` is checked first). */
export function currentTier(tokens, thresholds) {
  return unwrap(wasm.current_tier(number(tokens, "tokens"), optionsJson(thresholds, "thresholds")));
}

/** Estimated tokens of a list of messages, rounded up once. */
export function estimateContentTokens(contents, options) {
  const opts = optionalJson(options, "options");
  return unwrap(wasm.estimate_content_tokens(historyJson(contents, "contents"), opts));
}

/** Estimated tokens of one text, rounded up: the text estimator alone. */
export function estimateTextTokens(text, options) {
  const opts = optionalJson(options, "options");
  if (typeof text !== "string") {
    throw compactionError("INVALID_ARGUMENT", `text must be a string, got ${describe(text)}`);
  }
  // The bare number, without an envelope to write, decode and parse; NaN
  // only for invalid options, whose error the envelope call gives.
  const tokens = wasm.estimate_text_number(text, opts);
  return Number.isNaN(tokens) ? unwrap(wasm.estimate_text_tokens(text, opts)) : tokens;
}

/** Estimated size of the prompt about to be sent. */
export function estimatePromptTokens(history, userMessage, lastPromptTokenCount, options) {
  const opts = optionalJson(options, "options");
  const last = number(lastPromptTokenCount, "lastPromptTokenCount");
  const message = contentJson(userMessage, "userMessage");
  // With a count the history is never read: do not serialize a long one.
  const list = last > 0 && Number.isFinite(last) ? "[]" : historyJson(history, "history");
  return unwrap(wasm.estimate_prompt_tokens(list, message, last, opts));
}

/** The context tip to show after a response, or `undefined`. */
export function selectTip(context) {
  return unwrap(wasm.select_tip(optionsJson(context, "context"))) ?? undefined;
}

/** The `/context` data for a prompt of `tokens` tokens in a window. */
export function contextReport(tokens, window) {
  return unwrap(wasm.context_report(number(tokens, "tokens"), number(window, "window")));
}

/** The `/context` block as text. */
export function formatContextReport(tokens, window) {
  return unwrap(wasm.format_context_report(number(tokens, "tokens"), number(window, "window")));
}

/** Loads settings from a parsed settings object; each distinct warning is printed once. */
export function loadSettings(settings) {
  const loaded = unwrap(wasm.load_settings(optionalJson(settings, "settings")));
  for (const warning of loaded.warnings) warnOnce(warning);
  return loaded;
}

/**
 * A copy of one message slimmed to `budgetTokens` the way compaction slims:
 * long texts and tool outputs keep their head and end around a marker that
 * says how many characters were removed. For a message that is
 * `messageTooLarge` and that the host wants to send anyway.
 */
export function slimMessage(message, budgetTokens, options) {
  const opts = optionalJson(options, "options");
  const budget = number(budgetTokens, "budgetTokens");
  return unwrap(wasm.slim_message(contentJson(message, "message"), budget, opts));
}

/**
 * A model's context window and output limit from the library's dated table;
 * an unknown model gets a 131,072 window, `known: false` and a warning.
 */
export function modelLimits(modelId) {
  if (typeof modelId !== "string") {
    throw compactionError("INVALID_ARGUMENT", `modelId must be a string, got ${describe(modelId)}`);
  }
  return unwrap(wasm.model_limits(modelId));
}

/** The library's constants (the ladder's rules, the summary's tags and messages), for display. */
export function ladderConstants() {
  return unwrap(wasm.ladder_constants());
}

/** Frees the wasm side of chats the host dropped without calling `free()`. */
const registry =
  typeof FinalizationRegistry === "function"
    ? new FinalizationRegistry((handle) => {
        try {
          wasm.chat_free(handle);
        } catch {
          // Nothing to report to: the chat is already gone for the host.
        }
      })
    : null;

/** Passed by `restore` to the constructor: the chat's handle already exists. */
const RESTORING = Symbol("restoring");
let restoredHandle = 0;

/** The shape of a `signal` option: an `AbortSignal` (from any realm). */
function abortSignal(options) {
  const signal = option(options, "signal");
  if (signal === undefined || signal === null) return null;
  let ok = false;
  try {
    ok = typeof signal === "object" && typeof signal.aborted === "boolean" &&
      typeof signal.addEventListener === "function" && typeof signal.removeEventListener === "function";
  } catch {
    ok = false;
  }
  if (!ok) {
    throw compactionError("INVALID_ARGUMENT", `options.signal must be an AbortSignal, got ${describe(signal)}`);
  }
  return signal;
}

/** Whether `signal` is aborted; a throwing getter counts as not aborted. */
function isAborted(signal) {
  try {
    return signal.aborted === true;
  } catch {
    return false;
  }
}

// ---- A compaction that survives loops which rebuild the prompt (reapply; docs/api.md).
// The chat remembers the messages its last compaction replaced, by a
// fingerprint of each one's JSON value (never object identity;
// fingerprint.js), and the head that replaced them; `reapply` puts the head
// back in any prompt that starts with them. It also remembers which prompt
// its last usage measured (the anchor): what follows it in a later prompt is
// pending. A prefix is `[messages, fold]`: its length and its messages'
// fingerprints folded in order (64-bit FNV-1a in two 32-bit lanes, as 16 hex
// digits).

/**
 * How the saved prefixes' fingerprints were made: 2, a walk over each
 * message's JSON value, folded as numbers; 1 (`fingerprints` absent from a
 * saved state that has prefixes: states written before the walk), the
 * FNV-1a of its JSON text, folded as hex text: still read, so that a stored
 * conversation keeps its compaction.
 */
const FINGERPRINTS = 2;

/** The fingerprint of one message; a value JSON.stringify refuses is INVALID_CONTENT naming `name`. */
function messagePrint(message, name) {
  let print;
  try {
    print = valueFingerprint(message);
  } catch (error) {
    // JSON.stringify's own words for the same value (a cycle, a BigInt, a
    // throwing getter), as every other reader of messages gives them.
    contentJson(message, name);
    throw compactionError("INVALID_CONTENT", `${name} is not plain data: ${thrownMessage(error)}`, error);
  }
  // Nothing to write (a function, a Symbol): contentJson throws its INVALID_CONTENT.
  if (print === undefined) contentJson(message, name);
  return print;
}

/** The fingerprint of each message, made the `version` way (FINGERPRINTS). */
function messagePrints(messages, name, version) {
  const prints = [];
  for (let i = 0; i < messages.length; i++) {
    prints.push(version === FINGERPRINTS ? messagePrint(messages[i], name) : fingerprint(contentJson(messages[i], name)));
  }
  return prints;
}

/**
 * The running folds of `prints` from `start` (a fold, or "" for none):
 * `at(i)` is the fold of the first `i`, `length` is `prints.length + 1`.
 * Only the folds compared or saved are written as hex.
 */
function folds(prints, start, version) {
  if (version === FINGERPRINTS) {
    const lanes = foldPrints(prints, start);
    return { length: prints.length + 1, at: (i) => (i === 0 ? start : laneHex(lanes, i)) };
  }
  const out = [start];
  let fold = start;
  for (const print of prints) out.push((fold = fingerprint(print, fold)));
  return { length: out.length, at: (i) => out[i] };
}

/** The folds of `head`'s messages, then those of `tail` (folded on from head's last). */
function joined(head, tail) {
  const n = head.length - 1;
  return { length: n + tail.length, at: (i) => (i <= n ? head.at(i) : tail.at(i - n)) };
}

/** Whether the messages whose running folds are `runs` start with `prefix`. */
function startsWith(runs, prefix) {
  return prefix !== null && prefix[0] < runs.length && runs.at(prefix[0]) === prefix[1];
}

/** A `[messages, fold]` prefix read from a saved state; INVALID_STATE otherwise. */
function prefixOf(value, name) {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || value.length !== 2 || !Number.isSafeInteger(value[0]) || value[0] < 0 || typeof value[1] !== "string") {
    throw compactionError("INVALID_STATE", `saved state: ${name} must be [messages, fingerprint], got ${describe(value)}`);
  }
  return [value[0], value[1]];
}

/**
 * The compaction state of one chat. The state lives in the wasm (a handle
 * into a registry of chats); this object only holds the handle, so every
 * method works while a `summarize` call is in flight, and a second
 * compaction gets `BUSY`.
 */
export class ChatCompactor {
  #handle = 0;
  #freed = false;
  /** The run in flight: its `cancel(error)`, or null. */
  #run = null;
  /** The last compaction ({ replaced, head, heads }), the usage's anchor and the prompt being sent. */
  #replay = { compaction: null, anchor: null, sending: null };
  /** How the prefixes of #replay are fingerprinted (FINGERPRINTS; 1 for an older saved state). */
  #fingerprints = FINGERPRINTS;

  /** A chat with a context window of `options.window` tokens. */
  constructor(options) {
    if (options === RESTORING) {
      this.#handle = restoredHandle;
    } else {
      const created = unwrap(wasm.chat_create(optionsJson(options, "options")));
      for (const warning of created.warnings) warnOnce(warning);
      this.#handle = created.handle;
    }
    registry?.register(this, this.#handle, this);
  }

  /** A chat restored from `save()`'s output. */
  static restore(state) {
    // Anything that is not a saved state, even a value that cannot be
    // serialized at all, is INVALID_STATE.
    let core = state;
    let replay = { compaction: null, anchor: null, sending: null };
    let fingerprints = FINGERPRINTS;
    let fields;
    try {
      fields = state !== null && typeof state === "object" && !Array.isArray(state) ? { ...state } : null;
    } catch (error) {
      throw compactionError("INVALID_STATE", `state cannot be read: ${thrownMessage(error)}`, error);
    }
    if (fields && ("compaction" in fields || "anchor" in fields || "sending" in fields || "fingerprints" in fields)) {
      const { compaction, anchor, sending, fingerprints: version, ...rest } = fields;
      core = rest;
      if (version !== undefined && version !== FINGERPRINTS) {
        throw compactionError("INVALID_STATE", `saved state: fingerprints must be ${FINGERPRINTS} (or absent, in a state written before it), got ${describe(version)}`);
      }
      fingerprints = version ?? 1;
      replay = { compaction: null, anchor: prefixOf(anchor, "anchor"), sending: prefixOf(sending, "sending") };
      if (compaction !== undefined && compaction !== null) {
        const head = compaction.head;
        if (!Array.isArray(head)) throw compactionError("INVALID_STATE", `saved state: compaction.head must be an array of messages, got ${describe(head)}`);
        replay.compaction = { replaced: prefixOf(compaction.replaced, "compaction.replaced") ?? [0, ""], head, heads: null };
      }
    }
    const json = toJson(core, "state", "INVALID_STATE", true, "null");
    restoredHandle = unwrap(wasm.chat_restore(json)).handle;
    const chat = new ChatCompactor(RESTORING);
    chat.#replay = replay;
    chat.#fingerprints = fingerprints;
    return chat;
  }

  /** The handle, or INVALID_STATE after `free()`. */
  #live() {
    if (this.#freed) throw compactionError("INVALID_STATE", FREED_MESSAGE);
    return this.#handle;
  }

  #state() {
    return unwrap(wasm.chat_state(this.#live()));
  }

  /** The state as plain JSON data, for `ChatCompactor.restore`. */
  save() {
    const state = unwrap(wasm.chat_save(this.#live()));
    const { compaction, anchor, sending } = this.#replay;
    if (compaction) state.compaction = { replaced: compaction.replaced, head: compaction.head };
    if (anchor) state.anchor = anchor;
    if (sending) state.sending = sending;
    if ((compaction || anchor || sending) && this.#fingerprints === FINGERPRINTS) state.fingerprints = FINGERPRINTS;
    return state;
  }

  /**
   * Re-applies the last compaction to a prompt rebuilt from the uncompacted
   * conversation (see api.d.ts), and records the prompt as the one being
   * sent. `{ history, match, covered }`.
   */
  reapply(prompt) {
    const handle = this.#live();
    if (!isArray(prompt, "prompt")) {
      throw compactionError("INVALID_CONTENT", `prompt must be an array of messages, got ${describe(prompt)}`);
    }
    const messages = copy(prompt);
    const replay = this.#replay;
    // A chat restored from an older state moves to the walk once none of its prefixes needs the old fingerprints.
    if (this.#fingerprints !== FINGERPRINTS && replay.compaction === null && replay.anchor === null) this.#fingerprints = FINGERPRINTS;
    const version = this.#fingerprints;
    const prints = messagePrints(messages, "prompt", version);
    const runs = folds(prints, "", version);
    const c = replay.compaction;
    let match = "none";
    let history = prompt;
    let sent = runs;
    if (c) {
      const n = c.head.length;
      c.heads ??= folds(messagePrints(c.head, "head", version), "", version);
      if (startsWith(runs, [n, c.heads.at(n)])) {
        match = "current";
      } else if (startsWith(runs, c.replaced)) {
        match = "applied";
        const from = c.replaced[0];
        history = [...c.head, ...messages.slice(from)];
        sent = joined(c.heads, folds(prints.slice(from), c.heads.at(n), version));
      } else {
        match = "diverged";
        replay.compaction = null;
      }
    }
    const hadAnchor = replay.anchor !== null;
    const covered = match !== "diverged" && startsWith(sent, replay.anchor) ? replay.anchor[0] : null;
    if (match === "diverged") replay.anchor = null;
    // A new or edited conversation, or one the usage did not measure: the
    // next check estimates the prompt whole (a usage of 0 says so).
    if (match === "diverged" || (hadAnchor && covered === null)) unwrap(wasm.chat_report_usage(handle, '{"totalTokens":0}'));
    replay.sending = [sent.length - 1, sent.at(sent.length - 1)];
    return { history, match, covered };
  }

  /**
   * Records a COMPRESSED run: `head` (pinned messages first) replaced the
   * first `keptFrom` messages of `snapshot`; `pending` follow the history in
   * the prompt being sent. A history that started with the previous head
   * extends the previous record, so the original prompt still matches.
   */
  #recordCompaction(snapshot, keptFrom, head, pending) {
    const replay = this.#replay;
    const version = this.#fingerprints;
    const prints = messagePrints(snapshot, "history", version);
    const runs = folds(prints, "", version);
    const old = replay.compaction;
    let replaced = [keptFrom, runs.at(keptFrom)];
    if (old) {
      const n = old.head.length;
      old.heads ??= folds(messagePrints(old.head, "head", version), "", version);
      if (n <= keptFrom && startsWith(runs, [n, old.heads.at(n)])) {
        const extended = folds(prints.slice(n, keptFrom), old.replaced[1], version);
        replaced = [old.replaced[0] + keptFrom - n, extended.at(extended.length - 1)];
      }
    }
    const heads = folds(messagePrints(head, "head", version), "", version);
    replay.compaction = { replaced, head, heads };
    const after = folds([...prints.slice(keptFrom), ...messagePrints(pending, "pending", version)], heads.at(head.length), version);
    replay.sending = [head.length + after.length - 1, after.at(after.length - 1)];
  }

  /** The context window, in tokens. */
  get window() {
    return this.#state().window;
  }

  /** The ladder for the window. */
  get thresholds() {
    return this.#state().thresholds;
  }

  /** The prompt size the provider last reported, or the size after the last compaction. */
  get lastPromptTokenCount() {
    return this.#state().lastPromptTokenCount;
  }

  /** Non-forced compaction failures in a row (the breaker opens at 3). */
  get consecutiveFailures() {
    return this.#state().consecutiveFailures;
  }

  /** Whether a compaction is running (its `summarize` call has not settled). */
  get busy() {
    return this.#run !== null || this.#state().busy;
  }

  /**
   * Changes the window (the user switched models), and with a second
   * argument the model's output limit too, both at once (nothing changes on
   * an error): a number sets it, `null` clears it, `undefined` (not given)
   * leaves it as it was. The core reads NaN as "clear", so a NaN from the
   * host is refused here rather than silently clearing the limit.
   */
  setWindow(window, maxOutputTokens) {
    const handle = this.#live();
    number(window, "window");
    if (maxOutputTokens === undefined) {
      unwrap(wasm.chat_set_window(handle, window));
      return;
    }
    let limit = NaN;
    if (maxOutputTokens !== null) {
      limit = number(maxOutputTokens, "maxOutputTokens");
      if (Number.isNaN(limit)) {
        throw compactionError("INVALID_ARGUMENT", "maxOutputTokens must be a whole number of tokens >= 1 (or null to clear the limit), got NaN");
      }
    }
    unwrap(wasm.chat_set_model_limits(handle, window, limit));
  }

  /** Takes the prompt size from a response's usage, in any provider's names. */
  reportUsage(usage) {
    const handle = this.#live();
    const update = unwrap(wasm.chat_report_usage(handle, optionsJson(usage, "usage")));
    // The usage measured the prompt last let through: it is the anchor now.
    if (update.taken) this.#replay.anchor = this.#replay.sending;
    return update;
  }

  /** The context-usage indicator for the last prompt size. */
  usage() {
    return unwrap(wasm.chat_usage(this.#live()));
  }

  /**
   * Declares the fixed part of every prompt besides the messages: tokens,
   * null, or `{ system, tools }` estimated by the core.
   */
  setOverhead(overhead) {
    const handle = this.#live();
    if (overhead === null || overhead === undefined) return unwrap(wasm.chat_set_overhead(handle, NaN, ""));
    if (typeof overhead === "number") {
      if (Number.isNaN(overhead)) throw compactionError("INVALID_ARGUMENT", "overhead must be a number of tokens >= 0, got NaN");
      return unwrap(wasm.chat_set_overhead(handle, overhead, ""));
    }
    if (typeof overhead !== "object") {
      throw compactionError("INVALID_ARGUMENT", `overhead must be a number of tokens, null, or { system, tools }, got ${describe(overhead)}`);
    }
    // What the provider reads besides the messages, as text the core estimates.
    const system = option(overhead, "system");
    const tools = option(overhead, "tools");
    if (system !== undefined && system !== null && typeof system !== "string") {
      throw compactionError("INVALID_ARGUMENT", `overhead.system must be a string, got ${describe(system)}`);
    }
    const text = (system ?? "") + (tools === undefined || tools === null ? "" : toJson(tools, "overhead.tools", "INVALID_ARGUMENT", false, ""));
    return unwrap(wasm.chat_set_overhead(handle, text === "" ? NaN : 0, text));
  }

  /**
   * The check before a model call; compacts through `summarize` when due.
   * `pending` is one message or an array: everything after what the last
   * usage covered.
   */
  async beforeSend(history, userMessage, summarize, options) {
    const handle = this.#live();
    const message = contentJson(userMessage, "userMessage");
    const overhead = option(options, "overhead");
    if (overhead !== undefined) this.setOverhead(overhead);
    if (!isArray(history, "history")) {
      throw compactionError("INVALID_CONTENT", `history must be an array of messages, got ${describe(history)}`);
    }
    const callback = summarizer(summarize);
    const signal = abortSignal(options);
    this.#idle();
    // On an ordinary turn the check needs only the new message: ask without
    // the history (""), and serialize a long one only when the core says
    // it needs it (a resumed session, or compaction due).
    let snapshot = [];
    let first = unwrap(wasm.chat_before_send(handle, "", message));
    if (first[STEPS.NEED_HISTORY] === true) {
      snapshot = copy(history);
      first = unwrap(wasm.chat_before_send(handle, historyJson(snapshot, "history"), message));
    }
    return this.#drive(handle, first, history, snapshot, callback, signal, userMessage);
  }

  /** Manual compaction (`/compact`): forced, whatever the size and the breaker. */
  async compact(history, summarize, options) {
    const handle = this.#live();
    const focus = option(options, "focus");
    if (focus !== undefined && focus !== null && typeof focus !== "string") {
      throw compactionError("INVALID_ARGUMENT", `options.focus must be a string, got ${describe(focus)}`);
    }
    if (!isArray(history, "history")) {
      throw compactionError("INVALID_CONTENT", `history must be an array of messages, got ${describe(history)}`);
    }
    const callback = summarizer(summarize);
    const signal = abortSignal(options);
    this.#idle();
    const snapshot = copy(history);
    const list = historyJson(snapshot, "history");
    return this.#drive(handle, unwrap(wasm.chat_compact(handle, list, focus ?? "")), history, snapshot, callback, signal, []);
  }

  /** BUSY when a run is in flight on this chat. */
  #idle() {
    if (this.#run !== null) throw compactionError("BUSY", BUSY_MESSAGE);
  }

  /**
   * Runs the core's steps: each `summarize` step goes to the host's
   * callback, whose outcome (answer, failure or abort) is the next step,
   * until the core is done. Always settles: with a result, or with a
   * `CompactionError` when the core refuses a step (BUSY, a freed chat).
   */
  async #drive(handle, step, history, snapshot, callback, signal, pending) {
    if (step[STEPS.DONE]) return this.#finish(step[STEPS.DONE], history, snapshot, undefined, false, pending);
    this.#run = { cancel: null };
    let hostCause;
    let failed = false;
    try {
      while (step[STEPS.SUMMARIZE]) {
        const outcome = await this.#ask(handle, step[STEPS.SUMMARIZE], callback, signal);
        failed = outcome.failed;
        hostCause = outcome.cause;
        step = outcome.step;
      }
    } finally {
      this.#run = null;
    }
    return this.#finish(step[STEPS.DONE], history, snapshot, hostCause, failed, pending);
  }

  /** The result of a `done` step, its compaction recorded for `reapply` when COMPRESSED. */
  #finish(done, history, snapshot, hostCause, failed, pending) {
    const head = done.head;
    const pinned = Array.isArray(done.pinned) ? done.pinned : [];
    const out = result(done, history, snapshot, hostCause, failed);
    if (out.status === CompressionStatus.COMPRESSED && Array.isArray(head)) {
      try {
        this.#recordCompaction(snapshot, out.keptFrom, [...pinned.map((i) => snapshot[i]), ...head], Array.isArray(pending) ? pending : [pending]);
      } catch {
        // A message that cannot be written as JSON: no record (the next
        // rebuilt prompt is then a new conversation), the result stands.
        this.#replay = { compaction: null, anchor: null, sending: null };
      }
    }
    return out;
  }

  /**
   * One `summarize` call. Resolves to `{ step, failed, cause }` once,
   * whichever comes first: the callback's answer, its throw or rejection,
   * or an abort (already aborted, from outside, from inside the callback,
   * before its promise exists). The abort listener is removed when it ends.
   */
  #ask(handle, { id, request }, callback, hostSignal) {
    return new Promise((resolve, reject) => {
      // The signal summarize gets when the host gave none (engines without AbortController get none).
      const own = typeof AbortController === "function" ? new AbortController() : null;
      let settled = false;
      const onAbort = () => finish(() => ({ step: unwrap(wasm.chat_abort(handle, id)) }));
      const finish = (next) => {
        if (settled) return;
        settled = true;
        if (hostSignal) {
          try {
            hostSignal.removeEventListener("abort", onAbort);
          } catch {
            // A host signal that cannot be unsubscribed from: the settled flag makes a late abort a no-op.
          }
        }
        if (this.#run) this.#run.cancel = null;
        try {
          resolve(next());
        } catch (error) {
          reject(error);
        }
        // The summarize call's own signal tells the host to stop its work.
        if (own && !own.signal.aborted) own.abort();
      };
      // free() during the run settles it, rather than leaving it pending.
      this.#run.cancel = (error) => finish(() => { throw error; });
      if (hostSignal) {
        if (isAborted(hostSignal)) return onAbort();
        try {
          hostSignal.addEventListener("abort", onAbort);
        } catch (error) {
          return finish(() => ({ step: unwrap(wasm.chat_fail(handle, id, thrownMessage(error))), failed: true, cause: error }));
        }
      }
      const failWith = (error) =>
        finish(() => ({ step: unwrap(wasm.chat_fail(handle, id, thrownMessage(error))), failed: true, cause: error }));
      let returned;
      try {
        returned = callback(request, { signal: hostSignal ?? own?.signal });
      } catch (error) {
        return failWith(error);
      }
      // A plain value is accepted as well as a promise or a thenable;
      // new Promise never throws, whatever `then` or `constructor` do. It is
      // observed even when the run has already settled (the callback aborted
      // it, then returned a promise that rejects, as `fetch` does): an
      // unobserved rejection would end a Node process. `finish` ignores it.
      new Promise((settle) => settle(returned)).then(
        (answer) => finish(() => answered(handle, id, answer)),
        failWith,
      );
    });
  }

  /** Releases the chat; later calls throw INVALID_STATE. A run in flight rejects with it. */
  free() {
    if (this.#freed) return;
    this.#freed = true;
    registry?.unregister(this);
    this.#run?.cancel?.(compactionError("INVALID_STATE", `${FREED_MESSAGE} while a compaction was running`));
    wasm.chat_free(this.#handle);
  }
}

if (typeof Symbol.dispose === "symbol") {
  ChatCompactor.prototype[Symbol.dispose] = ChatCompactor.prototype.free;
}

/** The `summarize` argument, checked. */
function summarizer(summarize) {
  if (typeof summarize !== "function") {
    throw compactionError("INVALID_ARGUMENT", `summarize must be a function (request) => answer, got ${describe(summarize)}`);
  }
  return summarize;
}

/** A copy of the host's array taken at the start of a run; a hostile array is INVALID_CONTENT. */
function copy(history) {
  try {
    return Array.prototype.slice.call(history);
  } catch (error) {
    throw compactionError("INVALID_CONTENT", `history cannot be read: ${thrownMessage(error)}`, error);
  }
}

/**
 * The core's next step for the callback's answer (`""`: undefined, which
 * the core reports). An answer JSON.stringify throws on or cannot write is
 * a failed run whose cause is an INVALID_ANSWER error (with what
 * JSON.stringify threw as its own cause).
 */
function answered(handle, id, answer) {
  let text;
  let message;
  let thrown;
  try {
    text = answer === undefined ? "" : JSON.stringify(answer, nonFinite);
    if (text === undefined) message = `the answer cannot be ${describe(answer)}`;
  } catch (error) {
    thrown = error;
    message = `the answer is not plain data: ${thrownMessage(error)}`;
  }
  if (message === undefined) return { step: unwrap(wasm.chat_answer(handle, id, text)) };
  const cause = thrown === undefined ? compactionError("INVALID_ANSWER", message) : compactionError("INVALID_ANSWER", message, thrown);
  const step = unwrap(wasm.chat_fail(handle, id, `the summarize callback answered something malformed: ${message}`));
  return { step, failed: true, cause };
}

/**
 * The result object for the host: the core's result, `history` and
 * `replaced` made of the host's own message objects, and `cause` (the
 * host's own error, or a CompactionError for the core's).
 *
 * On COMPRESSED the new history is the pinned messages (system, developer)
 * that came before the summarized part, the summary head, then the
 * snapshot's tail from `keptFrom`, then whatever the host appended to its
 * array while the run was in flight; on every other status it is the host's
 * very array.
 */
function result(done, history, snapshot, hostCause, failed) {
  const head = done.head;
  delete done.head;
  if (done.statusName === undefined) done.statusName = CompressionStatus[done.status];
  if (done.status === CompressionStatus.COMPRESSED && Array.isArray(head)) {
    let appended = [];
    try {
      appended = history.length > snapshot.length ? Array.prototype.slice.call(history, snapshot.length) : [];
    } catch {
      // The host's array became unreadable during the run: keep what the run started from.
    }
    // Pinned messages (system / developer) before the summarized part stay
    // first, as the host's own objects; they are never replaced.
    const pinned = Array.isArray(done.pinned) ? done.pinned : [];
    const isPinned = new Set(pinned);
    delete done.pinned;
    done.history = [...pinned.map((i) => snapshot[i]), ...head, ...snapshot.slice(done.keptFrom), ...appended];
    done.replaced = snapshot.slice(0, done.keptFrom).filter((_, i) => !isPinned.has(i));
  } else {
    done.history = history;
    done.replaced = [];
  }
  if (failed) {
    done.cause = hostCause;
  } else if (done.cause && typeof done.cause === "object") {
    done.cause = compactionError(done.cause.code, done.cause.message);
  } else {
    delete done.cause;
  }
  return done;
}
