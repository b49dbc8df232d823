// compaction-core/summarizers through the package's exports (ESM): a fake client records the request.
import { openaiSummarizer } from "compaction-core/summarizers";
const client = { chat: { completions: { create: async (body, options) => {
  console.log("esm-summarizers", body.model, body.max_completion_tokens, body.messages.length, options.signal === undefined);
  return { choices: [{ message: { content: "summary" }, finish_reason: "stop" }], usage: { prompt_tokens: 1 } };
} } } };
const answer = await openaiSummarizer(client, { model: "gpt-4o" })({ systemInstruction: "s", contents: [{ role: "user", parts: [{ text: "hi" }] }], config: { maxOutputTokens: 100, thinkingConfig: { includeThoughts: false } } }, {});
console.log("esm-answer", answer.text, answer.finishReason);
