import OpenAI from "openai";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { ChatCompactor, CompressionStatus } from "compaction-core";
import { responsesSummarizer } from "compaction-core/summarizers";

const client = new OpenAI();
const chat = new ChatCompactor<ResponseInputItem>({ format: "openai-responses", model: "gpt-4o-mini", window: 32_000 });
const summarize = responsesSummarizer(client, { model: "gpt-4o-mini", maxOutputTokens: 8_192 });
const tools: OpenAI.Responses.Tool[] = [
  { type: "function", name: "read_file", description: "Reads a file", strict: false, parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
];

let input: ResponseInputItem[] = [];
for (let turn = 0; turn < 12; turn++) {
  // What the last call's usage did not see: the user's message, then a step's tool outputs.
  let pending: ResponseInputItem[] = [{ role: "user", content: `Read src/mod${turn}.rs and src/lib${turn}.rs.` }];
  for (;;) {
    const r = await chat.beforeSend(input, pending, summarize);
    if (r.status === CompressionStatus.COMPRESSED) console.log(`compaction: ${r.originalTokenCount} → ${r.newTokenCount} tokens`);
    input = [...r.history, ...pending];
    const response = await client.responses.create({ model: "gpt-4o-mini", instructions: "You are a careful coding agent.", input, tools, store: false });
    chat.reportUsage(response.usage ?? null);
    input = [...input, ...(response.output as ResponseInputItem[])];
    const calls = response.output.filter((item) => item.type === "function_call");
    if (calls.length === 0) break;
    pending = calls.map((call) => ({
      type: "function_call_output",
      call_id: call.call_id,
      output: `// ${JSON.parse(call.arguments).path}\n${"fn helper() { let x = parse(input)?; }\n".repeat(150)}`,
    }));
  }
}
console.log(`${input.length} items kept`);
