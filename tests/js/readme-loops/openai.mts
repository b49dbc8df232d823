import OpenAI from "openai";
import { ChatCompactor, CompressionStatus } from "compaction-core";
import { openaiSummarizer } from "compaction-core/summarizers";
import { runTool } from "./tools.mjs"; // yours: (name, args) => Promise<string>

const client = new OpenAI(); // OPENAI_API_KEY, OPENAI_BASE_URL
const model = "gpt-4o";
export const chat = new ChatCompactor<OpenAI.ChatCompletionMessageParam>({ format: "openai", model }); // window, output limit
const summarize = openaiSummarizer(client, { model });
const tools: OpenAI.ChatCompletionTool[] = [{ type: "function", function: { name: "read_file", parameters: { type: "object", properties: { path: { type: "string" } } } } }];
let history: OpenAI.ChatCompletionMessageParam[] = [{ role: "system", content: "You are a coding agent." }];

export async function send(text: string): Promise<string | null> {
  const userMessage: OpenAI.ChatCompletionMessageParam = { role: "user", content: text };
  const result = await chat.beforeSend(history, userMessage, summarize);
  if (result.status === CompressionStatus.COMPRESSED) history = result.history;
  history = [...history, userMessage];
  for (;;) {
    const r = await client.chat.completions.create({ model, messages: history, tools });
    chat.reportUsage(r); // the response's usage
    const message = r.choices[0].message;
    history = [...history, message];
    if (!message.tool_calls?.length) return message.content;
    for (const call of message.tool_calls.filter((c) => c.type === "function")) {
      const output = await runTool(call.function.name, JSON.parse(call.function.arguments));
      history = [...history, { role: "tool", tool_call_id: call.id, content: output }];
    }
  }
}
