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
pub(crate) mod head;
pub mod judge;
pub mod outcome;
mod poll;
pub mod saved_state;
mod status;

use alloc::borrow::Cow;
use core::convert::Infallible;
use core::sync::atomic::{AtomicU32, Ordering};

use crate::json::Value;

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

/// The acknowledgement of one summary request: handed out with the request,
/// consumed by the call that reports its answer. It is neither `Copy` nor
/// `Clone` and only the engine makes one, so an answer cannot be reported
/// twice, and an id from another chat (or from before a restore) is
/// caught as `STALE_REQUEST` instead of applied.
///
/// An answer is reported once: the id is moved into the call.
///
/// ```compile_fail,E0382
/// # use compaction_core::{Compactor, RequestId, SummaryAnswer};
/// fn twice(chat: &mut Compactor, id: RequestId, answer: SummaryAnswer) {
///     let _ = chat.handle_answer(id, answer.clone());
///     let _ = chat.handle_answer(id, answer); // used after the move
/// }
/// ```
///
/// Nor is it copied or made up:
///
/// ```compile_fail,E0277
/// # use compaction_core::RequestId;
/// fn copyable<T: Clone>() {}
/// copyable::<RequestId>(); // neither Clone nor Copy
/// ```
///
/// ```compile_fail,E0451
/// # use compaction_core::RequestId;
/// let forged = RequestId { chat: 1, number: 1 }; // private fields
/// ```
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct RequestId {
    /// The tag of the chat that handed it out.
    chat: u32,
    /// The number the JS API passes (`id`), from the chat's count.
    number: u64,
}

impl RequestId {
    /// The request's number: what the JS API calls its `id`, counted per
    /// chat from 1 (and on from a restored state's `nextRequestId`).
    pub fn number(&self) -> u64 {
        self.number
    }
}

/// What the host must do before sending the pending messages (or, after
/// [`Compactor::poll_manual`], instead of compacting by hand). Each variant
/// says what comes next; matches need a wildcard arm, since later versions
/// may add variants.
#[must_use = "the host must either send the message or run the summary request"]
#[derive(Debug, PartialEq)]
#[non_exhaustive]
pub enum SendDecision {
    /// Send the message now; nothing is compacted (status NOOP; see
    /// [`Compactor::noop_outcome`] for the outcome in the same shape as
    /// every other).
    Proceed {
        /// The estimated prompt size, the pending messages included.
        estimate: u64,
        /// The tier of `estimate` (for the tips and the indicator).
        tier: Tier,
        /// Why nothing is compacted.
        reason: NoopReason,
    },
    /// Run `request` through the summarizing model, then report what came
    /// of it with [`Compactor::handle_answer`], passing `id` (which it
    /// consumes): the model's answer, an answer that could not be read, the
    /// summarizer's failure or an abort. A run may take several calls: when
    /// that hands out [`Next::Summarize`], run that request and report it
    /// the same way, until [`Next::Done`]. Until then every poll fails with
    /// `BUSY`. Send the message after that, on the new history if the
    /// outcome is COMPRESSED ([`CompactionOutcome::apply_to`]).
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
    /// The history was not supplied ([`HistoryRef::Absent`]) and the check
    /// must read it (no usage yet, or a compaction is due): poll again with
    /// it. Nothing changed.
    NeedHistory,
}

/// What comes after [`Compactor::handle_answer`]: another summary request
/// of the same run, or the run's outcome. `C` is the type of the host's own
/// error a failed summarizer's outcome carries ([`Answer::Failed`]).
#[must_use = "a summarize step must be answered"]
#[derive(Debug, PartialEq)]
#[non_exhaustive]
pub enum Next<C = Infallible> {
    /// Run `request` (the next chunk, carrying the summary so far), then
    /// report it with [`Compactor::handle_answer`] and `id` as before.
    Summarize {
        /// Pass it back with the answer.
        id: RequestId,
        /// The summarization call to run.
        request: SummaryRequest,
    },
    /// The run is over.
    Done(CompactionOutcome<C>),
}

/// What came of a summary request, for [`Compactor::handle_answer`]. `C` is
/// the type of the host's own error ([`Answer::Failed`]); a
/// [`SummaryAnswer`] converts into an `Answer` (`C` = `Infallible`).
#[derive(Debug, PartialEq)]
#[non_exhaustive]
pub enum Answer<C = Infallible> {
    /// The model's answer: its text, and its finish reason and usage when
    /// the provider gave them.
    Summary(SummaryAnswer),
    /// The model answered, but the answer could not be read (an
    /// `INVALID_ANSWER` error, e.g. from a malformed JSON answer): the run
    /// ends SUMMARIZER_FAILED with it as the cause.
    Invalid(Error),
    /// The host's summarizer failed (it threw, rejected or timed out): the
    /// run ends SUMMARIZER_FAILED carrying `message` and the host's `cause`.
    Failed {
        /// What went wrong, in words.
        message: String,
        /// The host's own error value.
        cause: C,
    },
    /// The host cancelled the request: the run ends ABORTED; not a failure.
    Aborted,
}

impl From<SummaryAnswer> for Answer {
    fn from(answer: SummaryAnswer) -> Answer {
        Answer::Summary(answer)
    }
}

/// The history a check reads, lent by the host for the call: the engine
/// keeps none of it. `&Vec<Content>`, `&[Content]` and `&History` convert
/// into it.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum HistoryRef<'a> {
    /// Messages in the core's own shape (Gemini's): which are pinned, tool
    /// results or calls is read from their parts.
    Contents(&'a [Content]),
    /// A history read from any format ([`crate::Format::read`]): its facts
    /// say which messages are pinned (kept first and verbatim, never
    /// summarized, counted in the estimate), which are tool results, and
    /// which calls each makes and answers, so that a kept tail never starts
    /// with a result whose call was summarized.
    Read(&'a History),
    /// Not supplied (yet): a check that must read it answers
    /// [`SendDecision::NeedHistory`]. For a host whose history must be
    /// converted first: with a usage anchor, an ordinary turn reads only the
    /// pending messages ([`Compactor::needs_history`]).
    Absent,
}

impl<'a> HistoryRef<'a> {
    /// The messages and, when the host gave them, their facts; `Absent`
    /// lends none.
    fn parts(self) -> (&'a [Content], Option<&'a [MessageFacts]>) {
        match self {
            HistoryRef::Contents(contents) => (contents, None),
            HistoryRef::Read(history) => (&history.contents, Some(&history.facts)),
            HistoryRef::Absent => (&[], None),
        }
    }
}

impl<'a> From<&'a [Content]> for HistoryRef<'a> {
    fn from(contents: &'a [Content]) -> HistoryRef<'a> {
        HistoryRef::Contents(contents)
    }
}

impl<'a> From<&'a Vec<Content>> for HistoryRef<'a> {
    fn from(contents: &'a Vec<Content>) -> HistoryRef<'a> {
        HistoryRef::Contents(contents)
    }
}

impl<'a, const N: usize> From<&'a [Content; N]> for HistoryRef<'a> {
    fn from(contents: &'a [Content; N]) -> HistoryRef<'a> {
        HistoryRef::Contents(contents)
    }
}

impl<'a> From<&'a History> for HistoryRef<'a> {
    fn from(history: &'a History) -> HistoryRef<'a> {
        HistoryRef::Read(history)
    }
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
/// One entry point per kind of input: `poll_*` for what the engine asks of
/// the host, `handle_*` for what the host reports.
///
/// 1. [`Compactor::new`] (or [`Compactor::restore`] after a reload).
/// 2. Before each model call, [`Compactor::poll_before_send`] with the
///    history ([`HistoryRef`]: Gemini contents, a history read from another
///    format with [`crate::Format::read`], or [`HistoryRef::Absent`]) and the
///    pending messages (the user's message as a 1-slice, or a step's tool
///    results):
///    * [`SendDecision::Proceed`]: send the messages.
///    * [`SendDecision::Cleared`]: apply the outcome, then send.
///    * [`SendDecision::NeedHistory`]: poll again with the history.
///    * [`SendDecision::Summarize`]: run the request through the model,
///      then report what came of it with [`Compactor::handle_answer`] and
///      its id, which the call consumes ([`Answer`]: the summary, an answer
///      that could not be read, the summarizer's failure, an abort). A run
///      whose part to summarize exceeds one request takes several calls:
///      while that hands out [`Next::Summarize`], run the next request and
///      report it the same way; [`Next::Done`] ends the run. While a request
///      is in flight every poll fails with `BUSY`. Then apply the outcome
///      to the history ([`CompactionOutcome::apply_to`]; a no-op unless
///      COMPRESSED), and send.
/// 3. After each model response, [`Compactor::handle_usage`] with the
///    response's usage, so the next check starts from the provider's count
///    (and reads only the pending messages: [`Compactor::needs_history`]).
/// 4. For `/compact`, [`Compactor::poll_manual`], then as in 2.
/// 5. Whenever it suits, [`Compactor::save`]; the JSON restores with
///    [`Compactor::restore_json`].
///
/// A resumed chat whose history is larger than the window: the run takes
/// several calls, then an ordinary turn reads only the new message.
///
/// ```
/// use compaction_core::{
///     Compactor, CompactorConfig, Content, HistoryRef, Next, SendDecision, SummaryAnswer,
/// };
/// let mut chat = Compactor::new(CompactorConfig::new(32_000.0)).unwrap();
/// let words = "All work and no play makes Jack a dull boy. ".repeat(140);
/// let mut history: Vec<Content> = (0..40)
///     .map(|i| Content::text(if i % 2 == 0 { "user" } else { "model" }, words.clone()))
///     .collect();
/// let message = Content::text("user", "go on");
/// // No usage yet (a resumed chat): the whole history is estimated.
/// match chat.poll_before_send(&history, std::slice::from_ref(&message)).unwrap() {
///     SendDecision::Summarize { mut id, mut request, .. } => {
///         // What is summarized is larger than the window: it goes in several
///         // requests, each within the window with its (lowered) output cap.
///         let outcome = loop {
///             assert!(request.config.max_output_tokens < 20_000);
///             // The host's model call. Its answer is reported as is (an
///             // `Answer::Summary`); a failed call would be reported as
///             // `Answer::Failed { message, cause }`, a cancelled one as
///             // `Answer::Aborted`.
///             let answer = SummaryAnswer { text: "The user wants x.".into(), ..Default::default() };
///             match chat.handle_answer(id, answer).unwrap() {
///                 Next::Summarize { id: next, request: more } => (id, request) = (next, more),
///                 Next::Done(outcome) => break outcome,
///                 other => unreachable!("{other:?}"),
///             }
///         };
///         assert_eq!(outcome.status().code(), 1);
///         assert!(outcome.summary_calls() > 1);
///         let replaced = outcome.apply_to(&mut history);
///         assert_eq!(history.len() + replaced.len(), 40 + outcome.head().unwrap().len());
///     }
///     other => unreachable!("about 60 000 estimated tokens are past hard: {other:?}"),
/// }
/// // The message is sent on the new history; the response's usage anchors
/// // the next check, which then needs no history on an ordinary turn.
/// history.push(message);
/// let _ = chat.handle_usage(&compaction_core::json!({ "totalTokenCount": 6_000 }));
/// let next = [Content::text("user", "thanks")];
/// assert!(!chat.needs_history(&next));
/// match chat.poll_before_send(HistoryRef::Absent, &next).unwrap() {
///     SendDecision::Proceed { estimate, .. } => assert!(estimate > 6_000),
///     other => unreachable!("far below auto: {other:?}"),
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
    /// Tells this chat's request ids from every other chat's.
    chat: u32,
    pending: Option<Pending>,
}

/// A summary request in flight: what the outcome reports and what judging
/// its answer needs; indices and counts, no messages (the ledger holds
/// paths and the user's words, cut to its budget).
#[derive(Debug)]
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
            chat: next_chat(),
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
    pub fn pending_request(&self) -> Option<&RequestId> {
        self.pending.as_ref().map(|p| &p.id)
    }

    /// For the run in flight, the copies of host messages its COMPRESSED
    /// head will end with (slimmed tail messages, or the tail before a
    /// dropped trailing call) and the host index each was made from; empty
    /// when none or no run is in flight. The JS API makes the same copies of
    /// the host's own messages while it still has the history.
    pub(crate) fn pending_copies(&self) -> (&[Content], &[usize]) {
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
        let id = self.request_id(self.next_request_id);
        self.next_request_id = add_counts(self.next_request_id, 1);
        id
    }

    /// This chat's id for request `number`: for the layers that get the
    /// number back from outside (the JS API's `id`) or must answer a request
    /// whose id they gave away (the driver's abort on drop). An id for
    /// another number is stale like any other.
    pub(crate) fn request_id(&self, number: u64) -> RequestId {
        RequestId {
            chat: self.chat,
            number,
        }
    }
}

/// A tag for a new chat (for [`Compactor::new`] and [`Compactor::restore`]),
/// so that a request id is stale in every chat but the one that handed it
/// out. Counted, not random: the library has no entropy source; after 2^32
/// chats in one process the tags come round again.
pub(crate) fn next_chat() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
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
