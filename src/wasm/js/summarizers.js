// Ready `summarize` callbacks for the four providers (the
// `compaction-core/summarizers` entry point). Each takes the host's own SDK
// client (or the AI SDK's `generateText`), so this file imports no SDK and
// nothing from the wasm build: it is plain JS, tree-shakable, and works with
// any version of a client whose call has the documented shape.
//
// Every summarizer does the same four things:
// - renders the request's `contents` (the core's Gemini shape) as plain text
//   messages. Tool calls and results become text, never the provider's tool
//   calls: a summary request declares no tools, and a provider rejects a tool
//   result whose call it was not given (or tool calls without tools);
// - caps the output at the request's `config.maxOutputTokens`, lowered to
//   the model's own output limit when the core's model table knows the
//   model, and to the summarizer's own `maxOutputTokens`; asks for no
//   thinking;
// - passes the run's abort signal to the SDK call, so an aborted run cancels
//   the HTTP request;
// - returns the provider's own stop reason and usage object: the library
//   maps both (docs/behaviour.md, "Stop reasons"; docs/api.md, "Usage").

// The core's model table (src/model_limits.rs), written by scripts/build.
import { MODEL_OUTPUT_LIMITS } from "./model_table.js";

/**
 * The output limit of `model` (an id, or an AI SDK model object with a
 * `modelId`) in the core's model table, matched as `modelLimits` matches it
 * (any case; dots, underscores, colons, slashes, spaces and `@` as dashes; the
 * family's name between dashes or the ends); null when unknown or when the
 * family publishes none.
 */
export function modelOutputLimit(model) {
  let id = model;
  try {
    if (typeof id !== "string") id = model?.modelId;
  } catch {
    id = undefined;
  }
  if (typeof id !== "string") return null;
  const name = id.trim().replace(/[A-Z]/g, (c) => c.toLowerCase()).replace(/[._:/ @]/g, "-");
  for (const [family, limit] of MODEL_OUTPUT_LIMITS) {
    for (let at = name.indexOf(family); at !== -1; at = name.indexOf(family, at + 1)) {
      const end = at + family.length;
      if ((at === 0 || name[at - 1] === "-") && (end === name.length || name[end] === "-")) return limit;
    }
  }
  return null;
}

/** A short label of a media part, as the core writes media into a summary request. */
function mediaLabel(kind, data) {
  const mime = data && typeof data.mimeType === "string" ? data.mimeType : "unknown";
  return `[${kind}: ${mime}]`;
}

/** One part as text; tool calls and results are written out, so the model reads them as the conversation's record. */
function partText(part) {
  if (part === null || typeof part !== "object") return String(part);
  if (typeof part.text === "string") return part.thought === true ? "" : part.text;
  if (part.functionCall) {
    const call = part.functionCall;
    const id = call.id ? ` ${call.id}` : "";
    return `[tool call${id}: ${call.name}(${JSON.stringify(call.args ?? {})})]`;
  }
  if (part.functionResponse) {
    const response = part.functionResponse;
    const id = response.id ? ` ${response.id}` : "";
    const media = Array.isArray(response.parts) ? response.parts.map(partText).filter(Boolean) : [];
    const body = JSON.stringify(response.response ?? {});
    return `[tool result${id}: ${response.name}] ${body}${media.length ? `\n${media.join("\n")}` : ""}`;
  }
  if (part.inlineData) return mediaLabel("inline data", part.inlineData);
  if (part.fileData) return mediaLabel("file", part.fileData);
  return JSON.stringify(part);
}

/**
 * The request's contents as alternating `user` / `assistant` text turns: a
 * model turn is `assistant`, everything else `user`; neighbours of one role
 * are merged (Anthropic and Gemini require alternation), and the first turn is
 * a user turn (Anthropic requires it).
 */
export function renderTurns(contents) {
  const turns = [];
  for (const content of contents ?? []) {
    const role = content.role === "model" || content.role === "assistant" ? "assistant" : "user";
    const text = (content.parts ?? []).map(partText).filter((t) => t !== "").join("\n");
    if (text === "") continue;
    const last = turns[turns.length - 1];
    if (last && last.role === role) last.text += `\n\n${text}`;
    else turns.push({ role, text });
  }
  if (turns.length === 0 || turns[0].role !== "user") turns.unshift({ role: "user", text: "(The conversation so far follows.)" });
  return turns;
}

/**
 * The output cap: the request's, lowered to the model's own limit when the
 * model table knows it (docs/api.md, "Ready summarizers") and to the summarizer's own
 * `maxOutputTokens` when that is smaller.
 */
function outputCap(request, options) {
  let cap = request.config.maxOutputTokens;
  const known = modelOutputLimit(options.model);
  if (known !== null && known < cap) cap = known;
  const own = options.maxOutputTokens;
  return typeof own === "number" && own >= 1 && own < cap ? Math.floor(own) : cap;
}

/** Checks the options every summarizer takes. */
function checkOptions(name, client, clientKind, options) {
  if (client === null || (typeof client !== "object" && typeof client !== "function")) {
    throw new TypeError(`${name}: the first argument must be ${clientKind}, got ${client === null ? "null" : typeof client}`);
  }
  if (options === null || typeof options !== "object" || options.model === undefined || options.model === null || options.model === "") {
    throw new TypeError(`${name}: options.model is required (the model that writes the summary)`);
  }
  const own = options.maxOutputTokens;
  if (own !== undefined && own !== null && !(typeof own === "number" && Number.isFinite(own) && own >= 1)) {
    throw new TypeError(`${name}: options.maxOutputTokens must be a number ≥ 1, got ${String(own)}`);
  }
}

/**
 * A summarizer over OpenAI chat completions (`openai`'s client, or any
 * OpenAI-compatible one). The cap is sent as `max_completion_tokens` (every
 * current OpenAI model takes it; pass `tokenParameter: "max_tokens"` for an
 * older compatible server). A refusal is answered as `content_filter`.
 */
export function openaiSummarizer(client, options) {
  checkOptions("openaiSummarizer", client, "an OpenAI client", options);
  const { model, params, tokenParameter = "max_completion_tokens" } = options;
  return async (request, context) => {
    const messages = [
      { role: "system", content: request.systemInstruction },
      ...renderTurns(request.contents).map((t) => ({ role: t.role, content: t.text })),
    ];
    const body = { ...params, model, messages, [tokenParameter]: outputCap(request, options) };
    const response = await client.chat.completions.create(body, { signal: context?.signal });
    const choice = response.choices?.[0];
    const message = choice?.message;
    // A refusal comes with a normal stop reason and no content: it is answered
    // as a filter stop, with the refusal as the text (the library checks the
    // text for emptiness before the stop reason, and must see a refusal).
    if (typeof message?.refusal === "string" && message.refusal !== "") {
      return { text: message.refusal, finishReason: "content_filter", usage: response.usage ?? null };
    }
    return {
      text: typeof message?.content === "string" ? message.content : "",
      finishReason: choice?.finish_reason ?? null,
      usage: response.usage ?? null,
    };
  };
}

/** A summarizer over Anthropic messages (`@anthropic-ai/sdk`'s client): no `thinking`, `max_tokens` = the cap. */
export function anthropicSummarizer(client, options) {
  checkOptions("anthropicSummarizer", client, "an Anthropic client", options);
  const { model, params } = options;
  return async (request, context) => {
    const body = {
      ...params,
      model,
      system: request.systemInstruction,
      max_tokens: outputCap(request, options),
      messages: renderTurns(request.contents).map((t) => ({ role: t.role, content: t.text })),
    };
    const response = await client.messages.create(body, { signal: context?.signal });
    const text = (response.content ?? []).filter((b) => b.type === "text").map((b) => b.text).join("");
    return { text, finishReason: response.stop_reason ?? null, usage: response.usage ?? null };
  };
}

/**
 * A summarizer over Gemini (`@google/genai`'s `GoogleGenAI`): the contents as
 * text turns, `config.maxOutputTokens` = the cap, thoughts off (a
 * `thinkingBudget` of 0 unless `thinkingConfig` says otherwise — Gemini 2.5 Pro
 * and 3 cannot turn thinking off: pass their lowest setting there). A prompt
 * blocked before any candidate (`promptFeedback.blockReason`) rejects with an
 * `Error` naming the reason: a failed run.
 */
export function geminiSummarizer(ai, options) {
  checkOptions("geminiSummarizer", ai, "a GoogleGenAI client", options);
  const { model, params, thinkingConfig = { includeThoughts: false, thinkingBudget: 0 } } = options;
  return async (request, context) => {
    const contents = renderTurns(request.contents).map((t) => ({
      role: t.role === "assistant" ? "model" : "user",
      parts: [{ text: t.text }],
    }));
    const config = {
      ...params,
      systemInstruction: request.systemInstruction,
      maxOutputTokens: outputCap(request, options),
      thinkingConfig,
      abortSignal: context?.signal,
    };
    const response = await ai.models.generateContent({ model, contents, config });
    const candidate = response.candidates?.[0];
    const blocked = response.promptFeedback?.blockReason;
    if (!candidate && blocked) {
      // Blocked before any candidate: a failed call whatever the reason (an
      // unknown stop reason would read as a normal end, an empty text as an
      // empty summary).
      const detail = response.promptFeedback.blockReasonMessage ? ` (${response.promptFeedback.blockReasonMessage})` : "";
      throw new Error(`Gemini blocked the summary request: ${blocked}${detail}`);
    }
    const text = (candidate?.content?.parts ?? []).filter((p) => typeof p.text === "string" && p.thought !== true).map((p) => p.text).join("");
    return { text, finishReason: candidate?.finishReason ?? null, usage: response.usageMetadata ?? null };
  };
}

/**
 * A summarizer over the AI SDK's `generateText` (`ai` v5/v6) with any
 * provider's model; `params` is merged into the call (e.g. `providerOptions`
 * turning a reasoning model's reasoning down, or `maxRetries`).
 */
export function aiSdkSummarizer(generateText, options) {
  if (typeof generateText !== "function") {
    throw new TypeError(`aiSdkSummarizer: the first argument must be the AI SDK's generateText, got ${generateText === null ? "null" : typeof generateText}`);
  }
  checkOptions("aiSdkSummarizer", generateText, "the AI SDK's generateText", options);
  const { model, params } = options;
  return async (request, context) => {
    const result = await generateText({
      ...params,
      model,
      system: request.systemInstruction,
      messages: renderTurns(request.contents).map((t) => ({ role: t.role, content: t.text })),
      maxOutputTokens: outputCap(request, options),
      abortSignal: context?.signal,
    });
    return { text: result.text ?? "", finishReason: result.finishReason ?? null, usage: result.usage ?? null };
  };
}

/** The text of a LangChain message's `content` (a string or blocks; thinking left out). */
function langchainText(message) {
  const content = message?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b) => (typeof b === "string" ? b : b && b.type === "text" && typeof b.text === "string" ? b.text : ""))
    .join("");
}

/**
 * A LangChain chat model with its output capped at `cap`. Chat models read
 * their cap from the instance (`ChatOpenAI`, `ChatAnthropic`: `maxTokens`),
 * not from the call, so a copy is made from the model's own constructor
 * arguments (`lc_kwargs`) with `maxTokens` set, once per cap. A model whose
 * own cap is already lower, or that cannot be copied so, is used as it is.
 */
function cappedModel(model, cap, copies) {
  const own = model.maxTokens;
  if (typeof own === "number" && own > 0 && own <= cap) return model;
  if (copies.has(cap)) return copies.get(cap);
  let capped = model;
  try {
    const Model = model.constructor;
    const fields = model.lc_kwargs;
    if (typeof Model === "function" && fields !== null && typeof fields === "object") {
      capped = new Model({ ...fields, maxTokens: cap });
      if (capped.maxTokens !== cap || typeof capped.invoke !== "function") capped = model;
    }
  } catch {
    capped = model;
  }
  copies.set(cap, capped);
  return capped;
}

/**
 * A summarizer over a LangChain chat model (`ChatOpenAI`, `ChatAnthropic`,
 * any `BaseChatModel`): the request as text turns through `model.invoke`,
 * the cap set on a copy of the model (chat models take it from the instance,
 * not per call), the run's abort signal passed. The stop reason is the
 * answer's `response_metadata.finish_reason` (OpenAI) or `stop_reason`
 * (Anthropic), the usage its `usage_metadata`.
 */
export function langchainSummarizer(model, options = {}) {
  if (model === null || typeof model !== "object" || typeof model.invoke !== "function") {
    throw new TypeError(`langchainSummarizer: the first argument must be a LangChain chat model (with invoke), got ${model === null ? "null" : typeof model}`);
  }
  const own = options?.maxOutputTokens;
  if (own !== undefined && own !== null && !(typeof own === "number" && Number.isFinite(own) && own >= 1)) {
    throw new TypeError(`langchainSummarizer: options.maxOutputTokens must be a number ≥ 1, got ${String(own)}`);
  }
  const copies = new Map();
  return async (request, context) => {
    const cap = outputCap(request, options ?? {});
    const messages = [
      { role: "system", content: request.systemInstruction },
      ...renderTurns(request.contents).map((t) => ({ role: t.role, content: t.text })),
    ];
    const answer = await cappedModel(model, cap, copies).invoke(messages, { signal: context?.signal });
    const meta = answer?.response_metadata ?? {};
    return {
      text: langchainText(answer),
      finishReason: meta.finish_reason ?? meta.stop_reason ?? null,
      usage: answer?.usage_metadata ?? null,
    };
  };
}

/** Whether a model id is an OpenAI reasoning model (whose reasoning is turned down for a summary). */
function isReasoningModel(model) {
  return typeof model === "string" && /^(o\d|gpt-5)/.test(model);
}

/**
 * A summarizer over the OpenAI Responses API (`client.responses.create`):
 * the request's system prompt as `instructions`, its contents as text
 * messages, `max_output_tokens` = the cap, `store: false`, and for a
 * reasoning model (o-series, gpt-5) `reasoning: { effort: "minimal" }`
 * unless `params.reasoning` says otherwise. An incomplete response answers
 * its `incomplete_details.reason` (`max_output_tokens`: a truncated summary).
 */
export function responsesSummarizer(client, options) {
  checkOptions("responsesSummarizer", client, "an OpenAI client", options);
  const { model, params } = options;
  return async (request, context) => {
    const body = {
      ...(isReasoningModel(model) ? { reasoning: { effort: "minimal" } } : {}),
      ...params,
      model,
      instructions: request.systemInstruction,
      input: renderTurns(request.contents).map((t) => ({ role: t.role, content: t.text })),
      max_output_tokens: outputCap(request, options),
      store: false,
    };
    const response = await client.responses.create(body, { signal: context?.signal });
    const texts = [];
    let refusal = "";
    for (const item of response.output ?? []) {
      if (item.type !== "message") continue;
      for (const part of item.content ?? []) {
        if (part.type === "output_text") texts.push(part.text);
        else if (part.type === "refusal") refusal += part.refusal;
      }
    }
    if (refusal !== "" && texts.length === 0) return { text: refusal, finishReason: "content_filter", usage: response.usage ?? null };
    const finishReason = response.status === "incomplete" ? (response.incomplete_details?.reason ?? "incomplete") : (response.status ?? null);
    return { text: texts.join(""), finishReason: finishReason === "completed" ? "stop" : finishReason, usage: response.usage ?? null };
  };
}

/**
 * A summarizer over Anthropic's on-demand server-side compaction (beta
 * `compact-2026-09-04`): `client.beta.messages.create` with the contents as
 * text turns and `compaction: { type: "summarize", instructions }` (the
 * library's compaction prompt); the answer is one `compaction` block whose
 * readable `content` is the summary. A block without readable content
 * (Anthropic's failure) rejects: a failed run, the history unchanged. The
 * stop reason and usage are the answer's own.
 */
export function anthropicCompactionSummarizer(client, options) {
  checkOptions("anthropicCompactionSummarizer", client, "an Anthropic client", options);
  const { model, params, beta = "compact-2026-09-04" } = options;
  return async (request, context) => {
    const body = {
      ...params,
      model,
      max_tokens: outputCap(request, options),
      messages: renderTurns(request.contents).map((t) => ({ role: t.role, content: t.text })),
      compaction: { type: "summarize", instructions: request.systemInstruction },
      betas: [beta],
    };
    const response = await client.beta.messages.create(body, { signal: context?.signal });
    const block = (response.content ?? []).find((b) => b && b.type === "compaction");
    if (!block || typeof block.content !== "string") {
      throw new Error("Anthropic's compaction returned no readable summary (the compaction block's content is null)");
    }
    return { text: block.content, finishReason: response.stop_reason ?? null, usage: response.usage ?? null };
  };
}

/** The summary text of a compaction by `responses.compact`: what the model reads beside the opaque item. */
const COMPACTED_NOTE = "The conversation before this point was compacted by OpenAI's server-side compaction: it is the compaction item just before this message.";

/**
 * OpenAI's `client.responses.compact` as a compaction (Responses API hosts,
 * `format: "openai-responses"`). `compact` returns only an opaque, encrypted
 * `compaction` item, so this is a pair: `summarize` sends the part to
 * replace (as text messages) to `responses.compact` and keeps the item,
 * answering a fixed note as the summary text (the library appends its
 * ledger section to it); `apply(result)` gives the new history with the
 * item(s) placed just before the summary message. The host gives up the
 * readable summary (nothing to show, nothing a later summary builds on)
 * and the summary checks (the note has none of the prompt's sections).
 */
export function responsesCompaction(client, options) {
  checkOptions("responsesCompaction", client, "an OpenAI client", options);
  const { model, params } = options;
  let items = [];
  const summarize = async (request, context) => {
    // A run's first call starts afresh; the later calls of a long run add theirs.
    if (!request.contents.some((c) => (c.parts ?? []).some((p) => typeof p.text === "string" && p.text.includes(COMPACTED_NOTE)))) items = [];
    const input = renderTurns(request.contents).map((t) => ({ role: t.role, content: t.text }));
    const response = await client.responses.compact({ ...params, model, input }, { signal: context?.signal });
    const item = (response.output ?? []).filter((i) => i && i.type === "compaction").pop();
    if (!item) throw new Error("responses.compact returned no compaction item");
    items.push(item);
    return { text: COMPACTED_NOTE, finishReason: "stop", usage: response.usage ?? null };
  };
  const apply = (result) => {
    const history = Array.isArray(result.history) ? [...result.history] : [];
    if (result.statusName !== "COMPRESSED" || items.length === 0) return history;
    const at = history.findIndex((m) => m && !Array.isArray(m) && JSON.stringify(m).includes(COMPACTED_NOTE));
    if (at === -1) return history;
    history.splice(at, 0, ...items);
    items = [];
    return history;
  };
  return { summarize, apply };
}
