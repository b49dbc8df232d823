//! One error type for the whole library, with stable machine-readable codes.
//!
//! The JS layer turns an [`Error`] into a real JS `Error` whose `code` is
//! [`ErrorCode::as_str`]; hosts switch on the code, never on the message.
//! This module is the bottom of the crate: it depends on nothing else here.

use crate::prelude::*;

use core::fmt;

/// Stable error codes. A code, once published, keeps its meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// A context window that is not a finite number of tokens (≥ 0 for the
    /// stateless ladder, ≥ 1 for a chat).
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
    /// Every code, the one list the TypeScript declarations are checked
    /// against (`tests/json_api.rs`).
    pub const ALL: [ErrorCode; 8] = [
        ErrorCode::InvalidWindow,
        ErrorCode::InvalidArgument,
        ErrorCode::InvalidContent,
        ErrorCode::InvalidSettings,
        ErrorCode::InvalidState,
        ErrorCode::Busy,
        ErrorCode::StaleRequest,
        ErrorCode::InvalidAnswer,
    ];

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

impl core::error::Error for Error {}

/// A number as JavaScript prints it (`12`, `0.5`, `NaN`, `Infinity`).
///
/// Written by hand rather than with `{f64}` formatting, which would pull
/// core's float printer into the wasm module.
pub fn show_number(value: f64) -> String {
    crate::json::number_to_string(value)
}
