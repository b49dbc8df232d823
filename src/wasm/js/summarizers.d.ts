// ---- compaction-core/summarizers: ready `summarize` callbacks. ----
// The clients are declared by the one call each summarizer makes (method
// syntax, so the SDKs' own overloaded, more precise signatures fit), so this
// entry point needs no SDK's types.

import type { Content, Summarize } from "../bundler/compaction_core.js";

/** What every summarizer takes. */
export interface SummarizerOptions {
  /** The model that writes the summary. */
  model: string;
  /** An output limit of your own: the cap sent is the smallest of this, the model's known limit and the request's `config.maxOutputTokens`. */
  maxOutputTokens?: number;
}

/**
 * The output limit of a model (an id, or an AI SDK model object with a `modelId`) in the core's model table,
 * matched as `modelLimits` matches ids; null when the model is unknown or its family publishes none. Every
 * summarizer caps its output at the smaller of the request's budget and this.
 */
export function modelOutputLimit(model: unknown): number | null;

/** One text turn of a rendered summary request. */
export interface SummaryTurn { role: "user" | "assistant"; text: string }

/**
 * The request's contents as alternating user / assistant text turns, tool calls and results written as text,
 * starting with a user turn (what every summarizer sends).
 */
export function renderTurns(contents: Content[]): SummaryTurn[];

/** A text message of a summary request. */
interface TextMessage<R extends string> { role: R; content: string }
/** The call's request options: the run's abort signal. */
interface SignalOption { signal?: AbortSignal }

/** The part of an OpenAI client (`openai`'s `OpenAI`, or a compatible one) the summarizer calls. */
export interface OpenAIClientLike {
  chat: {
    completions: {
      create(
        body: { model: string; messages: TextMessage<"system" | "user" | "assistant">[]; max_completion_tokens?: number; max_tokens?: number; stream?: false | null },
        options?: SignalOption,
      ): PromiseLike<{
        choices: { finish_reason: string | null; message: { content: string | null; refusal?: string | null } }[];
        usage?: object | null;
      }>;
    };
  };
}

/** Options of `openaiSummarizer`. */
export interface OpenAISummarizerOptions extends SummarizerOptions {
  /** `"max_completion_tokens"` (default) or `"max_tokens"` (older OpenAI-compatible servers). */
  tokenParameter?: "max_completion_tokens" | "max_tokens";
  /** Extra request fields (e.g. `reasoning_effort` for a reasoning model, `temperature`); the library's own win. */
  params?: Record<string, unknown>;
}

/** A summarizer over OpenAI chat completions; a refusal is answered as `content_filter`. */
export function openaiSummarizer(client: OpenAIClientLike, options: OpenAISummarizerOptions): Summarize;

/** The part of an Anthropic client (`@anthropic-ai/sdk`'s `Anthropic`) the summarizer calls. */
export interface AnthropicClientLike {
  messages: {
    create(
      body: { model: string; system: string; max_tokens: number; messages: TextMessage<"user" | "assistant">[]; stream?: false },
      options?: SignalOption,
    ): PromiseLike<{ content: ({ type: string; text?: string })[]; stop_reason: string | null; usage: object }>;
  };
}

/** Options of `anthropicSummarizer`. */
export interface AnthropicSummarizerOptions extends SummarizerOptions {
  /** Extra request fields (e.g. `temperature`, `metadata`); the library's own win. */
  params?: Record<string, unknown>;
}

/** A summarizer over Anthropic messages: no `thinking`, `max_tokens` = the cap. */
export function anthropicSummarizer(client: AnthropicClientLike, options: AnthropicSummarizerOptions): Summarize;

/** The part of a `GoogleGenAI` (`@google/genai`) the summarizer calls. */
export interface GeminiClientLike {
  models: {
    generateContent(params: {
      model: string;
      contents: { role: "user" | "model"; parts: { text: string }[] }[];
      config: { systemInstruction: string; maxOutputTokens: number; thinkingConfig?: object; abortSignal?: AbortSignal };
    }): PromiseLike<{
      candidates?: { content?: { parts?: { text?: string; thought?: boolean }[] }; finishReason?: string }[];
      promptFeedback?: { blockReason?: string; blockReasonMessage?: string };
      usageMetadata?: object;
    }>;
  };
}

/** Options of `geminiSummarizer`. */
export interface GeminiSummarizerOptions extends SummarizerOptions {
  /** Default `{ includeThoughts: false, thinkingBudget: 0 }`; Gemini 2.5 Pro and 3 take their lowest setting instead. */
  thinkingConfig?: { includeThoughts?: boolean; thinkingBudget?: number; thinkingLevel?: string };
  /** Extra `config` fields (e.g. `temperature`, `safetySettings`); the library's own win. */
  params?: Record<string, unknown>;
}

/** A summarizer over Gemini's `generateContent`; a prompt blocked before any candidate rejects with an `Error` naming its `blockReason`. */
export function geminiSummarizer(ai: GeminiClientLike, options: GeminiSummarizerOptions): Summarize;

/** The AI SDK's `generateText` (`ai` v5/v6), as the summarizer calls it. */
export type GenerateTextLike<MODEL> = (options: {
  model: MODEL;
  system: string;
  messages: TextMessage<"user" | "assistant">[];
  maxOutputTokens: number;
  abortSignal?: AbortSignal;
}) => PromiseLike<{ text: string; finishReason: string; usage: object }>;

/** Options of `aiSdkSummarizer`: the model is a `LanguageModel` (an id string or a provider's model). */
export interface AiSdkSummarizerOptions<MODEL> {
  model: MODEL;
  /** The model's output limit: the cap sent is the smaller of this and the request's `config.maxOutputTokens`. */
  maxOutputTokens?: number;
  /** Extra call options (e.g. `providerOptions` turning reasoning down, `maxRetries`); the library's own win. */
  params?: Record<string, unknown>;
}

/** A summarizer over the AI SDK's `generateText` with any provider's model. */
export function aiSdkSummarizer<MODEL>(generateText: GenerateTextLike<MODEL>, options: AiSdkSummarizerOptions<MODEL>): Summarize;

/** The part of a LangChain chat model (`ChatOpenAI`, `ChatAnthropic`, any `BaseChatModel`) the summarizer calls. */
export interface LangChainChatModelLike {
  invoke(input: { role: "system" | "user" | "assistant"; content: string }[], options?: SignalOption): PromiseLike<unknown>;
  /** The instance's output cap (LangChain's chat models read it from the instance, not per call). */
  maxTokens?: number;
}

/**
 * A summarizer over a LangChain chat model: the cap is set on a copy of the model made from its own
 * constructor arguments (`lc_kwargs`, once per cap); the stop reason is the answer's
 * `response_metadata.finish_reason` or `stop_reason`, the usage its `usage_metadata`.
 */
export function langchainSummarizer(model: LangChainChatModelLike, options?: { maxOutputTokens?: number }): Summarize;

/** The part of an OpenAI client the Responses summarizer calls (`client.responses.create`). */
export interface OpenAIResponsesClientLike {
  responses: {
    create(
      body: { model: string; instructions: string; input: TextMessage<"user" | "assistant">[]; max_output_tokens: number; store: false; stream?: false | null },
      options?: SignalOption,
    ): PromiseLike<{
      status?: string | null;
      incomplete_details?: { reason?: string } | null;
      output?: ({ type: string; content?: { type: string; text?: string; refusal?: string }[] })[];
      usage?: object | null;
    }>;
  };
}

/** Options of `responsesSummarizer`. */
export interface ResponsesSummarizerOptions extends SummarizerOptions {
  /** Extra request fields (e.g. `reasoning` for a reasoning model; `{ effort: "minimal" }` is sent for o-series and gpt-5 unless this says otherwise). */
  params?: Record<string, unknown>;
}

/** A summarizer over the OpenAI Responses API; an incomplete response answers its reason (`max_output_tokens`). */
export function responsesSummarizer(client: OpenAIResponsesClientLike, options: ResponsesSummarizerOptions): Summarize;

/** The part of an Anthropic client the on-demand compaction summarizer calls (`client.beta.messages.create`). */
export interface AnthropicBetaClientLike {
  beta: {
    messages: {
      create(
        body: { model: string; max_tokens: number; messages: TextMessage<"user" | "assistant">[]; compaction: { type: "summarize"; instructions: string }; betas: string[] },
        options?: SignalOption,
      ): PromiseLike<{ content?: { type: string; content?: string | null }[]; stop_reason?: string | null; usage?: object | null }>;
    };
  };
}

/** Options of `anthropicCompactionSummarizer`. */
export interface AnthropicCompactionSummarizerOptions extends SummarizerOptions {
  /** The beta flag (default `"compact-2026-09-04"`). */
  beta?: string;
  /** Extra request fields. */
  params?: Record<string, unknown>;
}

/** A summarizer over Anthropic's on-demand server-side compaction; a compaction block without readable content rejects (a failed run). */
export function anthropicCompactionSummarizer(client: AnthropicBetaClientLike, options: AnthropicCompactionSummarizerOptions): Summarize;

/** The part of an OpenAI client `responsesCompaction` calls (`client.responses.compact`). */
export interface OpenAICompactClientLike {
  responses: {
    compact(
      body: { model: string; input: TextMessage<"user" | "assistant">[] },
      options?: SignalOption,
    ): PromiseLike<{ output?: { type: string }[]; usage?: object | null }>;
  };
}

/**
 * OpenAI's `responses.compact` as a compaction: `summarize` keeps the opaque compaction item it returns and
 * answers a fixed note (the library adds its ledger section); `apply(result)` is the new history with the
 * item(s) placed before the summary message. No readable summary, no summary check.
 */
export function responsesCompaction(
  client: OpenAICompactClientLike,
  options: SummarizerOptions & { params?: Record<string, unknown> },
): { summarize: Summarize; apply<M>(result: { statusName: string; history: M[] }): M[] };
