//! Judging the summarizer's answer (SPEC §4): the answer's schema, what its
//! stop reason means, and whether the summary really makes the prompt
//! smaller.

use serde_json::Value;

use crate::content::Content;
use crate::error::{Error, ErrorCode};
use crate::estimate::{EstimateOptions, message_tokens};
use crate::read::{MAX_COUNT, describe, non_finite};
use crate::summary_request::{ACKNOWLEDGEMENT, BRIDGE, summary_message};
use crate::usage::Usage;

/// The host's answer to a summary request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SummaryAnswer {
    /// The summary text.
    pub text: String,
    /// The provider's stop reason, in its own spelling (`STOP`,
    /// `MAX_TOKENS`, `length`, `end_turn`, `max_tokens`, …).
    pub finish_reason: Option<String>,
    /// The summarization call's usage, in any provider's names.
    pub usage: Option<Usage>,
}

impl SummaryAnswer {
    /// Reads the host's answer: `{ text, finishReason?, usage? }` or a plain
    /// string (the text). `usage` is read leniently, as
    /// [`Usage::from_value`] does. A malformed answer is `INVALID_ANSWER`,
    /// saying what was expected; the engine then reports SUMMARIZER_FAILED
    /// with it as the cause ([`crate::Compactor::handle_summary_json`]).
    ///
    /// ```
    /// use compaction_core::SummaryAnswer;
    /// assert_eq!(SummaryAnswer::from_json(&serde_json::json!("short")).unwrap().text, "short");
    /// let err = SummaryAnswer::from_json(&serde_json::json!({ "summary": "x" })).unwrap_err();
    /// assert_eq!(err.message(), "the answer has no text");
    /// ```
    pub fn from_json(value: &Value) -> Result<SummaryAnswer, Error> {
        let invalid = |message: String| Error::new(ErrorCode::InvalidAnswer, message);
        let map = match value {
            Value::String(text) => {
                return Ok(SummaryAnswer {
                    text: text.clone(),
                    ..SummaryAnswer::default()
                });
            }
            Value::Object(map) if non_finite(value).is_none() => map,
            other => {
                return Err(invalid(format!(
                    "expected {{ text, finishReason?, usage? }} or a string, got {}",
                    describe(other)
                )));
            }
        };
        let text = match map.get("text") {
            Some(Value::String(s)) => s.clone(),
            Some(other) => {
                return Err(invalid(format!(
                    "answer.text must be a string, got {}",
                    describe(other)
                )));
            }
            None => return Err(invalid("the answer has no text".into())),
        };
        let finish_reason = match map.get("finishReason") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                return Err(invalid(format!(
                    "answer.finishReason must be a string, got {}",
                    describe(other)
                )));
            }
        };
        let usage = match map.get("usage") {
            None | Some(Value::Null) => None,
            Some(v) => Some(Usage::from_value(v).usage),
        };
        Ok(SummaryAnswer {
            text,
            finish_reason,
            usage,
        })
    }
}

/// What judging an answer needs to know about the request it answers.
#[derive(Clone, Debug)]
pub(super) struct Basis {
    /// Prompt size of the history before compaction.
    pub history_tokens: u64,
    /// The estimator's count of the whole history.
    pub history_estimate: f64,
    /// The estimator's count of the kept tail.
    pub tail_estimate: f64,
    /// The estimator's count of the request minus the summarized messages.
    pub request_overhead: f64,
    /// The request's output cap.
    pub max_output_tokens: u64,
    /// Whether the kept tail starts with a model message (then the head
    /// ends with a bridge, so that user and model keep alternating).
    pub tail_starts_with_model: bool,
}

/// What an answer is worth.
#[derive(Debug)]
pub(super) enum Verdict {
    /// Empty or whitespace.
    Empty,
    /// Stopped on the output limit.
    Truncated,
    /// Stopped for a refusal, a filter or a tool call: `INVALID_ANSWER`.
    Unusable(Error),
    /// Larger than what it replaces.
    Inflated { new_tokens: u64, estimated: bool },
    /// Usable: the new history's head and its size.
    Compressed {
        head: Vec<Content>,
        summary: String,
        new_tokens: u64,
        estimated: bool,
    },
}

/// Judges `answer` (SPEC §4): empty → EMPTY_SUMMARY; stopped on the output
/// limit → OUTPUT_TRUNCATED; stopped for a refusal, a filter or a tool call
/// → SUMMARIZER_FAILED; a new prompt larger than the old → INFLATED; else
/// COMPRESSED.
pub(super) fn judge(basis: &Basis, answer: SummaryAnswer, options: &EstimateOptions) -> Verdict {
    let usage = answer.usage.unwrap_or_default();
    let text = answer.text.trim();
    if text.is_empty() {
        return Verdict::Empty;
    }
    match answer.finish_reason.as_deref().map(classify_finish_reason) {
        Some(Finish::MaxTokens) => return Verdict::Truncated,
        Some(Finish::Abnormal) => {
            let reason = answer.finish_reason.unwrap_or_default();
            return Verdict::Unusable(Error::new(
                ErrorCode::InvalidAnswer,
                format!(
                    "the summarizer stopped with finish reason {reason:?} before finishing its summary"
                ),
            ));
        }
        Some(Finish::Normal) => {}
        None => {
            // Without a stop reason, an answer that used the whole budget
            // was most likely cut off.
            if usage
                .generated_tokens()
                .is_some_and(|n| n >= basis.max_output_tokens)
            {
                return Verdict::Truncated;
            }
        }
    }

    let mut head = vec![
        summary_message(text),
        Content::text("model", ACKNOWLEDGEMENT),
    ];
    if basis.tail_starts_with_model {
        head.push(Content::text("user", BRIDGE));
    }
    let head_estimate: f64 = head.iter().map(|c| message_tokens(c, options)).sum();
    let original = basis.history_tokens as f64;
    let (new_tokens, estimated) = match (usage.input_tokens, usage.answer_tokens()) {
        (Some(input), Some(output)) if input > 0 && output > 0 => {
            // What the summarized messages really cost: the call's input
            // minus the prompt and directive around them.
            let summarized = (input as f64 - basis.request_overhead).clamp(0.0, original);
            let wrapping = head_estimate - message_tokens(&Content::text("user", text), options);
            (
                original - summarized + output as f64 + wrapping.max(0.0),
                false,
            )
        }
        _ => {
            // Keep what the estimator cannot see (system prompt, tool
            // declarations) from the provider's count, and estimate only
            // the visible conversation.
            let unseen = (original - basis.history_estimate).max(0.0);
            (unseen + head_estimate + basis.tail_estimate, true)
        }
    };
    let new_tokens = (new_tokens.ceil().max(0.0) as u64).min(MAX_COUNT);
    if new_tokens > basis.history_tokens {
        return Verdict::Inflated {
            new_tokens,
            estimated,
        };
    }
    Verdict::Compressed {
        head,
        summary: text.to_string(),
        new_tokens,
        estimated,
    }
}

/// How a provider's stop reason reads for a summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Finish {
    /// The answer ended on its own (or the reason is unknown to us).
    Normal,
    /// Stopped on the output limit.
    MaxTokens,
    /// Stopped by a filter, a refusal or a tool call: the text is partial.
    Abnormal,
}

fn classify_finish_reason(reason: &str) -> Finish {
    match reason.trim().to_ascii_lowercase().as_str() {
        // Gemini MAX_TOKENS, OpenAI length, Anthropic max_tokens, OpenAI
        // Responses max_output_tokens.
        "max_tokens" | "length" | "max_output_tokens" => Finish::MaxTokens,
        "safety"
        | "recitation"
        | "blocklist"
        | "prohibited_content"
        | "spii"
        | "image_safety"
        | "language"
        | "content_filter"
        | "refusal"
        | "malformed_function_call"
        | "unexpected_tool_call"
        | "tool_calls"
        | "function_call"
        | "tool_use"
        | "pause_turn" => Finish::Abnormal,
        // STOP, stop, end_turn, stop_sequence and names we do not know: an
        // unknown name must not throw away a good summary.
        _ => Finish::Normal,
    }
}
