//! The compaction engine: a state machine that never does I/O.
//!
//! See [`Compactor`] for the call order.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::calibrated::TokenizerFamily;
use crate::content::Content;
use crate::error::{Error, ErrorCode, describe};
use crate::estimate::{
    EstimateOptions, Estimator, estimate_content_tokens, estimate_prompt_tokens, message_tokens,
};
use crate::ladder::{MAX_CONSECUTIVE_FAILURES, Thresholds, Tier, compute_thresholds, current_tier};
use crate::read::Fields;
use crate::retention::{RetentionSettings, split_point};
use crate::settings::Settings;
use crate::summary_request::{
    ACKNOWLEDGEMENT, BRIDGE, PromptSettings, SummaryRequest, build_summary_request,
    is_compaction_message, provider_scale, summary_message,
};
use crate::usage::{MAX_COUNT, ParsedUsage, Usage, add_counts};

/// Version of the [`SavedState`] format.
pub const SAVED_STATE_VERSION: u32 = 1;

/// Everything the host can tune, read once per chat.
///
/// The estimator defaults to `conservative` (tokenizer `universal`): these
/// options drive threshold decisions, where an estimate may only make
/// compaction trigger earlier, and the conservative estimator rarely
/// under-counts (see README, "Which estimator").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", from = "RawCompactionOptions")]
pub struct CompactionOptions {
    /// `imageTokenEstimate`, `estimator` and `tokenizer`.
    #[serde(flatten)]
    pub estimate: EstimateOptions,
    /// `excludeMessages` and `excludeContextWindowPercent`.
    #[serde(flatten)]
    pub retention: RetentionSettings,
    /// `systemPrompt` (replaces the default) and `extraInstructions` (appended).
    #[serde(flatten)]
    pub prompt: PromptSettings,
}

impl Default for CompactionOptions {
    fn default() -> Self {
        CompactionOptions {
            estimate: EstimateOptions::for_thresholds(TokenizerFamily::Universal),
            retention: RetentionSettings::default(),
            prompt: PromptSettings::default(),
        }
    }
}

/// [`CompactionOptions`] as read: a missing estimator means the default for
/// threshold decisions, not [`EstimateOptions`]' own default (the spec's rule).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawCompactionOptions {
    #[serde(default)]
    image_token_estimate: Option<f64>,
    #[serde(default)]
    estimator: Option<Estimator>,
    #[serde(default)]
    tokenizer: Option<TokenizerFamily>,
    #[serde(flatten)]
    retention: RetentionSettings,
    #[serde(flatten)]
    prompt: PromptSettings,
}

impl From<RawCompactionOptions> for CompactionOptions {
    fn from(raw: RawCompactionOptions) -> Self {
        let defaults = CompactionOptions::default().estimate;
        CompactionOptions {
            estimate: EstimateOptions {
                image_token_estimate: raw
                    .image_token_estimate
                    .unwrap_or(defaults.image_token_estimate),
                estimator: raw.estimator.unwrap_or(defaults.estimator),
                tokenizer: raw.tokenizer.unwrap_or(defaults.tokenizer),
            },
            retention: raw.retention,
            prompt: raw.prompt,
        }
    }
}

impl CompactionOptions {
    /// The option names [`CompactionOptions::from_json`] reads.
    pub const FIELDS: [&'static str; 7] = [
        "imageTokenEstimate",
        "estimator",
        "tokenizer",
        "excludeMessages",
        "excludeContextWindowPercent",
        "systemPrompt",
        "extraInstructions",
    ];

    /// Reads options from plain JSON over the defaults (`null` gives the
    /// defaults). Unknown fields are errors that list the known ones; `code`
    /// is the error code to report (`INVALID_ARGUMENT` for a host's options,
    /// `INVALID_STATE` inside a saved state).
    ///
    /// ```
    /// use compaction_core::{CompactionOptions, Estimator};
    /// let o = CompactionOptions::from_json(&serde_json::json!({ "excludeMessages": 4 }), "options", compaction_core::ErrorCode::InvalidArgument).unwrap();
    /// assert_eq!((o.retention.exclude_messages, o.estimate.estimator), (4, Estimator::Conservative));
    /// ```
    pub fn from_json(
        value: &Value,
        path: &str,
        code: ErrorCode,
    ) -> Result<CompactionOptions, Error> {
        let fields = Fields::of(value, path, code)?;
        fields.only(&Self::FIELDS)?;
        let defaults = CompactionOptions::default();
        let text = |key: &str| -> Result<Option<String>, Error> {
            Ok(fields.string(key)?.map(str::to_string))
        };
        Ok(CompactionOptions {
            estimate: EstimateOptions::read_fields(&fields, defaults.estimate)?,
            retention: RetentionSettings {
                exclude_messages: fields
                    .whole("excludeMessages", f64::from(u32::MAX))?
                    .map_or(defaults.retention.exclude_messages, |n| n as u32),
                exclude_context_window_percent: fields
                    .number(
                        "excludeContextWindowPercent",
                        "a number from 0 to 100",
                        |n| (0.0..=100.0).contains(&n),
                    )?
                    .unwrap_or(defaults.retention.exclude_context_window_percent),
            },
            prompt: PromptSettings {
                system_prompt: text("systemPrompt")?,
                extra_instructions: text("extraInstructions")?,
            },
        })
    }

    /// Options from loaded settings, the prompt left at its default.
    pub fn from_settings(settings: &Settings) -> CompactionOptions {
        CompactionOptions {
            estimate: EstimateOptions {
                image_token_estimate: settings.image_token_estimate,
                ..CompactionOptions::default().estimate
            },
            retention: RetentionSettings {
                exclude_messages: settings.exclude_messages,
                exclude_context_window_percent: settings.exclude_context_window_percent,
            },
            prompt: PromptSettings::default(),
        }
    }

    /// Checks values that came from outside.
    pub fn validate(&self) -> Result<(), Error> {
        self.estimate.validate()?;
        let percent = self.retention.exclude_context_window_percent;
        if !(0.0..=100.0).contains(&percent) {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                format!(
                    "excludeContextWindowPercent must be a number from 0 to 100, got {}",
                    crate::error::show_number(percent)
                ),
            ));
        }
        Ok(())
    }
}

/// What a [`Compactor`] starts from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactorConfig {
    /// The model's context window, in tokens (≥ 1).
    pub window: f64,
    /// Estimation, retention and prompt options.
    #[serde(default)]
    pub options: CompactionOptions,
    /// Failures carried over from an earlier run (the SDK's
    /// `consecutiveFailures`; the old `hasFailedCompressionAttempt: true` is 3).
    #[serde(default)]
    pub consecutive_failures: u32,
}

impl CompactorConfig {
    /// A config with default options and no failures.
    pub fn new(window: f64) -> CompactorConfig {
        CompactorConfig {
            window,
            options: CompactionOptions::default(),
            consecutive_failures: 0,
        }
    }
}

/// The warning for the deprecated `hasFailedCompressionAttempt` option.
pub const LEGACY_OPTION_WARNING: &str = "compaction-core: hasFailedCompressionAttempt is deprecated; pass \
     consecutiveFailures (true maps to 3, false to 0).";

/// A [`CompactorConfig`] read from a host's options, and the warnings the
/// read produced (the host prints them once).
#[derive(Clone, Debug, PartialEq)]
pub struct ReadConfig {
    /// The config.
    pub config: CompactorConfig,
    /// One line per warning (the deprecated option).
    pub warnings: Vec<String>,
}

impl CompactorConfig {
    /// The option names [`CompactorConfig::from_json`] reads besides
    /// [`CompactionOptions::FIELDS`].
    pub const CHAT_FIELDS: [&'static str; 3] = [
        "window",
        "consecutiveFailures",
        "hasFailedCompressionAttempt",
    ];

    /// Reads a chat's options (`{ window, consecutiveFailures?, ... }`, the
    /// JS `ChatCompactorOptions`). The deprecated
    /// `hasFailedCompressionAttempt` maps true to 3 failures and false to 0
    /// when `consecutiveFailures` is absent, with a warning. A window that is
    /// not a number is `INVALID_ARGUMENT`; NaN, ±Infinity or below 1 is
    /// `INVALID_WINDOW`; any other bad option `INVALID_ARGUMENT`.
    ///
    /// ```
    /// use compaction_core::CompactorConfig;
    /// let read = CompactorConfig::from_json(&serde_json::json!({ "window": 1e5, "hasFailedCompressionAttempt": true })).unwrap();
    /// assert_eq!((read.config.consecutive_failures, read.warnings.len()), (3, 1));
    /// ```
    pub fn from_json(value: &Value) -> Result<ReadConfig, Error> {
        if !value.is_object() {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                format!(
                    "options must be an object such as {{ window: 200000 }}, got {}",
                    describe(value)
                ),
            ));
        }
        let f = Fields::of(value, "options", ErrorCode::InvalidArgument)?;
        let known: Vec<&str> = Self::CHAT_FIELDS
            .iter()
            .chain(CompactionOptions::FIELDS.iter())
            .copied()
            .collect();
        f.only(&known)?;
        let window = match f.get("window") {
            None => {
                return Err(Error::new(
                    ErrorCode::InvalidArgument,
                    "options.window is missing: the model's context window in tokens",
                ));
            }
            Some(v) => match (v.as_f64(), crate::error::non_finite(v)) {
                (Some(n), _) => n,
                (None, Some(n)) => {
                    return Err(Error::new(
                        ErrorCode::InvalidWindow,
                        format!(
                            "options.window must be a finite number of tokens >= 1, got {}",
                            crate::error::show_number(n)
                        ),
                    ));
                }
                (None, None) => return Err(f.bad("window", v, "a number")),
            },
        };
        check_window(window)?;
        let mut warnings = Vec::new();
        let consecutive_failures = match f.get("consecutiveFailures") {
            Some(v) => match v.as_f64() {
                Some(n) if n.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&n) => n as u32,
                _ => return Err(f.bad("consecutiveFailures", v, "an integer >= 0")),
            },
            None => match f.get("hasFailedCompressionAttempt") {
                None => 0,
                Some(Value::Bool(failed)) => {
                    warnings.push(LEGACY_OPTION_WARNING.to_string());
                    if *failed { MAX_CONSECUTIVE_FAILURES } else { 0 }
                }
                Some(other) => {
                    return Err(f.bad("hasFailedCompressionAttempt", other, "a boolean"));
                }
            },
        };
        let mut rest = value.as_object().cloned().unwrap_or_default();
        for key in Self::CHAT_FIELDS {
            rest.remove(key);
        }
        let options = CompactionOptions::from_json(
            &Value::Object(rest),
            "options",
            ErrorCode::InvalidArgument,
        )?;
        options.validate()?;
        Ok(ReadConfig {
            config: CompactorConfig {
                window,
                options,
                consecutive_failures,
            },
            warnings,
        })
    }
}

impl SummaryAnswer {
    /// Reads the host's answer: `{ text, finishReason?, usage? }` or a plain
    /// string (the text). `usage` is read leniently, as
    /// [`Usage::from_value`] does. A malformed answer is `INVALID_ANSWER`,
    /// saying what was expected; the engine then reports SUMMARIZER_FAILED
    /// with it as the cause.
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
            Value::Object(map) if crate::error::non_finite(value).is_none() => map,
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

/// Identifies one summary request, so that a late or repeated answer is
/// caught instead of applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RequestId(pub u64);

/// Why a compaction ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Trigger {
    /// The prompt reached `auto`.
    Auto,
    /// The prompt reached `hard`: forced, the breaker was reset.
    Hard,
    /// The user asked (`/compact`): forced.
    Manual,
}

impl Trigger {
    /// Hard and manual runs are forced: they ignore the breaker and their
    /// failures are not counted.
    pub fn is_forced(self) -> bool {
        !matches!(self, Trigger::Auto)
    }
}

/// Why nothing was compacted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum NoopReason {
    /// The prompt is below `auto`.
    BelowAuto,
    /// Three non-forced failures in a row: auto compaction waits until the
    /// prompt reaches `hard` or the user compacts by hand.
    BreakerOpen,
    /// Everything in the history is kept verbatim, or what would be
    /// summarized is only an earlier summary.
    NothingToCompress,
}

/// What the host must do before sending the user's message.
#[must_use = "the host must either send the message or run the summary request"]
#[derive(Clone, Debug, PartialEq)]
pub enum SendDecision {
    /// Send the message now; nothing is compacted (status NOOP).
    Proceed {
        /// The estimated prompt size, the new message included.
        estimate: u64,
        /// The tier of `estimate` (for the tips and the indicator).
        tier: Tier,
        /// Why nothing is compacted.
        reason: NoopReason,
    },
    /// Run `request` through the summarizing model, then report the result
    /// with exactly one of [`Compactor::handle_summary`],
    /// [`Compactor::handle_summary_failure`] or [`Compactor::handle_abort`],
    /// passing `id`. Until then every poll fails with `BUSY`. Send the user's
    /// message after that, on the new history if the outcome has one.
    Summarize {
        /// Pass it back with the answer.
        id: RequestId,
        /// The summarization call to run.
        request: SummaryRequest,
        /// Whether the run is forced (hard or manual).
        forced: bool,
        /// Why it runs.
        trigger: Trigger,
        /// The estimated prompt size that decided it.
        estimate: u64,
        /// The tier of `estimate`.
        tier: Tier,
        /// Index into the host's history where the verbatim tail starts.
        kept_from: usize,
    },
}

/// The result of a compaction, numbered as in the reference implementation
/// and serialized as the number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum CompactionStatus {
    /// The history was compacted: use the outcome's new history.
    Compressed = 1,
    /// The summary would have made the prompt larger; nothing changed.
    Inflated = 2,
    /// The new size could not be computed; nothing changed. Kept for the
    /// reference's numbering: this engine falls back to the estimator and
    /// does not produce it.
    TokenCountError = 3,
    /// The summary was empty or whitespace; nothing changed.
    EmptySummary = 4,
    /// Nothing to do (below `auto`, breaker open, nothing to compress).
    Noop = 5,
    /// The summary stopped on the output limit; nothing changed.
    OutputTruncated = 6,
    /// The summarizer failed (threw, rejected, answered something malformed
    /// or stopped for a reason other than the end of its answer); nothing
    /// changed, the outcome carries the cause.
    SummarizerFailed = 7,
    /// The host cancelled the summary; nothing changed, not a failure.
    Aborted = 8,
}

impl CompactionStatus {
    /// The number the status is serialized as.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The status for a number, if it is one.
    pub fn from_code(code: u8) -> Option<CompactionStatus> {
        use CompactionStatus::*;
        [
            Compressed,
            Inflated,
            TokenCountError,
            EmptySummary,
            Noop,
            OutputTruncated,
            SummarizerFailed,
            Aborted,
        ]
        .into_iter()
        .find(|s| s.code() == code)
    }

    /// The name, as the JS enum spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            CompactionStatus::Compressed => "COMPRESSED",
            CompactionStatus::Inflated => "INFLATED",
            CompactionStatus::TokenCountError => "TOKEN_COUNT_ERROR",
            CompactionStatus::EmptySummary => "EMPTY_SUMMARY",
            CompactionStatus::Noop => "NOOP",
            CompactionStatus::OutputTruncated => "OUTPUT_TRUNCATED",
            CompactionStatus::SummarizerFailed => "SUMMARIZER_FAILED",
            CompactionStatus::Aborted => "ABORTED",
        }
    }

    /// Whether this is a failed compaction (counted against the breaker
    /// when the run was not forced). NOOP and ABORTED are not failures.
    pub fn is_failure(self) -> bool {
        !matches!(
            self,
            CompactionStatus::Compressed | CompactionStatus::Noop | CompactionStatus::Aborted
        )
    }
}

impl Serialize for CompactionStatus {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u8(self.code())
    }
}

impl<'de> Deserialize<'de> for CompactionStatus {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let code = u8::deserialize(deserializer)?;
        CompactionStatus::from_code(code).ok_or_else(|| {
            serde::de::Error::custom(format!("unknown compaction status {code}, expected 1 to 8"))
        })
    }
}

/// The host's answer to a summary request.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryAnswer {
    /// The summary text.
    pub text: String,
    /// The provider's stop reason, in its own spelling (`STOP`,
    /// `MAX_TOKENS`, `length`, `end_turn`, `max_tokens`, …).
    #[serde(default)]
    pub finish_reason: Option<String>,
    /// The summarization call's usage, in any provider's names.
    #[serde(default)]
    pub usage: Option<Usage>,
}

/// What a compaction did.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionOutcome {
    /// What happened.
    pub status: CompactionStatus,
    /// Why it ran; `None` when it did not (NOOP from the gate).
    pub trigger: Option<Trigger>,
    /// Whether the run was forced (hard or manual).
    pub forced: bool,
    /// For NOOP, why.
    pub noop_reason: Option<NoopReason>,
    /// The estimated prompt size the decision was made on.
    pub estimate: u64,
    /// The tier of `estimate`.
    pub tier: Tier,
    /// COMPRESSED only: the history to use from now on — the summary (a user
    /// message), a model acknowledgement, a one-line user bridge when the
    /// kept tail starts with a model message, then the tail verbatim.
    pub new_history: Option<Vec<Content>>,
    /// Index into the host's history where the verbatim tail starts: the new
    /// history ends with `history[kept_from..]`, so a host may reuse its own
    /// objects. On failures, where it would have started.
    pub kept_from: usize,
    /// COMPRESSED only: the messages the summary replaced
    /// (`history[..kept_from]`), to export before they are gone — compaction
    /// is one way. Empty otherwise.
    pub replaced: Vec<Content>,
    /// COMPRESSED only: the summary text as written into the history.
    pub summary: Option<String>,
    /// Prompt size of the history before: the last usage, or the estimate
    /// when there was none. For NOOP, the estimate.
    pub original_token_count: u64,
    /// Prompt size of the new history (for INFLATED, the size it would have
    /// had); equal to `original_token_count` when nothing changed.
    pub new_token_count: u64,
    /// Whether `new_token_count` comes from the estimator rather than the
    /// summarization call's usage.
    pub new_token_count_estimated: bool,
    /// The failure count after this outcome.
    pub consecutive_failures: u32,
    /// For SUMMARIZER_FAILED, what went wrong, in the host's words.
    pub cause: Option<String>,
}

/// What [`Compactor::handle_usage`] took from a usage object.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageUpdate {
    /// Whether the usage held a count the prompt size could be taken from.
    pub taken: bool,
    /// `last_prompt_token_count` after the update.
    pub last_prompt_token_count: u64,
    /// The counts that were read.
    pub usage: Usage,
    /// Fields that were present but ignored, and why.
    pub ignored: Vec<String>,
}

/// The state worth keeping across a reload, as plain JSON (camelCase). A
/// request in flight is not saved: its answer could never be applied to a
/// restored engine, so the host simply runs the check again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedState {
    /// Format version, [`SAVED_STATE_VERSION`].
    pub version: u32,
    /// The context window.
    pub window: f64,
    /// The options.
    pub options: CompactionOptions,
    /// Non-forced failures in a row.
    pub consecutive_failures: u32,
    /// The last prompt size taken from usage (0: none yet).
    pub last_prompt_token_count: u64,
    /// The id the next request gets, so ids are never reused.
    pub next_request_id: u64,
}

impl SavedState {
    /// The fields of the JSON form, all required.
    pub const FIELDS: [&'static str; 6] = [
        "version",
        "window",
        "options",
        "consecutiveFailures",
        "lastPromptTokenCount",
        "nextRequestId",
    ];
}

/// The compaction state of one chat. Sans-IO: it never calls a model, never
/// waits, never reads a clock; the host does that and reports back.
///
/// The host owns the history and passes it in; the engine keeps only the
/// window, the last prompt size, the failure count and the options (plus
/// the request in flight).
///
/// # Call order
///
/// 1. [`Compactor::new`] (or [`Compactor::restore`] after a reload).
/// 2. Before sending each user message, [`Compactor::poll_before_send`]:
///    * [`SendDecision::Proceed`]: send the message.
///    * [`SendDecision::Summarize`]: run the request through the model,
///      then call **exactly one** of [`Compactor::handle_summary`],
///      [`Compactor::handle_summary_failure`], [`Compactor::handle_abort`]
///      with its id. While it is in flight every poll fails with `BUSY`.
///      Then replace the history with the outcome's `new_history` if there
///      is one, and send the message.
/// 3. After each model response, [`Compactor::handle_usage`] with the
///    response's usage, so the next check starts from the provider's count.
/// 4. For `/compact`, [`Compactor::poll_manual`], then as in 2.
/// 5. Whenever it suits, [`Compactor::save`]; the JSON restores with
///    [`Compactor::restore_json`].
///
/// ```
/// use compaction_core::{Compactor, CompactorConfig, Content, SendDecision, SummaryAnswer};
/// let mut chat = Compactor::new(CompactorConfig::new(32_000.0)).unwrap();
/// let words = "All work and no play makes Jack a dull boy. ".repeat(140);
/// let history: Vec<Content> = (0..40)
///     .map(|i| Content::text(if i % 2 == 0 { "user" } else { "model" }, words.clone()))
///     .collect();
/// // No usage yet (a resumed chat): the whole history is estimated.
/// match chat.poll_before_send(&history, &Content::text("user", "go on")).unwrap() {
///     SendDecision::Summarize { id, request, .. } => {
///         // Lowered from 20 000 so that request and summary fit the small window.
///         assert!(request.config.max_output_tokens < 20_000);
///         let answer = SummaryAnswer { text: "The user wants x.".into(), ..Default::default() };
///         let outcome = chat.handle_summary(id, answer).unwrap();
///         assert_eq!(outcome.status.code(), 1);
///         assert!(outcome.new_history.unwrap().len() < history.len());
///     }
///     SendDecision::Proceed { .. } => unreachable!("about 60 000 estimated tokens are past hard"),
/// }
/// ```
// Not Clone on purpose: two copies of a chat with the same request in
// flight could both apply its answer.
#[derive(Debug)]
pub struct Compactor {
    window: f64,
    thresholds: Thresholds,
    options: CompactionOptions,
    last_prompt_token_count: u64,
    consecutive_failures: u32,
    next_request_id: u64,
    pending: Option<Pending>,
}

/// A summary request in flight, with what judging its answer needs.
#[derive(Clone, Debug)]
struct Pending {
    id: RequestId,
    trigger: Trigger,
    estimate: u64,
    tier: Tier,
    /// Prompt size of the history before compaction.
    history_tokens: u64,
    /// The estimator's count of the whole history.
    history_estimate: f64,
    /// The estimator's count of the kept tail.
    tail_estimate: f64,
    /// The estimator's count of the request minus the summarized messages.
    request_overhead: f64,
    max_output_tokens: u64,
    kept_from: usize,
    replaced: Vec<Content>,
    tail: Vec<Content>,
}

impl Compactor {
    /// A compactor for a chat. Fails with `INVALID_WINDOW` for a window that
    /// is not a finite number ≥ 1, `INVALID_ARGUMENT` for bad options.
    pub fn new(config: CompactorConfig) -> Result<Compactor, Error> {
        let thresholds = check_window(config.window)?;
        config.options.validate()?;
        Ok(Compactor {
            window: config.window,
            thresholds,
            options: config.options,
            last_prompt_token_count: 0,
            consecutive_failures: config.consecutive_failures,
            next_request_id: 1,
            pending: None,
        })
    }

    /// Restores a saved state. Fails with `INVALID_STATE`, saying what was
    /// wrong, for an unknown version or values out of range.
    pub fn restore(state: SavedState) -> Result<Compactor, Error> {
        let invalid = |e: Error| {
            Error::new(
                ErrorCode::InvalidState,
                format!("saved state: {}", e.message()),
            )
        };
        if state.version != SAVED_STATE_VERSION {
            return Err(Error::new(
                ErrorCode::InvalidState,
                format!(
                    "saved state: version {} is not supported, expected {SAVED_STATE_VERSION}",
                    state.version
                ),
            ));
        }
        let thresholds = check_window(state.window).map_err(invalid)?;
        state.options.validate().map_err(invalid)?;
        for (name, value) in [
            ("lastPromptTokenCount", state.last_prompt_token_count),
            ("nextRequestId", state.next_request_id),
        ] {
            if value > MAX_COUNT {
                return Err(Error::new(
                    ErrorCode::InvalidState,
                    format!("saved state: {name} must be at most 2^53 - 1, got {value}"),
                ));
            }
        }
        Ok(Compactor {
            window: state.window,
            thresholds,
            options: state.options,
            last_prompt_token_count: state.last_prompt_token_count,
            consecutive_failures: state.consecutive_failures,
            next_request_id: state.next_request_id.max(1),
            pending: None,
        })
    }

    /// Restores from the JSON [`Compactor::save`] produced.
    ///
    /// ```
    /// use compaction_core::{Compactor, CompactorConfig, ErrorCode};
    /// let chat = Compactor::new(CompactorConfig::new(128_000.0)).unwrap();
    /// let json = serde_json::to_value(chat.save()).unwrap();
    /// assert_eq!(Compactor::restore_json(&json).unwrap().window(), 128_000.0);
    /// let err = Compactor::restore_json(&serde_json::json!({ "version": 1 })).unwrap_err();
    /// assert_eq!(err.code(), ErrorCode::InvalidState);
    /// ```
    pub fn restore_json(value: &Value) -> Result<Compactor, Error> {
        if !value.is_object() {
            return Err(Error::new(
                ErrorCode::InvalidState,
                format!(
                    "saved state must be the object Compactor::save produced, got {}",
                    describe(value)
                ),
            ));
        }
        let f = Fields::of(value, "saved state", ErrorCode::InvalidState)?;
        f.only(&SavedState::FIELDS)?;
        let whole =
            |key: &str, max: f64| -> Result<f64, Error> { f.required(key, f.whole(key, max)?) };
        Compactor::restore(SavedState {
            version: whole("version", f64::from(u32::MAX))? as u32,
            window: f.required("window", f.number("window", "a number", f64::is_finite)?)?,
            options: CompactionOptions::from_json(
                f.required("options", f.get("options"))?,
                "saved state.options",
                ErrorCode::InvalidState,
            )?,
            consecutive_failures: whole("consecutiveFailures", f64::from(u32::MAX))? as u32,
            last_prompt_token_count: whole("lastPromptTokenCount", Fields::MAX_SAFE)? as u64,
            next_request_id: whole("nextRequestId", Fields::MAX_SAFE)? as u64,
        })
    }

    /// The state to keep across a reload.
    pub fn save(&self) -> SavedState {
        SavedState {
            version: SAVED_STATE_VERSION,
            window: self.window,
            options: self.options.clone(),
            consecutive_failures: self.consecutive_failures,
            last_prompt_token_count: self.last_prompt_token_count,
            next_request_id: self.next_request_id,
        }
    }

    /// The context window.
    pub fn window(&self) -> f64 {
        self.window
    }

    /// The ladder for the window.
    pub fn thresholds(&self) -> &Thresholds {
        &self.thresholds
    }

    /// The options.
    pub fn options(&self) -> &CompactionOptions {
        &self.options
    }

    /// The prompt size from the last usage (0: none yet, or reset).
    pub fn last_prompt_token_count(&self) -> u64 {
        self.last_prompt_token_count
    }

    /// Non-forced failures in a row.
    pub fn consecutive_failures(&self) -> u32 {
        self.consecutive_failures
    }

    /// The id of the request in flight, if any.
    pub fn pending_request(&self) -> Option<RequestId> {
        self.pending.as_ref().map(|p| p.id)
    }

    /// Changes the window (the user switched models). Fails, changing
    /// nothing, like [`Compactor::new`].
    pub fn set_window(&mut self, window: f64) -> Result<(), Error> {
        self.thresholds = check_window(window)?;
        self.window = window;
        Ok(())
    }

    /// Takes the prompt size from a response's usage, in any provider's
    /// spelling (see [`crate::usage`]). Counts that are missing, negative or
    /// not numbers are ignored; when no usable count remains the previous
    /// size is kept. A total of 0 is taken: the next check then estimates
    /// the whole history, which can only make compaction come earlier.
    ///
    /// ```
    /// use compaction_core::{Compactor, CompactorConfig};
    /// let mut chat = Compactor::new(CompactorConfig::new(200_000.0)).unwrap();
    /// let update = chat.handle_usage(&serde_json::json!({ "prompt_tokens": 900, "completion_tokens": 100, "total_tokens": 1000 }));
    /// assert!(update.taken);
    /// assert_eq!(chat.last_prompt_token_count(), 1000);
    /// let update = chat.handle_usage(&serde_json::json!({ "totalTokenCount": -5 }));
    /// assert!(!update.taken);
    /// assert_eq!(chat.last_prompt_token_count(), 1000);
    /// ```
    pub fn handle_usage(&mut self, usage: &Value) -> UsageUpdate {
        let ParsedUsage { usage, ignored } = Usage::from_value(usage);
        let total = usage.prompt_total();
        if let Some(total) = total {
            self.last_prompt_token_count = total;
        }
        UsageUpdate {
            taken: total.is_some(),
            last_prompt_token_count: self.last_prompt_token_count,
            usage,
            ignored,
        }
    }

    /// Decides, before `user_message` is sent, whether to compact (SPEC §3):
    /// at or past `hard` the failure count is reset and the run is forced;
    /// otherwise an open breaker or a prompt below `auto` sends as is, and
    /// at `auto` the history is compacted.
    ///
    /// With a usage anchor this costs O(`user_message`); the history is only
    /// read when there is no anchor yet, or when a compaction is prepared.
    /// Fails with `BUSY` while a request is in flight.
    pub fn poll_before_send(
        &mut self,
        history: &[Content],
        user_message: &Content,
    ) -> Result<SendDecision, Error> {
        self.ensure_idle()?;
        let estimate = estimate_prompt_tokens(
            history,
            user_message,
            self.last_prompt_token_count,
            &self.options.estimate,
        );
        let tokens = estimate as f64;
        let tier = current_tier(tokens, &self.thresholds);
        let proceed = |reason| SendDecision::Proceed {
            estimate,
            tier,
            reason,
        };
        match self.gate(tokens) {
            Err(reason) => Ok(proceed(reason)),
            Ok(Trigger::Hard) => {
                self.consecutive_failures = 0;
                Ok(self.prepare(history, estimate, tier, Trigger::Hard, None))
            }
            Ok(trigger) => Ok(self.prepare(history, estimate, tier, trigger, None)),
        }
    }

    /// The cheap gate of SPEC §3 for a prompt of `tokens`: which run to
    /// start, or why none. `hard` is checked first, so it overrides the
    /// breaker.
    fn gate(&self, tokens: f64) -> Result<Trigger, NoopReason> {
        if tokens >= self.thresholds.hard {
            Ok(Trigger::Hard)
        } else if self.consecutive_failures >= MAX_CONSECUTIVE_FAILURES {
            Err(NoopReason::BreakerOpen)
        } else if tokens < self.thresholds.auto {
            Err(NoopReason::BelowAuto)
        } else {
            Ok(Trigger::Auto)
        }
    }

    /// Whether [`Compactor::poll_before_send`] will read the history for
    /// `user_message`: without a usage anchor, or when the anchored estimate
    /// calls for a compaction. A host whose history must be converted first
    /// (the JS binding) skips that work on ordinary turns.
    pub fn needs_history(&self, user_message: &Content) -> bool {
        if self.last_prompt_token_count == 0 {
            return true;
        }
        let estimate = estimate_prompt_tokens(
            &[],
            user_message,
            self.last_prompt_token_count,
            &self.options.estimate,
        );
        self.gate(estimate as f64).is_ok()
    }

    /// Prepares a manual compaction (`/compact`): forced, whatever the size
    /// and the breaker. `focus`, the user's instructions, is appended to the
    /// prompt. Returns [`SendDecision::Proceed`] when there is nothing to
    /// compress. Fails with `BUSY` while a request is in flight.
    pub fn poll_manual(
        &mut self,
        history: &[Content],
        focus: Option<&str>,
    ) -> Result<SendDecision, Error> {
        self.ensure_idle()?;
        let estimate = if self.last_prompt_token_count > 0 {
            self.last_prompt_token_count
        } else {
            estimate_content_tokens(history, &self.options.estimate)
        };
        let tier = current_tier(estimate as f64, &self.thresholds);
        Ok(self.prepare(history, estimate, tier, Trigger::Manual, focus))
    }

    /// Judges the summarizer's answer to request `id` (SPEC §4):
    /// empty → EMPTY_SUMMARY; stopped on the output limit → OUTPUT_TRUNCATED;
    /// stopped for a refusal, a filter or a tool call → SUMMARIZER_FAILED;
    /// a new prompt larger than the old → INFLATED; else COMPRESSED with the
    /// new history. Fails with `STALE_REQUEST`, changing nothing, when `id`
    /// is not the request in flight.
    pub fn handle_summary(
        &mut self,
        id: RequestId,
        answer: SummaryAnswer,
    ) -> Result<CompactionOutcome, Error> {
        let pending = self.take_pending(id)?;
        let usage = answer.usage.unwrap_or_default();
        let text = answer.text.trim();
        if text.is_empty() {
            return Ok(self.fail(pending, CompactionStatus::EmptySummary, None));
        }
        match answer.finish_reason.as_deref().map(classify_finish_reason) {
            Some(Finish::MaxTokens) => {
                return Ok(self.fail(pending, CompactionStatus::OutputTruncated, None));
            }
            Some(Finish::Abnormal) => {
                let reason = answer.finish_reason.unwrap_or_default();
                let cause = format!(
                    "the summarizer stopped with finish reason {reason:?} before finishing its summary"
                );
                return Ok(self.fail(pending, CompactionStatus::SummarizerFailed, Some(cause)));
            }
            Some(Finish::Normal) => {}
            None => {
                // Without a stop reason, an answer that used the whole budget
                // was most likely cut off.
                if usage
                    .generated_tokens()
                    .is_some_and(|n| n >= pending.max_output_tokens)
                {
                    return Ok(self.fail(pending, CompactionStatus::OutputTruncated, None));
                }
            }
        }

        let mut new_history = vec![
            summary_message(text),
            Content::text("model", ACKNOWLEDGEMENT),
        ];
        if pending.tail.first().is_some_and(Content::is_model) {
            new_history.push(Content::text("user", BRIDGE));
        }
        let options = &self.options.estimate;
        let head_estimate: f64 = new_history.iter().map(|c| message_tokens(c, options)).sum();
        let original = pending.history_tokens as f64;
        let (new_tokens, estimated) = match (usage.input_tokens, usage.answer_tokens()) {
            (Some(input), Some(output)) if input > 0 && output > 0 => {
                // What the summarized messages really cost: the call's input
                // minus the prompt and directive around them.
                let summarized = (input as f64 - pending.request_overhead).clamp(0.0, original);
                let wrapping =
                    head_estimate - message_tokens(&Content::text("user", text), options);
                (
                    original - summarized + output as f64 + wrapping.max(0.0),
                    false,
                )
            }
            _ => {
                // Keep what the estimator cannot see (system prompt, tool
                // declarations) from the provider's count, and estimate only
                // the visible conversation.
                let unseen = (original - pending.history_estimate).max(0.0);
                (unseen + head_estimate + pending.tail_estimate, true)
            }
        };
        let new_tokens = (new_tokens.ceil().max(0.0) as u64).min(MAX_COUNT);
        if new_tokens > pending.history_tokens {
            let mut outcome = self.fail(pending, CompactionStatus::Inflated, None);
            outcome.new_token_count = new_tokens;
            outcome.new_token_count_estimated = estimated;
            return Ok(outcome);
        }

        self.consecutive_failures = 0;
        // The indicator resets to the freed space.
        self.last_prompt_token_count = new_tokens;
        let Pending {
            trigger,
            estimate,
            tier,
            history_tokens,
            kept_from,
            replaced,
            tail,
            ..
        } = pending;
        new_history.extend(tail);
        Ok(CompactionOutcome {
            status: CompactionStatus::Compressed,
            trigger: Some(trigger),
            forced: trigger.is_forced(),
            noop_reason: None,
            estimate,
            tier,
            new_history: Some(new_history),
            kept_from,
            replaced,
            summary: Some(text.to_string()),
            original_token_count: history_tokens,
            new_token_count: new_tokens,
            new_token_count_estimated: estimated,
            consecutive_failures: self.consecutive_failures,
            cause: None,
        })
    }

    /// Reports that the summarizer failed for request `id` (it threw,
    /// rejected or answered something that is not an answer): status
    /// SUMMARIZER_FAILED with `cause`. Fails with `STALE_REQUEST` when `id`
    /// is not the request in flight.
    pub fn handle_summary_failure(
        &mut self,
        id: RequestId,
        cause: String,
    ) -> Result<CompactionOutcome, Error> {
        let pending = self.take_pending(id)?;
        Ok(self.fail(pending, CompactionStatus::SummarizerFailed, Some(cause)))
    }

    /// Reports that the host cancelled request `id`: status ABORTED, nothing
    /// changes and the failure count stays as it was. Fails with
    /// `STALE_REQUEST` when `id` is not the request in flight.
    pub fn handle_abort(&mut self, id: RequestId) -> Result<CompactionOutcome, Error> {
        let pending = self.take_pending(id)?;
        Ok(self.unchanged(pending, CompactionStatus::Aborted, None))
    }

    /// A NOOP outcome for a [`SendDecision::Proceed`], in the same shape as
    /// every other outcome.
    pub fn noop_outcome(&self, estimate: u64, tier: Tier, reason: NoopReason) -> CompactionOutcome {
        CompactionOutcome {
            status: CompactionStatus::Noop,
            trigger: None,
            forced: false,
            noop_reason: Some(reason),
            estimate,
            tier,
            new_history: None,
            kept_from: 0,
            replaced: Vec::new(),
            summary: None,
            original_token_count: estimate,
            new_token_count: estimate,
            new_token_count_estimated: false,
            consecutive_failures: self.consecutive_failures,
            cause: None,
        }
    }

    fn ensure_idle(&self) -> Result<(), Error> {
        match &self.pending {
            Some(p) => Err(Error::new(
                ErrorCode::Busy,
                format!(
                    "summary request {} is in flight; report its answer, failure or abort first",
                    p.id.0
                ),
            )),
            None => Ok(()),
        }
    }

    fn take_pending(&mut self, id: RequestId) -> Result<Pending, Error> {
        match self.pending.take() {
            Some(p) if p.id == id => Ok(p),
            other => {
                let expected = match &other {
                    Some(p) => format!("request {} is the one in flight", p.id.0),
                    None => "no request is in flight".to_string(),
                };
                self.pending = other;
                Err(Error::new(
                    ErrorCode::StaleRequest,
                    format!(
                        "summary request {} is not pending ({expected}); it was already answered, \
                         aborted, or belongs to an earlier session",
                        id.0
                    ),
                ))
            }
        }
    }

    /// Splits the history and builds the request, or says there is nothing
    /// to compress.
    fn prepare(
        &mut self,
        history: &[Content],
        estimate: u64,
        tier: Tier,
        trigger: Trigger,
        focus: Option<&str>,
    ) -> SendDecision {
        let options = &self.options;
        let split = split_point(history, self.window, &options.retention, &options.estimate);
        let (head, tail) = history.split_at(split.kept_from);
        if head.is_empty() || head.iter().all(is_compaction_message) {
            return SendDecision::Proceed {
                estimate,
                tier,
                reason: NoopReason::NothingToCompress,
            };
        }
        let sum = |messages: &[Content]| -> f64 {
            messages
                .iter()
                .map(|c| message_tokens(c, &options.estimate))
                .sum()
        };
        let head_estimate = sum(head);
        let tail_estimate = sum(tail);
        let history_estimate = head_estimate + tail_estimate;
        let scale = provider_scale(self.last_prompt_token_count, history_estimate);
        let request = build_summary_request(
            head,
            self.window,
            &options.prompt,
            focus,
            &options.estimate,
            scale,
        );
        // The request is the (media-free) head plus the prompt and the
        // final directive; those two are what the call's input count holds
        // on top of the summarized messages.
        let request_overhead = message_tokens(
            &Content::text("user", &request.system_instruction),
            &options.estimate,
        ) + request
            .contents
            .last()
            .map_or(0.0, |c| message_tokens(c, &options.estimate));
        let history_tokens = if self.last_prompt_token_count > 0 {
            self.last_prompt_token_count
        } else {
            (history_estimate.ceil() as u64).min(MAX_COUNT)
        };
        let id = RequestId(self.next_request_id);
        // Ids stay exact as JS numbers (a restore accepts up to 2^53 − 1).
        self.next_request_id = add_counts(self.next_request_id, 1);
        self.pending = Some(Pending {
            id,
            trigger,
            estimate,
            tier,
            history_tokens,
            history_estimate,
            tail_estimate,
            request_overhead,
            max_output_tokens: request.config.max_output_tokens,
            kept_from: split.kept_from,
            replaced: head.to_vec(),
            tail: tail.to_vec(),
        });
        SendDecision::Summarize {
            id,
            request,
            forced: trigger.is_forced(),
            trigger,
            estimate,
            tier,
            kept_from: split.kept_from,
        }
    }

    /// A failed run: the history stays as it was; a non-forced failure
    /// counts against the breaker.
    fn fail(
        &mut self,
        pending: Pending,
        status: CompactionStatus,
        cause: Option<String>,
    ) -> CompactionOutcome {
        if !pending.trigger.is_forced() {
            self.consecutive_failures = self.consecutive_failures.saturating_add(1);
        }
        self.unchanged(pending, status, cause)
    }

    fn unchanged(
        &self,
        pending: Pending,
        status: CompactionStatus,
        cause: Option<String>,
    ) -> CompactionOutcome {
        CompactionOutcome {
            status,
            trigger: Some(pending.trigger),
            forced: pending.trigger.is_forced(),
            noop_reason: None,
            estimate: pending.estimate,
            tier: pending.tier,
            new_history: None,
            kept_from: pending.kept_from,
            replaced: Vec::new(),
            summary: None,
            original_token_count: pending.history_tokens,
            new_token_count: pending.history_tokens,
            new_token_count_estimated: false,
            consecutive_failures: self.consecutive_failures,
            cause,
        }
    }
}

fn check_window(window: f64) -> Result<Thresholds, Error> {
    if window.is_nan() || window < 1.0 {
        // A window of 0 would put every threshold at 0 and force a
        // compaction on every send; it is almost always a host that does not
        // know its model's window.
        return Err(Error::new(
            ErrorCode::InvalidWindow,
            format!("the context window must be a finite number of tokens >= 1, got {window}"),
        ));
    }
    compute_thresholds(window)
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
