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
//!
//! The files, each using only those after it: this one (the options and
//! the part walk); `text.rs` (what a text, a call or a response costs under
//! each estimator, and which one the options select); [`calibrated`] (the
//! scanner, its counts and the fitted weights, which know nothing of
//! messages). Every count is added saturating: no input is large enough to
//! wrap one.

use crate::prelude::*;

pub mod calibrated;
mod text;

use crate::json::{ObjectWriter, ToJson, Value};

use crate::content::{Content, Part, PartKind};
use crate::error::{Error, ErrorCode};
use crate::read::{Fields, IMAGE_TOKEN_ESTIMATE, MAX_COUNT};
use crate::usage::add_counts;
use calibrated::TokenizerFamily;
pub use text::{
    CHARS_PER_TOKEN, Estimator, JSON_CHARS_PER_TOKEN, Reference, SelectedEstimator, TextEstimator,
    json_utf16_len, utf16_len,
};

/// Default token budget for one image or document.
pub const DEFAULT_IMAGE_TOKEN_ESTIMATE: f64 = 1_600.0;

/// Options for estimation.
#[derive(Clone, Copy, Debug, PartialEq)]
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

impl ToJson for EstimateOptions {
    fn write_json(&self, out: &mut String) {
        let mut o = ObjectWriter::new(out);
        self.write_fields(&mut o);
        o.end();
    }
}

impl EstimateOptions {
    /// Writes `imageTokenEstimate`, `estimator` and `tokenizer` into an
    /// object being written (options and saved states hold them flat).
    pub(crate) fn write_fields(&self, o: &mut ObjectWriter<'_>) {
        o.field("imageTokenEstimate", &self.image_token_estimate)
            .field("estimator", &self.estimator)
            .field("tokenizer", &self.tokenizer);
    }

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
        self.estimator.select(self.tokenizer)
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
    /// let o = EstimateOptions::from_json(&compaction_core::json!({ "estimator": "calibrated" }), "options").unwrap();
    /// assert_eq!(o.estimator, Estimator::Calibrated);
    /// let e = EstimateOptions::from_json(&compaction_core::json!({ "estimator": "exact" }), "options").unwrap_err();
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
                .rule("imageTokenEstimate", &IMAGE_TOKEN_ESTIMATE)?
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
        IMAGE_TOKEN_ESTIMATE
            .check("imageTokenEstimate", self.image_token_estimate)
            .map(|_| ())
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
    (total.ceil() as u64).min(MAX_COUNT)
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
        // Clamped at 2^53 − 1, as every count is: a huge usage count must
        // stay huge, not wrap to the size of the message.
        add_counts(
            last_prompt_token_count,
            estimate_content_tokens(core::slice::from_ref(user_message), options),
        )
    } else {
        let total: f64 = history
            .iter()
            .chain(core::iter::once(user_message))
            .map(|c| message_tokens(c, options))
            .sum();
        (total.ceil() as u64).min(MAX_COUNT)
    }
}
