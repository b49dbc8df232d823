//! Helpers shared by the engine, retention, driver and session tests.
#![allow(dead_code)]
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests assert on data they built

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use compaction_core::Content;
use compaction_core::ToJson;
use compaction_core::Value;
use compaction_core::json;

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
/// A model turn calling `name` with `args`.
pub fn call_with(name: &str, args: Value) -> Content {
    Content::from_value(
        json!({ "role": "model", "parts": [{ "functionCall": { "name": name, "args": args } }] }),
        "call",
    )
    .unwrap()
}

/// A tool result of `name` whose output is `output`.
pub fn result(name: &str, output: &str) -> Content {
    Content::from_value(
        json!({ "role": "user", "parts": [{ "functionResponse": { "name": name, "response": { "output": output } } }] }),
        "result",
    )
    .unwrap()
}

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
    history.to_json_string()
}

/// The request of a decision that must be a summary request, its id and
/// trigger; a forced run is exactly one not triggered at `auto`.
pub fn expect_summarize(
    decision: compaction_core::SendDecision,
) -> (
    compaction_core::RequestId,
    compaction_core::SummaryRequest,
    compaction_core::Trigger,
) {
    match decision {
        compaction_core::SendDecision::Summarize {
            id,
            request,
            trigger,
            forced,
            ..
        } => {
            assert_eq!(forced, trigger != compaction_core::Trigger::Auto);
            (id, request, trigger)
        }
        other => panic!("expected a summary request, got {other:?}"),
    }
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

/// Checks the rules every summary request must keep (every send fits, docs/behaviour.md): its output
/// cap is at most the model's limit (`model_limit`, 20 000 when the chat has
/// none) and its estimated input, scaled by `scale` (provider tokens per
/// estimated token; 1.0 for a resumed chat), leaves the cap and the
/// provider's framing margin inside the window. Every test that runs a
/// summary request goes through it.
pub fn check_request(
    request: &compaction_core::SummaryRequest,
    chat: &compaction_core::Compactor,
    scale: f64,
) {
    let limit = chat
        .options()
        .fit
        .max_output_tokens
        .unwrap_or(compaction_core::COMPACT_MAX_OUTPUT_TOKENS)
        .min(compaction_core::COMPACT_MAX_OUTPUT_TOKENS);
    let cap = request.config.max_output_tokens;
    assert!(
        cap >= 1 && cap <= limit,
        "cap {cap} above the model's limit {limit}"
    );
    let input =
        compaction_core::summary_request::request_tokens(request, &chat.options().estimate) * scale;
    let room =
        chat.window() - cap as f64 - compaction_core::summary_request::REQUEST_OVERHEAD_TOKENS;
    assert!(
        input <= room,
        "request input {input} above window - cap - margin = {room}"
    );
}

/// Runs a compaction to its end through [`compaction_core::Compactor::handle_answer`]:
/// `answer` writes the answer to each request (it sees the request and its
/// number, from 0). Each request is checked with [`check_request`]. Returns
/// the outcome and every request made.
pub fn run_to_end(
    chat: &mut compaction_core::Compactor,
    id: compaction_core::RequestId,
    request: compaction_core::SummaryRequest,
    scale: f64,
    mut answer: impl FnMut(&compaction_core::SummaryRequest, usize) -> compaction_core::SummaryAnswer,
) -> (
    compaction_core::CompactionOutcome,
    Vec<compaction_core::SummaryRequest>,
) {
    let (mut id, mut request) = (id, request);
    let mut requests = Vec::new();
    loop {
        check_request(&request, chat, scale);
        let reply = answer(&request, requests.len());
        requests.push(request);
        match chat.handle_answer(id, reply).unwrap() {
            compaction_core::Next::Done(outcome) => return (outcome, requests),
            compaction_core::Next::Summarize {
                id: next_id,
                request: next,
            } => {
                assert!(chat.pending_request() == Some(&next_id));
                id = next_id;
                request = next;
            }
            other => panic!("a step this test does not know: {other:?}"),
        }
    }
}

/// A small deterministic generator (xorshift64*), so randomized tests need
/// no dependency and replay the same inputs.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// One of `items`.
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    /// A double in `[lo, hi]`, often an awkward one.
    pub fn double(&mut self, lo: f64, hi: f64) -> f64 {
        let pick = self.next() % 6;
        let x = match pick {
            0 => lo,
            1 => hi,
            2 => f64::from_bits(lo.to_bits() + 1),
            3 => lo + (hi - lo) * (self.next() as f64 / u64::MAX as f64),
            4 => (lo + (self.next() % 1000) as f64 / 3.0).min(hi),
            _ => f64::from_bits(self.next() >> 2).clamp(lo, hi),
        };
        if x.is_finite() { x.clamp(lo, hi) } else { lo }
    }
}

/// The value of an `{"ok": …}` envelope of the JSON API (nothing else in it).
pub fn ok(envelope: String) -> Value {
    let value: Value = envelope.parse::<Value>().expect("an envelope is JSON");
    let object = value.as_object().expect("an envelope is an object");
    assert_eq!(object.len(), 1, "{envelope}");
    match object.get("ok") {
        Some(v) => v.clone(),
        None => panic!("expected ok, got {envelope}"),
    }
}

/// The `(code, message)` of an error envelope of the JSON API.
pub fn err(envelope: String) -> (String, String) {
    let value: Value = envelope.parse::<Value>().expect("an envelope is JSON");
    let error = match value.get("error") {
        Some(e) => e.clone(),
        None => panic!("expected an error, got {envelope}"),
    };
    assert_eq!(value.as_object().unwrap().len(), 1);
    assert_eq!(error.as_object().unwrap().len(), 2, "{envelope}");
    (
        error["code"].as_str().unwrap().to_string(),
        error["message"].as_str().unwrap().to_string(),
    )
}

/// A chat created with `options` (JSON text) in `chats`, by its handle.
pub fn create(chats: &mut compaction_core::json_api::Chats, options: &str) -> u32 {
    ok(chats.create(options))["handle"].as_u64().unwrap() as u32
}

/// The outcome of an answer that ends the run ([`compaction_core::Next::Done`]):
/// `chat.handle_answer(id, answer).unwrap().done()`.
pub trait Done<C> {
    /// The outcome; panics (failing the test) on another request.
    fn done(self) -> compaction_core::CompactionOutcome<C>;
}

impl<C> Done<C> for compaction_core::Next<C> {
    fn done(self) -> compaction_core::CompactionOutcome<C> {
        match self {
            compaction_core::Next::Done(outcome) => outcome,
            _ => panic!("expected the end of the run, got another summary request"),
        }
    }
}
