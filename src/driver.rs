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

use std::cell::RefCell;
use std::future::Future;

use crate::content::Content;
use crate::engine::{CompactionOutcome, Compactor, RequestId, SendDecision, SummaryAnswer};
use crate::error::{Error, ErrorCode};
use crate::summary_request::SummaryRequest;

/// Why a summarizer produced no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SummarizeError {
    /// The call failed (threw, rejected, returned something malformed);
    /// the text says why. Counted as a failure unless the run was forced.
    Failed(String),
    /// The host cancelled the call. Not a failure.
    Aborted,
}

/// Runs a summary request through a model: the host's side query.
///
/// Closures `Fn(SummaryRequest) -> impl Future<Output = Result<SummaryAnswer,
/// SummarizeError>>` are summarizers.
pub trait Summarizer {
    /// Runs `request` and returns the model's answer.
    fn summarize(
        &self,
        request: SummaryRequest,
    ) -> impl Future<Output = Result<SummaryAnswer, SummarizeError>>;
}

impl<F, Fut> Summarizer for F
where
    F: Fn(SummaryRequest) -> Fut,
    Fut: Future<Output = Result<SummaryAnswer, SummarizeError>>,
{
    fn summarize(
        &self,
        request: SummaryRequest,
    ) -> impl Future<Output = Result<SummaryAnswer, SummarizeError>> {
        self(request)
    }
}

/// The check before sending `user_message`, and the compaction it asks for.
///
/// Returns the outcome: NOOP (send as is), COMPRESSED (replace the history
/// with `new_history`, then send) or a failure (send on the old history,
/// which is untouched). Fails with `BUSY` when the chat is already compacting.
pub async fn before_send<S: Summarizer>(
    chat: &RefCell<Compactor>,
    summarizer: &S,
    history: &[Content],
    user_message: &Content,
) -> Result<CompactionOutcome, Error> {
    let decision = borrow(chat)?.poll_before_send(history, user_message)?;
    run(chat, summarizer, decision).await
}

/// A manual compaction (`/compact`), with the user's optional focus.
/// Fails with `BUSY` when the chat is already compacting.
pub async fn compact_now<S: Summarizer>(
    chat: &RefCell<Compactor>,
    summarizer: &S,
    history: &[Content],
    focus: Option<&str>,
) -> Result<CompactionOutcome, Error> {
    let decision = borrow(chat)?.poll_manual(history, focus)?;
    run(chat, summarizer, decision).await
}

async fn run<S: Summarizer>(
    chat: &RefCell<Compactor>,
    summarizer: &S,
    decision: SendDecision,
) -> Result<CompactionOutcome, Error> {
    let (id, request) = match decision {
        SendDecision::Proceed {
            estimate,
            tier,
            reason,
        } => return Ok(borrow(chat)?.noop_outcome(estimate, tier, reason)),
        SendDecision::Summarize { id, request, .. } => (id, request),
    };
    let mut guard = AbortOnDrop { chat, id: Some(id) };
    // No borrow is alive here: the summarizer may call the chat and get BUSY.
    let result = summarizer.summarize(request).await;
    let mut core = borrow(chat)?;
    guard.id = None;
    match result {
        Ok(answer) => core.handle_summary(id, answer),
        Err(SummarizeError::Failed(cause)) => core.handle_summary_failure(id, cause),
        Err(SummarizeError::Aborted) => core.handle_abort(id),
    }
}

/// Aborts the request if the driver's future is dropped mid-await.
struct AbortOnDrop<'a> {
    chat: &'a RefCell<Compactor>,
    id: Option<RequestId>,
}

impl Drop for AbortOnDrop<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.id.take()
            && let Ok(mut core) = self.chat.try_borrow_mut()
        {
            // Stale only if the host already answered by hand: nothing to undo.
            let _ = core.handle_abort(id);
        }
    }
}

/// Borrows the compactor; a borrow held elsewhere (a host calling in from
/// inside a synchronous core call, which the core never does) is `BUSY`
/// rather than a panic.
fn borrow(chat: &RefCell<Compactor>) -> Result<std::cell::RefMut<'_, Compactor>, Error> {
    chat.try_borrow_mut().map_err(|_| busy())
}

/// The error for a chat already borrowed by another call.
pub(crate) fn busy() -> Error {
    Error::new(
        ErrorCode::Busy,
        "the chat is in use by another call; wait for it to finish",
    )
}
