//! Helpers shared by the engine, retention, driver and session tests.
#![allow(dead_code)]

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use compaction_core::Content;
use serde_json::json;

pub fn user(text: &str) -> Content {
    Content::text("user", text)
}

pub fn model(text: &str) -> Content {
    Content::text("model", text)
}

/// A model turn asking for a tool call.
pub fn call(name: &str) -> Content {
    Content::from_value(
        json!({ "role": "model", "parts": [{ "functionCall": { "name": name, "args": { "path": "src/lib.rs" } } }] }),
        "call",
    )
    .unwrap()
}

/// The user-side turn carrying the tool's result.
pub fn response(name: &str) -> Content {
    big_response(name, 2)
}

/// A tool result whose output is `chars` characters long (JSON counts ÷ 2).
pub fn big_response(name: &str, chars: usize) -> Content {
    Content::from_value(
        json!({ "role": "user", "parts": [{ "functionResponse": { "name": name, "response": { "output": "o".repeat(chars) } } }] }),
        "response",
    )
    .unwrap()
}

/// `pairs` user/model exchanges of `chars` characters each message.
pub fn conversation(pairs: usize, chars: usize) -> Vec<Content> {
    (0..pairs)
        .flat_map(|i| {
            [
                user(&format!(
                    "question {i} {}",
                    "q".repeat(chars.saturating_sub(12))
                )),
                model(&format!(
                    "answer {i} {}",
                    "a".repeat(chars.saturating_sub(10))
                )),
            ]
        })
        .collect()
}

/// The history as JSON text, to compare byte for byte.
pub fn snapshot(history: &[Content]) -> String {
    serde_json::to_string(history).unwrap()
}

/// Runs a future to completion on this thread. The futures in these tests
/// never wait on anything external, so polling in a loop is enough.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
    }
}

/// A future that is pending once before it completes, so that a test can
/// observe the state while an await is in progress.
pub struct YieldOnce(pub bool);

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: std::pin::Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            Poll::Pending
        }
    }
}

/// A chat on the spec's own estimator (characters ÷ 4, JSON ÷ 2), so that
/// the tests can state the spec's arithmetic exactly. The default for
/// threshold decisions (conservative) has its own tests.
pub fn spec_config(window: f64) -> compaction_core::CompactorConfig {
    let mut config = compaction_core::CompactorConfig::new(window);
    config.options.estimate.estimator = compaction_core::Estimator::Reference;
    config
}
