// Long agent histories for the benchmarks that time a chat's checks
// (./per_turn.mjs, ./first_send.mjs, ./first_send_steps.mjs): the 60 real
// agent sessions of tests/corpus/histories-dev.jsonl (Gemini shape: user
// requests, model turns with function calls, function responses),
// concatenated in file order (and repeated if more is needed) until the
// history holds the tokens asked for, then written in each format the
// library reads.
//
// Each corpus session ends on a function response (the moment before the
// model's next turn). Where one session ends and the next begins, and at
// the end of the history, a short model text message closes the turn, so
// the history alternates user / model as every provider requires and the
// next user message can follow it. A history is cut only after a function
// response, so every call keeps its response.

import { readFileSync } from "node:fs";
import { join } from "node:path";

import { ROOT } from "./weights.mjs";

/** The corpus sessions, in file order: `[{ id, lang, history }]`. */
export function loadSessions(path = join(ROOT, "tests", "corpus", "histories-dev.jsonl")) {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => {
      const { id, lang, history } = JSON.parse(l);
      return { id, lang, history };
    });
}

/** The model's closing turn after a session's last tool result. */
const CLOSING = {
  role: "model",
  parts: [{ text: "Done: the change is in place and the checks above pass. Tell me what to look at next." }],
};

/** The next user request (every format's user message is built from it). */
export const USER_TEXT =
  "Thanks. Now run the whole test suite once more and tell me whether anything else broke, with the file and line of each failure.";

/**
 * A Gemini history of at least `tokens` tokens as `tokensOf` counts one
 * message (the last cut point past it): sessions concatenated, each closed
 * by a model text message.
 * @param {{ history: object[] }[]} sessions
 * @param {number} tokens
 * @param {(message: object) => number} tokensOf
 */
export function buildHistory(sessions, tokens, tokensOf) {
  const out = [];
  let total = 0;
  for (let round = 0; ; round++) {
    for (const { history } of sessions) {
      if (out.length > 0) {
        out.push(CLOSING);
        total += tokensOf(CLOSING);
      }
      for (const m of history) {
        out.push(m);
        total += tokensOf(m);
        const afterResponse = m.role === "user" && m.parts.some((p) => p.functionResponse);
        if (afterResponse && total >= tokens) {
          out.push(CLOSING);
          return out;
        }
      }
    }
    if (round > 100) throw new Error("buildHistory: the corpus holds no function responses");
  }
}

/**
 * Gives each function call an id (`call_<n>`) and each response its call's
 * id, pairing by name in order as the Gemini reader does without ids.
 * Returns `[{ role, texts: string[], calls: {id,name,args}[], responses: {id,name,output}[] }]`.
 */
function turns(history) {
  let next = 0;
  const pending = new Map(); // name → ids of calls not answered yet, in order
  return history.map((m) => {
    const turn = { role: m.role, texts: [], calls: [], responses: [] };
    for (const p of m.parts) {
      if (p.text !== undefined) turn.texts.push(p.text);
      else if (p.functionCall) {
        const id = `call_${next++}`;
        const { name, args } = p.functionCall;
        if (!pending.has(name)) pending.set(name, []);
        pending.get(name).push(id);
        turn.calls.push({ id, name, args });
      } else if (p.functionResponse) {
        const { name, response } = p.functionResponse;
        const id = pending.get(name)?.shift() ?? `call_${next++}`;
        turn.responses.push({ id, name, output: response.output });
      } else {
        throw new Error(`histories: a part this converter does not know: ${Object.keys(p)}`);
      }
    }
    return turn;
  });
}

/** OpenAI chat completion messages: assistant `tool_calls`, one `tool` message per result. */
export function toOpenAI(history) {
  const out = [];
  for (const t of turns(history)) {
    if (t.role === "model") {
      const m = { role: "assistant", content: t.texts.length ? t.texts.join("\n") : null };
      if (t.calls.length) {
        m.tool_calls = t.calls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: JSON.stringify(c.args) },
        }));
      }
      out.push(m);
    } else {
      for (const r of t.responses) out.push({ role: "tool", tool_call_id: r.id, content: r.output });
      if (t.texts.length) out.push({ role: "user", content: t.texts.join("\n") });
    }
  }
  return out;
}

/** Anthropic messages: `tool_use` blocks, `tool_result` blocks in the next user message. */
export function toAnthropic(history) {
  return turns(history).map((t) => {
    if (t.role === "model") {
      return {
        role: "assistant",
        content: [
          ...t.texts.map((text) => ({ type: "text", text })),
          ...t.calls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.args })),
        ],
      };
    }
    if (!t.responses.length) return { role: "user", content: t.texts.join("\n") };
    return {
      role: "user",
      content: [
        ...t.responses.map((r) => ({ type: "tool_result", tool_use_id: r.id, content: r.output })),
        ...t.texts.map((text) => ({ type: "text", text })),
      ],
    };
  });
}

/** AI SDK ModelMessages: `tool-call` parts, `tool` messages of `tool-result` parts. */
export function toAiSdk(history) {
  const out = [];
  for (const t of turns(history)) {
    if (t.role === "model") {
      out.push({
        role: "assistant",
        content: [
          ...t.texts.map((text) => ({ type: "text", text })),
          ...t.calls.map((c) => ({ type: "tool-call", toolCallId: c.id, toolName: c.name, input: c.args })),
        ],
      });
    } else {
      if (t.responses.length) {
        out.push({
          role: "tool",
          content: t.responses.map((r) => ({
            type: "tool-result",
            toolCallId: r.id,
            toolName: r.name,
            output: { type: "text", value: r.output },
          })),
        });
      }
      if (t.texts.length) out.push({ role: "user", content: t.texts.join("\n") });
    }
  }
  return out;
}

/** Per format: the history converter, the next user message, and a usage object in the SDK's names. */
export const FORMATS = {
  gemini: {
    convert: (h) => h,
    userMessage: { role: "user", parts: [{ text: USER_TEXT }] },
    usage: (prompt) => ({ promptTokenCount: prompt, candidatesTokenCount: 600, totalTokenCount: prompt + 600 }),
  },
  openai: {
    convert: toOpenAI,
    userMessage: { role: "user", content: USER_TEXT },
    usage: (prompt) => ({ prompt_tokens: prompt, completion_tokens: 600, total_tokens: prompt + 600 }),
  },
  anthropic: {
    convert: toAnthropic,
    userMessage: { role: "user", content: USER_TEXT },
    usage: (prompt) => ({ input_tokens: prompt, output_tokens: 600 }),
  },
  "ai-sdk": {
    convert: toAiSdk,
    userMessage: { role: "user", content: USER_TEXT },
    usage: (prompt) => ({ inputTokens: prompt, outputTokens: 600, totalTokens: prompt + 600 }),
  },
};

/**
 * The texts the calibrated estimator scans in a Gemini history, as a peer
 * that reads the text would get them: each text part, each call's name and
 * its arguments as JSON, each response's output. Pass `each` to visit them
 * without building a list.
 */
export function forEachText(history, each) {
  for (const m of history) {
    for (const p of m.parts) {
      if (p.text !== undefined) each(p.text);
      else if (p.functionCall) {
        each(p.functionCall.name);
        each(JSON.stringify(p.functionCall.args));
      } else if (p.functionResponse) {
        const r = p.functionResponse.response;
        each(typeof r?.output === "string" ? r.output : JSON.stringify(r));
      }
    }
  }
}
