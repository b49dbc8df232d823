// Samples for the estimator box. The agent turn is one conversation written
// in each of the library's four message formats (the same words, tool calls
// and results), so that the four estimates can be compared.
import { createScript } from "./session-script.js";
import { writer } from "./message-formats.js";

/** Exchanges of the simulator's own session in the agent sample: a request, tool calls and their results. */
export const AGENT_EXCHANGES = 3;

/**
 * The first requests of the simulator's own session in `format`: the user's
 * request, then each tool call and its result (it ends with the result of
 * the last call). The messages, not their JSON.
 */
export function agentMessages(format = "gemini") {
  const script = createScript(7, format);
  const messages = [];
  for (let i = 0; i < AGENT_EXCHANGES; i++) {
    const { send, reply } = script.peek();
    script.advance();
    messages.push(send, reply);
  }
  messages.push(script.peek().send);
  return messages;
}

const PROSE = `Compaction is one way. Once the older messages of a conversation have been replaced by a summary, the
full history cannot be recovered inside the session, so the host must be able to export it first. After
compaction the context-usage indicator resets to the freed space and the session goes on as before.`;

const CJK = `上下文窗口快满了。压缩会在下一条消息发送之前自动进行，较早的消息将被摘要替换。
コンテキストがいっぱいになりつつあります。次のメッセージを送信する前に、古いメッセージは要約に置き換えられます。`;

function imageMessage(format) {
  // A stand-in for base64 image data: its size is what matters here.
  const data = "iVBORw0KGgoAAAANSUhEUgAA".repeat(400);
  return JSON.stringify([writer(format).image("What does this screenshot show?", "image/png", data)], null, 2);
}

/** Each sample's text for the box, in the box's current format (the prose samples are plain text in any format). */
export const SAMPLES = {
  agent: (format) => JSON.stringify(agentMessages(format), null, 2),
  prose: () => PROSE,
  cjk: () => CJK,
  image: imageMessage,
};
