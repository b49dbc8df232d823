//! What a compaction did: the [`CompactionOutcome`], one variant per
//! [`CompactionStatus`], so that only a COMPRESSED outcome holds a summary
//! and only a failed one (or one the ledger fallback compressed) a cause.
//! The statuses, [`Trigger`], [`NoopReason`] and [`Method`] are declared in
//! `status.rs` and re-exported here.
//!
//! The outcome does not hold the host's messages: a COMPRESSED outcome holds
//! the new history's head (summary, acknowledgement, maybe a bridge) and
//! where the kept tail starts; [`CompactionOutcome::apply_to`] and
//! [`CompactionOutcome::new_history`] splice it onto the host's history.
//!
//! Written as JSON ([`ToJson`]), an outcome is the result object of the JS API:
//! `status` (the number) and `statusName`, `trigger`, `forced`,
//! `noopReason`, `estimate`, `tier`, `keptFrom`, `originalTokenCount`,
//! `newTokenCount`, `newTokenCountEstimated`, `consecutiveFailures`,
//! `summary`, `summaryCheck` (`{ sections: { name: bool }, missingFiles:
//! [path] }` on COMPRESSED and INFLATED with the ledger on, else `null`),
//! `summaryCalls`, `method` (`"summarized"`, `"cleared"` or `"ledger"`,
//! `null` for NOOP), `overBy` with `noopReason: "messageTooLarge"`, on COMPRESSED
//! `head` and `pinned` (indices of the pinned messages before `keptFrom`,
//! which the new history starts with), and on SUMMARIZER_FAILED (and
//! COMPRESSED with `method: "ledger"`) `cause`
//! (`{ code, message }` when the answer was unusable, `{ message }` for a
//! failure of the host's summarizer, whose own error the caller keeps).

use crate::prelude::*;

use core::convert::Infallible;

use crate::json::{ObjectWriter, ToJson};

use crate::content::Content;
use crate::error::Error;
use crate::ladder::Tier;
use crate::ledger::SummaryCheck;

pub use super::status::{CompactionStatus, Method, NoopReason, Trigger};

/// What every run that reached the summarizer reports.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// Why it ran.
    pub trigger: Trigger,
    /// The estimated prompt size the decision was made on.
    pub estimate: u64,
    /// The tier of `estimate`.
    pub tier: Tier,
    /// Index into the host's history (as it was when the run started) where
    /// the verbatim tail starts; on failures, where it would have started.
    pub kept_from: usize,
    /// Prompt size of the history before: the last usage, or the estimate
    /// when there was none.
    pub original_token_count: u64,
    /// The failure count after this outcome.
    pub consecutive_failures: u32,
    /// Summary calls made by this run (answered, failed or aborted): 0 for a
    /// run that cleared tool outputs only, more than 1 when the part to
    /// summarize was larger than one request can hold.
    pub summary_calls: u32,
    /// How the run compacts.
    pub method: Method,
}

/// Why the summarizer produced nothing usable (SUMMARIZER_FAILED).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum SummarizerCause<C> {
    /// The host's summarizer failed (threw, rejected): what it said, and its
    /// own error value.
    Host {
        /// The failure in the host's words.
        message: String,
        /// The host's own error (the driver's `SummarizeError::Failed`).
        cause: C,
    },
    /// The answer could not be used: malformed, or stopped for a refusal, a
    /// filter or a tool call. An `INVALID_ANSWER` error.
    Answer(Error),
}

impl SummarizerCause<Infallible> {
    /// The same cause as one that could carry a host error of type `C`.
    fn widen<C>(self) -> SummarizerCause<C> {
        match self {
            SummarizerCause::Answer(error) => SummarizerCause::Answer(error),
            SummarizerCause::Host { cause, .. } => match cause {},
        }
    }
}

impl<C> SummarizerCause<C> {
    /// What went wrong, in words.
    pub fn message(&self) -> &str {
        match self {
            SummarizerCause::Host { message, .. } => message,
            SummarizerCause::Answer(error) => error.message(),
        }
    }
}

/// What a compaction did. `C` is the type of the host's own error carried
/// by a failed summarizer ([`SummarizerCause::Host`]); an outcome that
/// cannot hold one (the engine judging an answer) uses `Infallible`, and
/// [`CompactionOutcome::with_cause_type`] widens it.
#[must_use = "on COMPRESSED the host must replace its history (see `apply_to`)"]
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum CompactionOutcome<C = Infallible> {
    /// NOOP: nothing was compacted, the summarizer was not called.
    Noop {
        /// Why.
        reason: NoopReason,
        /// The estimated prompt size, the new message included.
        estimate: u64,
        /// The tier of `estimate`.
        tier: Tier,
        /// The failure count (unchanged).
        consecutive_failures: u32,
    },
    /// COMPRESSED: the new history is `head` followed by the host's
    /// `history[run.kept_from..]`. With `method: Cleared`, `summary` is
    /// empty and `head` is the cleared copies of the replaced messages.
    Compressed {
        /// The run.
        run: Run,
        /// The new history's leading messages: the summary (a user message),
        /// a model acknowledgement, and a one-line user bridge when the kept
        /// tail starts with a model message; then the copies of tail messages
        /// that had to be slimmed to fit the window (or that a manual run
        /// keeps before a dropped trailing call), in order.
        head: Vec<Content>,
        /// Indices (before `kept_from`, ascending) of the pinned messages
        /// (system / developer): the new history starts with them, the
        /// host's own messages verbatim, before `head`; they are not
        /// replaced.
        pinned: Vec<usize>,
        /// The host index each of the last `copied_from.len()` messages of
        /// `head` was copied from (slimmed or cleared copies, or the tail
        /// before a dropped trailing call), so that a host in another format
        /// can make the same copies of its own messages.
        copied_from: Vec<usize>,
        /// The summary text as written into the history: the model's
        /// summary, then the ledger's section when there is one.
        summary: String,
        /// Prompt size of the new history.
        new_token_count: u64,
        /// Whether `new_token_count` comes from the estimator rather than the
        /// summarization call's usage.
        new_token_count_estimated: bool,
        /// What the model's summary has of what was asked; `None` when the
        /// ledger is off.
        summary_check: Option<SummaryCheck>,
        /// With `method: Ledger`, how the summarizer failed; else `None`.
        cause: Option<SummarizerCause<C>>,
    },
    /// INFLATED: the summary would have made the prompt larger.
    Inflated {
        /// The run.
        run: Run,
        /// The size the new history would have had.
        new_token_count: u64,
        /// Whether that size comes from the estimator.
        new_token_count_estimated: bool,
        /// What the model's summary has of what was asked (a host may
        /// retry with a better one); `None` when the ledger is off.
        summary_check: Option<SummaryCheck>,
    },
    /// EMPTY_SUMMARY: the summary was empty or whitespace.
    EmptySummary(Run),
    /// OUTPUT_TRUNCATED: the summary stopped on the output limit.
    OutputTruncated(Run),
    /// SUMMARIZER_FAILED, with the cause.
    SummarizerFailed {
        /// The run.
        run: Run,
        /// What went wrong.
        cause: SummarizerCause<C>,
    },
    /// ABORTED: the host cancelled the run; not a failure.
    Aborted(Run),
}

impl<C> CompactionOutcome<C> {
    /// The status.
    pub fn status(&self) -> CompactionStatus {
        match self {
            CompactionOutcome::Noop { .. } => CompactionStatus::Noop,
            CompactionOutcome::Compressed { .. } => CompactionStatus::Compressed,
            CompactionOutcome::Inflated { .. } => CompactionStatus::Inflated,
            CompactionOutcome::EmptySummary(_) => CompactionStatus::EmptySummary,
            CompactionOutcome::OutputTruncated(_) => CompactionStatus::OutputTruncated,
            CompactionOutcome::SummarizerFailed { .. } => CompactionStatus::SummarizerFailed,
            CompactionOutcome::Aborted(_) => CompactionStatus::Aborted,
        }
    }

    /// The run, for every outcome but NOOP.
    pub fn run(&self) -> Option<&Run> {
        match self {
            CompactionOutcome::Noop { .. } => None,
            CompactionOutcome::Compressed { run, .. }
            | CompactionOutcome::Inflated { run, .. }
            | CompactionOutcome::EmptySummary(run)
            | CompactionOutcome::OutputTruncated(run)
            | CompactionOutcome::SummarizerFailed { run, .. }
            | CompactionOutcome::Aborted(run) => Some(run),
        }
    }

    /// Why it ran; `None` for NOOP.
    pub fn trigger(&self) -> Option<Trigger> {
        self.run().map(|run| run.trigger)
    }

    /// Whether the run was forced (hard or manual).
    pub fn forced(&self) -> bool {
        self.trigger().is_some_and(Trigger::is_forced)
    }

    /// For NOOP, why.
    pub fn noop_reason(&self) -> Option<NoopReason> {
        match self {
            CompactionOutcome::Noop { reason, .. } => Some(*reason),
            _ => None,
        }
    }

    /// The estimated prompt size the decision was made on.
    pub fn estimate(&self) -> u64 {
        match (self, self.run()) {
            (CompactionOutcome::Noop { estimate, .. }, _) => *estimate,
            (_, Some(run)) => run.estimate,
            (_, None) => 0,
        }
    }

    /// The tier of [`CompactionOutcome::estimate`].
    pub fn tier(&self) -> Tier {
        match (self, self.run()) {
            (CompactionOutcome::Noop { tier, .. }, _) => *tier,
            (_, Some(run)) => run.tier,
            (_, None) => Tier::Safe,
        }
    }

    /// Where the verbatim tail starts in the host's history (0 for NOOP).
    pub fn kept_from(&self) -> usize {
        self.run().map_or(0, |run| run.kept_from)
    }

    /// Prompt size before: the last usage, or the estimate when there was
    /// none; for NOOP, the estimate.
    pub fn original_token_count(&self) -> u64 {
        self.run()
            .map_or_else(|| self.estimate(), |run| run.original_token_count)
    }

    /// Prompt size of the new history (for INFLATED, the size it would have
    /// had); equal to [`CompactionOutcome::original_token_count`] when
    /// nothing changed.
    pub fn new_token_count(&self) -> u64 {
        match self {
            CompactionOutcome::Compressed {
                new_token_count, ..
            }
            | CompactionOutcome::Inflated {
                new_token_count, ..
            } => *new_token_count,
            _ => self.original_token_count(),
        }
    }

    /// Whether [`CompactionOutcome::new_token_count`] comes from the
    /// estimator rather than the summarization call's usage.
    pub fn new_token_count_estimated(&self) -> bool {
        match self {
            CompactionOutcome::Compressed {
                new_token_count_estimated,
                ..
            }
            | CompactionOutcome::Inflated {
                new_token_count_estimated,
                ..
            } => *new_token_count_estimated,
            _ => false,
        }
    }

    /// The failure count after this outcome.
    pub fn consecutive_failures(&self) -> u32 {
        match (self, self.run()) {
            (
                CompactionOutcome::Noop {
                    consecutive_failures,
                    ..
                },
                _,
            ) => *consecutive_failures,
            (_, Some(run)) => run.consecutive_failures,
            (_, None) => 0,
        }
    }

    /// COMPRESSED only: the summary text as written into the history
    /// (`None` too when the run only cleared tool outputs).
    pub fn summary(&self) -> Option<&str> {
        match self {
            CompactionOutcome::Compressed { summary, .. } if !summary.is_empty() => Some(summary),
            _ => None,
        }
    }

    /// COMPRESSED and INFLATED, with the ledger on: which of the prompt's
    /// required sections the model's summary has and which recorded files
    /// it does not name (the ledger's section fills those in any case).
    pub fn summary_check(&self) -> Option<&SummaryCheck> {
        match self {
            CompactionOutcome::Compressed { summary_check, .. }
            | CompactionOutcome::Inflated { summary_check, .. } => summary_check.as_ref(),
            _ => None,
        }
    }

    /// The summary calls the run made (0 for NOOP and for a cleared run).
    pub fn summary_calls(&self) -> u32 {
        self.run().map_or(0, |run| run.summary_calls)
    }

    /// How the run compacts; `None` for NOOP.
    pub fn method(&self) -> Option<Method> {
        self.run().map(|run| run.method)
    }

    /// COMPRESSED only: the new history's leading messages.
    pub fn head(&self) -> Option<&[Content]> {
        match self {
            CompactionOutcome::Compressed { head, .. } => Some(head),
            _ => None,
        }
    }

    /// COMPRESSED only: the pinned messages before the kept tail (indices
    /// into the host's history), which the new history starts with; empty
    /// otherwise.
    pub fn pinned(&self) -> &[usize] {
        match self {
            CompactionOutcome::Compressed { pinned, .. } => pinned,
            _ => &[],
        }
    }

    /// COMPRESSED only: the host index each of the last
    /// `copied_from().len()` messages of [`CompactionOutcome::head`] is a
    /// copy of; empty otherwise.
    pub fn copied_from(&self) -> &[usize] {
        match self {
            CompactionOutcome::Compressed { copied_from, .. } => copied_from,
            _ => &[],
        }
    }

    /// SUMMARIZER_FAILED, and COMPRESSED by the ledger fallback: what went
    /// wrong with the summarizer.
    pub fn cause(&self) -> Option<&SummarizerCause<C>> {
        match self {
            CompactionOutcome::SummarizerFailed { cause, .. } => Some(cause),
            CompactionOutcome::Compressed { cause, .. } => cause.as_ref(),
            _ => None,
        }
    }

    /// COMPRESSED only: the new history for `history`, the history the run
    /// started from (or that history with messages appended since, which
    /// follow the kept tail in order). `None` on every other status: the
    /// history stands as it was.
    ///
    /// The new history is the pinned messages (the host's own, in order),
    /// the head, then `history[kept_from..]`.
    pub fn new_history<T: Clone>(&self, history: &[T]) -> Option<Vec<T>>
    where
        Content: Into<T>,
    {
        let head = self.head()?;
        let kept_from = self.kept_from().min(history.len());
        let pinned = self.pinned().iter().filter_map(|&i| history.get(i));
        Some(
            pinned
                .cloned()
                .chain(head.iter().cloned().map(Into::into))
                .chain(history[kept_from..].iter().cloned())
                .collect(),
        )
    }

    /// COMPRESSED only: the messages the summary replaced, to export before
    /// they are gone (compaction is one way): the messages before the kept
    /// tail, pinned ones left out; empty otherwise.
    pub fn replaced<T: Clone>(&self, history: &[T]) -> Vec<T> {
        match self.head() {
            Some(_) => {
                let kept_from = self.kept_from().min(history.len());
                let pinned = self.pinned();
                history[..kept_from]
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !pinned.contains(i))
                    .map(|(_, m)| m.clone())
                    .collect()
            }
            None => Vec::new(),
        }
    }

    /// Applies the outcome to the host's history in place: on COMPRESSED,
    /// `history[..kept_from]` becomes the pinned messages followed by the
    /// head (messages appended since the run started stay after the kept
    /// tail) and the replaced messages are returned (pinned ones are not
    /// replaced); on every other status nothing changes and nothing is
    /// returned.
    pub fn apply_to<T: Clone>(&self, history: &mut Vec<T>) -> Vec<T>
    where
        Content: Into<T>,
    {
        match self.new_history(history) {
            Some(new) => {
                let replaced = self.replaced(history);
                *history = new;
                replaced
            }
            None => Vec::new(),
        }
    }
}

impl CompactionOutcome<Infallible> {
    /// The same outcome as one that could carry a host cause of type `C`
    /// (it carries none).
    pub fn with_cause_type<C>(self) -> CompactionOutcome<C> {
        match self {
            CompactionOutcome::Noop {
                reason,
                estimate,
                tier,
                consecutive_failures,
            } => CompactionOutcome::Noop {
                reason,
                estimate,
                tier,
                consecutive_failures,
            },
            CompactionOutcome::Compressed {
                run,
                head,
                pinned,
                copied_from,
                summary,
                new_token_count,
                new_token_count_estimated,
                summary_check,
                cause,
            } => CompactionOutcome::Compressed {
                run,
                head,
                pinned,
                copied_from,
                summary,
                new_token_count,
                new_token_count_estimated,
                summary_check,
                cause: cause.map(SummarizerCause::widen),
            },
            CompactionOutcome::Inflated {
                run,
                new_token_count,
                new_token_count_estimated,
                summary_check,
            } => CompactionOutcome::Inflated {
                run,
                new_token_count,
                new_token_count_estimated,
                summary_check,
            },
            CompactionOutcome::EmptySummary(run) => CompactionOutcome::EmptySummary(run),
            CompactionOutcome::OutputTruncated(run) => CompactionOutcome::OutputTruncated(run),
            CompactionOutcome::SummarizerFailed { run, cause } => {
                CompactionOutcome::SummarizerFailed {
                    run,
                    cause: cause.widen(),
                }
            }
            CompactionOutcome::Aborted(run) => CompactionOutcome::Aborted(run),
        }
    }
}

/// The result object of the JS API (see the module docs). The host's own
/// error value is not part of it: the caller attaches it.
impl<C> ToJson for CompactionOutcome<C> {
    fn write_json(&self, out: &mut String) {
        let status = self.status();
        let mut o = ObjectWriter::new(out);
        o.field("status", &status)
            .field("statusName", &status.as_str())
            .field("trigger", &self.trigger())
            .field("forced", &self.forced())
            .field("noopReason", &self.noop_reason());
        if let Some(over_by) = self.noop_reason().and_then(NoopReason::over_by) {
            o.field("overBy", &over_by);
        }
        o.field("estimate", &self.estimate())
            .field("tier", &self.tier())
            .field("keptFrom", &self.kept_from())
            .field("originalTokenCount", &self.original_token_count())
            .field("newTokenCount", &self.new_token_count())
            .field("newTokenCountEstimated", &self.new_token_count_estimated())
            .field("consecutiveFailures", &self.consecutive_failures())
            .field("summary", &self.summary())
            .field("summaryCheck", &self.summary_check())
            .field("summaryCalls", &self.summary_calls())
            .field("method", &self.method());
        if let Some(head) = self.head() {
            o.field("head", &head).field("pinned", &self.pinned());
        }
        let (code, message) = match self.cause() {
            Some(SummarizerCause::Answer(error)) => (Some(error.code().as_str()), error.message()),
            Some(SummarizerCause::Host { message, .. }) => (None, message.as_str()),
            None => return o.end(),
        };
        let cause = o.key("cause");
        let mut c = ObjectWriter::new(cause);
        c.optional(
            "code",
            code.as_ref().map(|c| c as &dyn crate::json::WriteJson),
        )
        .field("message", &message);
        c.end();
        o.end();
    }
}
