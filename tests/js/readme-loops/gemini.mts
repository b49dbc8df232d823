import { GoogleGenAI, type Content, type Part, type Tool } from "@google/genai";
import { ChatCompactor, CompressionStatus } from "compaction-core";
import { geminiSummarizer } from "compaction-core/summarizers";
import { runTool } from "./tools.mjs"; // yours: (name, args) => Promise<string>

const ai = new GoogleGenAI({}); // GEMINI_API_KEY
const model = "gemini-2.5-flash";
export const chat = new ChatCompactor<Content>({ model }); // format "gemini" is the default
const summarize = geminiSummarizer(ai, { model });
const tools: Tool[] = [{ functionDeclarations: [{ name: "read_file", parametersJsonSchema: { type: "object", properties: { path: { type: "string" } } } }] }];
const systemInstruction = "You are a coding agent.";
let history: Content[] = [];

export async function send(text: string): Promise<string | undefined> {
  const userMessage: Content = { role: "user", parts: [{ text }] };
  const result = await chat.beforeSend(history, userMessage, summarize);
  if (result.status === CompressionStatus.COMPRESSED) history = result.history;
  history = [...history, userMessage];
  for (;;) {
    const r = await ai.models.generateContent({ model, contents: history, config: { systemInstruction, tools } });
    chat.reportUsage(r); // the response's usageMetadata
    history = [...history, r.candidates?.[0]?.content ?? { role: "model", parts: [] }];
    const calls = r.functionCalls ?? [];
    if (calls.length === 0) return r.text;
    const parts = await Promise.all(calls.map(async (call): Promise<Part> =>
      ({ functionResponse: { id: call.id, name: call.name, response: { output: await runTool(call.name ?? "", call.args) } } })));
    history = [...history, { role: "user", parts }];
  }
}
