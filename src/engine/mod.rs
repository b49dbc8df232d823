//! The compaction engine: a state machine that never does I/O.
//!
//! * this file: [`Compactor`], the state machine, with its call order;
//!   `poll`: what the host asks before a send (the gate and the plan);
//!   `answer`: what the host answers (judging, multi-call runs, failures,
//!   the ledger fallback);
//! * [`outcome`]: what a compaction did; `status`: the statuses, triggers,
//!   no-op reasons and methods it reports (re-exported by [`outcome`]);
//! * [`judge`](mod@judge): judging the summarizer's answer;
//! * [`saved_state`]: save and restore;
//! * `fit`: planning a run so that the next prompt and every summary
//!   request fit (every send fits, docs/behaviour.md): the tail yields, slimming, chunks.

use crate::prelude::*;

mod answer;
mod fit;
mod gap;
pub mod judge;
pub mod outcome;
mod poll;
pub mod saved_state;
mod status;

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

    /// A fresh request id. Ids stay exact as JS numbers (a restore accepts
    /// up to 2^53 − 1).
    fn next_id(&mut self) -> RequestId {
        let id = RequestId(self.next_request_id);
        self.next_request_id = add_counts(self.next_request_id, 1);
        id
    }
}

/// The ladder for a chat's window ([`CHAT_WINDOW`]: finite, ≥ 1).
fn check_window(window: f64) -> Result<Thresholds, Error> {
    compute_thresholds(CHAT_WINDOW.check("the context window", window)?)
}

/// `value` held within `min..=max`, as `f64::clamp` computes it (NaN stays
/// NaN), but without its `min <= max` assertion: that assertion's panic
/// message formats both bounds with `{:?}`, which links core's float printer
/// into the wasm module (size, docs/performance.md; `scripts/check-wasm`).
/// Where `f64::clamp` would panic (`max` below `min`), this gives `max`.
fn clamp(value: f64, min: f64, max: f64) -> f64 {
    let value = if value < min { min } else { value };
    if value > max { max } else { value }
}
