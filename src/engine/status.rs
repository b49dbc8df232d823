//! The words an outcome is reported in: the one list of
//! [`CompactionStatus`]es (numbered as in the reference implementation, with
//! its names), why a run ran ([`Trigger`]), why nothing ran ([`NoopReason`])
//! and how a run compacted ([`Method`]); each written as the JS API spells
//! it. [`super::outcome`] re-exports them, at the paths hosts use.

use crate::prelude::*;

use crate::json::{ToJson, write_str};

/// The result of a compaction, numbered as in the reference implementation
/// and serialized as the number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
#[non_exhaustive]
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
    /// Every status, in number order: the one list the JS enum and the
    /// TypeScript declarations are checked against.
    pub const ALL: [CompactionStatus; 8] = [
        CompactionStatus::Compressed,
        CompactionStatus::Inflated,
        CompactionStatus::TokenCountError,
        CompactionStatus::EmptySummary,
        CompactionStatus::Noop,
        CompactionStatus::OutputTruncated,
        CompactionStatus::SummarizerFailed,
        CompactionStatus::Aborted,
    ];

    /// The reference implementation's names for some statuses, with the
    /// status each stands for, so that code written against the reference
    /// compiles: the JS `CompressionStatus` enum carries them as extra
    /// members with the same numbers. A result's `statusName` is always the
    /// status's own name ([`CompactionStatus::as_str`]).
    pub const ALIASES: [(&'static str, CompactionStatus); 4] = [
        (
            "COMPRESSION_FAILED_INFLATED_TOKEN_COUNT",
            CompactionStatus::Inflated,
        ),
        (
            "COMPRESSION_FAILED_TOKEN_COUNT_ERROR",
            CompactionStatus::TokenCountError,
        ),
        (
            "COMPRESSION_FAILED_EMPTY_SUMMARY",
            CompactionStatus::EmptySummary,
        ),
        (
            "COMPRESSION_FAILED_OUTPUT_TRUNCATED",
            CompactionStatus::OutputTruncated,
        ),
    ];

    /// The number the status is serialized as.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The status for a number, if it is one.
    pub fn from_code(code: u8) -> Option<CompactionStatus> {
        CompactionStatus::ALL.into_iter().find(|s| s.code() == code)
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

impl ToJson for CompactionStatus {
    fn write_json(&self, out: &mut String) {
        self.code().write_json(out);
    }
}

/// Why a compaction ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Trigger {
    /// The prompt reached `auto`.
    Auto,
    /// The prompt reached `hard`: forced, the breaker was reset.
    Hard,
    /// The user asked (`/compact`): forced.
    Manual,
}

impl ToJson for Trigger {
    fn write_json(&self, out: &mut String) {
        write_str(
            out,
            match self {
                Trigger::Auto => "auto",
                Trigger::Hard => "hard",
                Trigger::Manual => "manual",
            },
        );
    }
}

impl Trigger {
    /// Hard and manual runs are forced: they ignore the breaker and their
    /// failures are not counted.
    pub fn is_forced(self) -> bool {
        !matches!(self, Trigger::Auto)
    }
}

/// Why nothing was compacted. Written as its name (`belowAuto`, …);
/// `MessageTooLarge` carries `overBy`, which the result object writes as a
/// field of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NoopReason {
    /// The prompt is below `auto`.
    BelowAuto,
    /// Three non-forced failures in a row: auto compaction waits until the
    /// prompt reaches `hard` or the user compacts by hand.
    BreakerOpen,
    /// Everything in the history is kept verbatim, or what would be
    /// summarized is only an earlier summary.
    NothingToCompress,
    /// The user message about to be sent is, alone with the smallest
    /// compacted history possible before it, at or above `hard`: no
    /// compaction can make the prompt fit, so none is run. The host shortens
    /// the message (e.g. with [`crate::slim::slim_message`]) or tells the user.
    MessageTooLarge {
        /// Tokens above `hard` of that smallest prompt.
        over_by: u64,
    },
    /// An auto run could not bring the next prompt below `auto` (the pending
    /// message is too large for that, though below `hard`): it is not
    /// started, so the chat does not compact on every turn. The message is
    /// sent as is; once it is in the history, the next run can summarize it.
    WouldNotFit,
}

impl NoopReason {
    /// The reason's name, as the JS API spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            NoopReason::BelowAuto => "belowAuto",
            NoopReason::BreakerOpen => "breakerOpen",
            NoopReason::NothingToCompress => "nothingToCompress",
            NoopReason::MessageTooLarge { .. } => "messageTooLarge",
            NoopReason::WouldNotFit => "wouldNotFit",
        }
    }

    /// For `MessageTooLarge`, the tokens above `hard`.
    pub fn over_by(self) -> Option<u64> {
        match self {
            NoopReason::MessageTooLarge { over_by } => Some(over_by),
            _ => None,
        }
    }
}

impl ToJson for NoopReason {
    fn write_json(&self, out: &mut String) {
        write_str(out, self.as_str());
    }
}

/// How a COMPRESSED run made the history smaller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Method {
    /// By summary calls to the host's model (the spec's compaction).
    Summarized,
    /// By replacing old tool outputs with one-line markers, without a model
    /// call (`clearToolOutputs`).
    Cleared,
    /// By the library's own record, without a usable summary: a forced run
    /// whose summarizer failed, with `fallback: "ledger"`.
    Ledger,
}

impl ToJson for Method {
    fn write_json(&self, out: &mut String) {
        write_str(
            out,
            match self {
                Method::Summarized => "summarized",
                Method::Cleared => "cleared",
                Method::Ledger => "ledger",
            },
        );
    }
}
