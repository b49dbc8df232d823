// compaction-core/summarizers through the package's exports (CommonJS).
const { anthropicSummarizer } = require("compaction-core/summarizers");
const client = { messages: { create: async (body) => ({ content: [{ type: "text", text: `${body.model} ${body.max_tokens}` }], stop_reason: "end_turn", usage: { input_tokens: 1, output_tokens: 1 } }) } };
anthropicSummarizer(client, { model: "claude-3-5-haiku-20241022", maxOutputTokens: 50 })(
  { systemInstruction: "s", contents: [{ role: "user", parts: [{ text: "hi" }] }], config: { maxOutputTokens: 100, thinkingConfig: { includeThoughts: false } } },
  { signal: new AbortController().signal },
).then((answer) => console.log("cjs-summarizers", answer.text, answer.finishReason));
