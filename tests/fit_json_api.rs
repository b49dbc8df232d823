//! Every send fits the window (docs/behaviour.md) over the JSON-text API: the Step protocol with several calls,
//! the new options and result fields, `set_model_limits`, `slim_message`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests assert on data they built

mod common;
use common::{create, err, ok};

use compaction_core::ToJson;
use compaction_core::Value;
use compaction_core::json;
use compaction_core::json_api::{self, Chats};
use compaction_core::summary_request::{REQUEST_OVERHEAD_TOKENS, request_tokens};
use compaction_core::{CompactorConfig, SummaryRequest};

const WINDOW: f64 = 128_000.0;

fn prose(chars: usize) -> String {
    let mut text = String::new();
    let mut i = 0u64;
    while text.len() < chars {
        text.push_str(&format!("entry {i}: measured {} ms\n", i * 7919 % 10007));
        i += 1;
    }
    text.truncate(chars);
    text
}

/// About 400 000 estimated tokens of conversation.
fn big_history() -> String {
    let messages: Vec<Value> = (0..100)
        .flat_map(|i| {
            [
                json!({ "role": "user", "parts": [{ "text": format!("q{i} {}", prose(8_000)) }] }),
                json!({ "role": "model", "parts": [{ "text": format!("a{i} {}", prose(8_000)) }] }),
            ]
        })
        .collect();
    messages.to_json_string()
}

const NEXT: &str = r#"{"role":"user","parts":[{"text":"go on"}]}"#;

/// The summary request of a step, checked against the model's limit and
/// the window (a resumed chat: scale 1).
fn checked_request(step: &Value, limit: u64) -> (f64, SummaryRequest) {
    let summarize = step
        .get("summarize")
        .unwrap_or_else(|| panic!("expected summarize, got {step:.300}"));
    let request = SummaryRequest::from_json(&summarize["request"]).unwrap();
    let cap = request.config.max_output_tokens;
    assert!(cap <= limit, "cap {cap} above {limit}");
    let options = CompactorConfig::new(WINDOW).options.estimate;
    let input = request_tokens(&request, &options);
    assert!(
        input <= WINDOW - cap as f64 - REQUEST_OVERHEAD_TOKENS,
        "{input}"
    );
    (summarize["id"].as_f64().unwrap(), request)
}

#[test]
fn one_compaction_takes_several_steps_each_answer_giving_the_next() {
    let mut chats = Chats::new();
    let handle = create(&mut chats, r#"{"window":128000,"maxOutputTokens":16384}"#);
    let history = big_history();
    let mut step = ok(chats.before_send(handle, &history, NEXT));
    let mut ids = Vec::new();
    while step.get("summarize").is_some() {
        let (id, request) = checked_request(&step, 16_384);
        assert!(!ids.contains(&id), "each step has its own id");
        if !ids.is_empty() {
            // The summary so far opens every later request.
            let first = request.contents[0].to_json_string();
            assert!(first.contains("so far, part"), "{first:.200}");
        }
        // Busy meanwhile.
        assert_eq!(err(chats.before_send(handle, &history, NEXT)).0, "BUSY");
        let answer =
            json!({ "text": format!("so far, part {}", ids.len()), "finishReason": "STOP" });
        ids.push(id);
        step = ok(chats.answer(handle, id, &answer.to_string()));
    }
    assert!(ids.len() > 1, "several calls");
    let result = step["done"].clone();
    assert_eq!(result["statusName"], "COMPRESSED");
    assert_eq!(result["summaryCalls"], ids.len());
    assert_eq!(result["method"], "summarized");
    assert!(result["head"].as_array().unwrap().len() >= 2);
    assert!(result["summary"].as_str().unwrap().contains("so far"));
    // An earlier id is stale now.
    assert_eq!(err(chats.abort(handle, ids[0])).0, "STALE_REQUEST");
    assert_eq!(ok(chats.state(handle))["busy"], false);
}

#[test]
fn an_abort_or_a_failure_at_the_second_step_ends_the_run() {
    for failure in ["abort", "fail", "malformed"] {
        let mut chats = Chats::new();
        let handle = create(&mut chats, r#"{"window":128000,"maxOutputTokens":16384}"#);
        let history = big_history();
        let step = ok(chats.before_send(handle, &history, NEXT));
        let (id, _) = checked_request(&step, 16_384);
        let step = ok(chats.answer(handle, id, r#""first part""#));
        let (id, _) = checked_request(&step, 16_384);
        let result = ok(match failure {
            "abort" => chats.abort(handle, id),
            "fail" => chats.fail(handle, id, "503 from the provider"),
            _ => chats.answer(handle, id, r#"{"summary":"x"}"#),
        })["done"]
            .clone();
        assert_eq!(result["summaryCalls"], 2, "{failure}");
        assert!(result.get("head").is_none());
        let expected = if failure == "abort" {
            "ABORTED"
        } else {
            "SUMMARIZER_FAILED"
        };
        assert_eq!(result["statusName"], expected);
        // A forced (hard) run: not counted either way.
        assert_eq!(result["consecutiveFailures"], 0);
        assert_eq!(ok(chats.state(handle))["busy"], false);
    }
}

#[test]
fn a_message_too_large_is_a_noop_with_over_by_and_slim_message_fits_it() {
    let mut chats = Chats::new();
    let handle = create(&mut chats, r#"{"window":128000}"#);
    let message = json!({ "role": "user", "parts": [{ "text": prose(500_000) }] }).to_string();
    let result = ok(chats.before_send(handle, "[]", &message))["done"].clone();
    assert_eq!(result["statusName"], "NOOP");
    assert_eq!(result["noopReason"], "messageTooLarge");
    assert!(result["overBy"].as_f64().unwrap() > 0.0);
    assert_eq!(result["summaryCalls"], 0);
    assert_eq!(result["method"], Value::Null);
    // Other NOOPs have no overBy.
    let small = ok(chats.before_send(handle, "[]", NEXT))["done"].clone();
    assert!(small.get("overBy").is_none());
    // The helper slims it to a budget, with the chat's estimator.
    let slim = ok(json_api::slim_message(
        &message,
        30_000.0,
        r#"{"estimator":"conservative"}"#,
    ));
    let tokens = ok(json_api::estimate_content_tokens(
        &json!([slim]).to_string(),
        r#"{"estimator":"conservative"}"#,
    ));
    assert!(tokens.as_f64().unwrap() <= 30_000.0, "{tokens}");
    assert!(
        slim.to_string()
            .contains("characters removed by compaction")
    );
    let result = ok(chats.before_send(handle, "[]", &slim.to_string()))["done"].clone();
    assert_eq!(result["noopReason"], "belowAuto");
    // Bad arguments are typed errors.
    assert_eq!(
        err(json_api::slim_message(&message, f64::NAN, "")).0,
        "INVALID_ARGUMENT"
    );
    assert_eq!(
        err(json_api::slim_message("{}", 10.0, "")).0,
        "INVALID_CONTENT"
    );
}

#[test]
fn the_new_options_are_read_checked_saved_and_restored() {
    let mut chats = Chats::new();
    for (options, needle) in [
        (
            r#"{"window":128000,"maxOutputTokens":0}"#,
            "maxOutputTokens",
        ),
        (
            r#"{"window":128000,"maxOutputTokens":1.5}"#,
            "maxOutputTokens",
        ),
        (
            r#"{"window":128000,"maxOutputTokens":"16k"}"#,
            "maxOutputTokens",
        ),
        (
            r#"{"window":128000,"maxOutputTokens":{"$nonFinite":"Infinity"}}"#,
            "maxOutputTokens",
        ),
        (
            r#"{"window":128000,"clearToolOutputs":"yes"}"#,
            "clearToolOutputs",
        ),
    ] {
        let envelope = chats.create(options);
        assert_eq!(err(envelope.clone()).0, "INVALID_ARGUMENT", "{options}");
        assert!(envelope.contains(needle), "{envelope}");
    }
    let handle = create(
        &mut chats,
        r#"{"window":128000,"maxOutputTokens":16384,"clearToolOutputs":true}"#,
    );
    let saved = ok(chats.save(handle));
    assert_eq!(saved["options"]["maxOutputTokens"], 16_384);
    assert_eq!(saved["options"]["clearToolOutputs"], true);
    let restored = ok(chats.restore(&saved.to_string()))["handle"]
        .as_u64()
        .unwrap() as u32;
    assert_eq!(ok(chats.save(restored)), saved);
    // Defaults are not written: older saved states stay alike.
    let plain = create(&mut chats, r#"{"window":128000}"#);
    let saved = ok(chats.save(plain));
    assert!(saved["options"].get("maxOutputTokens").is_none());
    assert!(saved["options"].get("clearToolOutputs").is_none());
    // set_model_limits: both at once; NaN clears the limit; errors change nothing.
    assert_eq!(
        ok(chats.set_model_limits(plain, 64_000.0, 8_192.0)),
        Value::Null
    );
    assert_eq!(ok(chats.save(plain))["options"]["maxOutputTokens"], 8_192);
    assert_eq!(ok(chats.state(plain))["window"], 64_000.0);
    assert_eq!(
        err(chats.set_model_limits(plain, 32_000.0, 0.0)).0,
        "INVALID_ARGUMENT"
    );
    assert_eq!(
        err(chats.set_model_limits(plain, f64::INFINITY, 100.0)).0,
        "INVALID_WINDOW"
    );
    assert_eq!(ok(chats.state(plain))["window"], 64_000.0);
    assert_eq!(
        ok(chats.set_model_limits(plain, 64_000.0, f64::NAN)),
        Value::Null
    );
    assert!(
        ok(chats.save(plain))["options"]
            .get("maxOutputTokens")
            .is_none()
    );
}

#[test]
fn clearing_answers_done_at_once_with_the_cleared_head() {
    let mut chats = Chats::new();
    let handle = create(&mut chats, r#"{"window":128000,"clearToolOutputs":true}"#);
    let mut messages = vec![json!({ "role": "user", "parts": [{ "text": "fix the build" }] })];
    for i in 0..40 {
        messages.push(json!({ "role": "model", "parts": [{ "functionCall": { "name": "run", "args": { "step": i } } }] }));
        messages.push(json!({ "role": "user", "parts": [{ "functionResponse": { "name": "run", "response": { "output": prose(12_000) } } }] }));
    }
    messages.push(json!({ "role": "model", "parts": [{ "text": "built" }] }));
    let history = messages.to_json_string();
    let result = ok(chats.before_send(handle, &history, NEXT))["done"].clone();
    assert_eq!(result["statusName"], "COMPRESSED", "{result:.300}");
    assert_eq!(result["method"], "cleared");
    assert_eq!(result["summaryCalls"], 0);
    assert_eq!(result["summary"], Value::Null);
    let head = result["head"].as_array().unwrap();
    let kept_from = result["keptFrom"].as_u64().unwrap() as usize;
    assert_eq!(
        head.len(),
        kept_from,
        "one cleared copy per replaced message"
    );
    assert!(head[2].to_string().contains("cleared by compaction"));
}
