//! The compaction engine: a state machine that never does I/O.
//!
//! * this file: [`Compactor`], the state machine, with its call order;
//! * [`outcome`]: the statuses and what a compaction did;
//! * [`judge`]: judging the summarizer's answer;
//! * [`saved_state`]: save and restore;
//! * `fit`: planning a run so that the next prompt and every summary
//!   request fit (every send fits, docs/behaviour.md): the tail yields, slimming, chunks.

use crate::prelude::*;

mod fit;
mod gap;
pub mod judge;
pub mod outcome;
pub mod saved_state;

use alloc::borrow::Cow;

use crate::json::{ToJson, Value};

use crate::content::Content;
use crate::error::{Error, ErrorCode};
use crate::estimate::{estimate_content_tokens, estimate_prompt_tokens, message_tokens};
use crate::format::{History, MessageFacts, facts_of};
use crate::ladder::{MAX_CONSECUTIVE_FAILURES, Thresholds, Tier, compute_thresholds, current_tier};
use crate::ledger::Ledger;
use crate::options::{CompactionOptions, CompactorConfig};
use crate::read::{CHAT_WINDOW, MAX_COUNT, MAX_OUTPUT_TOKENS};
use crate::retention::split_point_with;
use crate::summary_request::{
    SUMMARY_UNAVAILABLE, SummaryRequest, is_summary_message, summary_text,
};
use crate::usage::{ParsedUsage, Usage, UsageUpdate, add_counts};

use fit::{FitInput, FitState, Plan};
use judge::{Basis, SummaryAnswer, Verdict, judge};
use outcome::{CompactionOutcome, Method, NoopReason, Run, SummarizerCause, Trigger};

/// Identifies one summary request, so that a late or repeated answer is
/// caught instead of applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RequestId(pub u64);

/// Written as the number.
impl ToJson for RequestId {
    fn write_json(&self, out: &mut String) {
        self.0.write_json(out);
    }
}

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
    /// The history was made small enough without a summary call
    /// (`clearToolOutputs`, or slimming alone): apply the COMPRESSED
    /// outcome (`method: Cleared`) to the history, then send.
    Cleared(CompactionOutcome),
}

/// What comes after an answer ([`Compactor::handle_answer`]): another
/// summary request of the same run, or the run's outcome.
#[must_use = "a summarize step must be answered"]
#[derive(Clone, Debug, PartialEq)]
pub enum Next {
    /// Run `request` (the next chunk, carrying the summary so far), then
    /// report it with `id` as before.
    Summarize {
        /// Pass it back with the answer.
        id: RequestId,
        /// The summarization call to run.
        request: SummaryRequest,
    },
    /// The run is over.
    Done(CompactionOutcome),
}

/// The compaction state of one chat. Sans-IO: it never calls a model, never
/// waits, never reads a clock; the host does that and reports back.
///
/// The host owns the history and lends it for each check; the engine keeps
/// only the window, the last prompt size, the failure count and the options,
/// and while a request is in flight, indices and counts about it and the
/// [`Ledger`] of the replaced messages (paths, and the user's words cut to
/// its budget) — never the host's messages. A COMPRESSED outcome gives the
/// new history's head and where the kept tail starts; the host splices it
/// onto its own history ([`CompactionOutcome::apply_to`]), so messages it
/// appended while the summarizer ran are kept after the tail.
///
/// # Call order
///
/// 1. [`Compactor::new`] (or [`Compactor::restore`] after a reload).
/// 2. Before sending each user message, [`Compactor::poll_before_send`]
///    (or, for a history read from another format with
///    [`crate::Format::read`], [`Compactor::poll_before_send_history`]):
///    * [`SendDecision::Proceed`]: send the message.
///    * [`SendDecision::Cleared`]: apply the outcome, then send.
///    * [`SendDecision::Summarize`]: run the request through the model,
///      then call **exactly one** of [`Compactor::handle_answer`] (which may
///      hand out the next request of the same run: run it and report it the
///      same way), [`Compactor::handle_summary`] (single-request runs),
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
/// use compaction_core::{Compactor, CompactorConfig, Content, Next, SendDecision, SummaryAnswer};
/// let mut chat = Compactor::new(CompactorConfig::new(32_000.0)).unwrap();
/// let words = "All work and no play makes Jack a dull boy. ".repeat(140);
/// let mut history: Vec<Content> = (0..40)
///     .map(|i| Content::text(if i % 2 == 0 { "user" } else { "model" }, words.clone()))
///     .collect();
/// // No usage yet (a resumed chat): the whole history is estimated.
/// match chat.poll_before_send(&history, &Content::text("user", "go on")).unwrap() {
///     SendDecision::Summarize { mut id, mut request, .. } => {
///         // What is summarized is larger than the window: it goes in several
///         // requests, each within the window with its (lowered) output cap.
///         let outcome = loop {
///             assert!(request.config.max_output_tokens < 20_000);
///             let answer = SummaryAnswer { text: "The user wants x.".into(), ..Default::default() };
///             match chat.handle_answer(id, answer).unwrap() {
///                 Next::Summarize { id: next, request: more } => (id, request) = (next, more),
///                 Next::Done(outcome) => break outcome,
///             }
///         };
///         assert_eq!(outcome.status().code(), 1);
///         assert!(outcome.summary_calls() > 1);
///         let replaced = outcome.apply_to(&mut history);
///         assert_eq!(history.len() + replaced.len(), 40 + outcome.head().unwrap().len());
///     }
///     other => unreachable!("about 60 000 estimated tokens are past hard: {other:?}"),
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
/// its answer needs; indices and counts, no messages (the ledger holds
/// paths and the user's words, cut to its budget).
#[derive(Clone, Debug)]
struct Pending {
    id: RequestId,
    trigger: Trigger,
    estimate: u64,
    tier: Tier,
    kept_from: usize,
    /// The pinned messages before `kept_from`.
    pinned: Vec<usize>,
    basis: Basis,
    /// What the replaced messages say that the summary must not lose;
    /// `None` when the ledger is off.
    ledger: Option<Ledger>,
    /// The request's prompt, whose sections the summary is checked against.
    system_instruction: String,
    fit: FitState,
    /// With `fallback: "ledger"`, the text of the summary at the start of
    /// the replaced part, which the fallback's record carries.
    previous_summary: Option<String>,
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

    /// For the run in flight, the copies of host messages its COMPRESSED
    /// head will end with (slimmed tail messages, or the tail before a
    /// dropped trailing call) and the host index each was made from; empty
    /// when none or no run is in flight. A host in another format makes the
    /// same copies of its own messages while it still has the history.
    pub fn pending_copies(&self) -> (&[Content], &[usize]) {
        match &self.pending {
            Some(p) => (&p.fit.tail_copies, &p.fit.tail_sources),
            None => (&[], &[]),
        }
    }

    /// Changes the window (the user switched models). Fails, changing
    /// nothing, like [`Compactor::new`].
    pub fn set_window(&mut self, window: f64) -> Result<(), Error> {
        self.thresholds = check_window(window)?;
        self.window = window;
        Ok(())
    }

    /// Changes the window and the model's output limit together (the user
    /// switched to a model with other limits); `None` means "20 000 or what
    /// the window leaves", as without the option. Fails, changing nothing,
    /// with `INVALID_WINDOW` or `INVALID_ARGUMENT` (a limit that is not a
    /// whole number ≥ 1).
    pub fn set_model_limits(
        &mut self,
        window: f64,
        max_output_tokens: Option<f64>,
    ) -> Result<(), Error> {
        let thresholds = check_window(window)?;
        let limit = match max_output_tokens {
            Some(n) => Some(MAX_OUTPUT_TOKENS.check("maxOutputTokens", n)? as u64),
            None => None,
        };
        self.thresholds = thresholds;
        self.window = window;
        self.options.fit.max_output_tokens = limit;
        Ok(())
    }

    /// Declares what the provider counts in every prompt besides the
    /// messages (`overheadTokens`: system prompt, tool schemas), the fixed
    /// part of the usage-gap model; `None` declares none.
    pub fn set_overhead_tokens(&mut self, tokens: Option<u64>) {
        self.options.fit.overhead_tokens = tokens.map(|n| n.min(MAX_COUNT));
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
    /// let update = chat.handle_usage(&compaction_core::json!({ "prompt_tokens": 900, "completion_tokens": 100, "total_tokens": 1000 }));
    /// assert!(update.taken);
    /// assert_eq!(chat.last_prompt_token_count(), 1000);
    /// let update = chat.handle_usage(&compaction_core::json!({ "totalTokenCount": -5 }));
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

    /// Decides, before `user_message` is sent, whether to compact (docs/spec.md §3):
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
        self.poll_before_send_with(history, None, core::slice::from_ref(user_message))
    }

    /// [`Compactor::poll_before_send`] for a history read from any format
    /// ([`crate::Format::read`]): its facts say which messages are pinned
    /// (kept first and verbatim, never summarized, counted in the estimate),
    /// which are tool results, and which calls each makes and answers, so
    /// that a kept tail never starts with a result whose call was
    /// summarized.
    pub fn poll_before_send_history(
        &mut self,
        history: &History,
        user_message: &Content,
    ) -> Result<SendDecision, Error> {
        self.poll_before_send_with(
            &history.contents,
            Some(&history.facts),
            core::slice::from_ref(user_message),
        )
    }

    /// [`Compactor::poll_before_send_history`] for a model call that sends
    /// several messages after what the last usage covered: `pending` is
    /// all of them (a user message, or every tool result of a step: with
    /// parallel calls OpenAI has one message per result), in order. Each is
    /// counted in the estimate and in the room the run leaves; the history
    /// is everything before them.
    pub fn poll_before_send_pending(
        &mut self,
        history: &History,
        pending: &[Content],
    ) -> Result<SendDecision, Error> {
        self.poll_before_send_with(&history.contents, Some(&history.facts), pending)
    }

    /// The estimated prompt: the last usage and the pending messages, or,
    /// without usage, the declared overhead, the history and the pending
    /// messages. With one pending message and no overhead declared, this is
    /// [`estimate_prompt_tokens`] (docs/spec.md §2).
    fn estimate_prompt(&self, history: &[Content], pending: &[Content]) -> u64 {
        let options = &self.options.estimate;
        match (pending, self.options.fit.overhead_tokens) {
            ([one], None) => {
                estimate_prompt_tokens(history, one, self.last_prompt_token_count, options)
            }
            _ if self.last_prompt_token_count > 0 => self
                .last_prompt_token_count
                .saturating_add(estimate_content_tokens(pending, options)),
            (_, declared) => {
                let total: f64 = history
                    .iter()
                    .chain(pending)
                    .map(|c| message_tokens(c, options))
                    .sum();
                ((total + declared.map_or(0.0, |n| n as f64)).ceil() as u64).min(MAX_COUNT)
            }
        }
    }

    fn poll_before_send_with(
        &mut self,
        history: &[Content],
        facts: Option<&[MessageFacts]>,
        user_message: &[Content],
    ) -> Result<SendDecision, Error> {
        self.ensure_idle()?;
        let estimate = self.estimate_prompt(history, user_message);
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
                let pending = self.pending_tokens(user_message);
                let decision =
                    self.prepare(history, facts, estimate, tier, Trigger::Hard, None, pending);
                // A forced run resets the breaker; a message no run can fit
                // starts none, and leaves the count as it was.
                if !matches!(
                    decision,
                    SendDecision::Proceed {
                        reason: NoopReason::MessageTooLarge { .. },
                        ..
                    }
                ) {
                    self.consecutive_failures = 0;
                }
                Ok(decision)
            }
            Ok(trigger) => {
                let pending = self.pending_tokens(user_message);
                Ok(self.prepare(history, facts, estimate, tier, trigger, None, pending))
            }
        }
    }

    /// The cheap gate of docs/spec.md §3 for a prompt of `tokens`: which run to
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
        self.needs_history_pending(core::slice::from_ref(user_message))
    }

    /// [`Compactor::needs_history`] for several pending messages.
    pub fn needs_history_pending(&self, pending: &[Content]) -> bool {
        if self.last_prompt_token_count == 0 {
            return true;
        }
        self.gate(self.estimate_prompt(&[], pending) as f64).is_ok()
    }

    /// The estimated tokens of the pending messages.
    fn pending_tokens(&self, pending: &[Content]) -> f64 {
        pending
            .iter()
            .map(|c| message_tokens(c, &self.options.estimate))
            .sum()
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
        self.poll_manual_with(history, None, focus)
    }

    /// [`Compactor::poll_manual`] for a history read from any format (see
    /// [`Compactor::poll_before_send_history`]).
    pub fn poll_manual_history(
        &mut self,
        history: &History,
        focus: Option<&str>,
    ) -> Result<SendDecision, Error> {
        self.poll_manual_with(&history.contents, Some(&history.facts), focus)
    }

    fn poll_manual_with(
        &mut self,
        history: &[Content],
        facts: Option<&[MessageFacts]>,
        focus: Option<&str>,
    ) -> Result<SendDecision, Error> {
        self.ensure_idle()?;
        let estimate = self.estimate_prompt(history, &[]);
        let tier = current_tier(estimate as f64, &self.thresholds);
        Ok(self.prepare(history, facts, estimate, tier, Trigger::Manual, focus, 0.0))
    }

    /// Judges the summarizer's answer to request `id` (see [`judge`]):
    /// EMPTY_SUMMARY, OUTPUT_TRUNCATED, SUMMARIZER_FAILED (a refusal, a
    /// filter, a tool call), INFLATED, or COMPRESSED with the new history's
    /// head. With the ledger on (the default), the summary message is the
    /// model's summary followed by the ledger's section, within what keeps
    /// the next prompt below `auto` and no larger than before, and the
    /// outcome checks the model's summary ([`CompactionOutcome::summary_check`]).
    /// Fails with `STALE_REQUEST`, changing nothing, when `id` is not the
    /// request in flight, and with `INVALID_STATE`, changing nothing, when
    /// it is a step of a multi-call run with more to summarize (report
    /// those with [`Compactor::handle_answer`], which also ends single-call
    /// runs exactly as this does).
    ///
    /// A summary that would leave the next prompt (new history and the
    /// pending message) at or above `auto` (`hard` for a run forced at
    /// `hard` whose pending message alone is at `auto`) is INFLATED: applied, it would compact again on the next turn.
    pub fn handle_summary(
        &mut self,
        id: RequestId,
        answer: SummaryAnswer,
    ) -> Result<CompactionOutcome, Error> {
        let pending = self.take_pending(id)?;
        if pending.fit.chunks.as_ref().is_some_and(|c| !c.is_done()) {
            let id = pending.id;
            self.pending = Some(pending);
            return Err(Error::new(
                ErrorCode::InvalidState,
                format!(
                    "summary request {} is one step of a multi-call compaction: report its answer \
                     with handle_answer, which hands out the next request",
                    id.0
                ),
            ));
        }
        let answer = fit_answer(answer, &pending.fit);
        let ledger = pending
            .ledger
            .as_ref()
            .map(|ledger| (ledger, pending.system_instruction.as_str()));
        // The ledger's section may take only what keeps the next prompt
        // (new history and the pending message) below the run's limit, so
        // that it never turns a usable summary into a compaction loop.
        let ceiling = self.thresholds.auto.min(pending.fit.limit) - pending.fit.pending_tokens;
        let verdict = no_loop(
            judge(
                &pending.basis,
                answer,
                &self.options.estimate,
                ceiling,
                ledger,
            ),
            &pending.fit,
        );
        Ok(match verdict {
            Verdict::Empty => {
                let failure = CompactionOutcome::EmptySummary(self.fail(&pending));
                self.fall_back(&pending, failure)
            }
            Verdict::Truncated => {
                let failure = CompactionOutcome::OutputTruncated(self.fail(&pending));
                self.fall_back(&pending, failure)
            }
            Verdict::Unusable(error) => {
                let failure = CompactionOutcome::SummarizerFailed {
                    run: self.fail(&pending),
                    cause: SummarizerCause::Answer(error),
                };
                self.fall_back(&pending, failure)
            }
            Verdict::Inflated {
                new_tokens,
                estimated,
                summary_check,
            } => {
                let failure = CompactionOutcome::Inflated {
                    run: self.fail(&pending),
                    new_token_count: new_tokens,
                    new_token_count_estimated: estimated,
                    summary_check,
                };
                self.fall_back(&pending, failure)
            }
            Verdict::Compressed {
                mut head,
                summary,
                new_tokens,
                estimated,
                summary_check,
            } => {
                head.extend(pending.fit.tail_copies.iter().cloned());
                self.consecutive_failures = 0;
                // The indicator resets to the freed space.
                self.last_prompt_token_count = new_tokens;
                CompactionOutcome::Compressed {
                    run: self.run(&pending),
                    head,
                    pinned: pending.pinned.clone(),
                    copied_from: pending.fit.tail_sources.clone(),
                    summary,
                    new_token_count: new_tokens,
                    new_token_count_estimated: estimated,
                    summary_check,
                    cause: None,
                }
            }
        })
    }

    /// Reports the answer to request `id` and says what comes next: for a
    /// run summarized in several calls, a usable answer to any but the last
    /// request becomes the summary so far and the next request is handed
    /// out ([`Next::Summarize`], a new id); the last answer, or an unusable
    /// one at any step, ends the run as [`Compactor::handle_summary`] does
    /// ([`Next::Done`]). A failure at any step counts once, an abort at any
    /// step not at all, and the history stays as it was until the run is
    /// COMPRESSED. Fails with `STALE_REQUEST`, changing nothing, when `id`
    /// is not the request in flight.
    pub fn handle_answer(&mut self, id: RequestId, answer: SummaryAnswer) -> Result<Next, Error> {
        let chunked = match self.pending.as_ref() {
            Some(p) if p.id == id => p.fit.chunks.as_ref().is_some_and(|c| !c.is_done()),
            _ => false,
        };
        if !chunked {
            // The last (or only) request, or a stale id: the final judgement.
            return self.handle_summary(id, answer).map(Next::Done);
        }
        let text = answer.text.trim().to_string();
        let mut pending = self.take_pending(id)?;
        // A partial summary gets no ledger section: the last answer does.
        match judge(
            &pending.basis,
            answer,
            &self.options.estimate,
            f64::INFINITY,
            None,
        ) {
            Verdict::Empty => {
                let failure = CompactionOutcome::EmptySummary(self.fail(&pending));
                Ok(Next::Done(self.fall_back(&pending, failure)))
            }
            Verdict::Truncated => {
                let failure = CompactionOutcome::OutputTruncated(self.fail(&pending));
                Ok(Next::Done(self.fall_back(&pending, failure)))
            }
            Verdict::Unusable(error) => {
                let failure = CompactionOutcome::SummarizerFailed {
                    run: self.fail(&pending),
                    cause: SummarizerCause::Answer(error),
                };
                Ok(Next::Done(self.fall_back(&pending, failure)))
            }
            Verdict::Inflated { .. } | Verdict::Compressed { .. } => {
                // A partial summary is never judged for size: it becomes the
                // summary so far, carried into the next request.
                let options = self.options.estimate;
                let Some(chunks) = pending.fit.chunks.as_mut() else {
                    self.pending = Some(pending);
                    return self
                        .handle_summary(
                            id,
                            SummaryAnswer {
                                text,
                                ..SummaryAnswer::default()
                            },
                        )
                        .map(Next::Done);
                };
                let request = chunks.next_request(Some(&text), &options);
                let id = self.next_id();
                pending.id = id;
                pending.fit.calls = pending.fit.calls.saturating_add(1);
                self.pending = Some(pending);
                Ok(Next::Summarize { id, request })
            }
        }
    }

    /// Like [`Compactor::handle_answer`] for an answer as JSON (see
    /// [`SummaryAnswer::from_json`]): a malformed one ends the run as
    /// SUMMARIZER_FAILED with the `INVALID_ANSWER` error as its cause.
    pub fn handle_answer_json(&mut self, id: RequestId, answer: &Value) -> Result<Next, Error> {
        match SummaryAnswer::from_json(answer) {
            Ok(answer) => self.handle_answer(id, answer),
            Err(error) => self.handle_invalid_answer(id, error).map(Next::Done),
        }
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
        let failure = CompactionOutcome::SummarizerFailed {
            run: self.fail(&pending),
            cause: SummarizerCause::Answer(error),
        };
        Ok(self.fall_back(&pending, failure))
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
        let failure = CompactionOutcome::SummarizerFailed {
            run: self.fail(&pending),
            cause: SummarizerCause::Host {
                message: message.into(),
                cause,
            },
        };
        Ok(self.fall_back(&pending, failure))
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

    /// Plans the run ([`fit::plan`]): the spec's split, then the tail, the
    /// clearing and the requests fitted to the window; hands out the first
    /// request, or says why nothing runs.
    #[allow(clippy::too_many_arguments)]
    fn prepare(
        &mut self,
        history: &[Content],
        facts: Option<&[MessageFacts]>,
        estimate: u64,
        tier: Tier,
        trigger: Trigger,
        focus: Option<&str>,
        pending_tokens: f64,
    ) -> SendDecision {
        let options = &self.options;
        // Bare contents are Gemini's: their facts come from the parts.
        let derived;
        let facts = match facts {
            Some(facts) if facts.len() == history.len() => facts,
            _ => {
                derived = facts_of(history);
                &derived
            }
        };
        let split = split_point_with(
            history,
            facts,
            self.window,
            &options.retention,
            &options.estimate,
        );
        let input = FitInput {
            history,
            facts,
            window: self.window,
            thresholds: &self.thresholds,
            options,
            last_prompt_token_count: self.last_prompt_token_count,
            pending_tokens,
            trigger,
            focus,
        };
        let prepared = match fit::plan(&input, split.kept_from) {
            Plan::Noop(reason) => {
                return SendDecision::Proceed {
                    estimate,
                    tier,
                    reason,
                };
            }
            Plan::Cleared {
                head,
                kept_from,
                pinned,
                copied_from,
                history_tokens,
                new_tokens,
            } => {
                self.consecutive_failures = 0;
                self.last_prompt_token_count = new_tokens;
                return SendDecision::Cleared(CompactionOutcome::Compressed {
                    run: Run {
                        trigger,
                        estimate,
                        tier,
                        kept_from,
                        original_token_count: history_tokens,
                        consecutive_failures: 0,
                        summary_calls: 0,
                        method: Method::Cleared,
                    },
                    head,
                    pinned,
                    copied_from,
                    summary: String::new(),
                    new_token_count: new_tokens,
                    new_token_count_estimated: true,
                    // No summary to check: nothing was summarized.
                    summary_check: None,
                    cause: None,
                });
            }
            Plan::Summarize(prepared) => *prepared,
        };
        // From the replaced part as the host gave it: an earlier summary
        // there carries its ledger into this one.
        // The ledger fallback's record carries the summary the replaced part
        // starts with.
        let previous_summary = if options.fit.fallback_ledger {
            history[..prepared.kept_from.min(history.len())]
                .iter()
                .find(|m| is_summary_message(m))
                .and_then(summary_text)
        } else {
            None
        };
        let ledger = options.ledger.enabled.then(|| {
            let before = &history[..prepared.kept_from.min(history.len())];
            let replaced: Cow<'_, [Content]> = if facts.iter().take(before.len()).any(|f| f.pinned)
            {
                Cow::Owned(
                    before
                        .iter()
                        .zip(facts)
                        .filter(|(_, f)| !f.pinned)
                        .map(|(m, _)| m.clone())
                        .collect(),
                )
            } else {
                Cow::Borrowed(before)
            };
            Ledger::from_messages(&replaced, &options.ledger, self.window, &options.estimate)
        });
        let id = self.next_id();
        let request = prepared.request;
        self.pending = Some(Pending {
            id,
            trigger,
            estimate,
            tier,
            kept_from: prepared.kept_from,
            pinned: prepared.pinned,
            basis: Basis {
                history_tokens: prepared.history_tokens,
                history_estimate: prepared.history_estimate,
                summarized_estimate: prepared.summarized_estimate,
                tail_estimate: prepared.tail_estimate,
                request_overhead: prepared.request_overhead,
                gap: prepared.gap,
                max_output_tokens: request.config.max_output_tokens,
                tail_starts_with_model: prepared.starts_with_model,
            },
            ledger,
            system_instruction: request.system_instruction.clone(),
            fit: prepared.state,
            previous_summary,
        });
        SendDecision::Summarize {
            id,
            request,
            forced: trigger.is_forced(),
            trigger,
            estimate,
            tier,
            kept_from: prepared.kept_from,
        }
    }

    /// A fresh request id. Ids stay exact as JS numbers (a restore accepts
    /// up to 2^53 − 1).
    fn next_id(&mut self) -> RequestId {
        let id = RequestId(self.next_request_id);
        self.next_request_id = add_counts(self.next_request_id, 1);
        id
    }

    /// A failed run: the history stays as it was; a non-forced failure
    /// counts against the breaker.
    fn fail(&mut self, pending: &Pending) -> Run {
        if !pending.trigger.is_forced() {
            self.consecutive_failures = self.consecutive_failures.saturating_add(1);
        }
        self.run(pending)
    }

    /// The ledger fallback (`fallback: "ledger"`): a forced run that
    /// `failure` ended, whose next send would not fit (its prompt is at or
    /// past `hard`), compacts without a model. The replaced part becomes the
    /// library's record ([`SUMMARY_UNAVAILABLE`], the previous summary, the
    /// ledger's section), judged as a summary would be, so the kept tail,
    /// pinned messages, tool-call pairing and the no-loop check hold. The
    /// outcome is COMPRESSED with `method: Ledger` and the failure as its
    /// cause; when even the record does not fit, `failure` as it was.
    fn fall_back<C>(
        &mut self,
        pending: &Pending,
        failure: CompactionOutcome<C>,
    ) -> CompactionOutcome<C> {
        let Some((head, summary, new_tokens)) = self.ledger_record(pending) else {
            return failure;
        };
        let cause = match failure {
            CompactionOutcome::SummarizerFailed { cause, .. } => cause,
            other => SummarizerCause::Answer(unusable_summary(other.status())),
        };
        CompactionOutcome::Compressed {
            run: Run {
                method: Method::Ledger,
                ..self.run(pending)
            },
            head,
            pinned: pending.pinned.clone(),
            copied_from: pending.fit.tail_sources.clone(),
            summary,
            new_token_count: new_tokens,
            new_token_count_estimated: true,
            // No model summary to check.
            summary_check: None,
            cause: Some(cause),
        }
    }

    /// The ledger fallback's new head, summary text and size, when it is
    /// due and fits (then the chat takes the new size, and the failure
    /// count is reset as for any COMPRESSED run). Not generic over the
    /// host's error type, so that the module holds it once.
    #[inline(never)]
    fn ledger_record(&mut self, pending: &Pending) -> Option<(Vec<Content>, String, u64)> {
        if !(self.options.fit.fallback_ledger
            && pending.trigger.is_forced()
            && pending.estimate as f64 >= self.thresholds.hard)
        {
            return None;
        }
        let ceiling = self.thresholds.auto.min(pending.fit.limit) - pending.fit.pending_tokens;
        let ledger = pending
            .ledger
            .as_ref()
            .map(|ledger| (ledger, pending.system_instruction.as_str()));
        // With the previous summary if it fits, else without it.
        let mut texts = [
            pending
                .previous_summary
                .as_ref()
                .map(|previous| format!("{SUMMARY_UNAVAILABLE}\n\n{previous}")),
            Some(SUMMARY_UNAVAILABLE.to_string()),
        ];
        let mut record = None;
        for text in texts.iter_mut().filter_map(Option::take) {
            let answer = SummaryAnswer {
                text,
                ..SummaryAnswer::default()
            };
            let verdict = judge(
                &pending.basis,
                answer,
                &self.options.estimate,
                ceiling,
                ledger,
            );
            if let Verdict::Compressed {
                head,
                summary,
                new_tokens,
                ..
            } = no_loop(verdict, &pending.fit)
            {
                record = Some((head, summary, new_tokens));
                break;
            }
        }
        let (mut head, summary, new_tokens) = record?;
        head.extend(pending.fit.tail_copies.iter().cloned());
        self.consecutive_failures = 0;
        self.last_prompt_token_count = new_tokens;
        Some((head, summary, new_tokens))
    }

    fn run(&self, pending: &Pending) -> Run {
        Run {
            trigger: pending.trigger,
            estimate: pending.estimate,
            tier: pending.tier,
            kept_from: pending.kept_from,
            original_token_count: pending.basis.history_tokens,
            consecutive_failures: self.consecutive_failures,
            summary_calls: pending.fit.calls,
            method: Method::Summarized,
        }
    }
}

/// The answer as judging needs it: when the request did not hold the
/// summarized messages verbatim (slimmed, cleared, or in several calls), the
/// call's input count does not measure them, so only its output count is
/// kept (for the truncation check) and the new size is estimated.
fn fit_answer(mut answer: SummaryAnswer, fit: &FitState) -> SummaryAnswer {
    if !fit.exact {
        answer.usage = answer.usage.map(|u| Usage {
            input_tokens: None,
            output_tokens: u.answer_tokens(),
            thoughts_tokens: u.thoughts_tokens,
            total_tokens: None,
        });
    }
    answer
}

/// No compaction loop: a summary that leaves the next prompt (new history
/// and the pending message) at or above the run's limit would compact again
/// on the next turn, so it is not applied; it counts as INFLATED, a failure.
fn no_loop(verdict: Verdict, fit: &FitState) -> Verdict {
    match verdict {
        Verdict::Compressed {
            new_tokens,
            estimated,
            summary_check,
            ..
        } if new_tokens as f64 + fit.pending_tokens >= fit.limit => Verdict::Inflated {
            new_tokens,
            estimated,
            summary_check,
        },
        other => other,
    }
}

/// The cause a ledger-fallback outcome carries for a summary that came back
/// but could not be used (`status`: empty, truncated or inflating).
fn unusable_summary(status: outcome::CompactionStatus) -> Error {
    let mut message = String::from("the summary could not be used: ");
    message.push_str(status.as_str());
    Error::new(ErrorCode::InvalidAnswer, message)
}

/// The ladder for a chat's window ([`CHAT_WINDOW`]: finite, ≥ 1).
fn check_window(window: f64) -> Result<Thresholds, Error> {
    compute_thresholds(CHAT_WINDOW.check("the context window", window)?)
}

/// `value` held within `min..=max`, as `f64::clamp` computes it (NaN stays
/// NaN), but without its `min <= max` assertion: that assertion's panic
/// message formats both bounds with `{:?}`, which links core's float printer
/// (about 10 KB gzip) into the wasm module (size, docs/performance.md; `scripts/check-wasm`).
/// Where `f64::clamp` would panic (`max` below `min`), this gives `max`.
fn clamp(value: f64, min: f64, max: f64) -> f64 {
    let value = if value < min { min } else { value };
    if value > max { max } else { value }
}
