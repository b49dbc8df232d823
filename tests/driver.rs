//! The async driver: a summarizer that succeeds, fails with the host's own cause, is aborted or dropped, and calls back in (BUSY), with the compactor never borrowed across an await.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests assert on data they built
mod common;

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use common::{YieldOnce, block_on, conversation, snapshot, user};
use compaction_core::json;
use compaction_core::{
    CompactionStatus, Compactor, Content, ErrorCode, NoopReason, SummarizeError, SummarizerCause,
    SummaryAnswer, SummaryRequest, Trigger, before_send, compact_now,
};

fn chat_at(tokens: u64) -> RefCell<Compactor> {
    let mut chat = Compactor::new(common::spec_config(200_000.0)).unwrap();
    chat.handle_usage(&json!({ "totalTokenCount": tokens }));
    RefCell::new(chat)
}

fn history() -> Vec<Content> {
    conversation(20, 8_000)
}

async fn good(_request: SummaryRequest) -> Result<SummaryAnswer, SummarizeError> {
    YieldOnce(false).await;
    Ok(SummaryAnswer {
        text: "- the user asked questions".into(),
        finish_reason: Some("STOP".into()),
        usage: None,
    })
}

/// The host's own error type, carried to the outcome untouched.
#[derive(Debug, PartialEq)]
struct HttpError(u16);

async fn failing(_request: SummaryRequest) -> Result<SummaryAnswer, SummarizeError<HttpError>> {
    Err(SummarizeError::Failed {
        message: "HTTP 500".into(),
        cause: HttpError(500),
    })
}

async fn aborted(_request: SummaryRequest) -> Result<SummaryAnswer, SummarizeError> {
    Err(SummarizeError::Aborted)
}

#[test]
fn below_auto_is_a_noop_without_calling_the_summarizer() {
    let chat = chat_at(10_000);
    let called = Cell::new(false);
    let summarizer = |request: SummaryRequest| {
        called.set(true);
        good(request)
    };
    let outcome = block_on(before_send(&chat, &summarizer, &history(), &[user("hi")])).unwrap();
    assert_eq!(outcome.status(), CompactionStatus::Noop);
    assert_eq!(outcome.noop_reason(), Some(NoopReason::BelowAuto));
    assert_eq!(outcome.estimate(), 10_001);
    assert!(!called.get());
}

#[test]
fn at_auto_the_driver_compacts() {
    let chat = chat_at(170_000);
    let h = history();
    let outcome = block_on(before_send(&chat, &good, &h, &[user("hi")])).unwrap();
    assert_eq!(outcome.status(), CompactionStatus::Compressed);
    assert_eq!(outcome.trigger(), Some(Trigger::Auto));
    let new_history = outcome.new_history(&h).unwrap();
    assert_eq!(new_history[2..], h[outcome.kept_from()..]);
    assert_eq!(
        chat.borrow().last_prompt_token_count(),
        outcome.new_token_count()
    );
    assert_eq!(chat.borrow().pending_request(), None);
}

#[test]
fn failures_and_aborts_go_through_the_core() {
    let chat = chat_at(170_000);
    let h = history();
    let before = snapshot(&h);
    let outcome = block_on(before_send(&chat, &failing, &h, &[user("hi")])).unwrap();
    assert_eq!(outcome.status(), CompactionStatus::SummarizerFailed);
    assert_eq!(outcome.cause().map(|c| c.message()), Some("HTTP 500"));
    // The host's own error comes back on the outcome: no side channel.
    match outcome.cause() {
        Some(SummarizerCause::Host { cause, .. }) => assert_eq!(*cause, HttpError(500)),
        other => panic!("expected the host's cause, got {other:?}"),
    }
    assert_eq!(outcome.consecutive_failures(), 1);
    let outcome = block_on(before_send(&chat, &aborted, &h, &[user("hi")])).unwrap();
    assert_eq!(outcome.status(), CompactionStatus::Aborted);
    assert_eq!(outcome.consecutive_failures(), 1);
    assert_eq!(snapshot(&h), before);
    assert_eq!(chat.borrow().pending_request(), None);
}

#[test]
fn compact_now_is_forced_and_carries_the_focus() {
    // No usage yet: the whole history is estimated, far below auto.
    let chat = chat_at(0);
    let seen = RefCell::new(String::new());
    let summarizer = |request: SummaryRequest| {
        *seen.borrow_mut() = request.system_instruction.clone();
        good(request)
    };
    let outcome = block_on(compact_now(
        &chat,
        &summarizer,
        &history(),
        Some("the API design"),
    ))
    .unwrap();
    assert_eq!(outcome.status(), CompactionStatus::Compressed);
    assert_eq!(outcome.trigger(), Some(Trigger::Manual));
    assert!(outcome.forced());
    assert!(seen.borrow().ends_with("the API design"));
}

#[test]
fn a_reentrant_call_while_summarizing_gets_busy_not_a_panic() {
    let chat = chat_at(170_000);
    let h = history();
    let busy = RefCell::new(Vec::new());
    let summarizer = |request: SummaryRequest| {
        // The host calls the chat again while the summary runs: directly on
        // the core, and through the driver.
        let direct = chat.borrow_mut().poll_before_send(&h, &[user("again")]);
        busy.borrow_mut().push(direct.unwrap_err().code());
        let nested = block_on(compact_now(&chat, &good, &h, None));
        busy.borrow_mut().push(nested.unwrap_err().code());
        let nested = block_on(before_send(&chat, &good, &h, &[user("x")]));
        busy.borrow_mut().push(nested.unwrap_err().code());
        good(request)
    };
    let outcome = block_on(before_send(&chat, &summarizer, &h, &[user("hi")])).unwrap();
    assert_eq!(*busy.borrow(), [ErrorCode::Busy; 3]);
    // The re-entrant calls did not disturb the one in flight.
    assert_eq!(outcome.status(), CompactionStatus::Compressed);
}

#[test]
fn the_chat_is_free_while_the_summarizer_awaits() {
    // Poll the driver once: it is parked inside the summarizer's await.
    let chat = chat_at(170_000);
    let h = history();
    let message = user("hi");
    let mut future = pin!(before_send(
        &chat,
        &good,
        &h,
        std::slice::from_ref(&message)
    ));
    let mut cx = Context::from_waker(Waker::noop());
    assert!(future.as_mut().poll(&mut cx).is_pending());
    // No borrow is held across the await: the host can read the state...
    assert!(chat.try_borrow_mut().is_ok());
    assert!(chat.borrow().pending_request().is_some());
    // ...and a second check is BUSY.
    let err = chat
        .borrow_mut()
        .poll_before_send(&h, &[user("again")])
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Busy);
    let Poll::Ready(outcome) = future.as_mut().poll(&mut cx) else {
        panic!("the summarizer yields once");
    };
    assert_eq!(outcome.unwrap().status(), CompactionStatus::Compressed);
}

#[test]
fn dropping_the_driver_mid_summary_aborts_the_request() {
    let chat = chat_at(170_000);
    let h = history();
    {
        let message = user("hi");
        let mut future = pin!(before_send(
            &chat,
            &good,
            &h,
            std::slice::from_ref(&message)
        ));
        let mut cx = Context::from_waker(Waker::noop());
        assert!(future.as_mut().poll(&mut cx).is_pending());
        assert!(chat.borrow().pending_request().is_some());
    }
    assert_eq!(chat.borrow().pending_request(), None);
    assert_eq!(chat.borrow().consecutive_failures(), 0);
    // The chat works again.
    let outcome = block_on(before_send(&chat, &good, &h, &[user("hi")])).unwrap();
    assert_eq!(outcome.status(), CompactionStatus::Compressed);
}

#[test]
fn a_chat_borrowed_elsewhere_is_busy() {
    let chat = chat_at(170_000);
    let _held = chat.borrow();
    let err = block_on(before_send(&chat, &good, &history(), &[user("hi")])).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Busy);
}

#[test]
fn the_driver_needs_the_history_when_the_check_must_read_it() {
    // No usage yet: the check estimates the whole history.
    let chat = chat_at(0);
    let err = block_on(before_send(
        &chat,
        &good,
        compaction_core::HistoryRef::Absent,
        &[user("hi")],
    ))
    .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    assert_eq!(chat.borrow().pending_request(), None);
}
