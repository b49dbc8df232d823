//! Text-level estimators: what one text, one function call or one function
//! response costs. The [`TextEstimator`] trait, the spec's rule
//! ([`Reference`]), the calibrated rule over the scanner's counts, and the
//! choice between them ([`Estimator`], [`SelectedEstimator`]).

use crate::prelude::*;

use crate::json::{Map, ToJson, write_str};

use super::calibrated::{
    CalibratedEstimator, EstimateVariant, TokenizerFamily, call_features, response_features, scan,
};

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
    fn function_call(&self, call: &Map) -> f64;
    /// A `functionResponse` part: `{ id?, name, response }`, with nested
    /// media `parts` already removed (they are counted as parts).
    fn function_response(&self, response: &Map) -> f64;
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
    fn function_call(&self, call: &Map) -> f64 {
        json_utf16_len(call) as f64 / JSON_CHARS_PER_TOKEN
    }
    fn function_response(&self, response: &Map) -> f64 {
        json_utf16_len(response) as f64 / JSON_CHARS_PER_TOKEN
    }
    fn unknown_json(&self, json: &str) -> f64 {
        utf16_len(json) as f64 / CHARS_PER_TOKEN
    }
    fn per_message(&self) -> f64 {
        0.0
    }
}

/// The calibrated rule: the scanner's counts of what a provider sends,
/// weighed, plus the fitted template overheads.
impl TextEstimator for CalibratedEstimator {
    /// Tokens of plain text (text and thought parts).
    fn text(&self, text: &str) -> f64 {
        self.features(&scan(text))
    }

    /// What a provider sends for a call is its name and its arguments as
    /// JSON text, plus the template around the call.
    fn function_call(&self, call: &Map) -> f64 {
        self.features(&call_features(call)) + self.weights().per_call
    }

    /// What a provider sends for a response is its output text (the
    /// `output` string, else the JSON of `response`), plus the template
    /// around it.
    fn function_response(&self, response: &Map) -> f64 {
        self.features(&response_features(response)) + self.weights().per_response
    }

    fn unknown_json(&self, json: &str) -> f64 {
        self.features(&scan(json))
    }

    fn per_message(&self) -> f64 {
        self.weights().per_message
    }
}

/// Which estimator counts tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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

impl ToJson for Estimator {
    fn write_json(&self, out: &mut String) {
        write_str(out, self.name());
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

    /// This estimator for `tokenizer` (which the spec's rule ignores).
    pub const fn select(self, tokenizer: TokenizerFamily) -> SelectedEstimator {
        let variant = match self {
            Estimator::Reference => return SelectedEstimator::Reference(Reference),
            Estimator::Calibrated => EstimateVariant::Calibrated,
            Estimator::Conservative => EstimateVariant::Conservative,
        };
        SelectedEstimator::Calibrated(CalibratedEstimator::new(tokenizer, variant))
    }
}

/// The estimator [`EstimateOptions`](super::EstimateOptions) select, as one
/// concrete type.
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
    /// The selected estimator, to hand to the part walk.
    pub(crate) fn get(&self) -> &dyn TextEstimator {
        match self {
            SelectedEstimator::Reference(r) => r,
            SelectedEstimator::Calibrated(c) => c,
        }
    }
}

/// Length of a string in UTF-16 code units: JavaScript's `string.length`
/// (in the scanner's crate, built for speed).
pub use compaction_scan::utf16_len;

/// UTF-16 length of the JSON text of an object, as `JSON.stringify` gives
/// it.
pub fn json_utf16_len(map: &Map) -> usize {
    utf16_len(&crate::json::to_string(map))
}
