//! The stateless operations over JSON text: thresholds, tiers, estimates,
//! tips, reports, settings, constants, statuses, model limits, slimming.

use super::*;

/// The three-tier ladder for a context window (`computeThresholds`).
pub fn compute_thresholds(window: f64) -> String {
    envelope(ladder::compute_thresholds(window))
}

/// The tier of a prompt of `tokens` tokens, `"safe"` to `"hard"`
/// (`currentTier`); `thresholds` is a ladder as JSON.
pub fn current_tier(tokens: f64, thresholds: &str) -> String {
    envelope((|| {
        let tokens = check_count("tokens", tokens)?;
        let value = parse_json(thresholds, "thresholds", ErrorCode::InvalidArgument)?;
        let thresholds = Thresholds::from_json(&value, "thresholds")?;
        Ok(ladder::current_tier(tokens, &thresholds).as_str())
    })())
}

/// Estimated tokens of a message list (`estimateContentTokens`).
pub fn estimate_content_tokens(contents: &str, options: &str) -> String {
    envelope((|| {
        let (options, format) = estimate_options(options)?;
        let contents = messages(contents, "contents", format)?;
        Ok(estimate::estimate_content_tokens(&contents.contents, &options) as f64)
    })())
}

/// Estimated tokens of one text, given raw, not as JSON (`estimateTextTokens`).
pub fn estimate_text_tokens(text: &str, options: &str) -> String {
    envelope((|| {
        let (options, _) = estimate_options(options)?;
        Ok(estimate::estimate_text_tokens(text, &options) as f64)
    })())
}

/// The same estimate as [`estimate_text_tokens`] as a bare number, or NaN
/// when the options are invalid (an estimate is never NaN): the per-text
/// call of `estimateTextTokens`, which then skips writing, decoding and
/// parsing an envelope. On NaN the JS layer calls [`estimate_text_tokens`]
/// for the error.
pub fn estimate_text_number(text: &str, options: &str) -> f64 {
    estimate_text_with(text, text_options(options))
}

/// `options` read as [`estimate_text_number`] reads them (`None`: invalid).
fn text_options(options: &str) -> Option<EstimateOptions> {
    estimate_options(options).ok().map(|(options, _)| options)
}

/// The estimate of `text` under options already read, or NaN without them.
fn estimate_text_with(text: &str, options: Option<EstimateOptions>) -> f64 {
    match options {
        Some(options) => estimate::estimate_text_tokens(text, &options) as f64,
        None => f64::NAN,
    }
}

/// The options text of the last [`estimate_text_number`] call, parsed: a
/// host that estimates many texts with the same options (a page counting
/// every message) has them parsed once, not once per text. The wasm layer
/// keeps one.
#[derive(Debug, Default)]
pub struct TextOptionsCache {
    /// The options text and what it reads as (`None`: invalid).
    last: Option<(String, Option<EstimateOptions>)>,
}

impl TextOptionsCache {
    /// An empty cache.
    pub const fn new() -> TextOptionsCache {
        TextOptionsCache { last: None }
    }

    /// [`estimate_text_number`], reading `options` only when it is not the
    /// text of the last call.
    pub fn estimate(&mut self, text: &str, options: &str) -> f64 {
        let parsed = match &self.last {
            Some((last, parsed)) if last == options => *parsed,
            _ => {
                let parsed = text_options(options);
                self.last = Some((options.to_string(), parsed));
                parsed
            }
        };
        estimate_text_with(text, parsed)
    }
}

/// Estimated size of the prompt about to be sent (`estimatePromptTokens`).
/// With a count above 0 the history is not read (nor parsed).
pub fn estimate_prompt_tokens(
    history: &str,
    user_message: &str,
    last_prompt_token_count: f64,
    options: &str,
) -> String {
    envelope((|| {
        let (options, format) = estimate_options(options)?;
        let last = check_count("lastPromptTokenCount", last_prompt_token_count)?;
        let user_message = message(user_message, "userMessage", format)?;
        let history = if last > 0.0 {
            Vec::new()
        } else {
            messages(history, "history", format)?.contents
        };
        Ok(estimate::estimate_prompt_tokens(&history, &user_message, last as u64, &options) as f64)
    })())
}

/// The context tip to show, or `null` (`selectTip`).
pub fn select_tip(context: &str) -> String {
    envelope((|| {
        let value = parse_json(context, "context", ErrorCode::InvalidArgument)?;
        let context = TipContext::from_json(&value, "context")?;
        tips::select_tip(&context)
    })())
}

/// The `/context` data (`contextReport`).
pub fn context_report(tokens: f64, window: f64) -> String {
    envelope(build_context_report(tokens, window))
}

/// The `/context` block as text (`formatContextReport`).
pub fn format_context_report(tokens: f64, window: f64) -> String {
    envelope(build_context_report(tokens, window).map(|r| r.to_text()))
}

/// Settings from a parsed settings file: `{ settings, warnings }`
/// (`loadSettings`; `""` gives the defaults).
pub fn load_settings(settings_file: &str) -> String {
    envelope((|| {
        let value = optional(settings_file, "settings", ErrorCode::InvalidSettings)?;
        settings::load_settings(&value)
    })())
}

/// The library's constants, so that a page never repeats them.
pub fn ladder_constants() -> String {
    envelope::<Value>(Ok(json!({
        "pct": ladder::PCT,
        "warnPctOffset": ladder::WARN_PCT_OFFSET,
        "compactMaxOutputTokens": ladder::COMPACT_MAX_OUTPUT_TOKENS,
        "summaryReserve": ladder::SUMMARY_RESERVE,
        "autocompactBuffer": ladder::AUTOCOMPACT_BUFFER,
        "warnBuffer": ladder::WARN_BUFFER,
        "hardBuffer": ladder::HARD_BUFFER,
        "maxConsecutiveFailures": ladder::MAX_CONSECUTIVE_FAILURES,
        "defaultImageTokenEstimate": estimate::DEFAULT_IMAGE_TOKEN_ESTIMATE,
        "summaryOpenTag": SUMMARY_OPEN_TAG,
        "summaryCloseTag": SUMMARY_CLOSE_TAG,
        "acknowledgement": ACKNOWLEDGEMENT,
        "bridge": BRIDGE,
    })))
}

/// The statuses, name to number (`{"COMPRESSED": 1, ...}`), from the one
/// list ([`CompactionStatus::ALL`]), so that the JS `CompressionStatus`
/// enum is built from it rather than repeated.
pub fn statuses() -> String {
    envelope(Ok(Writer(write_statuses)))
}

/// The reference's alias names, alias to number
/// (`{"COMPRESSION_FAILED_INFLATED_TOKEN_COUNT": 2, ...}`), from
/// [`CompactionStatus::ALIASES`]: the JS `CompressionStatus` enum adds them
/// as extra members (name → number only; the number still maps back to the
/// status's own name). Apart from [`statuses`], whose keys are exactly the
/// `statusName`s a result can carry.
pub fn status_aliases() -> String {
    envelope(Ok(Writer(write_status_aliases)))
}

/// The core's lists the JS layer is generated from, in one answer
/// (`{"statuses", "statusAliases", "errorCodes", "steps"}`): what
/// [`statuses`], [`status_aliases`] and [`error_codes`] answer, and the
/// keys of a compaction's steps, name to key (`{"SUMMARIZE": "summarize",
/// ...}`, [`Step::KINDS`]). scripts/build writes the JS layer's `STATUSES`,
/// `STATUS_ALIASES` and `STEPS` from it and checks the `.d.ts` against it,
/// so the JS reads a step by the key the core writes, never by a copy of
/// its text.
pub fn lists() -> String {
    let mut out = String::from("{\"ok\":");
    let mut o = ObjectWriter::new(&mut out);
    write_statuses(o.key("statuses"));
    write_status_aliases(o.key("statusAliases"));
    write_error_codes(o.key("errorCodes"));
    write_steps(o.key("steps"));
    o.end();
    out.push('}');
    out
}

/// A list written by a function, as an envelope's value or a field.
struct Writer(fn(&mut String));

impl ToJson for Writer {
    fn write_json(&self, out: &mut String) {
        (self.0)(out);
    }
}

fn write_statuses(out: &mut String) {
    let mut o = ObjectWriter::new(out);
    for status in CompactionStatus::ALL {
        o.field(status.as_str(), &status.code());
    }
    o.end();
}

fn write_status_aliases(out: &mut String) {
    let mut o = ObjectWriter::new(out);
    for (alias, status) in CompactionStatus::ALIASES {
        o.field(alias, &status.code());
    }
    o.end();
}

fn write_error_codes(out: &mut String) {
    ErrorCode::ALL.map(|c| c.as_str()).write_json(out);
}

fn write_steps(out: &mut String) {
    let mut o = ObjectWriter::new(out);
    for (name, key) in Step::KINDS {
        o.field(name, &key);
    }
    o.end();
}

/// The limits of a model from the dated table ([`mod@crate::model_limits`],
/// `modelLimits`): `{ window, maxOutputTokens, known, family?, warning? }`
/// (`maxOutputTokens` is `null` when the table has none; an unknown id gets
/// the 131 072 fallback window, `known: false` and a warning).
pub fn model_limits(model_id: &str) -> String {
    envelope::<crate::model_limits::ModelLimits>(Ok(crate::model_limits::model_limits(model_id)))
}

/// Every error code, from the one list ([`ErrorCode::ALL`]).
pub fn error_codes() -> String {
    envelope(Ok(Writer(write_error_codes)))
}

/// A copy of one message slimmed to `budget_tokens` the way compaction slims
/// (`slimMessage`): its long texts and tool outputs keep their head and end
/// around a marker that says how many characters were removed. For a host
/// whose message is `messageTooLarge` and that wants to send it anyway.
/// `options` are the estimate options (`""`: the spec's rule).
///
/// With `options.format` other than `"gemini"`, the message is read and
/// returned in that format: the host's own message with its long strings
/// cut ([`crate::slim::slim_json`]; ids, media and signed thinking kept).
pub fn slim_message(message_json: &str, budget_tokens: f64, options: &str) -> String {
    envelope((|| {
        let (options, format) = estimate_options(options)?;
        let budget = TOKEN_BUDGET.check("budgetTokens", budget_tokens)?;
        if format == Format::Gemini {
            let message = message(message_json, "message", format)?;
            let slimmed = crate::slim::slim_message(&message, budget, &options);
            return Ok(crate::json::to_value(slimmed));
        }
        let value = parse_json(message_json, "message", ErrorCode::InvalidContent)?;
        // Checked first, so a message in the wrong shape is an error.
        format.read_message(value.clone(), "message")?;
        Ok(crate::slim::slim_json(&value, budget, |v| {
            format
                .read_message(v.clone(), "message")
                .ok()
                .map(|(c, _)| message_tokens(&c, &options))
        }))
    })())
}
