// The four message shapes the library reads (its `format` option), as the
// page writes and shows them: one writer per format for the scripted
// session's messages (so that the simulator keeps its history in that shape
// end to end), and the per-format questions the page asks of a message
// (which parts it has, whether the user typed it, how many characters of
// text it holds). The library does every reading that counts; this only
// writes messages the way each provider's SDK declares them.

/** The formats, in the order the page lists them, with their names and SDK types. */
export const FORMATS = [
  { id: "gemini", label: "Gemini", type: "Content" },
  { id: "openai", label: "OpenAI", type: "ChatCompletionMessageParam" },
  { id: "anthropic", label: "Anthropic", type: "MessageParam" },
  { id: "ai-sdk", label: "AI SDK", type: "ModelMessage" },
];

export const FORMAT_IDS = FORMATS.map((f) => f.id);

/** The label of format `id` ("OpenAI"). */
export function formatLabel(id) {
  return FORMATS.find((f) => f.id === id)?.label ?? id;
}

/** Whether a format keeps its system prompt in the messages (OpenAI and AI SDK do; Anthropic and Gemini pass it beside them). */
export function hasSystemMessage(format) {
  return format === "openai" || format === "ai-sdk";
}

/**
 * The writers: what the scripted session says, as messages of one format.
 * `call(intro, name, args, id)` is a model turn with one tool call (and a
 * line of text before it, or none); `result(name, output, id)` its result;
 * `answer(text)` the model's final text; `user(text)` a typed request;
 * `system(text)` the system message, or null where the format has none in
 * the messages. The Gemini writer writes exactly what the page always did
 * (no call ids: Gemini pairs calls and results by name, in order).
 */
const WRITERS = {
  gemini: {
    system: () => null,
    user: (text) => ({ role: "user", parts: [{ text }] }),
    call: (intro, name, args) => ({ role: "model", parts: [...(intro ? [{ text: intro }] : []), { functionCall: { name, args } }] }),
    result: (name, output) => ({ role: "user", parts: [{ functionResponse: { name, response: { output } } }] }),
    answer: (text) => ({ role: "model", parts: [{ text }] }),
    image: (text, mimeType, data) => ({ role: "user", parts: [{ text }, { inlineData: { mimeType, data } }] }),
  },
  openai: {
    system: (text) => ({ role: "system", content: text }),
    user: (text) => ({ role: "user", content: text }),
    call: (intro, name, args, id) => ({
      role: "assistant",
      content: intro || null,
      tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
    }),
    result: (name, output, id) => ({ role: "tool", tool_call_id: id, content: output }),
    answer: (text) => ({ role: "assistant", content: text }),
    image: (text, mimeType, data) => ({ role: "user", content: [
      { type: "text", text },
      { type: "image_url", image_url: { url: `data:${mimeType};base64,${data}` } },
    ] }),
  },
  anthropic: {
    system: () => null,
    user: (text) => ({ role: "user", content: text }),
    call: (intro, name, args, id) => ({
      role: "assistant",
      content: [...(intro ? [{ type: "text", text: intro }] : []), { type: "tool_use", id, name, input: args }],
    }),
    result: (name, output, id) => ({ role: "user", content: [{ type: "tool_result", tool_use_id: id, content: output }] }),
    answer: (text) => ({ role: "assistant", content: [{ type: "text", text }] }),
    image: (text, mimeType, data) => ({ role: "user", content: [
      { type: "text", text },
      { type: "image", source: { type: "base64", media_type: mimeType, data } },
    ] }),
  },
  "ai-sdk": {
    system: (text) => ({ role: "system", content: text }),
    user: (text) => ({ role: "user", content: text }),
    call: (intro, name, args, id) => ({
      role: "assistant",
      content: [...(intro ? [{ type: "text", text: intro }] : []), { type: "tool-call", toolCallId: id, toolName: name, input: args }],
    }),
    result: (name, output, id) => ({
      role: "tool",
      content: [{ type: "tool-result", toolCallId: id, toolName: name, output: { type: "text", value: output } }],
    }),
    answer: (text) => ({ role: "assistant", content: [{ type: "text", text }] }),
    image: (text, mimeType, data) => ({ role: "user", content: [
      { type: "text", text },
      { type: "image", image: data, mediaType: mimeType },
    ] }),
  },
};

/** The writer of `format`; an unknown name is an error (the page offers only the four). */
export function writer(format) {
  const w = WRITERS[format];
  if (!w) throw new Error(`unknown message format ${JSON.stringify(format)}: one of ${FORMAT_IDS.join(", ")}`);
  return w;
}

/** A user's typed text as one message of `format` (what the estimator box makes of plain text). */
export function userText(text, format) {
  return writer(format).user(text);
}

/** The content items of a message whose `content` may be a string or a list. */
function items(message) {
  const c = message?.content;
  if (typeof c === "string") return [{ type: "text", text: c }];
  return Array.isArray(c) ? c : [];
}

/** Whether `message` is a request the user typed (text only, not a tool result): where a paste can go. */
export function isTypedRequest(message, format = "gemini") {
  if (message?.role !== "user") return false;
  if (format === "gemini") return (message.parts ?? []).every((p) => typeof p.text === "string");
  return items(message).every((b) => b.type === "text" && typeof b.text === "string");
}

/** The user's request with a pasted text after it: a second text part, in the request's format. */
export function appendText(message, text, format = "gemini") {
  if (format === "gemini") return { role: message.role, parts: [...message.parts, { text }] };
  return { role: message.role, content: [...items(message).map((b) => ({ ...b })), { type: "text", text }] };
}

/** The characters of text a message holds (its text parts, in any format). */
export function textChars(message, format = "gemini") {
  if (format === "gemini") return (message.parts ?? []).reduce((n, p) => n + (typeof p.text === "string" ? p.text.length : 0), 0);
  return items(message).reduce((n, b) => n + (typeof b.text === "string" ? b.text.length : 0), 0);
}

/** The text a message holds, its text parts joined (for labels: which message is the summary, the bridge). */
export function messageText(message, format = "gemini") {
  if (format === "gemini") return (message?.parts ?? []).filter((p) => typeof p.text === "string").map((p) => p.text).join("\n");
  return items(message).filter((b) => typeof b.text === "string").map((b) => b.text).join("\n");
}

/** What a Gemini part is, for the estimator table. */
function geminiKind(p) {
  if (!p || typeof p !== "object") return typeof p;
  if (typeof p.text === "string") return p.thought ? "thought" : "text";
  if (p.functionCall) return `functionCall ${p.functionCall.name ?? ""}`.trim();
  if (p.functionResponse) return `functionResponse ${p.functionResponse.name ?? ""}`.trim();
  if (p.inlineData) return `inlineData ${p.inlineData.mimeType ?? ""}`.trim();
  if (p.fileData) return `fileData ${p.fileData.mimeType ?? ""}`.trim();
  return Object.keys(p).join(", ") || "empty part";
}

/** What a content block of the other formats is ("tool_use read_file", "image_url", "text"). */
function blockKind(b) {
  if (!b || typeof b !== "object") return typeof b;
  const type = typeof b.type === "string" ? b.type : Object.keys(b).join(", ") || "empty part";
  const name = b.name ?? b.toolName;
  return typeof name === "string" ? `${type} ${name}` : type;
}

/** How many characters a part holds: its text, its data, or else its JSON. */
function partChars(p) {
  if (typeof p === "string") return p.length;
  if (typeof p?.text === "string") return p.text.length;
  if (typeof p?.inlineData?.data === "string") return p.inlineData.data.length;
  if (typeof p?.source?.data === "string") return p.source.data.length;
  if (typeof p?.image === "string") return p.image.length;
  if (typeof p?.image_url?.url === "string") return p.image_url.url.length;
  if (typeof p?.content === "string") return p.content.length;
  if (typeof p?.function?.arguments === "string") return p.function.arguments.length;
  if (typeof p?.output?.value === "string") return p.output.value.length;
  return JSON.stringify(p)?.length ?? 0;
}

/**
 * The parts of one message, for the estimator table: each as { kind, chars,
 * alone }, where `alone` is a message of the same format holding only that
 * part (the library estimates it on its own). A message with no part the
 * page can split is one part, the message itself.
 */
export function messageParts(message, format = "gemini") {
  if (!message || typeof message !== "object") return [{ kind: typeof message, chars: 0, alone: message }];
  if (format === "gemini") {
    if (!Array.isArray(message.parts)) return [{ kind: "message", chars: partChars(message), alone: message }];
    return message.parts.map((p) => ({ kind: geminiKind(p), chars: partChars(p), alone: { role: message.role, parts: [p] } }));
  }
  const { content, tool_calls: calls, refusal, ...rest } = message;
  const out = [];
  if (typeof content === "string") out.push({ kind: message.role === "tool" ? "tool result" : "text", chars: content.length, alone: { ...rest, content } });
  else if (Array.isArray(content)) {
    for (const block of content) out.push({ kind: blockKind(block), chars: partChars(block), alone: { ...rest, content: [block] } });
  }
  if (format === "openai") {
    if (typeof refusal === "string") out.push({ kind: "refusal", chars: refusal.length, alone: { ...rest, content: null, refusal } });
    if (Array.isArray(calls)) {
      for (const call of calls) {
        out.push({ kind: `tool call ${call?.function?.name ?? ""}`.trim(), chars: partChars(call), alone: { ...rest, content: null, tool_calls: [call] } });
      }
    }
  }
  return out.length > 0 ? out : [{ kind: "message", chars: partChars(message), alone: message }];
}

/** Strings longer than this are cut in the page's JSON view of a history. */
export const SHOWN_STRING_CHARS = 240;

/** A copy of `value` with every long string cut to its start and a note of what was left out (for display only). */
export function shortened(value, limit = SHOWN_STRING_CHARS) {
  if (typeof value === "string") {
    return value.length <= limit ? value : `${value.slice(0, limit)}… [${value.length - limit} more characters]`;
  }
  if (Array.isArray(value)) return value.map((v) => shortened(v, limit));
  if (value && typeof value === "object") {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = shortened(v, limit);
    return out;
  }
  return value;
}
