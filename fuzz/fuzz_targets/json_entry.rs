//! Every stateless JSON entry point on arbitrary text and numbers: always a
//! well-formed envelope, never a panic; the ladder's invariant and the
//! estimates' shape on every `ok`.
#![no_main]

#[path = "common.rs"]
mod common;

use common::{Bytes, envelope, is_count};
use compaction_core::json_api as api;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes(data);
    let op = b.byte();
    let x = b.number();
    let y = b.number();
    let first = b.text(4096);
    let second = String::from_utf8_lossy(b.0).into_owned();
    match op % 10 {
        0 => {
            if let Some(t) = envelope(&api::compute_thresholds(x)) {
                let (w, a, h) = (t["warn"].as_f64(), t["auto"].as_f64(), t["hard"].as_f64());
                let (w, a, h) = (w.unwrap(), a.unwrap(), h.unwrap());
                assert!(w <= a && a <= h, "warn <= auto <= hard broken for {x}: {t}");
            }
        }
        1 => {
            envelope(&api::current_tier(x, &first));
        }
        2 => {
            if let Some(n) = envelope(&api::estimate_content_tokens(&first, &second)) {
                assert!(is_count(&n), "estimate not a whole number: {n}");
            }
        }
        3 => {
            if let Some(n) = envelope(&api::estimate_text_tokens(&first, &second)) {
                assert!(is_count(&n), "estimate not a whole number: {n}");
            }
        }
        4 => {
            if let Some(n) = envelope(&api::estimate_prompt_tokens(&first, &second, x, "")) {
                assert!(is_count(&n), "estimate not a whole number: {n}");
            }
        }
        5 => {
            envelope(&api::select_tip(&first));
        }
        6 => {
            if let Some(r) = envelope(&api::context_report(x, y)) {
                assert!(r["percentUsed"].is_number(), "percentUsed not a number: {r}");
            }
        }
        7 => {
            envelope(&api::format_context_report(x, y));
        }
        8 => {
            envelope(&api::load_settings(&first));
        }
        _ => {
            // Valid JSON as JSON.stringify writes it, with a value of the
            // fuzzer's choosing inside, through the message reader.
            let wrapped = format!(r#"[{{"role":"user","parts":[{{"text":{first:?}}}, {second}]}}]"#);
            envelope(&api::estimate_content_tokens(&wrapped, ""));
        }
    }
});
