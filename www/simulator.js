// The session simulator: plays the scripted session through a ChatCompactor,
// one model request per step, with a deterministic stand-in for the provider.
import { createScript, isUserRequest, pastedLog, replayHistory, withPaste } from "./session-script.js";
import { makeSummarizer, SUMMARIZER_LABELS } from "./summarizers.js";
import { renderPlot } from "./plot.js";
import { percent, tokens } from "./format.js";
import { formatLabel, hasSystemMessage, messageText, shortened, SHOWN_STRING_CHARS, textChars } from "./message-formats.js";

/**
 * The simulated provider's count of a prompt: what no estimator sees (the
 * system prompt and the tool declarations), plus each message as the
 * library's calibrated estimator for the o200k family counts it, standing in
 * for the provider's tokenizer. Deterministic.
 */
export const PROVIDER_UNSEEN_TOKENS = 2_500;
const PROVIDER_TOKENIZER = { estimator: "calibrated", tokenizer: "o200k" };

/**
 * The scenarios of every send fits (docs/behaviour.md; the page's own choices, not the library's):
 * a resumed session this many times the window, and a paste of this many
 * characters.
 */
export const RESUME_WINDOWS = 4;
export const PASTE_CHARS = 500_000;

/** How the simulated provider counts one message of a history in `format`. */
export function providerModel(cc, format = "gemini") {
  return {
    format,
    count: (message) => cc.estimateContentTokens([message], { ...PROVIDER_TOKENIZER, format }),
    note: "the library's calibrated estimator for the o200k tokenizer family counts it (standing in for the provider's tokenizer)",
  };
}

/**
 * The usage object the simulated provider reports after a request, in the
 * shape of the format's SDK: Gemini `usageMetadata`, OpenAI `usage`,
 * Anthropic `usage` (no total: the library adds input and output), the AI
 * SDK's `LanguageModelUsage`. `reportUsage` takes any of them.
 */
export function providerUsage(format, prompt, output) {
  switch (format) {
    case "openai": return { prompt_tokens: prompt, completion_tokens: output, total_tokens: prompt + output };
    case "anthropic": return { input_tokens: prompt, output_tokens: output };
    case "ai-sdk": return { inputTokens: prompt, outputTokens: output, totalTokens: prompt + output };
    default: return { promptTokenCount: prompt, candidatesTokenCount: output, totalTokenCount: prompt + output };
  }
}

const USAGE_NAMES = {
  gemini: "Gemini usageMetadata",
  openai: "an OpenAI usage object (prompt_tokens, completion_tokens)",
  anthropic: "an Anthropic usage object (input_tokens, output_tokens)",
  "ai-sdk": "the AI SDK's usage (inputTokens, outputTokens)",
};

export function providerNote(model) {
  const format = model.format ?? "gemini";
  const system = hasSystemMessage(format)
    ? "tool declarations, which no estimator sees; the system prompt is the history's first message and counts like the others"
    : "system prompt and tool declarations, which no estimator sees";
  return `The provider is simulated too: it counts a prompt as ${tokens(PROVIDER_UNSEEN_TOKENS)} tokens `
    + `(${system}) plus each message as ${model.note}, `
    + `and reports that as ${USAGE_NAMES[format]} after each request. A prompt larger than the window is refused, `
    + "as a real provider would. Deterministic: every run of the session is the same.";
}

/** How many of the history's first and last messages the page shows as JSON. */
export const SHOWN_HEAD = 4;
export const SHOWN_TAIL = 4;

const $ = (id) => document.getElementById(id);

export class Simulator {
  /**
   * cc: the loaded package. host: { window(), mode(), endpoint(),
   * estimatorOptions(), outputLimit() (a number, NaN when unreadable, or
   * null for none), clearToolOutputs(), fallback() (whether to pass
   * `fallback: "ledger"`), format() (the library's message
   * format the history is kept in; absent: "gemini") }.
   */
  constructor(cc, host) {
    this.cc = cc;
    this.host = host;
    // The breaker's limit, the summary's tag and the bridge line: the library's.
    this.constants = cc.ladderConstants();
    this.costs = new WeakMap();
    this.format = host.format?.() ?? "gemini";
    this.provider = providerModel(cc, this.format);
    this.busy = false;
    this.attempts = 0;
    this.chat = null;
    this.runRequests = [];
    window.addEventListener("resize", () => this.renderPlot());
  }

  /** A message's cost to the simulated provider, computed once per message. */
  cost(message) {
    let c = this.costs.get(message);
    if (c === undefined) {
      c = this.provider.count(message);
      this.costs.set(message, c);
    }
    return c;
  }

  providerCount(messages) {
    return messages.reduce((sum, m) => sum + this.cost(m), PROVIDER_UNSEEN_TOKENS);
  }

  /** Starts the session over with a new ChatCompactor for the current window. */
  reset() {
    if (this.busy) return;
    this.chat?.free();
    this.chat = null;
    this.format = this.host.format?.() ?? "gemini";
    this.provider = providerModel(this.cc, this.format);
    this.script = createScript(7, this.format);
    // The system message is the history's first, where the format keeps it in the messages.
    this.history = this.script.system ? [this.script.system] : [];
    this.requests = 0;
    this.points = [];
    this.runs = [];
    this.lastShown = {};
    this.tip = null;
    this.tipAfterFailure = null;
    this.lastCompaction = null;
    this.summary = "";
    this.paste = null;
    $("sim-log").replaceChildren();
    const options = { window: this.host.window(), format: this.format, ...this.host.estimatorOptions(), clearToolOutputs: this.host.clearToolOutputs() };
    if (this.host.fallback?.()) options.fallback = "ledger";
    const limit = this.host.outputLimit();
    if (limit !== null) options.maxOutputTokens = limit;
    try {
      this.chat = new this.cc.ChatCompactor(options);
      this.notice("");
    } catch (e) {
      this.notice(`The compactor refused these options: ${e.message}`);
    }
    this.render();
  }

  /** The user switched models: the same chat, a new window (and the output limit of the field). */
  setWindow(w) {
    if (!this.chat) return this.reset();
    try {
      this.chat.setWindow(w, this.host.outputLimit());
      this.notice("");
    } catch (e) {
      try {
        this.chat.setWindow(w);
        this.notice(`The compactor kept its output limit: ${e.message}`);
      } catch (e2) {
        this.notice(`The compactor kept its window of ${tokens(this.chat.window)}: ${e2.message}`);
      }
    }
    this.render();
  }

  /** The model's output limit changed: the same chat, the same window. */
  setOutputLimit() {
    if (!this.chat) return this.reset();
    if (this.busy) return undefined;
    try {
      this.chat.setWindow(this.chat.window, this.host.outputLimit());
      this.notice("");
    } catch (e) {
      this.notice(`The compactor kept its output limit (${this.limitText()}): ${e.message}`);
    }
    this.render();
    return undefined;
  }

  /** The chat's output limit as the library saved it. */
  limitText() {
    const limit = this.chat?.save().options.maxOutputTokens;
    return limit === undefined ? "none" : tokens(limit);
  }

  /**
   * Scenario: the chat restarted (a page reload, a session loaded from disk)
   * with no usage yet and a history several times the window, made of the
   * scripted session's exchanges. The next send must compact it, in several
   * summary calls.
   */
  resumeLarge() {
    if (this.busy) return;
    this.reset();
    if (!this.chat) return;
    const target = RESUME_WINDOWS * this.chat.window;
    const { history, tokens: total } = replayHistory(this.script, (m) => this.cost(m), target, PROVIDER_UNSEEN_TOKENS);
    this.history = history;
    this.notice(`Resumed an earlier session: ${history.length} messages, ${tokens(total)} tokens to the provider, `
      + `${RESUME_WINDOWS} times the window of ${tokens(this.chat.window)}. The compactor was just created and has no usage yet, `
      + "so the next send estimates the whole history, and compacts it before anything is sent.");
    this.render();
  }

  /**
   * Scenario: the user pastes a huge log into the next request they type
   * (tool results of the current task go first, as they would).
   */
  pasteHuge() {
    if (this.busy || !this.chat) return;
    this.paste = { text: pastedLog(PASTE_CHARS), message: null, tooLarge: null };
    const next = this.script.peek().send;
    this.notice(`A log of ${tokens(PASTE_CHARS)} characters is pasted into ${isUserRequest(next, this.format) ? "the next request" : "the next request the user types (after the tool results of the current task)"}. `
      + "Send it to see what beforeSend says.");
    this.render();
  }

  /** The message the host sends for `exchange`: the scripted one, or the user's request with the paste. */
  outgoing(exchange) {
    if (!this.paste || !isUserRequest(exchange.send, this.format)) return exchange.send;
    this.paste.message ??= withPaste(exchange.send, this.paste.text, this.format);
    return this.paste.message;
  }

  /** The chat's own estimator options and message format, as the library saved them. */
  chatEstimator() {
    const { estimator, tokenizer, format } = this.chat.save().options;
    return { estimator, tokenizer, format: format ?? "gemini" };
  }

  /** After messageTooLarge: shorten the message with slimMessage (the README's flow), then send. */
  sendSlimmed() {
    const tooLarge = this.paste?.tooLarge;
    if (this.busy || !this.chat || !tooLarge) return undefined;
    const estimator = this.chatEstimator();
    const budget = this.chat.thresholds.auto / 2;
    let slim;
    try {
      slim = this.cc.slimMessage(tooLarge.message, budget, estimator);
    } catch (e) {
      this.notice(`slimMessage refused: ${e.code ?? e.name}: ${e.message}`);
      return undefined;
    }
    const chars = (m) => textChars(m, this.format);
    const count = (m) => this.cc.estimateContentTokens([m], estimator);
    this.paste = { text: null, message: slim, tooLarge: null, slimmed: true };
    this.slimNote = `Slimmed with slimMessage to half of auto (${tokens(budget)} tokens): ${tokens(chars(tooLarge.message))} → ${tokens(chars(slim))} characters, `
      + `${tokens(count(tooLarge.message))} → ${tokens(count(slim))} tokens as the chat estimates them; the middle of the log became the library's marker.`;
    return this.step();
  }

  /** Drops the pasted log: the next request is the scripted one. */
  discardPaste() {
    if (this.busy) return;
    this.paste = null;
    this.notice("");
    this.render();
  }

  notice(text) {
    this.lastNotice = text;
    $("sim-notice").textContent = text;
  }

  summarizer() {
    return makeSummarizer(this.host.mode(), {
      constants: this.constants,
      endpoint: this.host.endpoint(),
      getSignal: () => this.abort?.signal,
      onRequest: (request) => {
        this.lastRequest = request;
        this.runRequests.push(request);
      },
    });
  }

  /** Runs `work` as the one operation in flight; the page shows it busy. */
  async exclusive(work) {
    if (this.busy || !this.chat) return undefined;
    this.busy = true;
    this.abort = new AbortController();
    this.runRequests = [];
    this.render();
    try {
      return await work();
    } catch (e) {
      this.notice(`${e.name}${e.code ? ` ${e.code}` : ""}: ${e.message}`);
      return undefined;
    } finally {
      this.busy = false;
      this.abort = null;
      this.attempts += 1;
      this.render();
    }
  }

  cancel() {
    this.abort?.abort(new Error("cancelled by the user"));
  }

  /** One model request: the check before it, the send, the usage after it. Returns the outcome. */
  step() {
    return this.exclusive(async () => {
      const exchange = this.script.peek();
      const send = this.outgoing(exchange);
      const before = this.chat.lastPromptTokenCount;
      const result = await this.chat.beforeSend(this.history, send, this.summarizer(), { signal: this.abort.signal });
      this.recordOutcome(result, before);
      if (result.noopReason === "messageTooLarge") {
        // No compaction can make this prompt fit: a host does not send it.
        if (this.paste && send === this.paste.message) this.paste.tooLarge = { message: send, result };
        this.notice(`The message alone is ${tokens(result.overBy)} tokens above hard (${tokens(this.chat.thresholds.hard)}), `
          + "with the smallest compacted history before it: no compaction can make this prompt fit, so the library made no summary call "
          + "and the page did not send it. A host tells the user, asks for a shorter message or an attachment, "
          + "or shortens it with slimMessage and calls beforeSend again with the slimmed message.");
        return { result, refused: true };
      }

      const prompt = [...this.history, send];
      const promptTokens = this.providerCount(prompt);
      if (promptTokens > this.chat.window) {
        this.notice(`The provider refused request ${this.requests + 1}: the prompt is ${tokens(promptTokens)} tokens, larger than the window. `
          + "Nothing was sent; the next step tries again.");
        return { result, refused: true };
      }
      this.script.advance();
      this.requests += 1;
      const slimNote = send === this.paste?.message && this.paste.slimmed ? this.slimNote : null;
      if (send === this.paste?.message) this.paste = null;
      this.history = [...prompt, exchange.reply];
      const output = this.cost(exchange.reply);
      this.chat.reportUsage(providerUsage(this.format, promptTokens, output));
      this.points.push({ x: this.requests, y: this.chat.lastPromptTokenCount });
      this.tip = this.cc.selectTip({
        lastPromptTokenCount: this.chat.lastPromptTokenCount,
        contextWindowSize: this.chat.window,
        sessionPromptCount: this.requests,
        lastShown: this.lastShown,
      }) ?? null;
      if (this.tip) this.lastShown[this.tip.id] = this.requests;
      // The run before this request, if one ran and did not compact: the tip must not claim it did.
      this.tipAfterFailure = ran(result) && result.statusName !== "COMPRESSED" ? result : null;
      if (result.statusName !== "COMPRESSED" && !(result.statusName === "NOOP" && result.noopReason === "breakerOpen")) this.notice("");
      if (slimNote) this.notice(`${slimNote} Request ${this.requests} was sent.${result.statusName === "COMPRESSED" ? ` ${this.lastNotice}` : ""}`);
      return { result, refused: false };
    });
  }

  /** Steps until a compaction runs (whatever its outcome), the provider refuses, or `limit` requests. */
  async runToCompaction(limit = 2_000) {
    for (let i = 0; i < limit; i++) {
      const done = await this.step();
      if (!done || done.refused || done.result.statusName !== "NOOP") return done;
      // Let the page paint between requests.
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    return undefined;
  }

  /** `/compact`: a manual, forced compaction of the history as it is. */
  compactNow() {
    return this.exclusive(async () => {
      const before = this.chat.lastPromptTokenCount;
      const result = await this.chat.compact(this.history, this.summarizer(), { signal: this.abort.signal });
      this.recordOutcome(result, before);
      return { result, refused: false };
    });
  }

  recordOutcome(result, before) {
    const didRun = ran(result);
    if (result.statusName === "COMPRESSED") {
      this.lastCompaction = { history: this.history, result, request: this.requests + 1 };
      this.history = result.history;
      const cleared = result.method === "cleared";
      this.summary = cleared
        ? `No summary: the old tool outputs were cleared (method "cleared"), which alone brought the prompt below warn, so no model was called.`
        : result.summary ?? "";
      this.points.push({ x: this.requests, y: result.newTokenCount });
      const how = cleared
        ? `${result.replaced.length} messages replaced by copies with their old tool outputs cleared, no summary call`
        : result.method === "ledger"
          ? `the summarizer failed (${result.cause?.message ?? result.cause}), so ${result.replaced.length} messages were replaced by the library's own record (method "ledger": the files changed and the user's own words)`
          : `${result.replaced.length} messages replaced by a summary written in ${result.summaryCalls} summary call${result.summaryCalls === 1 ? "" : "s"}`;
      this.notice(`Compacted before request ${this.requests + 1}: ${how}, `
        + `${tokens(result.originalTokenCount)} → ${tokens(result.newTokenCount)} tokens${result.newTokenCountEstimated ? " (estimated until the next usage)" : ""}.`);
    }
    if (didRun) {
      this.runs.push({ x: this.requests, y: result.estimate, compressed: result.statusName === "COMPRESSED", label: `${result.statusName} (${result.trigger})` });
    }
    if (didRun || result.noopReason === "breakerOpen" || result.noopReason === "messageTooLarge") this.log(result, before);
    if (result.noopReason === "breakerOpen") {
      this.notice(`Breaker open after ${this.constants.maxConsecutiveFailures} failures in a row: request ${this.requests + 1} is sent as it is, at ${tokens(result.estimate)} tokens. `
        + "Compaction runs again when the prompt reaches hard, or on /compact.");
    }
  }

  log(result, before) {
    const li = document.createElement("li");
    li.dataset.status = result.statusName;
    li.dataset.trigger = result.trigger ?? "";
    li.dataset.forced = String(result.forced);
    li.dataset.noopReason = result.noopReason ?? "";
    li.dataset.before = String(before);
    li.dataset.estimate = String(result.estimate);
    li.dataset.newTokens = String(result.newTokenCount);
    li.dataset.failures = String(result.consecutiveFailures);
    li.dataset.method = result.method ?? "";
    li.dataset.summaryCalls = String(result.summaryCalls);
    li.dataset.overBy = result.overBy === undefined ? "" : String(result.overBy);
    // Every summary request of this run, in order: the cap each one asked for.
    const caps = ran(result) ? this.runRequests.map((r) => r.config.maxOutputTokens) : [];
    li.dataset.caps = caps.join(",");
    li.dataset.limit = String(this.chat.save().options.maxOutputTokens ?? "");
    const what = result.statusName === "NOOP"
      ? `NOOP (${result.noopReason})`
      : `${result.statusName} · ${result.trigger}${result.forced ? ", forced" : ""}`;
    const head = document.createElement("strong");
    head.textContent = what;
    const details = [
      `before request ${this.requests + 1}`,
      `estimate ${tokens(result.estimate)} (${result.tier})`,
      result.noopReason === "messageTooLarge" ? `the message alone is ${tokens(result.overBy)} tokens above hard` : null,
      result.statusName === "COMPRESSED" ? `${tokens(result.originalTokenCount)} → ${tokens(result.newTokenCount)} tokens` : null,
      result.method ? `method ${result.method}` : null,
      ran(result) || result.noopReason === "messageTooLarge" ? `summary calls: ${result.summaryCalls}` : null,
      ran(result) && result.method !== "cleared" ? `summarizer: ${SUMMARIZER_LABELS[this.host.mode()]}` : null,
      caps.length > 1 ? `maxOutputTokens per call: ${caps.map(tokens).join(", ")}` : null,
      ran(result) && caps.length > 0 ? `last request: ${this.lastRequest.contents.length} messages, maxOutputTokens ${tokens(this.lastRequest.config.maxOutputTokens)}, thoughts ${this.lastRequest.config.thinkingConfig.includeThoughts ? "on" : "off"}` : null,
      ran(result) ? `model output limit: ${this.limitText()}` : null,
      `failures in a row: ${result.consecutiveFailures}`,
      result.cause ? `cause: ${result.cause instanceof Error ? result.cause.message : String(result.cause)}` : null,
    ].filter(Boolean);
    li.append(head, document.createTextNode(` — ${details.join("; ")}`));
    const log = $("sim-log");
    log.prepend(li);
    while (log.children.length > 200) log.lastElementChild.remove();
  }

  /** The history as it was before the last compaction, as a JSON file. */
  download() {
    const last = this.lastCompaction;
    if (!last) return;
    const data = {
      what: "compaction-core demonstration: the history before a compaction (compaction is one way; this is the only copy)",
      window: this.chat?.window,
      format: this.format,
      beforeRequest: last.request,
      status: last.result.statusName,
      trigger: last.result.trigger,
      keptFrom: last.result.keptFrom,
      replacedCount: last.result.replaced.length,
      history: last.history,
    };
    const blob = new Blob([JSON.stringify(data, null, 2)], { type: "application/json" });
    const url = URL.createObjectURL(blob);
    const a = document.createElement("a");
    a.href = url;
    a.download = `history-before-compaction-${last.request}.json`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 0);
  }

  /** What a message of the history is, for its label in the JSON view. */
  describe(message, index) {
    const text = messageText(message, this.format);
    const { summaryOpenTag, acknowledgement, bridge } = this.constants;
    if (message.role === "system" || message.role === "developer") return "the system message: pinned, never summarized";
    if (text.trimStart().startsWith(summaryOpenTag)) return "the summary (written by the library in this format)";
    if (text === acknowledgement) return "the acknowledgement (written by the library)";
    if (text === bridge) return "the bridge (written by the library)";
    return index === this.history.length - 1 ? "the last message" : "";
  }

  /**
   * The history's first and last messages as JSON, each in its own shape:
   * what the host keeps and sends (long strings cut for display only).
   */
  renderHistory() {
    const box = $("sim-history");
    const h = this.history;
    box.dataset.format = this.format;
    box.dataset.count = String(h.length);
    const shown = h.length <= SHOWN_HEAD + SHOWN_TAIL
      ? h.map((_, i) => i)
      : [...Array(SHOWN_HEAD).keys(), ...Array.from({ length: SHOWN_TAIL }, (_, k) => h.length - SHOWN_TAIL + k)];
    $("sim-history-note").textContent = h.length === 0
      ? `The history is empty: the first request is the user's. Kept in the ${formatLabel(this.format)} format (format: "${this.format}").`
      : `${h.length} messages in the ${formatLabel(this.format)} format (format: "${this.format}")`
        + `${shown.length < h.length ? `: the first ${SHOWN_HEAD} and the last ${SHOWN_TAIL}` : ""}, as the page keeps them and would send them; `
        + `strings longer than ${SHOWN_STRING_CHARS} characters are cut here for display only.`;
    const items = [];
    shown.forEach((i, k) => {
      if (k > 0 && i !== shown[k - 1] + 1) {
        const gap = document.createElement("p");
        gap.className = "caption history-gap";
        gap.textContent = `… history[${shown[k - 1] + 1}] to history[${i - 1}]: ${i - shown[k - 1] - 1} messages not shown …`;
        items.push(gap);
      }
      const item = document.createElement("div");
      item.className = "history-message";
      const label = document.createElement("p");
      label.className = "caption";
      const what = this.describe(h[i], i);
      label.textContent = `history[${i}]${what ? ` — ${what}` : ""}`;
      const pre = document.createElement("pre");
      pre.dataset.testid = "sim-history-message";
      pre.dataset.index = String(i);
      // A long message scrolls: reachable and named for the keyboard.
      pre.tabIndex = 0;
      pre.setAttribute("role", "region");
      pre.setAttribute("aria-label", `history[${i}] as JSON`);
      pre.textContent = JSON.stringify(shortened(h[i]), null, 2);
      item.append(label, pre);
      items.push(item);
    });
    box.replaceChildren(...items);
  }

  renderPlot() {
    if (!this.chat) return;
    renderPlot($("sim-plot"), { points: this.points, runs: this.runs, thresholds: this.chat.thresholds });
  }

  render() {
    const root = $("sim");
    const ready = Boolean(this.chat);
    root.dataset.idle = String(!this.busy);
    root.dataset.attempts = String(this.attempts);
    root.dataset.format = this.format;
    for (const id of ["sim-step", "sim-run", "sim-compact", "sim-resume", "sim-paste"]) $(id).disabled = this.busy || !ready;
    root.dataset.paste = !this.paste ? "" : this.paste.tooLarge ? "tooLarge" : "pending";
    $("sim-paste-box").hidden = !this.paste;
    $("sim-paste-text").textContent = !this.paste ? ""
      : this.paste.tooLarge
        ? `Send it slimmed: slimMessage keeps the head and the end of the log within half of auto (${tokens(this.chat.thresholds.auto / 2)} tokens), `
          + "the middle becomes the library's marker, and the page calls beforeSend again. Or discard the paste."
        : this.paste.slimmed
          ? "The slimmed message waits for the next send."
          : `A log of ${tokens(this.paste.text.length)} characters is pasted into the next request the user types.`;
    $("sim-slim").disabled = this.busy || !this.paste?.tooLarge;
    $("sim-discard").disabled = this.busy;
    $("sim-reset").disabled = this.busy;
    $("sim-format").disabled = this.busy;
    $("sim-cancel").disabled = !this.busy;
    $("sim-download").disabled = !this.lastCompaction;
    if (!ready) return;

    const usage = this.chat.usage();
    root.dataset.tokens = String(usage.tokens);
    root.dataset.tier = usage.tier;
    root.dataset.failures = String(this.chat.consecutiveFailures);
    const open = this.chat.consecutiveFailures >= this.constants.maxConsecutiveFailures;
    root.dataset.breaker = open ? "open" : "closed";
    $("sim-usage-text").textContent = `${tokens(usage.tokens)} of ${tokens(usage.thresholds.window)} tokens (${percent(usage.percentUsed)}), ${tokens(usage.tokensUntilAuto)} before auto`;
    $("sim-usage-text").dataset.tokens = String(usage.tokens);
    const tier = $("sim-tier");
    tier.textContent = usage.tier;
    tier.dataset.tier = usage.tier;
    const meter = $("sim-meter");
    meter.setAttribute("aria-valuemax", String(usage.thresholds.window));
    meter.setAttribute("aria-valuenow", String(Math.min(usage.tokens, usage.thresholds.window)));
    meter.dataset.tier = usage.tier;
    $("sim-meter-fill").style.width = `${Math.min(100, usage.percentUsed)}%`;
    $("sim-requests").textContent = String(this.requests);
    $("sim-messages").textContent = String(this.history.length);
    $("sim-failures").textContent = String(this.chat.consecutiveFailures);
    $("sim-breaker").textContent = open ? "open: auto compaction waits for hard or /compact" : "closed";
    const tip = $("sim-tip");
    tip.dataset.tipId = this.tip?.id ?? "";
    tip.textContent = this.tip ? `Tip after request ${this.requests} (${this.tip.id}): ${this.tip.text}` : "No tip after the last response.";
    // Only context-critical speaks of a compaction that already happened ("was forced before this message was sent").
    const failed = this.tip?.id === "context-critical" && this.tipAfterFailure;
    tip.dataset.runFailed = failed ? this.tipAfterFailure.statusName : "";
    if (failed) {
      // The library's tip text describes the rescue it expects; say what happened instead.
      const f = this.tipAfterFailure;
      tip.textContent = `After request ${this.requests}: the ${f.forced ? "forced " : ""}compaction before it failed (${f.statusName}), `
        + `so request ${this.requests} went out uncompacted, with the history unchanged. `
        + `The library's ${this.tip.id} tip for this count, which reports a forced compaction as done, is held back.`;
    }
    tip.classList.toggle("empty", !this.tip);
    $("sim-summary").textContent = this.summary || "No compaction yet.";
    this.renderHistory();
    this.renderPlot();
  }
}

function ran(result) {
  return result.statusName !== "NOOP";
}
