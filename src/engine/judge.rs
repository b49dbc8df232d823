//! Judging the summarizer's answer (docs/spec.md §4): the answer's schema, what its
//! stop reason means, and whether the summary really makes the prompt
//! smaller.

use crate::prelude::*;

use crate::json::Quoted;

use crate::json::Value;

use crate::content::Content;
use crate::error::{Error, ErrorCode};
use crate::estimate::{EstimateOptions, message_tokens};
use crate::ledger::{Ledger, SummaryCheck, check_with_prompt, section_budget};
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
    /// saying what was expected; the JS API then reports it as
    /// [`crate::Answer::Invalid`] (SUMMARIZER_FAILED with it as the cause).
    pub(crate) fn from_json(value: &Value) -> Result<SummaryAnswer, Error> {
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
    /// The estimator's count of the messages the summary replaces.
    pub summarized_estimate: f64,
    /// The estimator's count of what the new history keeps besides the head
    /// (pinned messages and the tail, slimmed where it was).
    pub tail_estimate: f64,
    /// The estimator's count of the request minus the summarized messages.
    pub request_overhead: f64,
    /// The usage-gap model the run was planned with: the new size is
    /// predicted with it when the answer carries no usage.
    pub gap: super::gap::Gap,
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
    Inflated {
        new_tokens: u64,
        estimated: bool,
        summary_check: Option<SummaryCheck>,
    },
    /// Usable: the new history's head and its size; `summary` is the
    /// summary message's text (the model's summary and the ledger section).
    Compressed {
        head: Vec<Content>,
        summary: String,
        new_tokens: u64,
        estimated: bool,
        summary_check: Option<SummaryCheck>,
    },
}

/// Judges `answer` (docs/spec.md §4): empty → EMPTY_SUMMARY; stopped on the output
/// limit → OUTPUT_TRUNCATED; stopped for a refusal, a filter or a tool call
/// → SUMMARIZER_FAILED; a new prompt larger than the old → INFLATED; else
/// COMPRESSED.
///
/// With a `ledger` (and the request's prompt, to check the summary's
/// sections against), the summary message gets the ledger's section after
/// the model's summary, within what keeps the new prompt below `auto` and
/// no larger than the original ([`section_budget`]): the section can never
/// cause an INFLATED outcome or an immediate new compaction. The new size
/// is the one with the section.
///
/// In steps, each tested on its own: the verdict of the stop reason
/// ([`stop_verdict`]), the new head ([`new_head`]) and its size
/// ([`new_size`]), the ledger's section ([`ledger_section`]).
pub(super) fn judge(
    basis: &Basis,
    answer: SummaryAnswer,
    options: &EstimateOptions,
    auto: f64,
    ledger: Option<(&Ledger, &str)>,
) -> Verdict {
    let usage = answer.usage.unwrap_or_default();
    if let Some(verdict) = stop_verdict(
        answer.finish_reason.as_deref(),
        &usage,
        basis.max_output_tokens,
    ) {
        return verdict;
    }
    let text = answer.text.trim();
    if text.is_empty() {
        return Verdict::Empty;
    }
    // The new history's head around `written` (the summary message's text)
    // and the new prompt's size with it.
    let sized = |written: &str| -> (Vec<Content>, u64, bool) {
        let head = new_head(written, basis.tail_starts_with_model);
        let (new_tokens, estimated) = new_size(basis, &head, text, &usage, options);
        (head, new_tokens, estimated)
    };
    let (mut head, mut new_tokens, mut estimated) = sized(text);
    let mut written = text.to_string();
    let mut summary_check = None;
    if let Some((ledger, prompt)) = ledger {
        summary_check = Some(check_with_prompt(text, ledger, prompt));
        let original = basis.history_tokens as f64;
        if let Some(with_section) = ledger_section(text, ledger, auto, original, new_tokens, sized)
        {
            (written, (head, new_tokens, estimated)) = with_section;
        }
    }
    if new_tokens > basis.history_tokens {
        return Verdict::Inflated {
            new_tokens,
            estimated,
            summary_check,
        };
    }
    Verdict::Compressed {
        head,
        summary: written,
        new_tokens,
        estimated,
        summary_check,
    }
}

/// The verdict the stop reason gives before the text is read: truncated
/// when the answer stopped on the output limit (or, without a stop reason,
/// used the whole cap `max_output_tokens`), unusable when it stopped for a
/// refusal, a filter or a tool call; `None` when it ended on its own.
fn stop_verdict(
    finish_reason: Option<&str>,
    usage: &Usage,
    max_output_tokens: u64,
) -> Option<Verdict> {
    // The stop reason first: a filtered or refused answer usually has no
    // text, and is a failure of the summarizer (SUMMARIZER_FAILED, as the
    // stop-reason table says), not an empty summary; one cut off by the
    // output limit is truncated whatever it holds.
    match finish_reason.map(classify_finish_reason) {
        Some(Finish::MaxTokens) => Some(Verdict::Truncated),
        Some(Finish::Abnormal) => {
            let reason = finish_reason.unwrap_or_default();
            Some(Verdict::Unusable(Error::new(
                ErrorCode::InvalidAnswer,
                format!(
                    "the summarizer stopped with finish reason {reason} before finishing its summary",
                    reason = Quoted(reason)
                ),
            )))
        }
        Some(Finish::Normal) => None,
        // Without a stop reason, an answer that used the whole budget
        // was most likely cut off.
        None => usage
            .generated_tokens()
            .is_some_and(|n| n >= max_output_tokens)
            .then_some(Verdict::Truncated),
    }
}

/// The new history's head around `written`, the summary message's text:
/// the summary message, the model's acknowledgement, and a bridge when the
/// kept tail starts with a model message (user and model keep
/// alternating).
fn new_head(written: &str, tail_starts_with_model: bool) -> Vec<Content> {
    let mut head = vec![
        summary_message(written),
        Content::text("model", ACKNOWLEDGEMENT),
    ];
    if tail_starts_with_model {
        head.push(Content::text("user", BRIDGE));
    }
    head
}

/// The new prompt's size with `head` in place of the summarized messages,
/// and whether it was estimated (the answer carried no usage); `text` is
/// the model's summary, which the usage's output count measures.
fn new_size(
    basis: &Basis,
    head: &[Content],
    text: &str,
    usage: &Usage,
    options: &EstimateOptions,
) -> (u64, bool) {
    let original = basis.history_tokens as f64;
    let head_estimate: f64 = head.iter().map(|c| message_tokens(c, options)).sum();
    // One arithmetic with usage and without: the new prompt is the old
    // one minus what the summary replaces, minus what the estimator saw
    // removed besides (the savings of a slimmed tail, a dropped trailing
    // call), plus the head. Usage measures the replaced messages (the
    // call's input minus the prompt and directive around them) and the
    // model's text; without it both are estimated. What the estimator
    // cannot see (system prompt, tool declarations) stays in the old
    // count; the kept messages are never counted below their estimate.
    //
    // Estimator counts become provider tokens through the usage-gap
    // model (`gap`): the fixed part the host declared stays whole, and
    // the rest of what the provider counted beyond the estimate scales
    // with the messages, so it leaves with the ones replaced. Without
    // usage the result is `fixed + ratio × (head + kept)`.
    let ratio = basis.gap.ratio;
    let removed =
        ratio * (basis.history_estimate - basis.summarized_estimate - basis.tail_estimate).max(0.0);
    let measured = match (usage.input_tokens, usage.answer_tokens()) {
        (Some(input), Some(output)) if input > 0 && output > 0 => {
            let summarized = super::clamp(input as f64 - basis.request_overhead, 0.0, original);
            // `output` counts the model's text; everything else in the
            // head (tags, acknowledgement, bridge, the ledger section)
            // is estimated.
            let wrapping = head_estimate - message_tokens(&Content::text("user", text), options);
            Some((summarized, output as f64 + wrapping.max(0.0)))
        }
        _ => None,
    };
    let estimated = measured.is_none();
    let (summarized, head_tokens) =
        measured.unwrap_or((ratio * basis.summarized_estimate, ratio * head_estimate));
    let kept = (original - summarized - removed).max(basis.gap.predict(basis.tail_estimate));
    let new_tokens = kept + head_tokens;
    let new_tokens = (new_tokens.ceil().max(0.0) as u64).min(MAX_COUNT);
    (new_tokens, estimated)
}

/// The summary message's text with the ledger's section after `text`, and
/// what `sized` makes of it, when a section fits: it may take what keeps
/// the new prompt (`new_tokens` without it) below `auto` and no larger
/// than `original`. Its own count and the head's differ by rounding (and,
/// for the calibrated estimators, by context), so a section that still
/// overshoots is rendered once more, smaller by the overshoot; `None` when
/// even that does not fit.
fn ledger_section<T>(
    text: &str,
    ledger: &Ledger,
    auto: f64,
    original: f64,
    new_tokens: u64,
    sized: impl Fn(&str) -> (T, u64, bool),
) -> Option<(String, (T, u64, bool))> {
    let ceiling = (auto.ceil() - 1.0).min(original);
    let mut budget = section_budget(auto, original, new_tokens as f64);
    for _ in 0..2 {
        let section = ledger.render(text, budget);
        if section.is_empty() {
            return None;
        }
        let with_section = format!("{text}{section}");
        let result = sized(&with_section);
        let overshoot = result.1 as f64 - ceiling;
        if overshoot <= 0.0 {
            return Some((with_section, result));
        }
        budget -= overshoot;
    }
    None
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
        // Gemini MAX_TOKENS, OpenAI and AI SDK length, Anthropic
        // max_tokens, OpenAI Responses max_output_tokens; and Anthropic's
        // model_context_window_exceeded: the request and the answer filled
        // the window, so the summary stopped short, as the AI SDK reports
        // the same event (`length`).
        "max_tokens" | "length" | "max_output_tokens" | "model_context_window_exceeded" => {
            Finish::MaxTokens
        }
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
        | "too_many_tool_calls"
        | "image_prohibited_content"
        | "image_recitation"
        | "image_other"
        | "tool_calls"
        | "function_call"
        | "tool_use"
        | "pause_turn"
        // AI SDK (`FinishReason`): a filter, a tool call, an error, or a
        // reason the provider gave that the SDK does not name.
        | "content-filter"
        | "tool-calls"
        | "error"
        | "other" => Finish::Abnormal,
        // STOP, stop, end_turn, stop_sequence and names we do not know: an
        // unknown name must not throw away a good summary.
        _ => Finish::Normal,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // tests assert on data they built

    use core::cell::Cell;

    use super::*;
    use crate::engine::gap::Gap;
    use crate::ledger::{LEDGER_HEADING, LedgerOptions};

    /// A string is the text; an object without one says so (this was the
    /// doctest of `from_json` while it was public).
    #[test]
    fn an_answer_is_a_string_or_an_object_with_text() {
        assert_eq!(
            SummaryAnswer::from_json(&crate::json!("short"))
                .unwrap()
                .text,
            "short"
        );
        let err = SummaryAnswer::from_json(&crate::json!({ "summary": "x" })).unwrap_err();
        assert_eq!(err.message(), "the answer has no text");
    }

    /// A run whose summary replaces 8 000 of 10 000 estimated tokens.
    fn basis() -> Basis {
        Basis {
            history_tokens: 10_000,
            history_estimate: 10_000.0,
            summarized_estimate: 8_000.0,
            tail_estimate: 2_000.0,
            request_overhead: 500.0,
            gap: Gap {
                fixed: 0.0,
                ratio: 1.0,
            },
            max_output_tokens: 1_000,
            tail_starts_with_model: false,
        }
    }

    fn output(input: Option<u64>, output: u64) -> Usage {
        Usage {
            input_tokens: input,
            output_tokens: Some(output),
            ..Usage::default()
        }
    }

    #[test]
    fn the_stop_reason_is_judged_first() {
        let none = Usage::default();
        for reason in ["MAX_TOKENS", "length", "max_tokens"] {
            assert!(matches!(
                stop_verdict(Some(reason), &none, 1_000),
                Some(Verdict::Truncated)
            ));
        }
        let Some(Verdict::Unusable(error)) = stop_verdict(Some("SAFETY"), &none, 1_000) else {
            panic!("a filtered answer is unusable");
        };
        assert_eq!(error.code(), ErrorCode::InvalidAnswer);
        assert!(error.message().contains("finish reason \"SAFETY\""));
        assert!(stop_verdict(Some("STOP"), &none, 1_000).is_none());
        assert!(stop_verdict(Some("a reason we do not know"), &none, 1_000).is_none());
        // Without a stop reason, an answer that used its whole cap was cut
        // off; a stop reason that says it ended is believed.
        assert!(matches!(
            stop_verdict(None, &output(None, 1_000), 1_000),
            Some(Verdict::Truncated)
        ));
        assert!(stop_verdict(None, &output(None, 999), 1_000).is_none());
        assert!(stop_verdict(Some("STOP"), &output(None, 1_000), 1_000).is_none());
        assert!(stop_verdict(None, &none, 1_000).is_none());
    }

    #[test]
    fn the_new_head_bridges_to_a_tail_that_starts_with_the_model() {
        let head = new_head("the summary", false);
        assert_eq!(
            head,
            [
                summary_message("the summary"),
                Content::text("model", ACKNOWLEDGEMENT)
            ]
        );
        let bridged = new_head("the summary", true);
        assert_eq!(bridged[..2], head[..]);
        assert_eq!(bridged[2..], [Content::text("user", BRIDGE)]);
    }

    #[test]
    fn without_usage_the_new_size_is_the_kept_part_and_the_head_estimated() {
        let options = EstimateOptions::default();
        let head = new_head("the summary", false);
        let head_estimate: f64 = head.iter().map(|c| message_tokens(c, &options)).sum();
        let none = Usage::default();
        let (new_tokens, estimated) = new_size(&basis(), &head, "the summary", &none, &options);
        assert!(estimated);
        assert_eq!(new_tokens, (2_000.0 + head_estimate).ceil() as u64);
        // Through the gap model: fixed + ratio × (kept + head).
        let scaled = Basis {
            history_tokens: 21_000,
            gap: Gap {
                fixed: 1_000.0,
                ratio: 2.0,
            },
            ..basis()
        };
        let (new_tokens, _) = new_size(&scaled, &head, "the summary", &none, &options);
        assert_eq!(new_tokens, (5_000.0 + 2.0 * head_estimate).ceil() as u64);
    }

    #[test]
    fn with_usage_the_new_size_measures_the_summarized_part_and_the_answer() {
        let options = EstimateOptions::default();
        let head = new_head("the summary", false);
        let size = |usage: &Usage| new_size(&basis(), &head, "the summary", usage, &options);
        // 7 500 input tokens less the 500 around the messages: 7 000
        // summarized, 3 000 kept.
        let (short, estimated) = size(&output(Some(7_500), 50));
        assert!(!estimated);
        let (long, _) = size(&output(Some(7_500), 150));
        assert_eq!(long - short, 100);
        let (more_input, _) = size(&output(Some(8_500), 50));
        assert_eq!(short - more_input, 1_000);
        // An input count beyond the history cannot take the kept messages
        // below their estimate (2 000).
        let (beyond, _) = size(&output(Some(1_000_000), 50));
        assert_eq!(short - beyond, 1_000);
    }

    fn ledger() -> Ledger {
        let head = [Content::from_value(
            crate::json!({ "role": "model", "parts": [{ "functionCall": {
                "name": "write_file", "args": { "file_path": "src/config.rs", "content": "x" } } }] }),
            "m",
        )
        .unwrap()];
        Ledger::from_messages(
            &head,
            &LedgerOptions::default(),
            128_000.0,
            &EstimateOptions::default(),
        )
    }

    #[test]
    fn the_ledger_section_follows_the_summary_when_it_fits() {
        let ledger = ledger();
        let sized = |written: &str| ((), 5_000 + written.len() as u64 / 4, true);
        let (written, ((), new_tokens, _)) =
            ledger_section("the summary", &ledger, 9_000.0, 10_000.0, 5_000, sized).unwrap();
        assert!(written.starts_with("the summary\n\n"));
        assert!(written.contains(LEDGER_HEADING));
        assert!(written.contains("src/config.rs (written)"));
        assert!(new_tokens > 5_000 && new_tokens < 9_000);
    }

    #[test]
    fn a_section_that_overshoots_is_rendered_once_more_or_left_out() {
        let ledger = ledger();
        // The ceiling is `auto` − 1 = 8 999: the first rendering is one
        // over, the second fits.
        let calls = Cell::new(0);
        let sized = |_: &str| {
            calls.set(calls.get() + 1);
            ((), if calls.get() == 1 { 9_000 } else { 8_999 }, true)
        };
        assert!(ledger_section("the summary", &ledger, 9_000.0, 10_000.0, 5_000, sized).is_some());
        assert_eq!(calls.get(), 2);
        // Over twice: left out.
        let over = |_: &str| ((), 9_000, true);
        assert!(ledger_section("the summary", &ledger, 9_000.0, 10_000.0, 5_000, over).is_none());
        // No room left: nothing rendered, nothing sized.
        let never_sized = |_: &str| -> ((), u64, bool) { panic!("no section to size") };
        assert!(
            ledger_section(
                "the summary",
                &ledger,
                9_000.0,
                10_000.0,
                9_000,
                never_sized
            )
            .is_none()
        );
    }
}
