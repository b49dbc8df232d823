import Anthropic from "@anthropic-ai/sdk";
import { ChatCompactor, CompressionStatus } from "compaction-core";
import { anthropicSummarizer } from "compaction-core/summarizers";
import { runTool } from "./tools.mjs"; // yours: (name, args) => Promise<string>

const client = new Anthropic(); // ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL
const model = "claude-3-5-haiku-20241022";
export const chat = new ChatCompactor<Anthropic.MessageParam>({ format: "anthropic", model });
const summarize = anthropicSummarizer(client, { model });
const tools: Anthropic.Tool[] = [{ name: "read_file", input_schema: { type: "object", properties: { path: { type: "string" } } } }];
const system = "You are a coding agent.";
let history: Anthropic.MessageParam[] = [];

export async function send(text: string): Promise<string> {
  const userMessage: Anthropic.MessageParam = { role: "user", content: text };
  const result = await chat.beforeSend(history, userMessage, summarize);
  if (result.status === CompressionStatus.COMPRESSED) history = result.history;
  history = [...history, userMessage];
  for (;;) {
    const r = await client.messages.create({ model, system, messages: history, tools, max_tokens: 4096 });
    chat.reportUsage(r.usage);
    history = [...history, { role: "assistant", content: r.content }];
    const calls = r.content.filter((block) => block.type === "tool_use");
    if (calls.length === 0) return r.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    const results = await Promise.all(calls.map(async (call): Promise<Anthropic.ToolResultBlockParam> =>
      ({ type: "tool_result", tool_use_id: call.id, content: await runTool(call.name, call.input) })));
    history = [...history, { role: "user", content: results }];
  }
}
