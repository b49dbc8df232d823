//! One error type for the whole library, with stable machine-readable codes.
//!
//! The JS layer turns an [`Error`] into a real JS `Error` whose `code` is
//! [`ErrorCode::as_str`]; hosts switch on the code, never on the message.

use std::fmt;

/// Stable error codes. A code, once published, keeps its meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// A context window that is not a finite number ≥ 0.
    InvalidWindow,
    /// An argument of the wrong type or outside its range.
    InvalidArgument,
    /// A message list or message that is not of the content shape.
    InvalidContent,
    /// A settings object with a value of the wrong type or range.
    InvalidSettings,
    /// A saved state that cannot be restored.
    InvalidState,
    /// A second operation on a chat while one is still running.
    Busy,
    /// An answer for a summary request that is not the one in flight.
    StaleRequest,
    /// A summarizer answer that cannot be used (malformed, or stopped for a
    /// reason other than the end of its text); carried as a result's cause.
    InvalidAnswer,
}

impl ErrorCode {
    /// The code as it appears on a JS error's `code` property.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidWindow => "INVALID_WINDOW",
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::InvalidContent => "INVALID_CONTENT",
            ErrorCode::InvalidSettings => "INVALID_SETTINGS",
            ErrorCode::InvalidState => "INVALID_STATE",
            ErrorCode::Busy => "BUSY",
            ErrorCode::StaleRequest => "STALE_REQUEST",
            ErrorCode::InvalidAnswer => "INVALID_ANSWER",
        }
    }
}

/// An error with a stable [`ErrorCode`] and a message that says what was
/// wrong and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    code: ErrorCode,
    message: String,
}

impl Error {
    /// Builds an error from a code and a human-readable message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
        }
    }

    /// The stable code.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// What was wrong, and what was expected.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for Error {}

/// The number a non-finite marker stands for. In option-like inputs the JS
/// layer writes NaN and ±Infinity, which JSON cannot hold, as
/// `{"$nonFinite": "NaN"}` (or `"Infinity"`, `"-Infinity"`), so that the
/// reader can say which field held one instead of seeing `null`.
pub fn non_finite(value: &serde_json::Value) -> Option<f64> {
    let serde_json::Value::Object(map) = value else {
        return None;
    };
    if map.len() != 1 {
        return None;
    }
    match map.get("$nonFinite")?.as_str()? {
        "NaN" => Some(f64::NAN),
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

/// Describes a JSON value's type for error messages ("a string", "null", …).
pub(crate) fn describe(value: &serde_json::Value) -> String {
    use serde_json::Value;
    if let Some(n) = non_finite(value) {
        return show_number(n);
    }
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) if s.chars().count() > 40 => "a string".into(),
        Value::String(s) => format!("the string {s:?}"),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// A number as JavaScript prints it (`12`, `0.5`, `NaN`, `Infinity`).
///
/// Written by hand rather than with `{f64}` formatting, which would pull
/// core's float printer (tens of KB) into the wasm module.
pub fn show_number(value: f64) -> String {
    if value.is_nan() {
        "NaN".into()
    } else if value.is_infinite() {
        if value > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        }
    } else if value.fract() == 0.0 && value.abs() < 9_007_199_254_740_992.0 {
        (value as i64).to_string()
    } else {
        // serde_json prints finite doubles with ryu, already in the module.
        serde_json::Number::from_f64(value).map_or_else(String::new, |n| n.to_string())
    }
}

/// Checks that a token count from outside is a finite number ≥ 0.
pub(crate) fn check_count(name: &str, value: f64) -> Result<f64, Error> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(Error::new(
            ErrorCode::InvalidArgument,
            format!(
                "{name} must be a finite number of tokens >= 0, got {}",
                show_number(value)
            ),
        ))
    }
}
