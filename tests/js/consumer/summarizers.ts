// compaction-core/summarizers' declarations: a client shaped like the SDK's call type-checks, a wrong one does not.
import { ChatCompactor, type Summarize } from "compaction-core";
import { anthropicSummarizer, geminiSummarizer, openaiSummarizer, renderTurns, type SummaryTurn } from "compaction-core/summarizers";

const anthropic = { messages: { create: async () => ({ content: [{ type: "text", text: "s" }], stop_reason: "end_turn", usage: { input_tokens: 1, output_tokens: 1 } }) } };
const summarize: Summarize = anthropicSummarizer(anthropic, { model: "claude-3-5-haiku-20241022", maxOutputTokens: 8_192 });
const gemini = { models: { generateContent: async () => ({ candidates: [{ finishReason: "STOP" }], usageMetadata: {} }) } };
const other: Summarize = geminiSummarizer(gemini, { model: "gemini-2.5-flash", thinkingConfig: { thinkingBudget: 128 } });
// @ts-expect-error an Anthropic client is not an OpenAI one
openaiSummarizer(anthropic, { model: "gpt-4o" });
const turns: SummaryTurn[] = renderTurns([{ role: "model", parts: [{ functionCall: { name: "f", args: {} } }] }]);
void new ChatCompactor({ window: 128_000 }).compact([], summarize);
void [other, turns];
