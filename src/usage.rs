//! Token usage as the providers report it, read leniently.
//!
//! Each provider names its counts differently:
//!
//! | | Gemini `usageMetadata` | OpenAI `usage` | Anthropic `usage` | AI SDK `LanguageModelUsage` |
//! |---|---|---|---|---|
//! | input | `promptTokenCount` | `prompt_tokens` (Responses: `input_tokens`) | `input_tokens` + `cache_creation_input_tokens` + `cache_read_input_tokens` | `inputTokens` |
//! | output | `candidatesTokenCount` | `completion_tokens` (reasoning included) | `output_tokens` (thinking included) | `outputTokens` (reasoning included) |
//! | thinking | `thoughtsTokenCount` (apart) | `completion_tokens_details.reasoning_tokens` (Responses: `output_tokens_details.reasoning_tokens`) | `output_tokens_details.thinking_tokens` | `outputTokenDetails.reasoningTokens` (v5: `reasoningTokens`) |
//! | total | `totalTokenCount` | `total_tokens` | — (the sum) | `totalTokens` |
//!
//! [`Usage::from_value`] reads any of them, also when wrapped in a whole
//! response (its `usageMetadata` or `usage` field; of an AI SDK result,
//! the last step's usage, or its `totalUsage` when it has no steps), and
//! also this library's own
//! spelling (`inputTokens`, `outputTokens`, `thoughtsTokens`, `totalTokens`,
//! what [`Usage`] serializes to). `null` is an absent count, as the SDKs
//! declare their optional fields.
//!
//! Thinking is normalized out of the output: [`Usage::output_tokens`] is
//! the visible answer and [`Usage::thoughts_tokens`] the thinking, whichever
//! way the provider reports them. The next prompt holds the answer but not
//! the thinking (the providers drop earlier turns' reasoning), so
//! [`Usage::prompt_total`] leaves the thinking out. A count that is missing, negative, not
//! finite or not a number is ignored and named in [`ParsedUsage::ignored`]:
//! a bad count must never be trusted, because a count that is too low would
//! skip a compaction the chat needs. A count above [`MAX_COUNT`] (2^53 − 1,
//! the largest whole number a JS number holds exactly) is clamped to it and
//! named there too, and so are sums that would pass it: every count this
//! library reports is exact as a JS number, and a saved state holding one
//! restores.

use crate::prelude::*;

use crate::json::{Map, Value, json_object};

pub use crate::read::MAX_COUNT;
use crate::read::describe;

/// `a + b`, clamped to [`MAX_COUNT`]: counts are added wherever they come
/// from, and none may wrap or leave the range a JS number holds exactly.
pub fn add_counts(a: u64, b: u64) -> u64 {
    a.saturating_add(b).min(MAX_COUNT)
}

/// Token counts of one API call, normalized across providers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Tokens of the prompt, cached ones included.
    pub input_tokens: Option<u64>,
    /// Tokens of the visible answer (thinking excluded where the provider
    /// separates it).
    pub output_tokens: Option<u64>,
    /// Thinking / reasoning tokens of the answer, when the provider reports
    /// them (apart, as Gemini does, or inside the output count, as OpenAI,
    /// Anthropic and the AI SDK do: then taken out of `output_tokens`).
    pub thoughts_tokens: Option<u64>,
    /// The provider's own total, when it gives one.
    pub total_tokens: Option<u64>,
}

/// A [`Usage`] and the fields that were present but could not be trusted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParsedUsage {
    /// The counts that were read.
    pub usage: Usage,
    /// One line per ignored field: its name, what it held, what was expected.
    pub ignored: Vec<String>,
}

/// Field names for each count, in the order they are tried.
const INPUT: [&str; 4] = [
    "promptTokenCount",
    "prompt_tokens",
    "input_tokens",
    "inputTokens",
];
const OUTPUT: [&str; 4] = [
    "candidatesTokenCount",
    "completion_tokens",
    "output_tokens",
    "outputTokens",
];
const THOUGHTS: [&str; 2] = ["thoughtsTokenCount", "thoughtsTokens"];
/// Reasoning counted inside the output count: the details object and its
/// field, per provider (OpenAI chat, OpenAI Responses, Anthropic, AI SDK v6),
/// then the AI SDK v5's flat field.
const REASONING_DETAILS: [(&str, &str); 4] = [
    ("completion_tokens_details", "reasoning_tokens"),
    ("output_tokens_details", "reasoning_tokens"),
    ("output_tokens_details", "thinking_tokens"),
    ("outputTokenDetails", "reasoningTokens"),
];
const REASONING_FLAT: &str = "reasoningTokens";
const TOTAL: [&str; 3] = ["totalTokenCount", "total_tokens", "totalTokens"];
/// Anthropic reports cached input apart from `input_tokens`.
const ANTHROPIC_CACHE: [&str; 2] = ["cache_creation_input_tokens", "cache_read_input_tokens"];

impl Usage {
    /// Reads a usage object in any provider's spelling. Never fails: what
    /// cannot be read is left out and listed in [`ParsedUsage::ignored`].
    ///
    /// ```
    /// use compaction_core::Usage;
    /// let parsed = Usage::from_value(&compaction_core::json!({
    ///     "usageMetadata": { "promptTokenCount": 900, "candidatesTokenCount": 100, "totalTokenCount": 1000 }
    /// }));
    /// assert_eq!(parsed.usage.prompt_total(), Some(1000));
    /// let anthropic = Usage::from_value(&compaction_core::json!({
    ///     "input_tokens": 10, "cache_read_input_tokens": 500, "output_tokens": 40
    /// }));
    /// assert_eq!(anthropic.usage.input_tokens, Some(510));
    /// assert_eq!(anthropic.usage.prompt_total(), Some(550));
    /// ```
    pub fn from_value(value: &Value) -> ParsedUsage {
        let mut ignored = Vec::new();
        let Some(map) = unwrap_usage(value) else {
            if !value.is_null() {
                ignored.push(format!(
                    "usage must be an object of token counts, got {}",
                    describe(value)
                ));
            }
            return ParsedUsage::default();
        };
        let mut usage = Usage {
            input_tokens: first_count(map, &INPUT, &mut ignored),
            output_tokens: first_count(map, &OUTPUT, &mut ignored),
            thoughts_tokens: first_count(map, &THOUGHTS, &mut ignored),
            total_tokens: first_count(map, &TOTAL, &mut ignored),
        };
        if usage.thoughts_tokens.is_none() {
            // Reasoning inside the output count: taken out of it, so that
            // `output_tokens` is the visible answer here too.
            let mut reasoning = None;
            for (details, key) in REASONING_DETAILS {
                if let Some(Value::Object(inner)) = map.get(details)
                    && inner.contains_key(key)
                {
                    let n = count(inner, key, &mut ignored);
                    reasoning = reasoning.or(n);
                }
            }
            if reasoning.is_none() {
                reasoning = count(map, REASONING_FLAT, &mut ignored);
            }
            if let Some(reasoning) = reasoning {
                usage.output_tokens = usage.output_tokens.map(|n| n.saturating_sub(reasoning));
                usage.thoughts_tokens = Some(reasoning);
            }
        }
        if map.contains_key("input_tokens") {
            // Anthropic's input_tokens leaves out cached tokens; the prompt the
            // model saw is the sum.
            for key in ANTHROPIC_CACHE {
                if let Some(cached) = count(map, key, &mut ignored) {
                    usage.input_tokens = usage.input_tokens.map(|n| add_counts(n, cached));
                }
            }
        }
        ParsedUsage { usage, ignored }
    }

    /// The size of the next prompt's history as the provider counted it:
    /// prompt and answer, the answer's thinking left out (it is not sent
    /// again). The provider's own total less the thinking when given (the
    /// spec reads `usageMetadata.totalTokenCount`), else input plus output.
    /// `None` without an input count or a total, since an answer alone says
    /// nothing about the prompt.
    pub fn prompt_total(&self) -> Option<u64> {
        let thoughts = self.thoughts_tokens.unwrap_or(0);
        if let Some(total) = self.total_tokens {
            return Some(total.saturating_sub(thoughts));
        }
        let input = self.input_tokens?;
        Some(add_counts(input, self.output_tokens.unwrap_or(0)))
    }

    /// Tokens of the answer that enter the history: the output count, else
    /// the total minus input and thinking.
    pub fn answer_tokens(&self) -> Option<u64> {
        if let Some(output) = self.output_tokens {
            return Some(output);
        }
        let rest = self.total_tokens?.checked_sub(self.input_tokens?)?;
        Some(rest.saturating_sub(self.thoughts_tokens.unwrap_or(0)))
    }

    /// Tokens the model generated, thinking included: what an output cap
    /// (`maxOutputTokens`) limits.
    pub fn generated_tokens(&self) -> Option<u64> {
        let answer = self.answer_tokens()?;
        Some(add_counts(answer, self.thoughts_tokens.unwrap_or(0)))
    }
}

json_object! {
    /// The counts that are known, in camelCase (`inputTokens`, …).
    Usage {
        input_tokens?: "inputTokens",
        output_tokens?: "outputTokens",
        thoughts_tokens?: "thoughtsTokens",
        total_tokens?: "totalTokens",
    }
}

json_object! {
    ParsedUsage {
        usage: "usage",
        ignored: "ignored",
    }
}

/// The object holding the counts: the value itself, or its `usageMetadata`
/// or `usage` field when given a whole response; for an AI SDK result
/// (`generateText`'s, whose `usage` is a getter JSON leaves out), its last
/// step's `usage`, the prompt the next call extends; its `totalUsage`, all
/// steps summed, only when it has no steps.
fn unwrap_usage(value: &Value) -> Option<&Map> {
    fn counts(inner: Option<&Value>) -> Option<&Map> {
        match inner {
            Some(inner @ Value::Object(map)) if crate::read::non_finite(inner).is_none() => {
                Some(map)
            }
            _ => None,
        }
    }
    let map = value.as_object()?;
    let last_step = || match map.get("steps") {
        Some(Value::Array(steps)) => counts(steps.last().and_then(|step| step.get("usage"))),
        _ => None,
    };
    counts(map.get("usageMetadata"))
        .or_else(|| counts(map.get("usage")))
        .or_else(last_step)
        .or_else(|| counts(map.get("totalUsage")))
        .or(Some(map))
}

fn first_count(map: &Map, keys: &[&str], ignored: &mut Vec<String>) -> Option<u64> {
    let mut found = None;
    for key in keys {
        // Every present key is checked, so a bad spelling is reported even
        // when another one was good.
        let value = count(map, key, ignored);
        if found.is_none() {
            found = value;
        }
    }
    found
}

fn count(map: &Map, key: &str, ignored: &mut Vec<String>) -> Option<u64> {
    let value = map.get(key)?;
    match value.as_f64() {
        Some(n) if n.is_finite() && n >= 0.0 => {
            // A fractional count is not something a tokenizer produces;
            // rounding up keeps it on the side of compacting earlier.
            let n = n.ceil();
            if n > MAX_COUNT as f64 {
                ignored.push(format!(
                    "{key} is above 2^53 - 1, the largest count a JS number holds exactly; \
                     clamped to it, got {}",
                    describe(value)
                ));
                return Some(MAX_COUNT);
            }
            Some(n as u64)
        }
        _ if value.is_null() => None,
        _ => {
            ignored.push(format!(
                "{key} must be a number of tokens >= 0, got {}",
                describe(value)
            ));
            None
        }
    }
}

/// What [`crate::Compactor::handle_usage`] took from a usage object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsageUpdate {
    /// Whether the usage held a count the prompt size could be taken from.
    pub taken: bool,
    /// `last_prompt_token_count` after the update.
    pub last_prompt_token_count: u64,
    /// The counts that were read.
    pub usage: Usage,
    /// Fields that were present but ignored (or clamped), and why.
    pub ignored: Vec<String>,
}

json_object! {
    UsageUpdate {
        taken: "taken",
        last_prompt_token_count: "lastPromptTokenCount",
        usage: "usage",
        ignored: "ignored",
    }
}
