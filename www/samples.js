// Samples for the estimator box.
import { createScript } from "./session-script.js";

/** The first requests of the simulator's own session: a request, tool calls, tool results. */
function agentTurn() {
  const script = createScript();
  const messages = [];
  for (let i = 0; i < 3; i++) {
    const { send, reply } = script.peek();
    script.advance();
    messages.push(send, reply);
  }
  return JSON.stringify(messages, null, 2);
}

const PROSE = `Compaction is one way. Once the older messages of a conversation have been replaced by a summary, the
full history cannot be recovered inside the session, so the host must be able to export it first. After
compaction the context-usage indicator resets to the freed space and the session goes on as before.`;

const CJK = `上下文窗口快满了。压缩会在下一条消息发送之前自动进行，较早的消息将被摘要替换。
コンテキストがいっぱいになりつつあります。次のメッセージを送信する前に、古いメッセージは要約に置き換えられます。`;

function imageMessage() {
  // A stand-in for base64 image data: its size is what matters here.
  const data = "iVBORw0KGgoAAAANSUhEUgAA".repeat(400);
  return JSON.stringify([{ role: "user", parts: [
    { text: "What does this screenshot show?" },
    { inlineData: { mimeType: "image/png", data } },
  ] }], null, 2);
}

export const SAMPLES = {
  agent: agentTurn,
  prose: () => PROSE,
  cjk: () => CJK,
  image: imageMessage,
};
