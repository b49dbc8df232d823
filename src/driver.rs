//! The async driver: runs the [`Compactor`]'s summary requests through a
//! host-supplied [`Summarizer`].
//!
//! The compactor lives in a `RefCell` (the JS class holds
//! `Rc<RefCell<Compactor>>`). The driver borrows it only around the
//! synchronous core calls, never across the `.await`: while the summarizer
//! runs, the host may call the chat again, and that call gets a typed
//! `BUSY` error from the core instead of a `RefCell` panic.
//!
//! If the future is dropped while the summarizer runs (the host gave up on
//! it), the request is aborted, so the chat does not stay busy forever.
//!
//! A failed summarizer returns [`SummarizeError::Failed`] with its own error
//! value, which comes back on the outcome's cause: no side channel needed.

use crate::prelude::*;

use core::cell::RefCell;
use core::convert::Infallible;
use core::future::Future;

use crate::content::Content;
use crate::engine::judge::SummaryAnswer;
use crate::engine::outcome::CompactionOutcome;
use crate::engine::{Answer, Compactor, HistoryRef, Next, SendDecision};
use crate::error::{Error, ErrorCode};
use crate::summary_request::SummaryRequest;

/// Why a summarizer produced no answer. `E` is the host's own error type,
/// carried to the outcome's [`crate::SummarizerCause::Host`] untouched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SummarizeError<E = ()> {
    /// The call failed (threw, rejected, timed out): `message` says why,
    /// `cause` is the host's own error. Counted as a failure unless the run
    /// was forced.
    Failed {
        /// What went wrong, in words.
        message: String,
        /// The host's own error value.
        cause: E,
    },
    /// The host cancelled the call. Not a failure.
    Aborted,
}

impl SummarizeError<()> {
    /// A failure with a message and no error value of the host's.
    pub fn failed(message: impl Into<String>) -> SummarizeError<()> {
        SummarizeError::Failed {
            message: message.into(),
            cause: (),
        }
    }
}

/// Runs a summary request through a model: the host's side query.
///
/// Closures `Fn(SummaryRequest) -> impl Future<Output = Result<SummaryAnswer,
/// SummarizeError<E>>>` are summarizers.
pub trait Summarizer {
    /// The host's error type (see [`SummarizeError::Failed`]).
    type Cause;

    /// Runs `request` and returns the model's answer.
    fn summarize(
        &self,
        request: SummaryRequest,
    ) -> impl Future<Output = Result<SummaryAnswer, SummarizeError<Self::Cause>>>;
}

impl<F, Fut, E> Summarizer for F
where
    F: Fn(SummaryRequest) -> Fut,
    Fut: Future<Output = Result<SummaryAnswer, SummarizeError<E>>>,
{
    type Cause = E;

    fn summarize(
        &self,
        request: SummaryRequest,
    ) -> impl Future<Output = Result<SummaryAnswer, SummarizeError<E>>> {
        self(request)
    }
}

/// The check before sending the `pending` messages (the user's message, a
/// 1-slice, or a step's tool results), and the compaction it asks for;
/// `history` as for [`Compactor::poll_before_send`].
///
/// Returns the outcome: NOOP (send as is), COMPRESSED (apply it to the
/// history with [`CompactionOutcome::apply_to`], then send) or a failure
/// (send on the old history, which is untouched); a failed summarizer's own
/// error is on the outcome's cause. Fails with `BUSY` when the chat is
/// already compacting, and with `INVALID_ARGUMENT` when the history is
/// [`HistoryRef::Absent`] and the check must read it.
pub async fn before_send<'h, S: Summarizer>(
    chat: &RefCell<Compactor>,
    summarizer: &S,
    history: impl Into<HistoryRef<'h>>,
    pending: &[Content],
) -> Result<CompactionOutcome<S::Cause>, Error> {
    let decision = borrow(chat)?.poll_before_send(history, pending)?;
    run(chat, summarizer, decision).await
}

/// A manual compaction (`/compact`), with the user's optional focus.
/// Fails with `BUSY` when the chat is already compacting.
pub async fn compact_now<'h, S: Summarizer>(
    chat: &RefCell<Compactor>,
    summarizer: &S,
    history: impl Into<HistoryRef<'h>>,
    focus: Option<&str>,
) -> Result<CompactionOutcome<S::Cause>, Error> {
    let decision = borrow(chat)?.poll_manual(history, focus)?;
    run(chat, summarizer, decision).await
}

async fn run<S: Summarizer>(
    chat: &RefCell<Compactor>,
    summarizer: &S,
    decision: SendDecision,
) -> Result<CompactionOutcome<S::Cause>, Error> {
    let (mut id, mut request) = match decision {
        SendDecision::Proceed {
            estimate,
            tier,
            reason,
        } => return Ok(borrow(chat)?.noop_outcome(estimate, tier, reason)),
        SendDecision::Cleared(outcome) => return Ok(outcome.with_cause_type()),
        SendDecision::Summarize { id, request, .. } => (id, request),
        SendDecision::NeedHistory => {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                "the check must read the history: pass it, not HistoryRef::Absent",
            ));
        }
    };
    // One compaction may take several calls (a part to summarize larger
    // than one request): each is one await, with no borrow held across it.
    loop {
        let mut guard = AbortOnDrop {
            chat,
            number: Some(id.number()),
        };
        // No borrow is alive here: the summarizer may call the chat and get BUSY.
        let result = summarizer.summarize(request).await;
        let mut core = borrow(chat)?;
        guard.number = None;
        let answer = match result {
            Ok(answer) => Answer::Summary(answer),
            Err(SummarizeError::Failed { message, cause }) => Answer::Failed { message, cause },
            Err(SummarizeError::Aborted) => Answer::Aborted,
        };
        match core.handle_answer(id, answer)? {
            Next::Summarize {
                id: next_id,
                request: next,
            } => {
                id = next_id;
                request = next;
            }
            Next::Done(outcome) => return Ok(outcome),
        }
    }
}

/// Aborts the request if the driver's future is dropped mid-await.
struct AbortOnDrop<'a> {
    chat: &'a RefCell<Compactor>,
    /// The request's number (its id stays with the driver, which answers
    /// with it).
    number: Option<u64>,
}

impl Drop for AbortOnDrop<'_> {
    fn drop(&mut self) {
        if let Some(number) = self.number.take()
            && let Ok(mut core) = self.chat.try_borrow_mut()
        {
            // Stale only if the host already answered by hand: nothing to undo.
            let id = core.request_id(number);
            let _ = core.handle_answer(id, Answer::<Infallible>::Aborted);
        }
    }
}

/// Borrows the compactor; a borrow held elsewhere (a host calling in from
/// inside a synchronous core call, which the core never does) is `BUSY`
/// rather than a panic.
fn borrow(chat: &RefCell<Compactor>) -> Result<core::cell::RefMut<'_, Compactor>, Error> {
    chat.try_borrow_mut().map_err(|_| busy())
}

/// The error for a chat already borrowed by another call.
pub(crate) fn busy() -> Error {
    Error::new(
        ErrorCode::Busy,
        "the chat is in use by another call; wait for it to finish",
    )
}
