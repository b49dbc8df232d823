//! Random event sequences on one chat through the json_api registry — the
//! checks before a send, `/compact`, every kind of answer, failures, aborts,
//! stale ids, usage reports, window changes, save / restore, appends — and
//! the promises: never a panic, always a well-formed envelope, a second run
//! while one is in flight is BUSY, a failed or aborted run leaves the
//! history as it was, a COMPRESSED one is `head` + the history's own tail
//! with at least one message replaced, and a saved state restores to the
//! same state.
#![no_main]

#[path = "common.rs"]
mod common;

use common::{Bytes, envelope};
use compaction_core::json_api::Chats;
use libfuzzer_sys::fuzz_target;
use compaction_core::json;
use compaction_core::Value;

const WORDS: [&str; 8] = ["fix", "the", "build", "src/lib.rs", "测试", "テスト", "{\"a\":1}", "\u{1F600}"];

fn message(b: &mut Bytes, role: &str) -> Value {
    let words = (b.byte() % 60) as usize * (1 + (b.byte() % 4) as usize * 50);
    let text: Vec<&str> = (0..words).map(|i| WORDS[(i + b.byte() as usize) % WORDS.len()]).collect();
    let text = text.join(" ");
    match (role, b.byte() % 5) {
        ("model", 0) => json!({ "role": "model", "parts": [{ "functionCall": { "name": "read_file", "args": { "path": text } } }] }),
        ("user", 0) => json!({ "role": "user", "parts": [{ "functionResponse": { "name": "read_file", "response": { "output": text } } }] }),
        (_, 1) => json!({ "role": role, "parts": [{ "text": text }, { "inlineData": { "mimeType": "image/png", "data": "AAAA" } }] }),
        _ => json!({ "role": role, "parts": [{ "text": text }] }),
    }
}

fn answer(b: &mut Bytes) -> String {
    let text = "The user wants the build fixed. ".repeat((b.byte() % 8) as usize);
    let reasons = [Value::Null, json!("STOP"), json!("MAX_TOKENS"), json!("length"), json!("SAFETY"), json!("end_turn"), json!(7)];
    let reason = reasons[(b.byte() as usize) % reasons.len()].clone();
    match b.byte() % 8 {
        0 => json!(text).to_string(),
        1 => "{\"text\":".to_string(),
        2 => json!({ "text": 5 }).to_string(),
        3 => json!({ "nope": true }).to_string(),
        4 => json!({ "text": text, "finishReason": reason, "usage": { "promptTokenCount": b.number(), "candidatesTokenCount": b.number() } }).to_string(),
        5 => json!({ "text": "x".repeat(b.byte() as usize * 400), "finishReason": "STOP" }).to_string(),
        _ => json!({ "text": text, "finishReason": reason }).to_string(),
    }
}

fn usage(b: &mut Bytes) -> String {
    match b.byte() % 4 {
        0 => json!({ "totalTokenCount": b.number() }).to_string(),
        1 => json!({ "prompt_tokens": b.number(), "completion_tokens": b.number() }).to_string(),
        2 => json!({ "totalTokenCount": { "$nonFinite": "NaN" } }).to_string(),
        _ => json!({ "usageMetadata": { "promptTokenCount": b.number(), "totalTokenCount": b.number() } }).to_string(),
    }
}

struct InFlight {
    id: f64,
    history: Vec<Value>,
}

fn ok(text: &str) -> Value {
    envelope(text).unwrap_or_else(|| panic!("expected ok: {text}"))
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes(data);
    let mut chats = Chats::new();
    let windows = [32_000.0, 128_000.0, 10_000.0, 1_000_000.0, 200_000.0];
    let window = windows[(b.byte() as usize) % windows.len()];
    let options = json!({ "window": window, "excludeMessages": b.byte() % 4 }).to_string();
    let mut handle = match envelope(&chats.create(&options)) {
        Some(v) => v["handle"].as_u64().expect("a handle") as u32,
        None => return,
    };
    let mut history: Vec<Value> = Vec::new();
    let mut in_flight: Option<InFlight> = None;

    while !b.is_empty() {
        let history_text = Value::Array(history.clone()).to_string();
        let step = match b.byte() % 12 {
            0 | 1 => {
                let role = if history.len() % 2 == 0 { "user" } else { "model" };
                history.push(message(&mut b, role));
                None
            }
            2 | 3 => {
                let user = message(&mut b, "user").to_string();
                Some((chats.before_send(handle, &history_text, &user), history.clone()))
            }
            4 => Some((chats.compact(handle, &history_text, ""), history.clone())),
            5 | 6 => in_flight.as_ref().map(|f| (chats.answer(handle, f.id, &answer(&mut b)), f.history.clone())),
            7 => in_flight.as_ref().map(|f| (chats.fail(handle, f.id, "the host failed"), f.history.clone())),
            8 => in_flight.as_ref().map(|f| (chats.abort(handle, f.id), f.history.clone())),
            9 => {
                envelope(&chats.report_usage(handle, &usage(&mut b)));
                // A stale id never changes anything.
                let stale = chats.answer(handle, 9_999.0, "\"late\"");
                assert!(stale.contains("STALE_REQUEST"), "{stale}");
                None
            }
            10 => {
                envelope(&chats.set_window(handle, b.number()));
                None
            }
            _ => {
                if in_flight.is_none() {
                    let saved = ok(&chats.save(handle)).to_string();
                    let restored = ok(&chats.restore(&saved))["handle"].as_u64().expect("a handle") as u32;
                    assert_eq!(ok(&chats.save(restored)).to_string(), saved, "save → restore → save differs");
                    envelope(&chats.free(handle));
                    assert!(chats.state(handle).contains("INVALID_STATE"), "a freed chat still answers");
                    handle = restored;
                }
                None
            }
        };
        let Some((text, before)) = step else { continue };
        let Some(step) = envelope(&text) else {
            // An error: BUSY while a run is in flight, or bad input; the
            // history is the host's and stays as it was.
            continue;
        };
        if let Some(request) = step.get("summarize") {
            assert!(in_flight.is_none() || request["id"].as_f64() != in_flight.as_ref().map(|f| f.id), "an id reused");
            let cap = request["request"]["config"]["maxOutputTokens"].as_f64().expect("a cap");
            assert!((1.0..=20_000.0).contains(&cap), "output cap {cap}");
            assert!(
                chats.before_send(handle, "[]", r#"{"role":"user","parts":[{"text":"x"}]}"#).contains("BUSY"),
                "a second run while one is in flight must be BUSY"
            );
            in_flight = Some(InFlight { id: request["id"].as_f64().expect("an id"), history: before });
            continue;
        }
        let done = step.get("done").unwrap_or_else(|| panic!("neither summarize nor done: {text}"));
        in_flight = None;
        if done["statusName"] == "COMPRESSED" {
            let head = done["head"].as_array().expect("COMPRESSED has a head");
            let kept_from = done["keptFrom"].as_u64().expect("keptFrom") as usize;
            assert!(!head.is_empty(), "COMPRESSED without a summary");
            assert!(kept_from >= 1 && kept_from <= before.len(), "keptFrom {kept_from} of {}", before.len());
            assert!(done["summary"].is_string() || done["method"] == "cleared", "COMPRESSED without summary text: {done}");
            let mut new_history = head.clone();
            new_history.extend_from_slice(&before[kept_from..]);
            // Messages appended while the run was in flight follow the tail.
            new_history.extend_from_slice(&history[before.len().min(history.len())..]);
            history = new_history;
        } else {
            assert!(done.get("head").is_none_or(Value::is_null), "a head on {}", done["statusName"]);
            assert!(done["summary"].is_null(), "a summary on {}", done["statusName"]);
        }
    }
});
