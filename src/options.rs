//! What a host tunes per chat, and how it is read: the options of
//! [`crate::Compactor`] ([`CompactionOptions`]), the config a chat starts
//! from ([`CompactorConfig`]) and the JS constructor's flat options with the
//! deprecated `hasFailedCompressionAttempt` ([`CompactorConfig::from_json`]).

use crate::prelude::*;

use crate::json::Quoted;

use crate::json::{ObjectWriter, ToJson, Value};

use crate::calibrated::TokenizerFamily;
use crate::error::{Error, ErrorCode};
use crate::estimate::EstimateOptions;
use crate::format::Format;
use crate::ladder::MAX_CONSECUTIVE_FAILURES;
use crate::ledger::LedgerOptions;
use crate::read::{CHAT_WINDOW, Fields, MAX_OUTPUT_TOKENS, PERCENT, describe, non_finite};
use crate::retention::RetentionSettings;
use crate::settings::Settings;
use crate::summary_request::PromptSettings;

/// Everything the host can tune, read once per chat.
///
/// The estimator defaults to `conservative` (tokenizer `universal`): these
/// options drive threshold decisions, where an estimate may only make
/// compaction trigger earlier, and the conservative estimator rarely
/// under-counts (see docs/estimator.md, "Which estimator to use").
#[derive(Clone, Debug, PartialEq)]
pub struct CompactionOptions {
    /// `imageTokenEstimate`, `estimator` and `tokenizer`.
    pub estimate: EstimateOptions,
    /// `excludeMessages` and `excludeContextWindowPercent`.
    pub retention: RetentionSettings,
    /// `systemPrompt` (replaces the default) and `extraInstructions` (appended).
    pub prompt: PromptSettings,
    /// `ledger`, nested: what compaction records from the replaced messages
    /// besides the model's summary (on by default; `{ enabled: false }`
    /// turns it off). See [`crate::ledger`].
    pub ledger: LedgerOptions,
    /// `maxOutputTokens` and `clearToolOutputs`: fitting the window.
    pub fit: FitOptions,
    /// `format`: the message shape the host keeps its history in
    /// (`"gemini"`, the default, `"openai"`, `"anthropic"`, `"ai-sdk"`);
    /// the JSON API reads histories and writes the new head in it. Not
    /// written into a saved state when Gemini, so older states and newer
    /// ones stay alike.
    pub format: Format,
}

/// Flat, as a saved state holds them: the estimate, retention and prompt
/// fields, `ledger`, then the fit fields and `format` when not at their
/// defaults.
impl ToJson for CompactionOptions {
    fn write_json(&self, out: &mut String) {
        let mut o = ObjectWriter::new(out);
        self.estimate.write_fields(&mut o);
        self.retention.write_fields(&mut o);
        self.prompt.write_fields(&mut o);
        o.field("ledger", &self.ledger);
        self.fit.write_fields(&mut o);
        if self.format != Format::Gemini {
            o.field("format", &self.format);
        }
        o.end();
    }
}

/// How a compaction fits the model (every send fits, docs/behaviour.md): both off by default, so the
/// default behaviour is the spec's. Not written into a saved state when at
/// their defaults, so older states and newer ones stay alike.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FitOptions {
    /// `maxOutputTokens`: the model's output limit. The summary call's cap
    /// is the smallest of 20 000, this and what the window leaves; the
    /// ladder keeps its reserve of 20 000 whatever this is.
    pub max_output_tokens: Option<u64>,
    /// `clearToolOutputs`: before summarizing, replace the tool outputs
    /// older than the kept tail with a one-line marker; when that alone
    /// brings the prompt below `warn`, no summary call is made.
    pub clear_tool_outputs: bool,
    /// `overheadTokens`: what the provider counts in every prompt besides
    /// the messages (system prompt, tool schemas), which the host knows.
    /// The usage-gap model (see [`crate::engine`]'s `gap`) takes it as
    /// the fixed part of the gap between the provider's count and the
    /// estimate of the history; the rest scales with the history. `None`:
    /// none declared, the whole gap scales.
    pub overhead_tokens: Option<u64>,
    /// `fallback: "ledger"`: when a forced run fails (the summarizer threw,
    /// or its summary was empty, truncated, unusable or inflating) and the
    /// next send would not fit, compact without a model: the replaced part
    /// becomes the library's own record (the ledger, the previous summary,
    /// a line saying the summary model was unavailable), COMPRESSED with
    /// `method: "ledger"` and the failure as `cause`. Off by default
    /// (`"none"`): the spec's behaviour.
    pub fallback_ledger: bool,
}

/// The values of `fallback`: `"none"` (the default) and `"ledger"`.
const FALLBACKS: [bool; 2] = [false, true];

fn fallback_name(ledger: bool) -> &'static str {
    if ledger { "ledger" } else { "none" }
}

impl FitOptions {
    /// Writes the fields that are not at their defaults into an object
    /// being written.
    pub(crate) fn write_fields(&self, o: &mut ObjectWriter<'_>) {
        o.optional(
            "maxOutputTokens",
            self.max_output_tokens
                .as_ref()
                .map(|n| n as &dyn crate::json::WriteJson),
        );
        if self.clear_tool_outputs {
            o.field("clearToolOutputs", &true);
        }
        o.optional(
            "overheadTokens",
            self.overhead_tokens
                .as_ref()
                .map(|n| n as &dyn crate::json::WriteJson),
        );
        if self.fallback_ledger {
            o.field("fallback", &"ledger");
        }
    }

    /// The option names read for it.
    pub const FIELDS: [&'static str; 4] = [
        "maxOutputTokens",
        "clearToolOutputs",
        "overheadTokens",
        "fallback",
    ];

    /// Reads the two fields of a larger object.
    fn read_fields(fields: &Fields<'_>) -> Result<FitOptions, Error> {
        Ok(FitOptions {
            max_output_tokens: fields
                .rule("maxOutputTokens", &MAX_OUTPUT_TOKENS)?
                .map(|n| n as u64),
            clear_tool_outputs: fields.boolean("clearToolOutputs")?.unwrap_or(false),
            overhead_tokens: fields.count("overheadTokens")?,
            fallback_ledger: fields
                .choice("fallback", &FALLBACKS, fallback_name)?
                .unwrap_or(false),
        })
    }

    /// Checks values set from Rust.
    pub fn validate(&self) -> Result<(), Error> {
        if let Some(n) = self.max_output_tokens {
            MAX_OUTPUT_TOKENS.check("maxOutputTokens", n as f64)?;
        }
        Ok(())
    }
}

impl Default for CompactionOptions {
    fn default() -> Self {
        CompactionOptions {
            estimate: EstimateOptions::for_thresholds(TokenizerFamily::Universal),
            retention: RetentionSettings::default(),
            prompt: PromptSettings::default(),
            ledger: LedgerOptions::default(),
            fit: FitOptions::default(),
            format: Format::Gemini,
        }
    }
}

impl CompactionOptions {
    /// The option names [`CompactionOptions::from_json`] reads.
    pub const FIELDS: [&'static str; 13] = [
        EstimateOptions::FIELDS[0],
        EstimateOptions::FIELDS[1],
        EstimateOptions::FIELDS[2],
        RetentionSettings::FIELDS[0],
        RetentionSettings::FIELDS[1],
        PromptSettings::FIELDS[0],
        PromptSettings::FIELDS[1],
        "ledger",
        FitOptions::FIELDS[0],
        FitOptions::FIELDS[1],
        FitOptions::FIELDS[2],
        FitOptions::FIELDS[3],
        "format",
    ];

    /// Reads options from plain JSON over the defaults (`null` gives the
    /// defaults; a missing estimator is the default for threshold decisions,
    /// not the estimate functions' `reference`). Unknown fields are errors
    /// that list the known ones; `code` is the error code to report
    /// (`INVALID_ARGUMENT` for a host's options, `INVALID_STATE` inside a
    /// saved state).
    ///
    /// ```
    /// use compaction_core::{CompactionOptions, Estimator};
    /// let o = CompactionOptions::from_json(&compaction_core::json!({ "excludeMessages": 4 }), "options", compaction_core::ErrorCode::InvalidArgument).unwrap();
    /// assert_eq!((o.retention.exclude_messages, o.estimate.estimator), (4, Estimator::Conservative));
    /// ```
    pub fn from_json(
        value: &Value,
        path: &str,
        code: ErrorCode,
    ) -> Result<CompactionOptions, Error> {
        let fields = Fields::of(value, path, code)?;
        fields.only(&Self::FIELDS)?;
        CompactionOptions::read_fields(&fields)
    }

    /// Reads the option fields of a larger object (the chat's options).
    fn read_fields(fields: &Fields<'_>) -> Result<CompactionOptions, Error> {
        let defaults = CompactionOptions::default();
        let text = |key: &str| -> Result<Option<String>, Error> {
            Ok(fields.string(key)?.map(str::to_string))
        };
        Ok(CompactionOptions {
            estimate: EstimateOptions::read_fields(fields, defaults.estimate)?,
            retention: RetentionSettings {
                exclude_messages: fields
                    .small_count("excludeMessages")?
                    .unwrap_or(defaults.retention.exclude_messages),
                exclude_context_window_percent: fields
                    .rule("excludeContextWindowPercent", &PERCENT)?
                    .unwrap_or(defaults.retention.exclude_context_window_percent),
            },
            prompt: PromptSettings {
                system_prompt: text("systemPrompt")?,
                extra_instructions: text("extraInstructions")?,
            },
            ledger: match fields.get("ledger") {
                None => LedgerOptions::default(),
                Some(value) => {
                    LedgerOptions::read(value, &format!("{}.ledger", fields.path()), fields.code())?
                }
            },
            fit: FitOptions::read_fields(fields)?,
            format: fields
                .choice("format", &Format::ALL, Format::name)?
                .unwrap_or_default(),
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
            ledger: LedgerOptions::default(),
            fit: FitOptions::default(),
            format: Format::Gemini,
        }
    }

    /// Checks values set from Rust (the readers check them as they read).
    pub fn validate(&self) -> Result<(), Error> {
        self.estimate.validate()?;
        PERCENT.check(
            "excludeContextWindowPercent",
            self.retention.exclude_context_window_percent,
        )?;
        self.ledger.validate()?;
        self.fit.validate()?;
        Ok(())
    }
}

/// What a [`crate::Compactor`] starts from.
#[derive(Clone, Debug, PartialEq)]
pub struct CompactorConfig {
    /// The model's context window, in tokens (≥ 1).
    pub window: f64,
    /// Estimation, retention and prompt options.
    pub options: CompactionOptions,
    /// Failures carried over from an earlier run (the SDK's
    /// `consecutiveFailures`; the old `hasFailedCompressionAttempt: true` is 3).
    pub consecutive_failures: u32,
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
    /// A config with default options and no failures.
    pub fn new(window: f64) -> CompactorConfig {
        CompactorConfig {
            window,
            options: CompactionOptions::default(),
            consecutive_failures: 0,
        }
    }

    /// The option names [`CompactorConfig::from_json`] reads besides
    /// [`CompactionOptions::FIELDS`].
    pub const CHAT_FIELDS: [&'static str; 4] = [
        "window",
        "consecutiveFailures",
        "hasFailedCompressionAttempt",
        "model",
    ];

    /// Reads a chat's options, flat as the JS constructor takes them
    /// (`{ window, consecutiveFailures?, model?, ...CompactionOptions }`).
    /// `model` (a model id) sets the window and `maxOutputTokens` from the
    /// dated table ([`mod@crate::model_limits`]) and the `tokenizer` family
    /// ([`TokenizerFamily::for_model`]); an explicit `window`,
    /// `maxOutputTokens` or `tokenizer` always wins; an unknown model gets the 131 072
    /// fallback window (when no window is given) and a warning. The
    /// deprecated `hasFailedCompressionAttempt` maps true to 3 failures and
    /// false to 0 when `consecutiveFailures` is absent, with a warning. A
    /// window that is not a number is `INVALID_ARGUMENT`; NaN, ±Infinity or
    /// below 1 is `INVALID_WINDOW`; any other bad option `INVALID_ARGUMENT`.
    ///
    /// ```
    /// use compaction_core::CompactorConfig;
    /// let read = CompactorConfig::from_json(&compaction_core::json!({ "window": 1e5, "hasFailedCompressionAttempt": true })).unwrap();
    /// assert_eq!((read.config.consecutive_failures, read.warnings.len()), (3, 1));
    /// ```
    pub fn from_json(value: &Value) -> Result<ReadConfig, Error> {
        if !value.is_object() || non_finite(value).is_some() {
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
        let mut warnings = Vec::new();
        let model = f.string("model")?;
        let limits = model.map(crate::model_limits::model_limits);
        if let (Some(model), Some(limits)) = (model, &limits)
            && !limits.known
        {
            warnings.push(match f.get("window") {
                None => limits.warning.clone().unwrap_or_default(),
                // Nothing falls back but the output limit.
                Some(_) => format!(
                    "compaction-core: the model {model} is not in the model table (checked {}); \
                     using the window given, and no output limit unless maxOutputTokens is given.",
                    crate::model_limits::TABLE_DATE,
                    model = Quoted(model)
                ),
            });
        }
        let window = match f.get("window") {
            None => match &limits {
                Some(limits) => limits.window as f64,
                None => {
                    return Err(Error::new(
                        ErrorCode::InvalidArgument,
                        "options.window is missing: the model's context window in tokens \
                         (or pass model, e.g. { model: \"gpt-4o\" })",
                    ));
                }
            },
            // A number of the wrong kind is INVALID_WINDOW; not a number at
            // all, INVALID_ARGUMENT (as for every other argument).
            Some(v) => match v.as_f64().or_else(|| non_finite(v)) {
                Some(n) => CHAT_WINDOW.check("options.window", n)?,
                None => return Err(f.bad("window", v, "a number")),
            },
        };
        let consecutive_failures = match f.small_count("consecutiveFailures")? {
            Some(n) => n,
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
        let mut options = CompactionOptions::read_fields(&f)?;
        // The model names its tokenizer; an explicit `tokenizer` wins.
        if let Some(model) = model
            && f.get("tokenizer").is_none()
        {
            options.estimate.tokenizer = TokenizerFamily::for_model(model);
        }
        if options.fit.max_output_tokens.is_none() {
            options.fit.max_output_tokens = limits.and_then(|l| l.max_output_tokens);
        }
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
