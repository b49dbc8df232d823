//! Saving a chat's state across a reload, and restoring it.
//!
//! Every state [`Compactor::save`] writes, [`Compactor::restore_json`]
//! reads back exactly: counts stay at or below 2^53 − 1 (exact as JS
//! numbers) and doubles are written in their shortest round-trip form and
//! read back bit for bit ([`ToJson`](crate::ToJson) writes the shortest digits that
//! read back to the same double, negative zero as `-0`). Anything else —
//! a missing or unknown field, a wrong type, a value out of range, an
//! unknown version — is `INVALID_STATE`, saying what was wrong.

use crate::prelude::*;

use crate::json::{Value, json_object};

use super::{Compactor, check_window};
use crate::error::{Error, ErrorCode};
use crate::options::CompactionOptions;
use crate::read::{Fields, MAX_COUNT, describe};

/// Version of the [`SavedState`] format.
pub const SAVED_STATE_VERSION: u32 = 1;

/// The state worth keeping across a reload, as plain JSON (camelCase). A
/// request in flight is not saved: its answer could never be applied to a
/// restored engine, so the host simply runs the check again.
#[derive(Clone, Debug, PartialEq)]
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

json_object! {
    /// The JSON form: [`SavedState::FIELDS`], in camelCase, in that order,
    /// all required.
    SavedState {
        version: "version",
        window: "window",
        options: "options",
        consecutive_failures: "consecutiveFailures",
        last_prompt_token_count: "lastPromptTokenCount",
        next_request_id: "nextRequestId",
    }
    pub const FIELDS;
}

impl SavedState {
    /// Reads the JSON form; the values are checked by [`Compactor::restore`].
    pub fn from_json(value: &Value) -> Result<SavedState, Error> {
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
        Ok(SavedState {
            version: f.required("version", f.small_count("version")?)?,
            window: f.required("window", f.number("window", "a number", f64::is_finite)?)?,
            options: CompactionOptions::from_json(
                f.required("options", f.get("options"))?,
                "saved state.options",
                ErrorCode::InvalidState,
            )?,
            consecutive_failures: f
                .required("consecutiveFailures", f.small_count("consecutiveFailures")?)?,
            last_prompt_token_count: f
                .required("lastPromptTokenCount", f.count("lastPromptTokenCount")?)?,
            next_request_id: f.required("nextRequestId", f.count("nextRequestId")?)?,
        })
    }
}

impl Compactor {
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
            chat: super::next_chat(),
            pending: None,
        })
    }

    /// Restores from the JSON [`Compactor::save`] produced.
    ///
    /// ```
    /// use compaction_core::{Compactor, CompactorConfig, ErrorCode, ToJson};
    /// let chat = Compactor::new(CompactorConfig::new(128_000.0)).unwrap();
    /// let json = chat.save().to_json();
    /// assert_eq!(Compactor::restore_json(&json).unwrap().window(), 128_000.0);
    /// let err = Compactor::restore_json(&compaction_core::json!({ "version": 1 })).unwrap_err();
    /// assert_eq!(err.code(), ErrorCode::InvalidState);
    /// ```
    pub fn restore_json(value: &Value) -> Result<Compactor, Error> {
        Compactor::restore(SavedState::from_json(value)?)
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
}
