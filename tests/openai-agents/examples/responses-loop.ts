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
for (let turn = 0; turn < 20; turn++) {
  let next: ResponseInputItem = { role: "user", content: `Read src/mod${turn}.rs and src/lib${turn}.rs.` };
  for (;;) {
    // Before every call: the check, with what the last call's usage did not see as pending.
    const r = await chat.beforeSend(input, next, summarize);
    if (r.status === CompressionStatus.COMPRESSED) console.log(`compaction: ${r.originalTokenCount} → ${r.newTokenCount} tokens`);
    input = [...r.history, next];
    // One call per step: its output is then the one pending item of the next check.
    const response = await client.responses.create({
      model: "gpt-4o-mini", instructions: "You are a careful coding agent.", input, tools, parallel_tool_calls: false, store: false,
    });
    chat.reportUsage(response.usage ?? null);
    input = [...input, ...(response.output as ResponseInputItem[])];
    const call = response.output.find((item) => item.type === "function_call");
    if (!call) break;
    const path = JSON.parse(call.arguments).path;
    next = { type: "function_call_output", call_id: call.call_id, output: `// ${path}\n${"fn helper() { let x = parse(input)?; }\n".repeat(150)}` };
  }
}
console.log(`${input.length} items kept`);
