//! Token estimation without a tokenizer.
//!
//! The part logic lives here and is shared by every estimator: it walks the
//! messages, sends text, function calls, function responses and unknown
//! parts to a [`TextEstimator`], counts images and documents as
//! `imageTokenEstimate` each, and rounds the sum up once.
//!
//! The spec's rule is the [`Reference`] estimator: text counts its length in
//! UTF-16 code units (JavaScript `length`) ÷ 4, function calls and responses
//! their JSON text ÷ 2.
//!
//! The estimate is only ever used to make compaction trigger *earlier*: a
//! decision that lowers a count or skips a compaction uses the API's number.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::calibrated::{CalibratedEstimator, EstimateVariant, TokenizerFamily};
use crate::content::{Content, Part, PartKind};
use crate::error::{Error, ErrorCode};
use crate::read::Fields;

/// Default token budget for one image or document.
pub const DEFAULT_IMAGE_TOKEN_ESTIMATE: f64 = 1_600.0;
/// Characters per token for text under the spec's rule.
pub const CHARS_PER_TOKEN: f64 = 4.0;
/// Characters per token for JSON (function calls and responses) under the spec's rule.
pub const JSON_CHARS_PER_TOKEN: f64 = 2.0;

/// Counts tokens for the pieces of a message. Implement it to plug a new
/// estimator in without touching the part logic.
pub trait TextEstimator {
    /// Plain text and thought parts.
    fn text(&self, text: &str) -> f64;
    /// A `functionCall` part: the object `{ id?, name, args }`.
    fn function_call(&self, call: &Map<String, Value>) -> f64;
    /// A `functionResponse` part: `{ id?, name, response }`, with nested
    /// media `parts` already removed (they are counted as parts).
    fn function_response(&self, response: &Map<String, Value>) -> f64;
    /// A part of unknown kind, or the unknown fields of a known part, given
    /// as JSON text.
    fn unknown_json(&self, json: &str) -> f64;
    /// Fixed overhead per message (chat template).
    fn per_message(&self) -> f64;
}

/// The spec's rule: UTF-16 length ÷ 4 for text, JSON text ÷ 2 for calls and
/// responses, no per-message overhead.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reference;

impl TextEstimator for Reference {
    fn text(&self, text: &str) -> f64 {
        utf16_len(text) as f64 / CHARS_PER_TOKEN
    }
    fn function_call(&self, call: &Map<String, Value>) -> f64 {
        json_utf16_len(call) as f64 / JSON_CHARS_PER_TOKEN
    }
    fn function_response(&self, response: &Map<String, Value>) -> f64 {
        json_utf16_len(response) as f64 / JSON_CHARS_PER_TOKEN
    }
    fn unknown_json(&self, json: &str) -> f64 {
        utf16_len(json) as f64 / CHARS_PER_TOKEN
    }
    fn per_message(&self) -> f64 {
        0.0
    }
}

/// Which estimator counts tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Estimator {
    /// The spec's rule (characters ÷ 4, JSON ÷ 2): for parity with other
    /// implementations of the spec.
    #[default]
    Reference,
    /// Character classes with fitted weights, unbiased: for display and
    /// accounting (see [`crate::calibrated`]).
    Calibrated,
    /// The same, leaning high so that it rarely under-counts: for threshold
    /// decisions, where an estimate may only make compaction trigger earlier.
    Conservative,
}

/// Options for estimation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct EstimateOptions {
    /// Tokens counted for each image or document (`chatCompression.imageTokenEstimate`).
    pub image_token_estimate: f64,
    /// Which estimator counts text and JSON.
    pub estimator: Estimator,
    /// Which tokenizer family the calibrated estimators imitate
    /// (`universal` when the host does not know its model's).
    pub tokenizer: TokenizerFamily,
}

impl Default for EstimateOptions {
    /// The spec's rule, as the spec's functions define it.
    fn default() -> Self {
        EstimateOptions {
            image_token_estimate: DEFAULT_IMAGE_TOKEN_ESTIMATE,
            estimator: Estimator::Reference,
            tokenizer: TokenizerFamily::Universal,
        }
    }
}

impl EstimateOptions {
    /// The options for threshold decisions: the conservative estimator,
    /// which rarely under-counts, for `tokenizer`.
    pub fn for_thresholds(tokenizer: TokenizerFamily) -> EstimateOptions {
        EstimateOptions {
            estimator: Estimator::Conservative,
            tokenizer,
            ..EstimateOptions::default()
        }
    }

    /// The estimator these options select.
    pub fn text_estimator(&self) -> SelectedEstimator {
        let variant = match self.estimator {
            Estimator::Reference => return SelectedEstimator::Reference(Reference),
            Estimator::Calibrated => EstimateVariant::Calibrated,
            Estimator::Conservative => EstimateVariant::Conservative,
        };
        SelectedEstimator::Calibrated(CalibratedEstimator::new(self.tokenizer, variant))
    }
}

/// The estimator [`EstimateOptions`] select, as one concrete type.
// A short-lived value on the stack; boxing the weights would allocate for
// every message estimated.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SelectedEstimator {
    /// The spec's rule.
    Reference(Reference),
    /// A calibrated or conservative estimator.
    Calibrated(CalibratedEstimator),
}

impl SelectedEstimator {
    fn get(&self) -> &dyn TextEstimator {
        match self {
            SelectedEstimator::Reference(r) => r,
            SelectedEstimator::Calibrated(c) => c,
        }
    }
}

impl Estimator {
    /// Every estimator.
    pub const ALL: [Estimator; 3] = [
        Estimator::Reference,
        Estimator::Calibrated,
        Estimator::Conservative,
    ];

    /// The name in options: `reference`, `calibrated`, `conservative`.
    pub fn name(self) -> &'static str {
        match self {
            Estimator::Reference => "reference",
            Estimator::Calibrated => "calibrated",
            Estimator::Conservative => "conservative",
        }
    }
}

impl EstimateOptions {
    /// The option names [`EstimateOptions::from_json`] reads.
    pub const FIELDS: [&'static str; 3] = ["imageTokenEstimate", "estimator", "tokenizer"];

    /// Reads options from plain JSON (`null` gives the defaults); unknown
    /// fields are errors that list the known ones.
    ///
    /// ```
    /// use compaction_core::{EstimateOptions, Estimator};
    /// let o = EstimateOptions::from_json(&serde_json::json!({ "estimator": "calibrated" }), "options").unwrap();
    /// assert_eq!(o.estimator, Estimator::Calibrated);
    /// let e = EstimateOptions::from_json(&serde_json::json!({ "estimator": "exact" }), "options").unwrap_err();
    /// assert!(e.message().contains("options.estimator must be one of reference, calibrated, conservative"));
    /// ```
    pub fn from_json(value: &Value, path: &str) -> Result<EstimateOptions, Error> {
        let fields = Fields::of(value, path, ErrorCode::InvalidArgument)?;
        fields.only(&Self::FIELDS)?;
        EstimateOptions::read_fields(&fields, EstimateOptions::default())
    }

    /// Reads the estimate fields of a larger object over `defaults`.
    pub(crate) fn read_fields(
        fields: &Fields<'_>,
        defaults: EstimateOptions,
    ) -> Result<EstimateOptions, Error> {
        Ok(EstimateOptions {
            image_token_estimate: fields
                .number("imageTokenEstimate", "a finite number >= 1", |n| {
                    n.is_finite() && n >= 1.0
                })?
                .unwrap_or(defaults.image_token_estimate),
            estimator: fields
                .choice("estimator", &Estimator::ALL, Estimator::name)?
                .unwrap_or(defaults.estimator),
            tokenizer: fields
                .choice("tokenizer", &TokenizerFamily::ALL, TokenizerFamily::name)?
                .unwrap_or(defaults.tokenizer),
        })
    }

    /// Checks values that came from outside.
    pub fn validate(&self) -> Result<(), Error> {
        let v = self.image_token_estimate;
        if !v.is_finite() || v < 1.0 {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                format!(
                    "imageTokenEstimate must be a finite number >= 1, got {}",
                    crate::error::show_number(v)
                ),
            ));
        }
        Ok(())
    }
}

/// Unrounded tokens of one message: the unit the engine sums for retention.
pub fn message_tokens(content: &Content, options: &EstimateOptions) -> f64 {
    message_tokens_with(
        content,
        options.text_estimator().get(),
        options.image_token_estimate,
    )
}

/// Unrounded tokens of one message under any [`TextEstimator`] (the
/// fitting program measures weights of its own with it).
pub fn message_tokens_with(
    content: &Content,
    estimator: &dyn TextEstimator,
    image_token_estimate: f64,
) -> f64 {
    estimator.per_message()
        + content
            .parts
            .iter()
            .map(|part| part_tokens(part, estimator, image_token_estimate))
            .sum::<f64>()
}

fn part_tokens(part: &Part, estimator: &dyn TextEstimator, image_token_estimate: f64) -> f64 {
    let payload = match part.kind() {
        PartKind::Text { text, .. } => estimator.text(text),
        PartKind::FunctionCall(call) => estimator.function_call(call),
        PartKind::FunctionResponse(response) => match response.get("parts") {
            // Media nested in a tool result is counted as media, not as the
            // base64 text of its JSON.
            Some(Value::Array(nested)) => {
                let mut without_parts = response.clone();
                without_parts.remove("parts");
                estimator.function_response(&without_parts)
                    + nested
                        .iter()
                        .filter_map(|item| Part::from_value(item.clone(), "").ok())
                        .map(|inner| part_tokens(&inner, estimator, image_token_estimate))
                        .sum::<f64>()
            }
            _ => estimator.function_response(response),
        },
        PartKind::InlineData { .. } | PartKind::FileData { .. } => image_token_estimate,
        PartKind::Unknown => {
            estimator.unknown_json(&Value::Object(part.as_map().clone()).to_string())
        }
    };
    let extra = part.extra_fields().map_or(0.0, |extra| {
        estimator.unknown_json(&Value::Object(extra).to_string())
    });
    payload + extra
}

/// Estimated tokens of a list of messages, rounded up once.
///
/// ```
/// use compaction_core::{estimate_content_tokens, Content, EstimateOptions};
/// let n = estimate_content_tokens(&[Content::text("user", "hello world")], &EstimateOptions::default());
/// assert_eq!(n, 3); // 11 characters ÷ 4, rounded up
/// ```
pub fn estimate_content_tokens(contents: &[Content], options: &EstimateOptions) -> u64 {
    let total: f64 = contents.iter().map(|c| message_tokens(c, options)).sum();
    total.ceil() as u64
}

/// Estimated tokens of one text under the selected estimator, rounded up.
///
/// ```
/// use compaction_core::{estimate::estimate_text_tokens, EstimateOptions};
/// assert_eq!(estimate_text_tokens("hello world", &EstimateOptions::default()), 3);
/// ```
pub fn estimate_text_tokens(text: &str, options: &EstimateOptions) -> u64 {
    options.text_estimator().get().text(text).ceil() as u64
}

/// Estimated size of the prompt about to be sent.
///
/// With a usage anchor from the previous response (a
/// `last_prompt_token_count` above 0) it is that count plus the new message;
/// without one (a resumed session, a sub-agent that inherits history) it is
/// the whole history plus the new message.
///
/// ```
/// use compaction_core::{estimate_prompt_tokens, Content, EstimateOptions};
/// let msg = Content::text("user", "hello world");
/// assert_eq!(estimate_prompt_tokens(&[], &msg, 1_000, &EstimateOptions::default()), 1_003);
/// ```
pub fn estimate_prompt_tokens(
    history: &[Content],
    user_message: &Content,
    last_prompt_token_count: u64,
    options: &EstimateOptions,
) -> u64 {
    if last_prompt_token_count > 0 {
        last_prompt_token_count.saturating_add(estimate_content_tokens(
            std::slice::from_ref(user_message),
            options,
        ))
    } else {
        let total: f64 = history
            .iter()
            .chain(std::iter::once(user_message))
            .map(|c| message_tokens(c, options))
            .sum();
        total.ceil() as u64
    }
}

/// Length of a string in UTF-16 code units: JavaScript's `string.length`.
pub fn utf16_len(text: &str) -> usize {
    // Every char is one unit except those outside the BMP (4 UTF-8 bytes),
    // which are a surrogate pair.
    text.chars().map(char::len_utf16).sum()
}

/// UTF-16 length of the JSON text of an object, as `JSON.stringify` gives
/// it, without building the string.
pub fn json_utf16_len(map: &Map<String, Value>) -> usize {
    struct Utf16Counter(usize);
    impl std::io::Write for Utf16Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            for &b in buf {
                // Count UTF-8 lead bytes; a 4-byte lead is a surrogate pair.
                if b & 0xC0 != 0x80 {
                    self.0 += 1;
                }
                if b >= 0xF0 {
                    self.0 += 1;
                }
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Utf16Counter(0);
    // Writing to a counter cannot fail, and a Map of Values always serializes.
    match serde_json::to_writer(&mut counter, map) {
        Ok(()) => counter.0,
        Err(_) => 0,
    }
}
