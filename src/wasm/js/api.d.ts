// ---- The API of compaction-core: the chat class, the enum and the functions. ----
// Written by hand beside src/wasm/js/api.js, which implements it; the shapes are in ../types.d.ts.

/**
 * The compaction state of one chat: the window, the last prompt size the
 * provider reported, the failure count and the options. Call
 * `reportUsage` after every model response and `beforeSend` before every
 * user message; `compact` is the manual `/compact`.
 *
 * @example
 * ```ts
 * const chat = new ChatCompactor({ window: 200_000 });
 * const result = await chat.beforeSend(history, userMessage, summarize);
 * history = result.history;                       // new on COMPRESSED, the same array otherwise
 * const reply = await callModel([...history, userMessage]);
 * chat.reportUsage(reply.usageMetadata);
 * ```
 */
export class ChatCompactor<M extends object = Content> {
    /**
     * Releases the chat. Any later call on it throws a `CompactionError`
     * (`INVALID_STATE`); a run in flight rejects with it. A chat the host
     * forgets without calling this is freed when it is garbage-collected.
     */
    free(): void;
    /** `free()`, for `using chat = new ChatCompactor(…)`. */
    [Symbol.dispose](): void;
    /**
     * The check before a model call (docs/spec.md §3). `pending` is everything the call sends after
     * what the last reported usage covered: the user's message, or in a tool loop every tool result
     * of the step (an array; with parallel calls OpenAI has one message per result), each counted.
     * `history` is everything before it. At `hard` the
     * breaker is reset and compaction is forced; with the breaker open or
     * below `auto` nothing happens; at `auto` the history is compacted
     * through `summarize` (thinking off, `maxOutputTokens` ≤ 20 000 and ≤
     * the model's limit, `options.maxOutputTokens`). When the part to
     * summarize is larger than one request can hold, `summarize` is called
     * several times, one request after the other, each carrying the summary
     * so far (`result.summaryCalls`); a failure or an abort at any call
     * leaves the history as it was. After COMPRESSED the next prompt is
     * below `auto`; a message that cannot fit at all is NOOP
     * `messageTooLarge` (see `slimMessage`). Resolves to the result; rejects only with a `CompactionError` for
     * bad arguments, `BUSY`, or `INVALID_STATE` (the chat was freed). An
     * aborted `signal` gives status ABORTED.
     *
     * `summarize` is called as `summarize(request, { signal })`: the signal
     * (yours, or one the library makes) aborts when the run is aborted, so
     * you can cancel your HTTP call. An abort at any moment — before the
     * call, from inside it, while it runs — settles the run at once as
     * ABORTED. The history is read when the run starts: messages you append
     * while `summarize` runs follow the kept tail in the COMPRESSED result.
     *
     * @example
     * ```ts
     * const result = await chat.beforeSend(history, userMessage, async (request) => {
     *   const r = await gemini.models.generateContent({ model, contents: request.contents,
     *     config: { systemInstruction: request.systemInstruction, ...request.config } });
     *   return { text: r.text ?? "", finishReason: r.candidates?.[0]?.finishReason, usage: r.usageMetadata };
     * });
     * if (result.status === CompressionStatus.COMPRESSED) history = result.history;
     * ```
     */
    beforeSend(history: M[], pending: M | M[], summarize: Summarize, options?: BeforeSendOptions | null): Promise<CompactionResult<M>>;
    /**
     * Declares what the provider counts in every prompt besides the messages (the chat's
     * `overheadTokens`): a number of tokens, `null` for none, or `{ system, tools }` (the call's
     * system prompt and tool schemas, estimated with the chat's estimator). Returns the tokens
     * declared. Part of `save()`.
     *
     * @example
     * ```ts
     * chat.setOverhead({ system: "You are a coding agent.", tools: toolSchemas });
     * ```
     */
    setOverhead(overhead: Overhead): number | null;
    /**
     * Re-applies the chat's last compaction to a prompt rebuilt from the uncompacted conversation
     * (frameworks hand it back at every model call). The chat remembers the messages its last
     * compaction replaced, by a fingerprint of their content, and the head that replaced them: a
     * prompt that starts with them gets the head in their place, with no summary call; one that
     * starts with the head already is left as is; one that starts with neither is a new or edited
     * conversation (`match: "diverged"`: the record and the usage count are dropped, the next check
     * estimates the prompt whole). `covered`: how many first messages of `history` the last
     * reported usage measured (`null`: none) — what follows them is pending for `beforeSend`.
     * Part of `save()`.
     *
     * @example
     * ```ts
     * const { history, covered } = chat.reapply(prompt);
     * const split = covered === null ? history.length - 1 : covered + 1;  // after the model's answer
     * const result = await chat.beforeSend(history.slice(0, split), history.slice(split), summarize);
     * ```
     */
    reapply(prompt: M[]): Reapplied<M>;
    /**
     * Manual compaction (`/compact`): forced, whatever the size and the
     * breaker; a failure is not counted. `focus` is appended to the prompt.
     * `summarize` and `signal` behave as in `beforeSend`. A trailing
     * function call without its response is dropped from the new history
     * (between turns no response will come; it is in `replaced`).
     *
     * @example
     * ```ts
     * const result = await chat.compact(history, summarize, { focus: "keep the API design decisions" });
     * ```
     */
    compact(history: M[], summarize: Summarize, options?: CompactOptions | null): Promise<CompactionResult<M>>;
    /**
     * A chat with a context window of `options.window` tokens.
     * `hasFailedCompressionAttempt` (deprecated) is accepted: true → 3
     * consecutive failures, false → 0, with a one-time warning.
     *
     * @example
     * ```ts
     * new ChatCompactor({ window: 128_000, excludeMessages: 3, consecutiveFailures: 0 });
     * ```
     */
    constructor(options: ChatCompactorOptions);
    /**
     * Takes the prompt size from a response's usage, in any provider's
     * names (Gemini `usageMetadata`, OpenAI `usage`, Anthropic `usage`).
     * Missing, negative or non-numeric counts are ignored, never trusted;
     * no usage at all (`undefined` or `null`, as the SDKs declare an
     * optional `usageMetadata` / `usage`) is taken as nothing
     * (`taken: false`).
     *
     * @example
     * ```ts
     * chat.reportUsage({ promptTokenCount: 90_000, candidatesTokenCount: 800, totalTokenCount: 90_800 });
     * ```
     */
    reportUsage(usage: UsageReport | null | undefined): UsageUpdate;
    /**
     * A chat restored from `save()`'s output (e.g. after a webview reload),
     * typed with your message type as the chat that saved it was.
     *
     * @example
     * ```ts
     * const chat = ChatCompactor.restore(JSON.parse(localStorage.chatState));
     * const openaiChat: ChatCompactor<ChatCompletionMessageParam> = ChatCompactor.restore(saved);
     * ```
     */
    static restore<M extends object = Content>(state: SavedState): ChatCompactor<M>;
    /**
     * The state as plain JSON data, for `ChatCompactor.restore`. A run in
     * flight is not part of it.
     *
     * @example
     * ```ts
     * localStorage.chatState = JSON.stringify(chat.save());
     * ```
     */
    save(): SavedState;
    /**
     * Changes the window (the user switched models). With a second
     * argument, the model's output limit too, both at once: a number (a
     * whole number ≥ 1) sets it, `null` clears it; without it the limit
     * stays as it was. Nothing changes on an error.
     *
     * @example
     * ```ts
     * chat.setWindow(1_000_000);          // the limit stays as it was
     * chat.setWindow(128_000, 16_384);    // gpt-4o: summary calls ask for at most 16 384 tokens
     * chat.setWindow(200_000, null);      // no limit of the model's: the cap is 20 000
     * ```
     */
    setWindow(window: number, maxOutputTokens?: number | null): void;
    /**
     * The context-usage indicator for the last prompt size: percent used,
     * tier, tokens left before `auto`, whether the footer shows.
     *
     * @example
     * ```ts
     * const { percentUsed, tier } = chat.usage();
     * ```
     */
    usage(): ContextReport;
    /**
     * Whether a compaction is running (its `summarize` call has not settled).
     */
    readonly busy: boolean;
    /**
     * Non-forced compaction failures in a row (the breaker opens at 3).
     */
    readonly consecutiveFailures: number;
    /**
     * The prompt size the provider last reported (0: none yet), or the
     * size after the last compaction.
     */
    readonly lastPromptTokenCount: number;
    /**
     * The ladder for the window.
     */
    readonly thresholds: Thresholds;
    /**
     * The context window, in tokens.
     */
    readonly window: number;
}

/**
 * The statuses of a compaction, numbered as in the reference
 * implementation (1–6) plus this library's 7 and 8.
 */
export enum CompressionStatus {
    /**
     * The history was compacted: use the result's `history`.
     */
    COMPRESSED = 1,
    /**
     * The summary would have made the prompt larger; nothing changed.
     */
    INFLATED = 2,
    /**
     * Kept for the reference's numbering; not produced (the estimator is the fallback).
     */
    TOKEN_COUNT_ERROR = 3,
    /**
     * The summary was empty; nothing changed.
     */
    EMPTY_SUMMARY = 4,
    /**
     * Nothing to do: below `auto`, breaker open, or nothing to compress.
     */
    NOOP = 5,
    /**
     * The summary stopped on the output limit; nothing changed.
     */
    OUTPUT_TRUNCATED = 6,
    /**
     * The `summarize` callback threw, rejected or answered something malformed; nothing changed.
     */
    SUMMARIZER_FAILED = 7,
    /**
     * The host aborted the run; nothing changed, not counted as a failure.
     */
    ABORTED = 8,
    /** The reference implementation's name for INFLATED. */
    COMPRESSION_FAILED_INFLATED_TOKEN_COUNT = 2,
    /** The reference implementation's name for TOKEN_COUNT_ERROR. */
    COMPRESSION_FAILED_TOKEN_COUNT_ERROR = 3,
    /** The reference implementation's name for EMPTY_SUMMARY. */
    COMPRESSION_FAILED_EMPTY_SUMMARY = 4,
    /** The reference implementation's name for OUTPUT_TRUNCATED. */
    COMPRESSION_FAILED_OUTPUT_TRUNCATED = 6,
}

/**
 * A model's context window and output limit from the library's dated table
 * (OpenAI, Anthropic, Gemini, Qwen, DeepSeek, Llama, Mistral families;
 * provider prefixes and date suffixes are matched). An unknown model gets a
 * 131,072-token window, `known: false` and a `warning`.
 *
 * @example
 * ```ts
 * const { window, maxOutputTokens } = modelLimits("gpt-4o-2024-08-06"); // 128000, 16384
 * ```
 */
export function modelLimits(modelId: string): ModelLimits;

/**
 * The three-tier ladder for a context window of `window` tokens.
 *
 * @example
 * ```ts
 * computeThresholds(200_000);
 * // { window: 200000, effectiveWindow: 180000, warn: 147000, auto: 167000, hard: 177000,
 * //   warnRule: "abs", autoRule: "abs", hardRule: "abs" }
 * ```
 */
export function computeThresholds(window: number): Thresholds;

/**
 * The `/context` data for a prompt of `tokens` tokens in a window: the
 * ladder, the tier, percent used, tokens left before `auto`, and whether a
 * footer indicator should show.
 *
 * @example
 * ```ts
 * contextReport(150_000, 200_000).tokensUntilAuto; // 17000
 * ```
 */
export function contextReport(tokens: number, window: number): ContextReport;

/**
 * The tier a prompt of `tokens` tokens is in (`hard` is checked first).
 *
 * @example
 * ```ts
 * currentTier(150_000, computeThresholds(200_000)); // "warn"
 * ```
 */
export function currentTier(tokens: number, thresholds: Thresholds): Tier;

/**
 * Estimated tokens of a list of messages, rounded up once.
 *
 * @example
 * ```ts
 * estimateContentTokens([{ role: "user", parts: [{ text: "hello world" }] }]); // 3
 * ```
 */
export function estimateContentTokens<M extends object = Content>(contents: M[], options?: EstimateOptions | null): number;

/**
 * Estimated size of the prompt about to be sent: `lastPromptTokenCount` plus
 * the new message, or the whole history plus the message when the count is 0.
 *
 * @example
 * ```ts
 * estimatePromptTokens(history, { role: "user", parts: [{ text: "hello world" }] }, 50_000); // 50003
 * ```
 */
export function estimatePromptTokens<M extends object = Content>(history: M[], userMessage: M, lastPromptTokenCount: number, options?: EstimateOptions | null): number;

/**
 * Estimated tokens of one text, rounded up: the text estimator alone, no
 * message overhead.
 *
 * @example
 * ```ts
 * estimateTextTokens("hello world"); // 3 (the spec's rule: 11 characters ÷ 4)
 * estimateTextTokens("你好，世界", { estimator: "calibrated", tokenizer: "o200k" });
 * ```
 */
export function estimateTextTokens(text: string, options?: EstimateOptions | null): number;

/**
 * The `/context` block as text.
 *
 * @example
 * ```ts
 * formatContextReport(150_000, 200_000);
 * // "Compaction thresholds\n  Effective window:   180,000  (window − 20,000 reserve)\n ..."
 * ```
 */
export function formatContextReport(tokens: number, window: number): string;

/**
 * Loads settings from a parsed settings object. Each distinct warning goes
 * to `console.warn` once per page (or process), and all are returned.
 *
 * @example
 * ```ts
 * loadSettings({ chatCompression: { contextPercentageThreshold: 0.5 } }).warnings.length; // 1
 * ```
 */
export function loadSettings(settings?: SettingsFile | null): LoadedSettings;

/**
 * A copy of one message slimmed to `budgetTokens` estimated tokens the way
 * compaction slims: each long text and tool output keeps its head and its
 * end around a marker that says how many characters were removed
 * (`[… 48,210 characters removed by compaction …]`); names, ids and short
 * parts stay. For a message the chat reports as `messageTooLarge` that you
 * want to send anyway. Pass the chat's estimator in `options` (a chat's
 * default is `"conservative"`; this function's default is the spec's rule).
 *
 * @example
 * ```ts
 * let r = await chat.beforeSend(history, message, summarize);
 * if (r.noopReason === "messageTooLarge") {
 *   // Half the room below auto for the message; beforeSend then compacts the history if it must.
 *   message = slimMessage(message, chat.thresholds.auto / 2, { estimator: "conservative" });
 *   r = await chat.beforeSend(history, message, summarize);
 * }
 * ```
 */
export function slimMessage<M extends object = Content>(message: M, budgetTokens: number, options?: EstimateOptions | null): M;

/**
 * The context tip to show after a response, or `undefined`.
 *
 * @example
 * ```ts
 * selectTip({ lastPromptTokenCount: 150_000, contextWindowSize: 200_000 })?.id; // "context-warn"
 * ```
 */
export function selectTip(context: TipContext): Tip | undefined;

/**
 * The library's constants: the ladder's rules (`pct`, the buffers), the
 * summarization call's output cap, the breaker's limit, the default image
 * estimate, and the messages a summary becomes. For display (a page that
 * explains the ladder) — never needed to use the library.
 *
 * @example
 * ```ts
 * const { pct, autocompactBuffer, maxConsecutiveFailures } = ladderConstants(); // 0.7, 13000, 3
 * ```
 */
export function ladderConstants(): LadderConstants;
