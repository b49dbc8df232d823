// A local mock of the four providers' HTTP APIs for the SDK tests (the message formats, docs/api.md):
// OpenAI chat completions, Anthropic messages and Gemini generateContent on
// 127.0.0.1 (port 0), answering the way each API does (its usage fields and
// stop reasons, a tool call when tools are declared, a slow answer to abort)
// and validating every request the way the real API does, answering a bad one
// with a 400 and recording it (a test asserts `mock.rejected` is empty).
//
// The server is bounded: it closes itself after `lifetimeMs` or
// `maxRequests`, and `close()` ends every open connection.
import http from "node:http";

/** Output limits the mock enforces, as the providers publish them (a request over the limit is a 400). */
export const OUTPUT_LIMITS = {
  "gpt-4o": 16_384,
  "gpt-4o-mini": 16_384,
  "claude-3-5-haiku-20241022": 8_192,
  "gemini-2.5-flash": 65_536,
};

/** The summary the mock writes (the sections the library's prompt asks for). */
export const SUMMARY_TEXT = "## Task status\n- refactoring src/ module by module\n## Files\n- src/mod0.rs\n## Next steps\n- continue with the next module";

/** A rough token count of a request: its JSON text ÷ 4, as a provider's count grows with the prompt. */
const tokensOf = (value) => Math.ceil(JSON.stringify(value).length / 4);

/** A 400 the handler throws; `message` says what the real API would say. */
class BadRequest extends Error {}
const check = (ok, message) => {
  if (!ok) throw new BadRequest(message);
};
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** Rejects the Gemini shapes a non-Gemini API never accepts. */
function noGeminiShapes(message, where) {
  check(!("parts" in message), `${where}: unknown field "parts" (a Gemini message?)`);
  check(message.role !== "model", `${where}: role "model" is not a valid role`);
}

function checkCap(model, cap, field) {
  check(typeof model === "string" && model !== "", "model: required");
  check(Number.isInteger(cap) && cap >= 1, `${field}: must be an integer ≥ 1, got ${cap}`);
  const limit = OUTPUT_LIMITS[model];
  check(limit !== undefined, `model: unknown model ${model}`);
  check(cap <= limit, `${field}: ${cap} > ${limit}, the maximum for ${model}`);
}

/** OpenAI chat completions: roles, tool messages right after the assistant message calling them, every call answered. */
function validateOpenAI(body) {
  check(body.stream !== true, "the mock does not stream");
  const cap = body.max_completion_tokens ?? body.max_tokens;
  check(!(body.max_completion_tokens !== undefined && body.max_tokens !== undefined), "max_tokens and max_completion_tokens are exclusive");
  checkCap(body.model, cap ?? 1, body.max_completion_tokens !== undefined ? "max_completion_tokens" : "max_tokens");
  check(Array.isArray(body.messages) && body.messages.length > 0, "messages: a non-empty array is required");
  let pending = null; // the call ids of the last assistant message still waiting for their tool messages
  for (const [i, m] of body.messages.entries()) {
    const where = `messages[${i}]`;
    check(isObject(m), `${where}: must be an object`);
    noGeminiShapes(m, where);
    check(["system", "developer", "user", "assistant", "tool"].includes(m.role), `${where}.role: invalid ${m.role}`);
    if (m.role === "tool") {
      check(pending !== null && pending.has(m.tool_call_id), `${where}: a tool message must respond to a preceding tool_calls id (${m.tool_call_id})`);
      pending.delete(m.tool_call_id);
      check(typeof m.content === "string" || Array.isArray(m.content), `${where}.content: required`);
      continue;
    }
    check(pending === null || pending.size === 0, `${where}: the assistant's tool_calls ${[...(pending ?? [])].join(", ")} have no tool response`);
    pending = null;
    if (m.role === "assistant" && Array.isArray(m.tool_calls) && m.tool_calls.length > 0) {
      for (const c of m.tool_calls) check(typeof c.id === "string" && c.type === "function" && typeof c.function?.arguments === "string", `${where}.tool_calls: malformed`);
      pending = new Set(m.tool_calls.map((c) => c.id));
    } else {
      check(typeof m.content === "string" || Array.isArray(m.content), `${where}.content: required`);
    }
  }
  check(pending === null || pending.size === 0, "the last assistant tool_calls have no tool response");
}

/** Anthropic messages: strict alternation from a user turn, each tool_result answering a tool_use of the turn before. */
function validateAnthropic(body) {
  check(body.stream !== true, "the mock does not stream");
  check(body.max_tokens !== undefined, "max_tokens: Field required");
  checkCap(body.model, body.max_tokens, "max_tokens");
  if (body.thinking !== undefined) check(body.thinking.type !== "enabled" || body.thinking.budget_tokens < body.max_tokens, "thinking.budget_tokens must be < max_tokens");
  check(body.system === undefined || typeof body.system === "string" || Array.isArray(body.system), "system: must be a string or text blocks");
  check(Array.isArray(body.messages) && body.messages.length > 0, "messages: at least one message is required");
  let calls = new Set();
  for (const [i, m] of body.messages.entries()) {
    const where = `messages.${i}`;
    check(isObject(m), `${where}: must be an object`);
    noGeminiShapes(m, where);
    check(m.role === "user" || m.role === "assistant", `${where}.role: Input should be 'user' or 'assistant'`);
    check(m.role === (i % 2 === 0 ? "user" : "assistant"), `${where}: roles must alternate between "user" and "assistant", starting with "user"`);
    const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    check(Array.isArray(blocks) && blocks.length > 0, `${where}.content: must be a non-empty string or list`);
    const results = blocks.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id);
    for (const id of results) check(calls.has(id), `${where}: unexpected tool_use_id found in tool_result blocks: ${id}. Each tool_result block must have a corresponding tool_use block in the previous message.`);
    if (m.role === "user") {
      const missing = [...calls].filter((id) => !results.includes(id));
      check(missing.length === 0, `${where}: tool_use ids were found without tool_result blocks immediately after: ${missing.join(", ")}`);
    }
    for (const b of blocks) if (b.type === "text") check(typeof b.text === "string" && b.text !== "", `${where}: text content blocks must be non-empty`);
    calls = new Set(m.role === "assistant" ? blocks.filter((b) => b.type === "tool_use").map((b) => b.id) : []);
  }
  check(calls.size === 0, "the last assistant tool_use blocks have no tool_result");
}

/** Gemini generateContent: roles user / model, one kind per part, function responses right after their calls, calls only with tools. */
function validateGemini(model, body) {
  check(!("messages" in body), 'Invalid JSON payload received. Unknown name "messages"');
  checkCap(model, body.generationConfig?.maxOutputTokens ?? 1, "generationConfig.maxOutputTokens");
  check(Array.isArray(body.contents) && body.contents.length > 0, "contents is not specified");
  const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
  let calls = [];
  for (const [i, c] of body.contents.entries()) {
    const where = `contents[${i}]`;
    check(c.role === "user" || c.role === "model", `${where}.role: please use a valid role: user, model`);
    check(Array.isArray(c.parts) && c.parts.length > 0, `${where}.parts: must not be empty`);
    const responses = [];
    for (const [j, p] of c.parts.entries()) {
      const kinds = ["text", "functionCall", "functionResponse", "inlineData", "fileData"].filter((k) => k in p);
      check(kinds.length === 1, `${where}.parts[${j}]: exactly one data field is required, got ${kinds.join(", ") || "none"}`);
      if (p.functionCall) check(c.role === "model" && hasTools, `${where}.parts[${j}]: a function call needs a model turn and declared tools`);
      if (p.functionResponse) responses.push(p.functionResponse.name);
    }
    if (responses.length) {
      check(c.role === "user", `${where}: a function response must be a user turn`);
      for (const name of responses) check(calls.includes(name), `${where}: please ensure that function response turn comes immediately after a function call turn (${name})`);
    }
    calls = c.role === "model" ? c.parts.filter((p) => p.functionCall).map((p) => p.functionCall.name) : [];
  }
}

/** The tool result text the agent's `read_file` returns: long enough that a session fills its window in tens of turns. */
export function toolOutput(path) {
  return Array.from({ length: 120 }, (_, i) => `// ${path} line ${i}: fn item_${i}(x: u32) -> u32 { x * ${i} }`).join("\n");
}

/**
 * Listens on 127.0.0.1 (port 0) and bounds the server: it closes itself after
 * `lifetimeMs`, and `close()` (idempotent) ends every open connection.
 */
export async function listenBounded(server, lifetimeMs) {
  const sockets = new Set();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const stop = setTimeout(() => close(), lifetimeMs);
  stop.unref();
  let closing;
  function close() {
    clearTimeout(stop);
    for (const socket of sockets) socket.destroy();
    closing ??= new Promise((resolve) => server.close(() => resolve()));
    return closing;
  }
  return { port: server.address().port, close };
}

/**
 * Starts the mock. `state.summaryFinish`: per provider, the stop reason
 * summary requests get (default the normal one; OpenAI `"refusal"` answers a
 * refusal, Gemini `"blocked"` a prompt blocked before any candidate);
 * `state.slow`: hold summary requests unanswered until the client goes away
 * (to abort them).
 */
export async function startMock({ lifetimeMs = 120_000, maxRequests = 5_000 } = {}) {
  const state = {
    requests: [], // { provider, body, summary, model, promptTokens (OpenAI) }
    rejected: [], // { provider, message }
    aborted: 0, // requests whose client went away before the answer
    slow: false,
    summaryFinish: {},
  };
  let served = 0;
  const slowWaiters = [];

  function answer(provider, body, summary) {
    const finish = state.summaryFinish[provider];
    if (provider === "openai") {
      const toolTurn = !summary && Array.isArray(body.tools) && body.messages.at(-1).role === "user";
      const n = state.requests.length;
      const message = toolTurn
        ? { role: "assistant", content: null, refusal: null, tool_calls: [{ id: `call_${n}`, type: "function", function: { name: "read_file", arguments: JSON.stringify({ path: `src/mod${n}.rs` }) } }] }
        : { role: "assistant", content: summary ? SUMMARY_TEXT : `Done: the module is refactored (${n}).`, refusal: null };
      const prompt = tokensOf(body.messages);
      if (summary && finish === "refusal") {
        // A refusal: the text is in `refusal`, the stop reason a normal one.
        Object.assign(message, { content: null, refusal: "I can't help with that." });
      }
      return {
        id: `chatcmpl-${n}`, object: "chat.completion", created: 1_764_547_200, model: body.model,
        choices: [{ index: 0, message, logprobs: null, finish_reason: summary ? (finish === "refusal" ? "stop" : (finish ?? "stop")) : toolTurn ? "tool_calls" : "stop" }],
        usage: { prompt_tokens: prompt, completion_tokens: 40, total_tokens: prompt + 40, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } },
      };
    }
    if (provider === "anthropic") {
      const last = body.messages.at(-1);
      const lastIsResult = Array.isArray(last.content) && last.content.some((b) => b.type === "tool_result");
      const toolTurn = !summary && Array.isArray(body.tools) && !lastIsResult;
      const n = state.requests.length;
      const content = toolTurn
        ? [{ type: "text", text: "Reading it." }, { type: "tool_use", id: `toolu_${n}`, name: "read_file", input: { path: `src/mod${n}.rs` } }]
        : [{ type: "text", text: summary ? SUMMARY_TEXT : `Done: the module is refactored (${n}).` }];
      const prompt = tokensOf([body.system, body.messages]);
      if (body.compaction?.type === "summarize") {
        // On-demand compaction (beta): only the compaction block; `finish: "unreadable"` gives it no readable content.
        return {
          id: `msg_${n}`, type: "message", role: "assistant", model: body.model,
          content: [{ type: "compaction", content: finish === "unreadable" ? null : SUMMARY_TEXT, encrypted_content: "EqQBCkgIARABGAIiQ" }],
          stop_reason: finish === "unreadable" ? "end_turn" : (finish ?? "end_turn"), stop_sequence: null,
          usage: { input_tokens: prompt, output_tokens: 40, cache_creation_input_tokens: null, cache_read_input_tokens: null },
        };
      }
      // Half the prompt read from the cache: the library sums the three input fields.
      const cached = Math.floor(prompt / 2);
      return {
        id: `msg_${n}`, type: "message", role: "assistant", model: body.model, content,
        stop_reason: summary ? (finish ?? "end_turn") : toolTurn ? "tool_use" : "end_turn", stop_sequence: null,
        usage: { input_tokens: prompt - cached, output_tokens: 40, cache_creation_input_tokens: null, cache_read_input_tokens: cached, service_tier: "standard" },
      };
    }
    // gemini
    const last = body.contents.at(-1);
    const lastIsResult = last.parts.some((p) => p.functionResponse);
    const toolTurn = !summary && Array.isArray(body.tools) && !lastIsResult;
    const n = state.requests.length;
    const parts = toolTurn
      ? [{ functionCall: { id: `fc_${n}`, name: "read_file", args: { path: `src/mod${n}.rs` } } }]
      : [{ text: summary ? SUMMARY_TEXT : `Done: the module is refactored (${n}).` }];
    const prompt = tokensOf([body.systemInstruction, body.contents]);
    if (summary && finish === "blocked") {
      // A prompt blocked before any candidate: no candidates, the reason in promptFeedback.
      return { promptFeedback: { blockReason: "PROHIBITED_CONTENT" }, usageMetadata: { promptTokenCount: prompt, totalTokenCount: prompt }, modelVersion: "gemini-2.5-flash" };
    }
    return {
      candidates: [{ content: { role: "model", parts }, finishReason: summary ? (finish ?? "STOP") : "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: prompt, candidatesTokenCount: 40, totalTokenCount: prompt + 40, promptTokensDetails: [{ modality: "TEXT", tokenCount: prompt }] },
      modelVersion: "gemini-2.5-flash",
      responseId: `resp_${n}`,
    };
  }

  /** Whether a request is a summary request: the library's system prompt, and no tools. */
  function isSummary(provider, body) {
    // Anthropic's on-demand compaction carries the prompt as its instructions.
    if (provider === "anthropic" && body.compaction?.type === "summarize") return !body.tools && /summar/i.test(String(body.compaction.instructions));
    const system = provider === "openai" ? body.messages?.[0]?.content : provider === "anthropic" ? body.system : body.systemInstruction?.parts?.map((p) => p.text).join("");
    return !body.tools && typeof system === "string" && /summar/i.test(system);
  }

  const server = http.createServer((req, res) => {
    served += 1;
    if (served > maxRequests) {
      res.writeHead(503).end();
      server.close();
      return;
    }
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      const url = new URL(req.url, "http://127.0.0.1");
      let provider;
      let model;
      if (req.method === "POST" && url.pathname === "/openai/v1/chat/completions") provider = "openai";
      else if (req.method === "POST" && url.pathname === "/anthropic/v1/messages") provider = "anthropic";
      else {
        const m = /^\/gemini\/v1(?:beta)?\/models\/([^/:]+):generateContent$/.exec(url.pathname); // v1beta, or v1 (@google/genai 3)
        if (req.method === "POST" && m) [provider, model] = ["gemini", decodeURIComponent(m[1])];
      }
      const send = (status, value) => {
        if (res.destroyed) return;
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(value));
      };
      if (!provider) {
        state.rejected.push({ provider: "?", message: `no route ${req.method} ${url.pathname}` });
        send(404, { error: { message: `no route ${req.method} ${url.pathname}` } });
        return;
      }
      let body;
      try {
        body = JSON.parse(raw);
        if (provider === "openai") validateOpenAI(body);
        else if (provider === "anthropic") validateAnthropic(body);
        else validateGemini(model, body);
      } catch (error) {
        const message = error instanceof BadRequest ? error.message : `invalid JSON: ${error.message}`;
        state.rejected.push({ provider, message });
        const payload = provider === "anthropic"
          ? { type: "error", error: { type: "invalid_request_error", message } }
          : provider === "openai"
            ? { error: { message, type: "invalid_request_error", param: null, code: null } }
            : { error: { code: 400, message, status: "INVALID_ARGUMENT" } };
        send(400, payload);
        return;
      }
      const summary = isSummary(provider, body);
      state.requests.push({ provider, body, summary, model: model ?? body.model });
      if (summary && state.slow) {
        // Held until the client aborts (or the server closes).
        res.on("close", () => {
          if (!res.writableEnded) state.aborted += 1;
        });
        for (const wake of slowWaiters.splice(0)) wake();
        return;
      }
      const payload = answer(provider, body, summary);
      // What the answer's usage says the prompt was (OpenAI's): a loop's last report can be checked against it.
      state.requests.at(-1).promptTokens = payload.usage?.prompt_tokens;
      send(200, payload);
    });
  });
  const { port, close } = await listenBounded(server, lifetimeMs);
  return {
    url: `http://127.0.0.1:${port}`,
    state,
    close,
    /** Resolves when a slow summary request has arrived. */
    slowRequestArrived: () => new Promise((resolve) => slowWaiters.push(resolve)),
  };
}
