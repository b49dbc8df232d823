//! The usage-gap model (issue 19, defect 6) and a model call that sends
//! several messages after what the last usage covered (issue 21).
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests assert on data they built
mod common;

use common::{Done, conversation, expect_summarize, ok, user};
use compaction_core::Value;
use compaction_core::json;
use compaction_core::json_api::Chats;
use compaction_core::{CompactionStatus, Compactor, SummaryAnswer, estimate_content_tokens};

const WINDOW: f64 = 200_000.0; // auto 167 000, hard 177 000

fn short_answer() -> SummaryAnswer {
    SummaryAnswer {
        text: "## User intent and requirements\n- the questions were answered".into(),
        finish_reason: Some("STOP".into()),
        usage: None,
    }
}

/// The issue's case: usage 168,000, the history estimated at 24,000, nothing
/// declared. Counted as fixed, the gap left the tail ~3,000 tokens and it
/// yielded below `excludeMessages`; the run must keep the retention's tail
/// and come back COMPRESSED.
#[test]
fn an_undeclared_gap_does_not_make_the_tail_yield_below_exclude_messages() {
    let mut chat = Compactor::new(common::spec_config(WINDOW)).unwrap();
    // 20 messages of ~1 200 tokens: the retention's 4 are ~4 800.
    let history = conversation(10, 4_800);
    let estimate = estimate_content_tokens(&history, &chat.options().estimate);
    assert!((23_000..=25_000).contains(&estimate), "{estimate}");
    chat.handle_usage(&json!({ "totalTokenCount": 168_000 }));
    let decision = chat.poll_before_send(&history, &[user("go on")]).unwrap();
    let kept_from = match &decision {
        compaction_core::SendDecision::Summarize { kept_from, .. } => *kept_from,
        other => panic!("expected a summary request, got {other:?}"),
    };
    // excludeMessages is 2 pairs: the last 4 messages at least stay.
    assert!(kept_from <= history.len() - 4, "kept from {kept_from}");
    let (id, _, _) = expect_summarize(decision);
    let outcome = chat.handle_answer(id, short_answer()).unwrap().done();
    assert_eq!(
        outcome.status(),
        CompactionStatus::Compressed,
        "{outcome:?}"
    );
}

/// With the fixed part declared, it stays in the prediction: the next
/// prompt is predicted as the overhead plus the scaled kept messages.
#[test]
fn a_declared_overhead_is_kept_whole_and_the_rest_scales() {
    let mut config = common::spec_config(WINDOW);
    config.options.fit.overhead_tokens = Some(140_000);
    let mut chat = Compactor::new(config).unwrap();
    let history = conversation(20, 2_400);
    chat.handle_usage(&json!({ "totalTokenCount": 168_000 }));
    let decision = chat.poll_before_send(&history, &[user("go on")]).unwrap();
    let (id, _, _) = expect_summarize(decision);
    let outcome = chat.handle_answer(id, short_answer()).unwrap().done();
    assert_eq!(
        outcome.status(),
        CompactionStatus::Compressed,
        "{outcome:?}"
    );
    let new = outcome.new_token_count();
    // 140 000 fixed, then (168 000 − 140 000) / 24 000 ≈ 1.17 per estimated token.
    assert!(new > 140_000 && new < 160_000, "{new}");
}

/// Without usage, the declared overhead counts in the estimate (a resumed
/// chat whose system prompt and tools are large).
#[test]
fn without_usage_the_declared_overhead_is_in_the_estimate() {
    let history = conversation(10, 2_400);
    let mut plain = Compactor::new(common::spec_config(WINDOW)).unwrap();
    let mut config = common::spec_config(WINDOW);
    config.options.fit.overhead_tokens = Some(160_000);
    let mut declared = Compactor::new(config).unwrap();
    let message = user("go on");
    let a = plain
        .poll_before_send(&history, std::slice::from_ref(&message))
        .unwrap();
    let b = declared
        .poll_before_send(&history, std::slice::from_ref(&message))
        .unwrap();
    let estimate = |d: &compaction_core::SendDecision| match d {
        compaction_core::SendDecision::Proceed { estimate, .. }
        | compaction_core::SendDecision::Summarize { estimate, .. } => *estimate,
        _ => unreachable!(),
    };
    assert_eq!(estimate(&b), estimate(&a) + 160_000);
}

/// OpenAI sends one message per tool result: every one of them is pending,
/// and each is counted.
#[test]
fn parallel_tool_results_are_all_counted() {
    let mut chats = Chats::new();
    let handle =
        ok(chats.create(r#"{"window":32000,"format":"openai","estimator":"reference"}"#))["handle"]
            .as_f64()
            .unwrap() as u32;
    let history = json!([
        { "role": "user", "content": "read both files" },
        { "role": "assistant", "content": null, "tool_calls": [
            { "id": "a", "type": "function", "function": { "name": "read", "arguments": "{\"p\":\"a\"}" } },
            { "id": "b", "type": "function", "function": { "name": "read", "arguments": "{\"p\":\"b\"}" } }
        ] }
    ])
    .to_string();
    chats.report_usage(handle, r#"{"prompt_tokens":10000,"completion_tokens":100}"#);
    let result =
        |id: &str| json!({ "role": "tool", "tool_call_id": id, "content": "x".repeat(13_000) });
    let one = result("a").to_string();
    let both = Value::Array(vec![result("a"), result("b")]).to_string();
    // 10 100 covered, then ~6 518 per result (JSON ÷ 2): one is below auto (22 400), both past it.
    assert_eq!(ok(chats.needs_history(handle, &one)), Value::Bool(false));
    assert_eq!(ok(chats.needs_history(handle, &both)), Value::Bool(true));
    let single = ok(chats.before_send(handle, &history, &one));
    assert_eq!(single["done"]["estimate"].as_f64(), Some(16_618.0));
    let pair = ok(chats.before_send(handle, &history, &both));
    // Both counted (the two-message history has nothing to compress).
    assert_eq!(pair["done"]["estimate"].as_f64(), Some(23_135.0));
}
