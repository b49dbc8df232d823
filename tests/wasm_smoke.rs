//! Smoke tests of the wasm build, run by wasm-bindgen-test-runner in Node
//! and in headless Chromium (scripts/test runs both). They call the core,
//! and `json_api` — what every wasm export is a one-liner over
//! (src/wasm/mod.rs) — compiled to wasm.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests assert on data they built

use compaction_core::json_api::{self, Chats};
use compaction_core::{
    Content, EstimateOptions, Value, compute_thresholds, context_report, estimate_content_tokens,
};
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn thresholds_are_the_same_doubles_as_natively() {
    let t = compute_thresholds(200_000.0).unwrap();
    assert_eq!((t.warn, t.auto, t.hard), (147_000.0, 167_000.0, 177_000.0));
    let t = compute_thresholds(33_333.0).unwrap();
    assert_eq!(t.auto.to_bits(), (0.7_f64 * 33_333.0).to_bits());
}

#[wasm_bindgen_test]
fn estimation_counts_utf16_units_in_wasm() {
    let n = estimate_content_tokens(
        &[Content::text("user", "😀😀你好")],
        &EstimateOptions::default(),
    );
    assert_eq!(n, 2); // 6 UTF-16 units / 4, rounded up
}

#[wasm_bindgen_test]
fn report_text_in_wasm() {
    let text = context_report(150_000.0, 200_000.0).unwrap().to_text();
    assert!(text.contains("Warn threshold:     147,000"), "{text}");
}

#[wasm_bindgen_test]
fn errors_are_values_not_traps() {
    assert!(compute_thresholds(f64::NAN).is_err());
    assert!(Content::list_from_value(compaction_core::json!([{ "role": 3 }]), "h").is_err());
}

#[wasm_bindgen_test]
fn json_exports_answer_envelopes_in_wasm() {
    assert!(json_api::compute_thresholds(200_000.0).starts_with(r#"{"ok":{"window":200000"#));
    let bad = json_api::compute_thresholds(f64::NAN);
    assert!(
        bad.starts_with(r#"{"error":{"code":"INVALID_WINDOW""#),
        "{bad}"
    );
    // A lone surrogate, as JSON.stringify escapes it, is a character, not an error.
    let lone =
        json_api::estimate_content_tokens(r#"[{"role":"user","parts":[{"text":"a\ud800b"}]}]"#, "");
    let value: Value = lone.parse::<Value>().unwrap_or_default();
    assert_eq!(value["ok"].as_f64(), Some(1.0), "{lone}");
    let garbage = json_api::estimate_content_tokens("[{", "");
    assert!(garbage.contains("INVALID_CONTENT"), "{garbage}");
}

#[wasm_bindgen_test]
fn a_chat_runs_a_compaction_step_by_step_in_wasm() {
    let mut chats = Chats::new();
    let created = chats.create(r#"{"window":200000}"#);
    assert_eq!(created, r#"{"ok":{"handle":1,"warnings":[]}}"#);
    let history: Vec<String> = (0..12)
        .map(|i| {
            format!(
                r#"{{"role":"{}","parts":[{{"text":"{}"}}]}}"#,
                if i % 2 == 0 { "user" } else { "model" },
                "x".repeat(4000)
            )
        })
        .collect();
    let history = format!("[{}]", history.join(","));
    let step = chats.compact(1, &history, "");
    assert!(step.starts_with(r#"{"ok":{"summarize":{"id":"#), "{step}");
    assert!(chats.compact(1, &history, "").contains("BUSY"));
    let id: f64 = step
        .split(r#""id":"#)
        .nth(1)
        .and_then(|rest| rest.split(',').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(f64::NAN);
    let done = chats.answer(1, id, r#"{"text":"the summary","finishReason":"STOP"}"#);
    assert!(done.contains(r#""statusName":"COMPRESSED""#), "{done}");
    assert!(done.contains(r#""head":["#), "{done}");
    chats.free(1);
    assert!(chats.usage(1).contains("this chat was freed"));
}
