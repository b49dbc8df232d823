//! Smoke tests of the wasm build, run by wasm-bindgen-test-runner in Node
//! and in headless Chromium (scripts/test runs both). They call the core
//! through the same code paths the JS bindings use.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests assert on data they built

use compaction_core::{
    Content, EstimateOptions, compute_thresholds, context_report, estimate_content_tokens,
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
    assert!(Content::list_from_value(serde_json::json!([{ "role": 3 }]), "h").is_err());
}
