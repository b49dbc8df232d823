// A loopback mock of OpenAI's `/v1/chat/completions` and `/v1/responses` that
// ENFORCES A CONTEXT WINDOW, for the framework tests (the AI SDK, LangChain,
// the OpenAI Agents SDK): a request whose prompt plus requested output
// exceeds the window is refused with HTTP 400 and the message the real API
// gives, the prompt counted with a real tokenizer (gpt-tokenizer, o200k, as
// gpt-4o counts), and every request's shape is validated the way the real API
// validates it (a bad one is a 400 too). Both are recorded: a test asserts
// `state.rejected` is empty.
//
// Answers are JSON or server-sent events (`stream: true`), in the API's own
// shapes, with its usage fields. What the "model" answers is the test's
// script: `agent({ api, body, summary, n })` returns `{ text }` or
// `{ toolCalls: [{ name, arguments }] }` (several calls in one answer are
// parallel calls). Summary requests (the library's system prompt, no tools)
// get `SUMMARY_TEXT`, truncated at the request's output cap like a real
// model (finish reason `length` / status `incomplete`), or a 500 while
// `state.summaryDown` is set.
//
// Bounded: the server closes itself after `lifetimeMs` or `maxRequests`, and
// `close()` ends every open connection.
import http from "node:http";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { SUMMARY_TEXT, listenBounded } from "./mock-providers.mjs";

export { SUMMARY_TEXT };

/** A 400 the handler throws; `message` says what the real API would say. */
class BadRequest extends Error {}
const check = (ok, message) => {
  if (!ok) throw new BadRequest(message);
};
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const isText = (v) => typeof v === "string";

// ---- counting, as OpenAI's chat format counts (per message: 3 tokens of
// framing, the role, the content; 3 for the reply's priming) --------------
const IMAGE_TOKENS = 765;

function partTokens(part) {
  if (isText(part)) return countTokens(part);
  if (!isObject(part)) return 0;
  if (isText(part.text)) return countTokens(part.text);
  if (part.type === "image_url" || part.type === "input_image") return IMAGE_TOKENS;
  if (part.type === "input_file" || part.type === "file") return countTokens(JSON.stringify(part));
  return countTokens(JSON.stringify(part));
}
const contentTokens = (content) =>
  content == null ? 0 : Array.isArray(content) ? content.reduce((n, p) => n + partTokens(p), 0) : partTokens(content);
const toolsTokens = (tools) => (Array.isArray(tools) && tools.length ? countTokens(JSON.stringify(tools)) : 0);

/** The prompt of a chat completions request, in tokens. */
export function chatPromptTokens(body) {
  let n = 3 + toolsTokens(body.tools);
  for (const m of body.messages) {
    n += 3 + countTokens(String(m.role)) + contentTokens(m.content);
    for (const c of m.tool_calls ?? []) n += 3 + countTokens(String(c.function?.name ?? "")) + countTokens(String(c.function?.arguments ?? ""));
    if (m.tool_call_id) n += 1;
  }
  return n;
}

/** The prompt of a Responses request, in tokens. */
export function responsesPromptTokens(body) {
  let n = 3 + toolsTokens(body.tools) + (isText(body.instructions) ? 3 + countTokens(body.instructions) : 0);
  const items = isText(body.input) ? [{ type: "message", role: "user", content: body.input }] : body.input;
  for (const item of items) {
    const type = item.type ?? "message";
    if (type === "message") n += 3 + countTokens(String(item.role)) + contentTokens(item.content);
    else if (type === "function_call") n += 3 + countTokens(String(item.name)) + countTokens(String(item.arguments));
    else if (type === "function_call_output") n += 3 + (isText(item.output) ? countTokens(item.output) : contentTokens(item.output));
    else if (type === "reasoning") n += 3 + (item.summary ?? []).reduce((s, p) => s + partTokens(p), 0) + (isText(item.encrypted_content) ? Math.ceil(item.encrypted_content.length / 4) : 0);
    else if (type === "compaction") n += 3 + (isText(item.encrypted_content) ? Math.ceil(item.encrypted_content.length / 4) : 0);
  }
  return n;
}

// ---- validation ---------------------------------------------------------

/** Chat completions: roles, parts, tool messages right after the assistant message calling them, every call answered. */
function validateChat(body) {
  check(isText(body.model) && body.model !== "", "you must provide a model parameter");
  check(!(body.max_completion_tokens !== undefined && body.max_tokens !== undefined), "max_tokens and max_completion_tokens are exclusive");
  const cap = body.max_completion_tokens ?? body.max_tokens;
  check(cap === undefined || (Number.isInteger(cap) && cap >= 1), `max_tokens: must be an integer ≥ 1, got ${cap}`);
  check(Array.isArray(body.messages) && body.messages.length > 0, "messages: a non-empty array is required");
  let pending = null; // call ids of the last assistant message still waiting for their tool messages
  for (const [i, m] of body.messages.entries()) {
    const where = `messages[${i}]`;
    check(isObject(m), `${where}: must be an object`);
    check(!("parts" in m), `${where}: unknown field "parts"`);
    check(["system", "developer", "user", "assistant", "tool"].includes(m.role), `${where}.role: invalid ${m.role}`);
    if (Array.isArray(m.content)) {
      for (const [j, p] of m.content.entries()) {
        check(isObject(p) && isText(p.type), `${where}.content[${j}]: a part needs a type`);
        if (p.type === "text") check(isText(p.text), `${where}.content[${j}].text: required`);
        else check(m.role === "user" && ["image_url", "input_audio", "file"].includes(p.type), `${where}.content[${j}]: invalid part type ${p.type} for role ${m.role}`);
      }
    }
    if (m.role === "tool") {
      check(pending !== null && pending.has(m.tool_call_id), `${where}: messages with role 'tool' must be a response to a preceeding message with 'tool_calls' (${m.tool_call_id})`);
      pending.delete(m.tool_call_id);
      check(isText(m.content) || Array.isArray(m.content), `${where}.content: required`);
      continue;
    }
    check(pending === null || pending.size === 0, `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...(pending ?? [])].join(", ")}`);
    pending = null;
    if (m.role === "assistant" && Array.isArray(m.tool_calls) && m.tool_calls.length > 0) {
      for (const c of m.tool_calls) check(isText(c.id) && c.type === "function" && isText(c.function?.name) && isText(c.function?.arguments), `${where}.tool_calls: malformed`);
      pending = new Set(m.tool_calls.map((c) => c.id));
    } else {
      check(isText(m.content) || Array.isArray(m.content), `${where}.content: required`);
    }
  }
  check(pending === null || pending.size === 0, "the last assistant tool_calls have no tool response");
}

const RESPONSE_ROLES = ["user", "assistant", "system", "developer"];

/** Responses: item types, message parts per role, every function_call_output answering an earlier function_call. */
function validateResponses(body) {
  check(isText(body.model) && body.model !== "", "Missing required parameter: 'model'.");
  const cap = body.max_output_tokens;
  check(cap === undefined || cap === null || (Number.isInteger(cap) && cap >= 16), `max_output_tokens: must be an integer ≥ 16, got ${cap}`);
  check(isText(body.input) || Array.isArray(body.input), "input: a string or an array of items is required");
  if (isText(body.input)) return;
  const calls = new Set();
  for (const [i, item] of body.input.entries()) {
    const where = `input[${i}]`;
    check(isObject(item), `${where}: must be an object`);
    const type = item.type ?? "message";
    if (type === "message") {
      check(RESPONSE_ROLES.includes(item.role), `${where}.role: invalid ${item.role}`);
      if (Array.isArray(item.content)) {
        for (const [j, p] of item.content.entries()) {
          const allowed = item.role === "assistant" ? ["output_text", "refusal"] : ["input_text", "input_image", "input_file"];
          check(isObject(p) && allowed.includes(p.type), `${where}.content[${j}]: invalid type ${p?.type} for role ${item.role}`);
          if (p.type === "input_text" || p.type === "output_text") check(isText(p.text), `${where}.content[${j}].text: required`);
        }
      } else check(isText(item.content), `${where}.content: required`);
    } else if (type === "function_call") {
      check(isText(item.call_id) && isText(item.name) && isText(item.arguments), `${where}: a function_call needs call_id, name and arguments`);
      calls.add(item.call_id);
    } else if (type === "function_call_output") {
      check(isText(item.call_id), `${where}.call_id: required`);
      check(calls.has(item.call_id), `No tool call found for function call output with call_id ${item.call_id}.`);
      check(isText(item.output) || Array.isArray(item.output), `${where}.output: required`);
    } else if (type === "reasoning") {
      check(Array.isArray(item.summary), `${where}.summary: required`);
    } else if (type === "compaction") {
      check(isText(item.encrypted_content), `${where}.encrypted_content: required`);
    } else {
      check(false, `${where}.type: invalid ${type}`);
    }
  }
}

/** A summary request: the library's system prompt (or LangChain summarizationMiddleware's prompt), and no tools. */
function isSummary(api, body) {
  if (Array.isArray(body.tools) && body.tools.length) return false;
  const system =
    api === "chat"
      ? body.messages.filter((m) => m.role === "system" || m.role === "developer").map((m) => (isText(m.content) ? m.content : JSON.stringify(m.content))).join("\n")
      : [body.instructions, ...(Array.isArray(body.input) ? body.input.filter((m) => m.role === "system" || m.role === "developer").map((m) => JSON.stringify(m.content)) : [])].join("\n");
  if (/summar/i.test(system)) return true;
  // LangChain's summarizationMiddleware sends its prompt as the user's message.
  const first = api === "chat" ? body.messages.find((m) => m.role === "user") : Array.isArray(body.input) ? body.input.find((m) => m.role === "user") : { content: body.input };
  return isText(first?.content) && first.content.startsWith("<role>\nContext Extraction Assistant");
}

/** The default script: call `read_file` once after a user message when tools are declared, else answer in text. */
export function defaultAgent({ api, body, n }) {
  const last = api === "chat" ? body.messages.at(-1) : isText(body.input) ? { role: "user" } : body.input.at(-1);
  const afterUser = last.role === "user" && (last.type ?? "message") === "message";
  if (Array.isArray(body.tools) && body.tools.length && afterUser) {
    return { toolCalls: [{ name: toolName(body.tools[0]), arguments: JSON.stringify({ path: `src/mod${n}.rs` }) }] };
  }
  return { text: `Done (${n}).` };
}
const toolName = (tool) => tool.function?.name ?? tool.name;

/** Cuts `text` to at most `cap` tokens (a model stopping on its output limit). */
function truncate(text, cap) {
  if (cap === undefined || cap === null || countTokens(text) <= cap) return { text, truncated: false };
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (countTokens(text.slice(0, mid)) <= cap) lo = mid;
    else hi = mid - 1;
  }
  return { text: text.slice(0, lo), truncated: true };
}

// ---- answers ------------------------------------------------------------

function chatAnswer(body, reply, prompt, n) {
  const cap = body.max_completion_tokens ?? body.max_tokens;
  const calls = (reply.toolCalls ?? []).map((c, i) => ({ id: `call_${n}_${i}`, type: "function", function: { name: c.name, arguments: c.arguments } }));
  const { text, truncated } = calls.length ? { text: null, truncated: false } : truncate(reply.text, cap);
  const completion = calls.length ? calls.reduce((s, c) => s + countTokens(c.function.arguments) + 3, 0) : countTokens(text);
  const finish = calls.length ? "tool_calls" : truncated ? "length" : "stop";
  const usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } };
  const message = { role: "assistant", content: text, refusal: null, ...(calls.length ? { tool_calls: calls } : {}) };
  return { id: `chatcmpl-${n}`, created: 1_764_547_200, model: body.model, message, finish, usage, calls, text };
}

function chatJson(a) {
  return { id: a.id, object: "chat.completion", created: a.created, model: a.model, choices: [{ index: 0, message: a.message, logprobs: null, finish_reason: a.finish }], usage: a.usage };
}

function chatEvents(a, body) {
  const chunk = (delta, finish = null) => ({ id: a.id, object: "chat.completion.chunk", created: a.created, model: a.model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  const events = [chunk({ role: "assistant", content: "" })];
  if (a.calls.length) a.calls.forEach((c, index) => events.push(chunk({ tool_calls: [{ index, ...c }] })));
  else for (let i = 0; i < a.text.length; i += 64) events.push(chunk({ content: a.text.slice(i, i + 64) }));
  events.push(chunk({}, a.finish));
  if (body.stream_options?.include_usage) events.push({ id: a.id, object: "chat.completion.chunk", created: a.created, model: a.model, choices: [], usage: a.usage });
  return events.map((e) => `data: ${JSON.stringify(e)}\n\n`).concat("data: [DONE]\n\n");
}

function responsesAnswer(body, reply, prompt, n) {
  const calls = (reply.toolCalls ?? []).map((c, i) => ({ type: "function_call", id: `fc_${n}_${i}`, call_id: `call_${n}_${i}`, name: c.name, arguments: c.arguments, status: "completed" }));
  const { text, truncated } = calls.length ? { text: "", truncated: false } : truncate(reply.text, body.max_output_tokens);
  const output = calls.length ? calls : [{ type: "message", id: `msg_${n}`, status: truncated ? "incomplete" : "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [], logprobs: [] }] }];
  const completion = calls.length ? calls.reduce((s, c) => s + countTokens(c.arguments) + 3, 0) : countTokens(text);
  return {
    id: `resp_${n}`, object: "response", created_at: 1_764_547_200, status: truncated ? "incomplete" : "completed", error: null,
    incomplete_details: truncated ? { reason: "max_output_tokens" } : null, instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null, model: body.model, output, parallel_tool_calls: true, previous_response_id: null,
    reasoning: { effort: null, summary: null }, store: false, temperature: 1, text: { format: { type: "text" } }, tool_choice: "auto",
    tools: body.tools ?? [], top_p: 1, truncation: "disabled",
    usage: { input_tokens: prompt, input_tokens_details: { cached_tokens: 0 }, output_tokens: completion, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: prompt + completion },
    user: null, metadata: {},
  };
}

function responsesEvents(r) {
  let seq = 0;
  const ev = (type, rest) => ({ type, sequence_number: seq++, ...rest });
  const inProgress = { ...r, status: "in_progress", output: [], usage: null };
  const events = [ev("response.created", { response: inProgress }), ev("response.in_progress", { response: inProgress })];
  r.output.forEach((item, output_index) => {
    if (item.type === "message") {
      const text = item.content[0].text;
      events.push(ev("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } }));
      events.push(ev("response.content_part.added", { item_id: item.id, output_index, content_index: 0, part: { type: "output_text", text: "", annotations: [], logprobs: [] } }));
      for (let i = 0; i < text.length; i += 64) events.push(ev("response.output_text.delta", { item_id: item.id, output_index, content_index: 0, delta: text.slice(i, i + 64), logprobs: [] }));
      events.push(ev("response.output_text.done", { item_id: item.id, output_index, content_index: 0, text, logprobs: [] }));
      events.push(ev("response.content_part.done", { item_id: item.id, output_index, content_index: 0, part: item.content[0] }));
    } else {
      events.push(ev("response.output_item.added", { output_index, item: { ...item, arguments: "", status: "in_progress" } }));
      events.push(ev("response.function_call_arguments.delta", { item_id: item.id, output_index, delta: item.arguments }));
      events.push(ev("response.function_call_arguments.done", { item_id: item.id, output_index, arguments: item.arguments }));
    }
    events.push(ev("response.output_item.done", { output_index, item }));
  });
  events.push(ev(r.status === "incomplete" ? "response.incomplete" : "response.completed", { response: r }));
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
}

// ---- the server ---------------------------------------------------------

/**
 * Starts the mock on 127.0.0.1 (port 0). `window`: the context window it
 * enforces; `agent`: the model's script (see the top of this file). Returns
 * `{ url, baseURL, state, close }`; `baseURL` is `${url}/v1`, what the SDKs
 * take. `state.requests` holds `{ api, body, summary, promptTokens }` per
 * accepted request, `state.rejected` `{ api, status, message }` per refused
 * one, `state.maxPrompt` the largest prompt accepted.
 */
export async function startWindowMock({ window = 32_000, agent = defaultAgent, lifetimeMs = 300_000, maxRequests = 20_000 } = {}) {
  const state = { window, requests: [], rejected: [], maxPrompt: 0, summaryDown: false };
  let served = 0;

  function handle(api, body) {
    if (api === "chat") validateChat(body);
    else validateResponses(body);
    const prompt = api === "chat" ? chatPromptTokens(body) : responsesPromptTokens(body);
    const cap = api === "chat" ? (body.max_completion_tokens ?? body.max_tokens ?? 0) : (body.max_output_tokens ?? 0);
    if (prompt + cap > window) {
      throw new BadRequest(
        `This model's maximum context length is ${window} tokens. However, you requested ${prompt + cap} tokens (${prompt} in the messages, ${cap} in the completion). Please reduce the length of the messages or completion.`,
      );
    }
    const summary = isSummary(api, body);
    const n = state.requests.length;
    state.requests.push({ api, body, summary, promptTokens: prompt });
    state.maxPrompt = Math.max(state.maxPrompt, prompt);
    if (summary && state.summaryDown) return { status: 500 };
    const reply = summary ? { text: SUMMARY_TEXT } : agent({ api, body, summary, n });
    return { status: 200, prompt, reply, n };
  }

  const server = http.createServer((req, res) => {
    served += 1;
    if (served > maxRequests) {
      res.writeHead(503).end();
      close();
      return;
    }
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      const path = new URL(req.url, "http://127.0.0.1").pathname;
      if (req.method === "POST" && path === "/v1/responses/compact") {
        // responses.compact: the user's messages of the input, then one opaque compaction item.
        let body;
        try {
          body = JSON.parse(raw);
          validateResponses(body);
        } catch (error) {
          const message = error instanceof BadRequest ? error.message : `We could not parse the JSON body of your request. (${error.message})`;
          state.rejected.push({ api: "compact", status: 400, message });
          res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: { message, type: "invalid_request_error" } }));
          return;
        }
        const prompt = responsesPromptTokens(body);
        const n = state.requests.length;
        state.requests.push({ api: "compact", body, summary: true, promptTokens: prompt });
        const users = Array.isArray(body.input) ? body.input.filter((i) => (i.type ?? "message") === "message" && i.role === "user") : [];
        const output = [...users, { type: "compaction", id: `cmp_${n}`, encrypted_content: "gAAAAB".repeat(64) }];
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({
          id: `resp_${n}`, object: "response.compaction", created_at: 1_764_547_200, output,
          usage: { input_tokens: prompt, input_tokens_details: { cached_tokens: 0 }, output_tokens: 100, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: prompt + 100 },
        }));
        return;
      }
      const api = req.method === "POST" && path === "/v1/chat/completions" ? "chat" : req.method === "POST" && path === "/v1/responses" ? "responses" : null;
      const sendJson = (status, value) => {
        if (res.destroyed) return;
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(value));
      };
      if (!api) {
        state.rejected.push({ api: "?", status: 404, message: `no route ${req.method} ${path}` });
        sendJson(404, { error: { message: `no route ${req.method} ${path}`, type: "invalid_request_error" } });
        return;
      }
      let body;
      let result;
      try {
        body = JSON.parse(raw);
        result = handle(api, body);
      } catch (error) {
        const message = error instanceof BadRequest ? error.message : `We could not parse the JSON body of your request. (${error.message})`;
        state.rejected.push({ api, status: 400, message });
        sendJson(400, { error: { message, type: "invalid_request_error", param: null, code: /context length/.test(message) ? "context_length_exceeded" : null } });
        return;
      }
      if (result.status === 500) {
        sendJson(500, { error: { message: "The server had an error while processing your request.", type: "server_error", param: null, code: null } });
        return;
      }
      const answer = api === "chat" ? chatAnswer(body, result.reply, result.prompt, result.n) : responsesAnswer(body, result.reply, result.prompt, result.n);
      if (body.stream !== true) {
        sendJson(200, api === "chat" ? chatJson(answer) : answer);
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.end((api === "chat" ? chatEvents(answer, body) : responsesEvents(answer)).join(""));
    });
  });
  const { port, close } = await listenBounded(server, lifetimeMs);
  const url = `http://127.0.0.1:${port}`;
  return { url, baseURL: `${url}/v1`, state, close };
}
