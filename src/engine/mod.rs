//! The compaction engine: a state machine that never does I/O.
//!
//! * this file: [`Compactor`], the state machine, with its call order;
//! * [`outcome`]: the statuses and what a compaction did;
//! * [`judge`]: judging the summarizer's answer;
//! * [`saved_state`]: save and restore.

pub mod judge;
pub mod outcome;
pub mod saved_state;

use serde::Serialize;
use serde_json::Value;

use crate::content::Content;
use crate::error::{Error, ErrorCode};
use crate::estimate::{estimate_content_tokens, estimate_prompt_tokens, message_tokens};
use crate::ladder::{MAX_CONSECUTIVE_FAILURES, Thresholds, Tier, compute_thresholds, current_tier};
use crate::options::{CompactionOptions, CompactorConfig};
use crate::read::{CHAT_WINDOW, MAX_COUNT};
use crate::retention::split_point;
use crate::summary_request::{
    SummaryRequest, build_summary_request, is_compaction_message, provider_scale,
};
use crate::usage::{ParsedUsage, Usage, UsageUpdate, add_counts};

use judge::{Basis, SummaryAnswer, Verdict, judge};
use outcome::{CompactionOutcome, NoopReason, Run, SummarizerCause, Trigger};

/// Identifies one summary request, so that a late or repeated answer is
/// caught instead of applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct RequestId(pub u64);

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
    /// with exactly one of [`Compactor::handle_summary`] (or
    /// [`Compactor::handle_summary_json`]), [`Compactor::handle_summary_failure`]
    /// or [`Compactor::handle_abort`], passing `id`. Until then every poll
    /// fails with `BUSY`. Send the user's message after that, on the new
    /// history if the outcome is COMPRESSED.
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

/// The compaction state of one chat. Sans-IO: it never calls a model, never
/// waits, never reads a clock; the host does that and reports back.
///
/// The host owns the history and lends it for each check; the engine keeps
/// only the window, the last prompt size, the failure count and the options,
/// and while a request is in flight, indices and counts about it — never
/// the host's messages. A COMPRESSED outcome gives the new history's head
/// and where the kept tail starts; the host splices it onto its own history
/// ([`CompactionOutcome::apply_to`]), so messages it appended while the
/// summarizer ran are kept after the tail.
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
///      Then apply the outcome to the history
///      ([`CompactionOutcome::apply_to`]; a no-op unless COMPRESSED), and
///      send the message.
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
/// let mut history: Vec<Content> = (0..40)
///     .map(|i| Content::text(if i % 2 == 0 { "user" } else { "model" }, words.clone()))
///     .collect();
/// // No usage yet (a resumed chat): the whole history is estimated.
/// match chat.poll_before_send(&history, &Content::text("user", "go on")).unwrap() {
///     SendDecision::Summarize { id, request, .. } => {
///         // Lowered from 20 000 so that request and summary fit the small window.
///         assert!(request.config.max_output_tokens < 20_000);
///         let answer = SummaryAnswer { text: "The user wants x.".into(), ..Default::default() };
///         let outcome = chat.handle_summary(id, answer).unwrap();
///         assert_eq!(outcome.status().code(), 1);
///         let replaced = outcome.apply_to(&mut history);
///         assert_eq!(history.len() + replaced.len(), 40 + outcome.head().unwrap().len());
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

/// A summary request in flight: what the outcome reports and what judging
/// its answer needs; indices and counts, no messages.
#[derive(Clone, Debug)]
struct Pending {
    id: RequestId,
    trigger: Trigger,
    estimate: u64,
    tier: Tier,
    kept_from: usize,
    basis: Basis,
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

    /// Judges the summarizer's answer to request `id` (see [`judge`]):
    /// EMPTY_SUMMARY, OUTPUT_TRUNCATED, SUMMARIZER_FAILED (a refusal, a
    /// filter, a tool call), INFLATED, or COMPRESSED with the new history's
    /// head. Fails with `STALE_REQUEST`, changing nothing, when `id` is not
    /// the request in flight.
    pub fn handle_summary(
        &mut self,
        id: RequestId,
        answer: SummaryAnswer,
    ) -> Result<CompactionOutcome, Error> {
        let pending = self.take_pending(id)?;
        Ok(
            match judge(&pending.basis, answer, &self.options.estimate) {
                Verdict::Empty => CompactionOutcome::EmptySummary(self.fail(&pending)),
                Verdict::Truncated => CompactionOutcome::OutputTruncated(self.fail(&pending)),
                Verdict::Unusable(error) => CompactionOutcome::SummarizerFailed {
                    run: self.fail(&pending),
                    cause: SummarizerCause::Answer(error),
                },
                Verdict::Inflated {
                    new_tokens,
                    estimated,
                } => CompactionOutcome::Inflated {
                    run: self.fail(&pending),
                    new_token_count: new_tokens,
                    new_token_count_estimated: estimated,
                },
                Verdict::Compressed {
                    head,
                    summary,
                    new_tokens,
                    estimated,
                } => {
                    self.consecutive_failures = 0;
                    // The indicator resets to the freed space.
                    self.last_prompt_token_count = new_tokens;
                    CompactionOutcome::Compressed {
                        run: self.run(&pending),
                        head,
                        summary,
                        new_token_count: new_tokens,
                        new_token_count_estimated: estimated,
                    }
                }
            },
        )
    }

    /// Like [`Compactor::handle_summary`] for an answer as JSON
    /// (`{ text, finishReason?, usage? }` or a string; see
    /// [`SummaryAnswer::from_json`]): a malformed one is SUMMARIZER_FAILED
    /// with the `INVALID_ANSWER` error as its cause.
    pub fn handle_summary_json(
        &mut self,
        id: RequestId,
        answer: &Value,
    ) -> Result<CompactionOutcome, Error> {
        match SummaryAnswer::from_json(answer) {
            Ok(answer) => self.handle_summary(id, answer),
            Err(error) => self.handle_invalid_answer(id, error),
        }
    }

    /// Reports that the answer to request `id` could not be read (`error`,
    /// an `INVALID_ANSWER`): SUMMARIZER_FAILED with it as the cause.
    pub fn handle_invalid_answer(
        &mut self,
        id: RequestId,
        error: Error,
    ) -> Result<CompactionOutcome, Error> {
        let pending = self.take_pending(id)?;
        Ok(CompactionOutcome::SummarizerFailed {
            run: self.fail(&pending),
            cause: SummarizerCause::Answer(error),
        })
    }

    /// Reports that the host's summarizer failed for request `id` (it threw
    /// or rejected): SUMMARIZER_FAILED, carrying `message` and the host's
    /// own error `cause`. Fails with `STALE_REQUEST` when `id` is not the
    /// request in flight.
    pub fn handle_summary_failure<C>(
        &mut self,
        id: RequestId,
        message: impl Into<String>,
        cause: C,
    ) -> Result<CompactionOutcome<C>, Error> {
        let pending = self.take_pending(id)?;
        Ok(CompactionOutcome::SummarizerFailed {
            run: self.fail(&pending),
            cause: SummarizerCause::Host {
                message: message.into(),
                cause,
            },
        })
    }

    /// Reports that the host cancelled request `id`: status ABORTED, nothing
    /// changes and the failure count stays as it was. Fails with
    /// `STALE_REQUEST` when `id` is not the request in flight.
    pub fn handle_abort(&mut self, id: RequestId) -> Result<CompactionOutcome, Error> {
        let pending = self.take_pending(id)?;
        Ok(CompactionOutcome::Aborted(self.run(&pending)))
    }

    /// A NOOP outcome for a [`SendDecision::Proceed`], in the same shape as
    /// every other outcome.
    pub fn noop_outcome<C>(
        &self,
        estimate: u64,
        tier: Tier,
        reason: NoopReason,
    ) -> CompactionOutcome<C> {
        CompactionOutcome::Noop {
            reason,
            estimate,
            tier,
            consecutive_failures: self.consecutive_failures,
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
            kept_from: split.kept_from,
            basis: Basis {
                history_tokens,
                history_estimate,
                tail_estimate,
                request_overhead,
                max_output_tokens: request.config.max_output_tokens,
                tail_starts_with_model: split.starts_with_model,
            },
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
    fn fail(&mut self, pending: &Pending) -> Run {
        if !pending.trigger.is_forced() {
            self.consecutive_failures = self.consecutive_failures.saturating_add(1);
        }
        self.run(pending)
    }

    fn run(&self, pending: &Pending) -> Run {
        Run {
            trigger: pending.trigger,
            estimate: pending.estimate,
            tier: pending.tier,
            kept_from: pending.kept_from,
            original_token_count: pending.basis.history_tokens,
            consecutive_failures: self.consecutive_failures,
        }
    }
}

/// The ladder for a chat's window ([`CHAT_WINDOW`]: finite, ≥ 1).
fn check_window(window: f64) -> Result<Thresholds, Error> {
    compute_thresholds(CHAT_WINDOW.check("the context window", window)?)
}
