//! The JSON-text API the wasm exports call: envelopes, error codes, the
//! readers' tolerances, the chat registry and the step protocol.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests assert on data they built

mod common;

use common::{Rng, conversation, err, ok};
use compaction_core::ToJson;
use compaction_core::Value;
use compaction_core::json;
use compaction_core::json_api::{self, Chats};

/// The `ok` value of an envelope (failing the test on an error envelope).
fn assert_err(envelope: String, code: &str, needle: &str) {
    let (c, m) = err(envelope);
    assert_eq!(c, code, "{m}");
    assert!(m.contains(needle), "{m:?} does not contain {needle:?}");
}

const WINDOW: f64 = 200_000.0;
const USER_MESSAGE: &str = r#"{"role":"user","parts":[{"text":"Next step, please."}]}"#;

fn history_text() -> String {
    conversation(20, 8_000).to_json_string()
}

/// A chat on the spec's estimator whose last usage is `tokens`.
fn chat_at(chats: &mut Chats, tokens: u64) -> u32 {
    let created = ok(chats.create(r#"{"window":200000,"estimator":"reference"}"#));
    let handle = created["handle"].as_u64().unwrap() as u32;
    let update = ok(chats.report_usage(handle, &format!(r#"{{"totalTokenCount":{tokens}}}"#)));
    assert_eq!(update["taken"], true);
    handle
}

/// Starts a compaction at auto; returns the request id and the request.
fn start(chats: &mut Chats, handle: u32, history: &str) -> (f64, Value) {
    let step = ok(chats.before_send(handle, history, USER_MESSAGE));
    let summarize = step
        .get("summarize")
        .unwrap_or_else(|| panic!("expected a summary request, got {step}"));
    (
        summarize["id"].as_f64().unwrap(),
        summarize["request"].clone(),
    )
}

fn done(step: Value) -> Value {
    match step.get("done") {
        Some(result) => result.clone(),
        None => panic!("expected a result, got {step}"),
    }
}

#[test]
fn stateless_functions_answer_in_envelopes() {
    let t = ok(json_api::compute_thresholds(WINDOW));
    assert_eq!(
        (&t["warn"], &t["auto"], &t["hard"], &t["effectiveWindow"]),
        (
            &json!(147_000.0),
            &json!(167_000.0),
            &json!(177_000.0),
            &json!(180_000.0)
        )
    );
    assert_err(
        json_api::compute_thresholds(f64::NAN),
        "INVALID_WINDOW",
        "got NaN",
    );
    let thresholds = t.to_string();
    let tiers: Vec<Value> = [0.0, 147_000.0, 167_000.0, 177_000.0]
        .iter()
        .map(|&n| ok(json_api::current_tier(n, &thresholds)))
        .collect();
    assert_eq!(
        tiers,
        [json!("safe"), json!("warn"), json!("auto"), json!("hard")]
    );
    assert_err(
        json_api::current_tier(-5.0, &thresholds),
        "INVALID_ARGUMENT",
        "tokens",
    );
    assert_err(
        json_api::current_tier(5.0, r#""nope""#),
        "INVALID_ARGUMENT",
        "thresholds must be an object",
    );

    let hello = r#"[{"role":"user","parts":[{"text":"hello world"}]}]"#;
    assert_eq!(ok(json_api::estimate_content_tokens(hello, "")), json!(3.0));
    assert_eq!(
        ok(json_api::estimate_content_tokens(
            r#"[{"role":"user","parts":[{"inlineData":{"mimeType":"image/png","data":"AAAA"}}]}]"#,
            r#"{"imageTokenEstimate":258}"#
        )),
        json!(258.0)
    );
    assert_err(
        json_api::estimate_content_tokens(r#"[{"role":"user","parts":[{"text":1}]}]"#, ""),
        "INVALID_CONTENT",
        "contents[0].parts[0].text must be a string",
    );
    assert_err(
        json_api::estimate_content_tokens(r#""hello""#, ""),
        "INVALID_CONTENT",
        "contents must be an array",
    );
    assert_err(
        json_api::estimate_content_tokens("[", ""),
        "INVALID_CONTENT",
        "contents is not valid JSON text",
    );
    assert_eq!(
        ok(json_api::estimate_text_tokens("hello world", "")),
        json!(3.0)
    );
    assert_err(
        json_api::estimate_text_tokens("x", r#"{"estimator":"tiktoken"}"#),
        "INVALID_ARGUMENT",
        "options.estimator must be one of reference, calibrated, conservative",
    );
    assert_err(
        json_api::estimate_text_tokens("x", r#"{"foo":1}"#),
        "INVALID_ARGUMENT",
        "unknown field \"foo\"",
    );
    // The bare-number path gives the envelope's number, and NaN exactly
    // when the envelope is an error.
    for options in [
        "",
        r#"{"estimator":"reference"}"#,
        r#"{"estimator":"calibrated","tokenizer":"o200k"}"#,
        r#"{"estimator":"conservative","tokenizer":"claude"}"#,
    ] {
        for text in ["", "hello world", "fn main() { println!(\"日本語\"); }"] {
            let number = json_api::estimate_text_number(text, options);
            assert_eq!(
                ok(json_api::estimate_text_tokens(text, options)),
                json!(number),
                "{text:?} with {options:?}"
            );
        }
    }
    // One cache across calls whose options change, come back, and turn
    // invalid and valid again: every call as if uncached.
    let mut cache = json_api::TextOptionsCache::default();
    for options in [
        "",
        r#"{"estimator":"calibrated","tokenizer":"o200k"}"#,
        r#"{"estimator":"calibrated","tokenizer":"o200k"}"#,
        r#"{"estimator":"tiktoken"}"#,
        r#"{"estimator":"tiktoken"}"#,
        r#"{"estimator":"calibrated","tokenizer":"o200k"}"#,
        r#"{"estimator":"conservative","tokenizer":"claude"}"#,
        "",
    ] {
        for text in ["hello world", "日本語のテキスト", ""] {
            let cached = cache.estimate(text, options);
            let fresh = json_api::estimate_text_number(text, options);
            assert!(
                cached == fresh || (cached.is_nan() && fresh.is_nan()),
                "{text:?} with {options:?}: {cached} vs {fresh}"
            );
        }
    }
    for options in [r#"{"estimator":"tiktoken"}"#, r#"{"foo":1}"#, "[", "3"] {
        assert!(json_api::estimate_text_number("x", options).is_nan());
        assert!(json_api::estimate_text_tokens("x", options).starts_with(r#"{"error""#));
    }

    let history = format!(
        r#"[{{"role":"user","parts":[{{"text":"{}"}}]}}]"#,
        "x".repeat(4000)
    );
    let msg = r#"{"role":"user","parts":[{"text":"hello world"}]}"#;
    assert_eq!(
        ok(json_api::estimate_prompt_tokens(
            &history, msg, 50_000.0, ""
        )),
        json!(50_003.0)
    );
    assert_eq!(
        ok(json_api::estimate_prompt_tokens(&history, msg, 0.0, "")),
        json!(1003.0)
    );
    // With an anchor the history is not read: not even parsed.
    assert_eq!(
        ok(json_api::estimate_prompt_tokens("not json", msg, 10.0, "")),
        json!(13.0)
    );
    assert_err(
        json_api::estimate_prompt_tokens(&history, msg, -1.0, ""),
        "INVALID_ARGUMENT",
        "lastPromptTokenCount",
    );
    assert_err(
        json_api::estimate_prompt_tokens("[]", r#"{"role":5}"#, 0.0, ""),
        "INVALID_CONTENT",
        "userMessage.role",
    );

    let tip = ok(json_api::select_tip(
        r#"{"lastPromptTokenCount":150000,"contextWindowSize":200000}"#,
    ));
    assert_eq!(tip["id"], "context-warn");
    assert_eq!(
        ok(json_api::select_tip(r#"{"lastPromptTokenCount":1e9}"#)),
        Value::Null
    );
    assert_err(
        json_api::select_tip(r#"{"lastPromptTokenCount":1,"window":5}"#),
        "INVALID_ARGUMENT",
        "unknown field \"window\"",
    );

    let report = ok(json_api::context_report(150_000.0, WINDOW));
    assert_eq!(
        (
            &report["tier"],
            &report["percentUsed"],
            &report["tokensUntilAuto"],
            &report["showFooter"]
        ),
        (&json!("warn"), &json!(75.0), &json!(17_000.0), &json!(true))
    );
    let text = ok(json_api::format_context_report(150_000.0, WINDOW));
    assert!(
        text.as_str()
            .unwrap()
            .contains("Warn threshold:     147,000"),
        "{text}"
    );
    assert_err(
        json_api::format_context_report(-1.0, WINDOW),
        "INVALID_ARGUMENT",
        "tokens",
    );

    let loaded = ok(json_api::load_settings(
        r#"{"chatCompression":{"contextPercentageThreshold":0.5}}"#,
    ));
    assert_eq!(loaded["warnings"].as_array().unwrap().len(), 1);
    assert_eq!(
        loaded["settings"],
        json!({ "imageTokenEstimate": 1600.0, "excludeMessages": 2, "excludeContextWindowPercent": 2.0 })
    );
    assert_eq!(
        ok(json_api::load_settings(""))["settings"]["excludeMessages"],
        2
    );
    assert_err(
        json_api::load_settings(r#"{"compaction":{"excludeMessages":1.5}}"#),
        "INVALID_SETTINGS",
        "excludeMessages must be an integer",
    );
    assert_err(
        json_api::load_settings("{"),
        "INVALID_SETTINGS",
        "settings is not valid JSON",
    );

    let constants = ok(json_api::ladder_constants());
    assert_eq!(constants["pct"], json!(0.7));
    assert_eq!(constants["warnPctOffset"], json!(0.1));
    assert_eq!(constants["compactMaxOutputTokens"], json!(20_000));
    assert_eq!(constants["summaryReserve"], json!(20_000.0));
    assert_eq!(constants["autocompactBuffer"], json!(13_000.0));
    assert_eq!(constants["warnBuffer"], json!(20_000.0));
    assert_eq!(constants["hardBuffer"], json!(3_000.0));
    assert_eq!(constants["maxConsecutiveFailures"], json!(3));
    assert_eq!(constants["defaultImageTokenEstimate"], json!(1_600.0));
    assert_eq!(constants["summaryOpenTag"], "<conversation-summary>");
    assert_eq!(constants["summaryCloseTag"], "</conversation-summary>");
    assert!(
        constants["acknowledgement"]
            .as_str()
            .unwrap()
            .starts_with("Understood.")
    );
    assert!(
        constants["bridge"]
            .as_str()
            .unwrap()
            .starts_with("Continue")
    );
}

#[test]
fn lone_surrogates_count_as_the_replacement_character() {
    // JSON.stringify("a\ud800b") is "a\ud800b" with the escape: one code unit.
    let lone_high = r#"[{"role":"user","parts":[{"text":"abc\ud800"}]}]"#;
    let lone_low = r#"[{"role":"user","parts":[{"text":"\udc00abc"}]}]"#;
    let reversed = r#"[{"role":"user","parts":[{"text":"\udc00\ud800ab"}]}]"#;
    let pair = r#"[{"role":"user","parts":[{"text":"\ud83d\ude00ab"}]}]"#;
    for text in [lone_high, lone_low, reversed, pair] {
        // Four UTF-16 units ÷ 4 under the spec's rule.
        assert_eq!(
            ok(json_api::estimate_content_tokens(text, "")),
            json!(1.0),
            "{text}"
        );
    }
    // 8 units: a lone high surrogate right before an escaped character.
    let before_escape = r#"[{"role":"user","parts":[{"text":"\ud800\n\"abcde"}]}]"#;
    assert_eq!(
        ok(json_api::estimate_content_tokens(before_escape, "")),
        json!(2.0)
    );
    // An escaped backslash followed by "ud800" is text, not an escape.
    let literal = r#"[{"role":"user","parts":[{"text":"\\ud800"}]}]"#;
    assert_eq!(
        ok(json_api::estimate_content_tokens(literal, "")),
        json!(2.0)
    );
    // In a chat's history too: a compaction with one runs.
    let mut chats = Chats::new();
    let handle = chat_at(&mut chats, 170_000);
    let history = history_text().replacen("question 3", "question \\ud800", 1);
    assert!(history.contains("\\ud800"));
    let (id, request) = start(&mut chats, handle, &history);
    assert!(request.to_string().contains('\u{FFFD}'));
    let result = done(ok(chats.answer(handle, id, r#""summary""#)));
    assert_eq!(result["statusName"], "COMPRESSED");
}

#[test]
fn deep_nesting_is_a_typed_error_naming_the_path() {
    let deep = format!(
        r#"[{{"role":"user","parts":[{{"functionResponse":{{"name":"f","response":{}1{}}}}}]}}]"#,
        r#"{"a":"#.repeat(200),
        "}".repeat(200)
    );
    let (code, message) = err(json_api::estimate_content_tokens(&deep, ""));
    assert_eq!(code, "INVALID_CONTENT");
    assert!(
        message.starts_with("contents[0].parts[0].functionResponse..."),
        "{message}"
    );
    assert!(
        message.ends_with("nested more than 100 levels"),
        "{message}"
    );
    let deep_array = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    assert_err(
        json_api::select_tip(&deep_array),
        "INVALID_ARGUMENT",
        "context[0][0][0][0]...: nested more than 100 levels",
    );
    // Depth within the limit is fine.
    let ok_depth = format!(
        r#"[{{"role":"user","parts":[{{"functionResponse":{{"name":"f","response":{}1{}}}}}]}}]"#,
        r#"{"a":"#.repeat(90),
        "}".repeat(90)
    );
    assert!(
        ok(json_api::estimate_content_tokens(&ok_depth, ""))
            .as_f64()
            .unwrap()
            > 0.0
    );
}

#[test]
fn non_finite_markers_are_named_where_they_are_read() {
    let mut chats = Chats::new();
    assert_err(
        chats.create(r#"{"window":{"$nonFinite":"NaN"}}"#),
        "INVALID_WINDOW",
        "options.window must be a finite number of tokens >= 1, got NaN",
    );
    assert_err(
        chats.create(r#"{"window":{"$nonFinite":"Infinity"}}"#),
        "INVALID_WINDOW",
        "got Infinity",
    );
    assert_err(
        json_api::estimate_text_tokens("x", r#"{"imageTokenEstimate":{"$nonFinite":"-Infinity"}}"#),
        "INVALID_ARGUMENT",
        "options.imageTokenEstimate must be a finite number >= 1, got -Infinity",
    );
    assert_err(
        json_api::select_tip(r#"{"lastPromptTokenCount":{"$nonFinite":"NaN"}}"#),
        "INVALID_ARGUMENT",
        "context.lastPromptTokenCount must be a finite number of tokens >= 0, got NaN",
    );
    let handle = chat_at(&mut chats, 5_000);
    let update = ok(chats.report_usage(
        handle,
        r#"{"totalTokenCount":{"$nonFinite":"NaN"},"promptTokenCount":7000}"#,
    ));
    assert_eq!(update["taken"], true);
    assert_eq!(update["lastPromptTokenCount"], 7000);
    assert_eq!(
        update["ignored"],
        json!(["totalTokenCount must be a number of tokens >= 0, got NaN"])
    );
    // A marker where an object belongs is a number, not an object.
    assert_err(
        json_api::estimate_text_tokens("x", r#"{"$nonFinite":"NaN"}"#),
        "INVALID_ARGUMENT",
        "options must be an object, got NaN",
    );
    let mut state = ok(chats.save(handle));
    state["window"] = json!({ "$nonFinite": "Infinity" });
    assert_err(chats.restore(&state.to_string()), "INVALID_STATE", "window");
}

#[test]
fn create_reads_the_options_and_maps_the_deprecated_flag() {
    let mut chats = Chats::new();
    let created = ok(chats.create(r#"{"window":200000,"hasFailedCompressionAttempt":true}"#));
    assert_eq!(created["warnings"].as_array().unwrap().len(), 1);
    assert!(
        created["warnings"][0]
            .as_str()
            .unwrap()
            .contains("deprecated; pass consecutiveFailures")
    );
    let handle = created["handle"].as_u64().unwrap() as u32;
    assert_eq!(ok(chats.state(handle))["consecutiveFailures"], 3);
    let created = ok(chats.create(r#"{"window":200000,"hasFailedCompressionAttempt":false}"#));
    assert_eq!(
        ok(chats.state(created["handle"].as_u64().unwrap() as u32))["consecutiveFailures"],
        0
    );
    // The new option wins, without a warning.
    let created = ok(chats
        .create(r#"{"window":200000,"consecutiveFailures":2,"hasFailedCompressionAttempt":true}"#));
    assert_eq!(created["warnings"], json!([]));
    assert_eq!(
        ok(chats.state(created["handle"].as_u64().unwrap() as u32))["consecutiveFailures"],
        2
    );

    for (options, code, needle) in [
        (
            "",
            "INVALID_ARGUMENT",
            "options must be an object such as { window: 200000 }",
        ),
        ("[]", "INVALID_ARGUMENT", "options must be an object"),
        ("{}", "INVALID_ARGUMENT", "options.window is missing"),
        (
            r#"{"window":"big"}"#,
            "INVALID_ARGUMENT",
            "options.window must be a number, got the string \"big\"",
        ),
        (r#"{"window":0}"#, "INVALID_WINDOW", "got 0"),
        (r#"{"window":-1}"#, "INVALID_WINDOW", "finite number"),
        (
            r#"{"window":1e5,"excludeMessage":3}"#,
            "INVALID_ARGUMENT",
            "unknown field \"excludeMessage\"; expected one of window, consecutiveFailures",
        ),
        (
            r#"{"window":1e5,"imageTokenEstimate":0}"#,
            "INVALID_ARGUMENT",
            "imageTokenEstimate",
        ),
        (
            r#"{"window":1e5,"consecutiveFailures":1.5}"#,
            "INVALID_ARGUMENT",
            "options.consecutiveFailures must be an integer >= 0",
        ),
        (
            r#"{"window":1e5,"hasFailedCompressionAttempt":"yes"}"#,
            "INVALID_ARGUMENT",
            "must be a boolean",
        ),
        (
            r#"{"window":1e5,"excludeContextWindowPercent":101}"#,
            "INVALID_ARGUMENT",
            "from 0 to 100",
        ),
    ] {
        assert_err(chats.create(options), code, needle);
    }
}

#[test]
fn freed_and_unknown_handles_are_invalid_state() {
    let mut chats = Chats::new();
    let handle = chat_at(&mut chats, 1_000);
    assert_eq!(ok(chats.free(handle)), Value::Null);
    for envelope in [
        chats.save(handle),
        chats.state(handle),
        chats.usage(handle),
        chats.set_window(handle, 1e5),
        chats.report_usage(handle, "{}"),
        chats.needs_history(handle, USER_MESSAGE),
        chats.before_send(handle, "[]", USER_MESSAGE),
        chats.compact(handle, "[]", ""),
        chats.answer(handle, 1.0, r#""x""#),
        chats.fail(handle, 1.0, "x"),
        chats.abort(handle, 1.0),
        chats.free(handle),
    ] {
        assert_err(envelope, "INVALID_STATE", "this chat was freed");
    }
    assert_err(
        chats.state(0),
        "INVALID_STATE",
        "0 is not the handle of a chat",
    );
    assert_err(
        chats.state(99),
        "INVALID_STATE",
        "99 is not the handle of a chat",
    );
    // Handles are not reused.
    let next = chat_at(&mut chats, 1_000);
    assert!(next > handle);
}

#[test]
fn state_save_restore_and_usage() {
    let mut chats = Chats::new();
    let handle = chat_at(&mut chats, 168_000);
    let state = ok(chats.state(handle));
    assert_eq!(state["window"], json!(WINDOW));
    assert_eq!(state["thresholds"]["auto"], json!(167_000.0));
    assert_eq!(state["lastPromptTokenCount"], 168_000);
    assert_eq!(state["busy"], false);
    assert_eq!(ok(chats.usage(handle))["tier"], "auto");
    assert_eq!(ok(chats.set_window(handle, 1e6)), Value::Null);
    assert_eq!(ok(chats.usage(handle))["tier"], "safe");
    assert_err(chats.set_window(handle, f64::NAN), "INVALID_WINDOW", "NaN");
    assert_eq!(ok(chats.state(handle))["window"], json!(1e6));

    let saved = ok(chats.save(handle));
    let restored = ok(chats.restore(&saved.to_string()))["handle"]
        .as_u64()
        .unwrap() as u32;
    assert_eq!(ok(chats.save(restored)), saved);
    for (state, needle) in [
        ("", "saved state is not valid JSON"),
        ("\"garbage\"", "saved state must be the object"),
        (r#"{"version":1}"#, "saved state.window is missing"),
    ] {
        assert_err(chats.restore(state), "INVALID_STATE", needle);
    }
    let update = ok(chats.report_usage(
        handle,
        r#"{"totalTokenCount":-5,"promptTokenCount":"many"}"#,
    ));
    assert_eq!(update["taken"], false);
    assert_eq!(update["ignored"].as_array().unwrap().len(), 2);
    assert_eq!(ok(chats.report_usage(handle, ""))["taken"], false);
    assert_err(
        chats.report_usage(handle, "{"),
        "INVALID_ARGUMENT",
        "usage is not valid JSON",
    );

    assert_eq!(ok(chats.needs_history(handle, USER_MESSAGE)), json!(false));
    assert_err(
        chats.needs_history(handle, "{}"),
        "INVALID_CONTENT",
        "userMessage.role is missing",
    );
}

#[test]
fn before_send_without_the_history_asks_for_it_only_when_it_needs_it() {
    let mut chats = Chats::new();
    // An ordinary turn (usage reported, far below auto): one call that
    // never reads a history, and the same NOOP as with one.
    let handle = chat_at(&mut chats, 1_000);
    let without = ok(chats.before_send(handle, "", USER_MESSAGE));
    assert_eq!(without["done"]["status"], 5, "{without}");
    let with = ok(chats.before_send(handle, "[]", USER_MESSAGE));
    assert_eq!(without, with);
    // A resumed session (no usage yet): the history is needed, nothing
    // changes until it comes.
    let created = ok(chats.create(r#"{"window":200000}"#));
    let resumed = created["handle"].as_u64().unwrap() as u32;
    let state = ok(chats.state(resumed));
    assert_eq!(
        ok(chats.before_send(resumed, "", USER_MESSAGE)),
        json!({ "needHistory": true })
    );
    assert_eq!(ok(chats.state(resumed)), state);
    let history = format!("[{USER_MESSAGE}]");
    assert_eq!(
        ok(chats.before_send(resumed, &history, USER_MESSAGE))["done"]["status"],
        5
    );
    // At auto too, and a bad message is still its own error.
    let due = chat_at(&mut chats, 170_000);
    assert_eq!(
        ok(chats.before_send(due, "", USER_MESSAGE)),
        json!({ "needHistory": true })
    );
    assert_err(
        chats.before_send(due, "", "{}"),
        "INVALID_CONTENT",
        "userMessage.role is missing",
    );
}

#[test]
fn compressed_gives_the_head_and_where_the_kept_tail_starts() {
    let mut chats = Chats::new();
    let handle = chat_at(&mut chats, 170_000);
    let history_text = history_text();
    let history: Vec<Value> = history_text
        .parse::<Value>()
        .unwrap()
        .as_array()
        .unwrap()
        .clone();
    let (id, request) = start(&mut chats, handle, &history_text);
    assert_eq!(request["config"]["maxOutputTokens"], 20_000);
    assert_eq!(
        request["config"]["thinkingConfig"]["includeThoughts"],
        false
    );
    assert_eq!(ok(chats.state(handle))["busy"], true);
    let answer = json!({ "text": "## Task status\n- done", "finishReason": "STOP" });
    let result = done(ok(chats.answer(handle, id, &answer.to_string())));
    assert_eq!(result["status"], 1);
    assert_eq!(result["statusName"], "COMPRESSED");
    assert_eq!(result["trigger"], "auto");
    assert_eq!(result["forced"], false);
    // The model's summary, then the ledger's section (the questions asked).
    let summary = result["summary"].as_str().unwrap();
    assert!(summary.starts_with("## Task status\n- done\n\n## Recorded by compaction"));
    assert!(result.get("cause").is_none());
    assert!(result.get("history").is_none() && result.get("replaced").is_none());
    let kept_from = result["keptFrom"].as_u64().unwrap() as usize;
    assert_eq!(kept_from, 36);
    let head = result["head"].as_array().unwrap();
    // Summary and acknowledgement; the tail starts with a user turn, no bridge.
    assert_eq!(head.len(), 2);
    assert_eq!(head[0]["role"], "user");
    assert!(head[0].to_string().contains("<conversation-summary>"));
    assert_eq!(head[1]["role"], "model");
    let new_history: Vec<Value> = head.iter().chain(&history[kept_from..]).cloned().collect();
    let state = ok(chats.state(handle));
    assert_eq!(state["busy"], false);
    assert_eq!(state["lastPromptTokenCount"], result["newTokenCount"]);
    // Without usage from the call: the usage-gap model with nothing
    // declared, where the provider's count (170 000) scales the estimate of
    // what is kept.
    let estimate = |messages: &[Value]| {
        ok(json_api::estimate_content_tokens(
            &messages.to_json_string(),
            r#"{"estimator":"reference"}"#,
        ))
        .as_f64()
        .unwrap()
    };
    let ratio = 170_000.0 / estimate(&history);
    let expected = ratio * estimate(&new_history);
    assert!((result["newTokenCount"].as_f64().unwrap() - expected).abs() <= ratio + 1.0);
    assert_eq!(result["newTokenCountEstimated"], true);
}

#[test]
fn a_tail_starting_with_a_model_turn_gets_the_bridge_in_the_head() {
    let mut chats = Chats::new();
    let handle = chat_at(&mut chats, 170_000);
    // An agent loop under one request: the cut falls on a model turn.
    let mut history = vec![json!({ "role": "user", "parts": [{ "text": "do it all" }] })];
    for i in 0..40 {
        history.push(json!({ "role": "model", "parts": [{ "functionCall": { "name": format!("f{i}"), "args": {} } }] }));
        history.push(json!({ "role": "user", "parts": [{ "functionResponse": { "name": format!("f{i}"), "response": { "output": "o".repeat(8000) } } }] }));
    }
    let text = history.to_json_string();
    let (id, _) = start(&mut chats, handle, &text);
    let result = done(ok(chats.answer(handle, id, r#""summary""#)));
    assert_eq!(result["statusName"], "COMPRESSED");
    let kept_from = result["keptFrom"].as_u64().unwrap() as usize;
    assert_eq!(history[kept_from]["role"], "model");
    let head = result["head"].as_array().unwrap();
    assert_eq!(head.len(), 3);
    assert_eq!(
        head[2]["parts"][0]["text"],
        ok(json_api::ladder_constants())["bridge"]
    );
}

#[test]
fn every_failure_is_a_result_without_a_head() {
    /// An answer, the status it gives, and the cause's code and text.
    type Case<'a> = (&'a str, &'a str, Option<(&'a str, &'a str)>);
    let cases: [Case; 8] = [
        (r#"{"text":"   \n"}"#, "EMPTY_SUMMARY", None),
        (
            r#"{"text":"partial","finishReason":"MAX_TOKENS"}"#,
            "OUTPUT_TRUNCATED",
            None,
        ),
        (
            r#"{"text":"partial","finishReason":"length"}"#,
            "OUTPUT_TRUNCATED",
            None,
        ),
        (
            r#"{"text":"partial","finishReason":"SAFETY"}"#,
            "SUMMARIZER_FAILED",
            Some(("INVALID_ANSWER", "finish reason \"SAFETY\"")),
        ),
        (
            r#"{"summary":"wrong field"}"#,
            "SUMMARIZER_FAILED",
            Some(("INVALID_ANSWER", "the answer has no text")),
        ),
        (
            "42",
            "SUMMARIZER_FAILED",
            Some(("INVALID_ANSWER", "or a string, got the number 42")),
        ),
        (
            "",
            "SUMMARIZER_FAILED",
            Some(("INVALID_ANSWER", "got undefined")),
        ),
        (
            "{nope",
            "SUMMARIZER_FAILED",
            Some(("INVALID_ANSWER", "the answer is not valid JSON")),
        ),
    ];
    let history = history_text();
    for (answer, status, cause) in cases {
        let mut chats = Chats::new();
        let handle = chat_at(&mut chats, 168_000);
        let (id, _) = start(&mut chats, handle, &history);
        let result = done(ok(chats.answer(handle, id, answer)));
        assert_eq!(result["statusName"], status, "{answer}");
        assert!(result.get("head").is_none(), "{answer}");
        assert_eq!(result["summary"], Value::Null);
        assert_eq!(
            result["consecutiveFailures"], 1,
            "{answer}: a non-forced failure counts"
        );
        assert_eq!(ok(chats.state(handle))["lastPromptTokenCount"], 168_000);
        match cause {
            Some((code, needle)) => {
                assert_eq!(result["cause"]["code"], code, "{answer}");
                let message = result["cause"]["message"].as_str().unwrap();
                assert!(message.contains(needle), "{answer}: {message}");
            }
            None => assert!(result.get("cause").is_none(), "{answer}"),
        }
    }
    // An inflated summary.
    let mut chats = Chats::new();
    let handle = chat_at(&mut chats, 168_000);
    let (id, _) = start(&mut chats, handle, &history);
    let huge = "x".repeat(2_000_000).to_json_string();
    let result = done(ok(chats.answer(handle, id, &huge)));
    assert_eq!(result["statusName"], "INFLATED");
    assert_eq!(result["status"], 2);
    assert!(
        result["newTokenCount"].as_f64().unwrap() > result["originalTokenCount"].as_f64().unwrap()
    );
    // The host's callback failed.
    let (id, _) = start(&mut chats, handle, &history);
    let result = done(ok(chats.fail(handle, id, "quota exceeded")));
    assert_eq!(result["statusName"], "SUMMARIZER_FAILED");
    assert_eq!(result["cause"], json!({ "message": "quota exceeded" }));
    assert_eq!(result["consecutiveFailures"], 2);
}

#[test]
fn abort_noop_and_manual_runs() {
    let mut chats = Chats::new();
    let handle = chat_at(&mut chats, 168_000);
    let history = history_text();
    let (id, _) = start(&mut chats, handle, &history);
    let result = done(ok(chats.abort(handle, id)));
    assert_eq!(result["statusName"], "ABORTED");
    assert_eq!(result["status"], 8);
    assert_eq!(result["consecutiveFailures"], 0);
    assert!(result.get("cause").is_none() && result.get("head").is_none());
    assert_eq!(ok(chats.state(handle))["busy"], false);

    // Below auto: done at once, and the history is not even parsed.
    let low = chat_at(&mut chats, 100_000);
    let result = done(ok(chats.before_send(low, "[not json", USER_MESSAGE)));
    assert_eq!(result["statusName"], "NOOP");
    assert_eq!(result["noopReason"], "belowAuto");
    assert_eq!(result["trigger"], Value::Null);
    assert_err(
        chats.before_send(low, "\"not an array\"", USER_MESSAGE),
        "INVALID_CONTENT",
        "history must be an array of messages, got the string",
    );

    // Manual: forced, with the focus; a failure is not counted.
    let (id, request) = {
        let step = ok(chats.compact(low, &history, "keep the API decisions"));
        (
            step["summarize"]["id"].as_f64().unwrap(),
            step["summarize"]["request"].clone(),
        )
    };
    assert!(
        request["systemInstruction"]
            .as_str()
            .unwrap()
            .ends_with("keep the API decisions")
    );
    let result = done(ok(chats.fail(low, id, "x")));
    assert_eq!(result["trigger"], "manual");
    assert_eq!(result["forced"], true);
    assert_eq!(result["consecutiveFailures"], 0);
    let result = done(ok(chats.compact(low, "[]", "")));
    assert_eq!(result["noopReason"], "nothingToCompress");
}

#[test]
fn busy_while_in_flight_and_stale_ids_change_nothing() {
    let mut chats = Chats::new();
    let handle = chat_at(&mut chats, 168_000);
    let other = chat_at(&mut chats, 168_000);
    let history = history_text();
    let (id, _) = start(&mut chats, handle, &history);
    assert_err(
        chats.before_send(handle, &history, USER_MESSAGE),
        "BUSY",
        "in flight",
    );
    assert_err(chats.compact(handle, &history, ""), "BUSY", "in flight");
    // Reads and usage work meanwhile; another chat is not affected.
    assert_eq!(ok(chats.usage(handle))["tokens"], json!(168_000.0));
    assert!(ok(chats.save(handle))["version"].is_number());
    let (other_id, _) = start(&mut chats, other, &history);
    assert_eq!(
        done(ok(chats.abort(other, other_id)))["statusName"],
        "ABORTED"
    );
    // Wrong ids: STALE_REQUEST, the request stays in flight.
    assert_err(
        chats.answer(handle, id + 1.0, r#""x""#),
        "STALE_REQUEST",
        "is not pending",
    );
    assert_err(
        chats.fail(handle, id + 1.0, "x"),
        "STALE_REQUEST",
        "is not pending",
    );
    assert_err(
        chats.abort(handle, id + 1.0),
        "STALE_REQUEST",
        "is not pending",
    );
    assert_err(
        chats.answer(handle, 0.5, r#""x""#),
        "INVALID_ARGUMENT",
        "got 0.5",
    );
    assert_err(
        chats.answer(handle, f64::NAN, r#""x""#),
        "INVALID_ARGUMENT",
        "got NaN",
    );
    assert_eq!(ok(chats.state(handle))["busy"], true);
    let result = done(ok(chats.answer(handle, id, r#""done summary""#)));
    assert_eq!(result["statusName"], "COMPRESSED");
    // Answered once: a second answer is stale.
    assert_err(
        chats.answer(handle, id, r#""again""#),
        "STALE_REQUEST",
        "no request is in flight",
    );
}

#[test]
fn huge_counts_are_clamped_listed_and_still_compact() {
    let mut chats = Chats::new();
    let handle = chat_at(&mut chats, 1_000);
    let update = ok(chats.report_usage(handle, r#"{"totalTokenCount":1e20}"#));
    assert_eq!(update["lastPromptTokenCount"], 9_007_199_254_740_991_u64);
    assert_eq!(update["ignored"].as_array().unwrap().len(), 1);
    assert_eq!(ok(chats.usage(handle))["tier"], "hard");
    // The check agrees with the indicator: the chat compacts, forced.
    let (id, _) = start(&mut chats, handle, &history_text());
    let result = done(ok(chats.abort(handle, id)));
    assert_eq!(result["trigger"], "hard");
    // And the state with that count restores.
    let saved = chats.save(handle);
    let saved = ok(saved).to_string();
    let restored = ok(chats.restore(&saved))["handle"].as_u64().unwrap() as u32;
    assert_eq!(ok(chats.save(restored)).to_string(), saved);
    assert_eq!(
        ok(json_api::estimate_prompt_tokens(
            "[]",
            USER_MESSAGE,
            1e300,
            ""
        )),
        // The one clamp of every count (issue 19), not 2^64.
        json!(9_007_199_254_740_991_u64)
    );
}

#[test]
fn malformed_and_deep_states_are_invalid_state() {
    let mut chats = Chats::new();
    let deep = format!("{}{}", r#"{"options":"#.repeat(300), "}".repeat(300));
    assert_err(
        chats.restore(&deep),
        "INVALID_STATE",
        "saved state.options.options.options.options...: nested more than 100 levels",
    );
    for state in [
        "",
        "[]",
        "null",
        "1",
        "{",
        r#"{"version":"1"}"#,
        "\"\\ud800\"",
    ] {
        let (code, _) = err(chats.restore(state));
        assert_eq!(code, "INVALID_STATE", "{state}");
    }
}

/// The quoted names in the TypeScript union that follows `start` in
/// `src/wasm/types.d.ts`, up to the end of the declaration (`;`).
fn ts_union(start: &str) -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/wasm/types.d.ts");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let at = text
        .find(start)
        .unwrap_or_else(|| panic!("{start:?} is not in types.d.ts"));
    let rest = &text[at + start.len()..];
    let end = rest.find(';').unwrap_or(rest.len());
    rest[..end]
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

fn sorted(mut names: Vec<String>) -> Vec<String> {
    names.sort();
    names
}

#[test]
fn the_typescript_declarations_name_every_code_status_tier_estimator_tokenizer_and_format() {
    use compaction_core::{CompactionStatus, ErrorCode, Estimator, Format, Tier, TokenizerFamily};
    let names = |list: Vec<&str>| sorted(list.into_iter().map(str::to_string).collect());
    assert_eq!(
        sorted(ts_union("export type CompactionErrorCode =")),
        names(ErrorCode::ALL.iter().map(|c| c.as_str()).collect())
    );
    assert_eq!(
        sorted(ts_union("statusName:")),
        names(CompactionStatus::ALL.iter().map(|s| s.as_str()).collect())
    );
    assert_eq!(
        sorted(ts_union("export type Tier =")),
        names(Tier::ALL.iter().map(|t| t.as_str()).collect())
    );
    assert_eq!(
        sorted(ts_union("export type Estimator =")),
        names(Estimator::ALL.iter().map(|e| e.name()).collect())
    );
    assert_eq!(
        sorted(ts_union("export type TokenizerFamily =")),
        names(TokenizerFamily::ALL.iter().map(|t| t.name()).collect())
    );
    assert_eq!(
        sorted(ts_union("export type MessageFormat =")),
        names(Format::ALL.iter().map(|f| f.name()).collect())
    );
}

/// `text` with a few random edits: cuts, inserted JSON punctuation, lone
/// surrogates, markers, deep nesting, huge and odd numbers.
fn mutate(rng: &mut Rng, text: &str) -> String {
    const PIECES: [&str; 16] = [
        "{",
        "}",
        "[",
        "]",
        "\"",
        ",",
        ":",
        "\\",
        "\\ud800",
        "\\udc00",
        "null",
        "-1e400",
        "1e20",
        "{\"$nonFinite\":\"NaN\"}",
        "\u{FFFD}",
        "[[[[[[[[[[[[[[[[[[[[",
    ];
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..=rng.below(3) {
        let at = rng.below(chars.len() + 1);
        match rng.below(3) {
            0 => chars.truncate(at),
            1 => {
                let piece = PIECES[rng.below(PIECES.len())];
                chars.splice(at..at, piece.chars());
            }
            _ => {
                if at < chars.len() {
                    chars.remove(at);
                }
            }
        }
    }
    chars.into_iter().collect()
}

#[test]
fn no_input_breaks_the_envelope_or_the_registry() {
    let history = conversation(6, 400).to_json_string();
    let seeds = [
        history.as_str(),
        USER_MESSAGE,
        r#"{"window":200000,"estimator":"reference","excludeMessages":1}"#,
        r#"{"totalTokenCount":170000,"promptTokenCount":1}"#,
        r#"{"text":"summary","finishReason":"STOP","usage":{"output_tokens":3}}"#,
        r#"{"lastPromptTokenCount":150000,"contextWindowSize":200000,"lastShown":{"a":1}}"#,
        r#"{"chatCompression":{"imageTokenEstimate":2},"compaction.excludeMessages":3}"#,
        r#"{"version":1,"window":1000,"options":{},"consecutiveFailures":0,"lastPromptTokenCount":0,"nextRequestId":1}"#,
        r#"{"warn":1,"auto":2,"hard":3}"#,
        "",
        "\"\\ud800\"",
    ];
    let numbers = [
        0.0,
        1.0,
        -1.0,
        0.5,
        5e-324,
        1e21,
        f64::MAX,
        f64::NAN,
        f64::INFINITY,
    ];
    let codes: Vec<&str> = compaction_core::ErrorCode::ALL
        .iter()
        .map(|c| c.as_str())
        .collect();
    let check = |envelope: String| -> Value {
        let value: Value = envelope
            .parse::<Value>()
            .unwrap_or_else(|e| panic!("not JSON ({e}): {envelope}"));
        let object = value.as_object().expect("an object");
        assert_eq!(object.len(), 1, "{envelope}");
        if let Some(error) = object.get("error") {
            let code = error["code"].as_str().expect("a code");
            assert!(codes.contains(&code), "{envelope}");
            assert!(!error["message"].as_str().expect("a message").is_empty());
        } else {
            assert!(object.contains_key("ok"), "{envelope}");
        }
        value
    };
    let mut rng = Rng(0x0123_4567_89AB_CDEF);
    let mut chats = Chats::new();
    let mut handles: Vec<u32> = vec![0];
    let mut ids: Vec<f64> = vec![1.0];
    let mut statuses = std::collections::BTreeSet::new();
    for _ in 0..4 {
        let created = check(chats.create(seeds[2]));
        let handle = created["ok"]["handle"].as_u64().unwrap() as u32;
        check(chats.report_usage(handle, seeds[3]));
        handles.push(handle);
    }
    for _ in 0..3_000 {
        let op = rng.pick(&[
            "thresholds",
            "tier",
            "content",
            "text",
            "prompt",
            "tip",
            "report",
            "format",
            "settings",
            "create",
            "restore",
            "free",
            "save",
            "state",
            "window",
            "usage",
            "report_usage",
            "needs",
            "before",
            "compact",
            "answer",
            "fail",
            "abort",
        ]);
        // The input each operation expects, as is half of the time.
        let (natural, natural_other) = match op {
            "tier" => (8, 9),
            "content" | "prompt" | "before" | "compact" => (0, 1),
            "tip" => (5, 9),
            "settings" => (6, 9),
            "create" => (2, 9),
            "restore" => (7, 9),
            "report_usage" => (3, 9),
            "needs" => (1, 9),
            "answer" => (4, 9),
            _ => (rng.below(seeds.len()), 9),
        };
        let as_is = rng.below(2) == 0;
        let seed = seeds[if as_is {
            natural
        } else {
            rng.below(seeds.len())
        }];
        let text = if as_is {
            seed.to_string()
        } else {
            mutate(&mut rng, seed)
        };
        let other = if rng.below(2) == 0 {
            seeds[natural_other].to_string()
        } else {
            let other_seed = seeds[rng.below(seeds.len())];
            mutate(&mut rng, other_seed)
        };
        let n = numbers[rng.below(numbers.len())];
        let handle = handles[rng.below(handles.len())];
        let id = ids[rng.below(ids.len())];
        let value = check(match op {
            "thresholds" => json_api::compute_thresholds(n),
            "tier" => json_api::current_tier(n, &text),
            "content" => json_api::estimate_content_tokens(&text, &other),
            "text" => json_api::estimate_text_tokens(&text, &other),
            "prompt" => json_api::estimate_prompt_tokens(&text, &other, n, ""),
            "tip" => json_api::select_tip(&text),
            "report" => json_api::context_report(n, numbers[rng.below(numbers.len())]),
            "format" => json_api::format_context_report(n, numbers[rng.below(numbers.len())]),
            "settings" => json_api::load_settings(&text),
            "create" => chats.create(&text),
            "restore" => chats.restore(&text),
            "free" => chats.free(handle),
            "save" => chats.save(handle),
            "state" => chats.state(handle),
            "window" => chats.set_window(handle, n),
            "usage" => chats.usage(handle),
            "report_usage" => chats.report_usage(handle, &text),
            "needs" => chats.needs_history(handle, &text),
            "before" => chats.before_send(handle, &text, if as_is { USER_MESSAGE } else { &other }),
            "compact" => chats.compact(handle, &text, &other),
            "answer" => chats.answer(handle, id, &text),
            "fail" => chats.fail(handle, id, &text),
            _ => chats.abort(handle, id),
        });
        let ok = &value["ok"];
        if let Some(h) = ok.get("handle").and_then(Value::as_u64) {
            handles.push(h as u32);
        }
        if let Some(i) = ok.pointer("/summarize/id").and_then(Value::as_f64) {
            ids.push(i);
        }
        if let Some(result) = ok.get("done") {
            // Only COMPRESSED has a head, only SUMMARIZER_FAILED a cause.
            let status = result["statusName"].as_str().unwrap();
            statuses.insert(status.to_string());
            assert_eq!(
                result.get("head").is_some(),
                status == "COMPRESSED",
                "{result}"
            );
            assert!(result.get("cause").is_none() || status == "SUMMARIZER_FAILED");
        }
        // Every saved state restores to the same state.
        if op == "save" && ok.is_object() {
            let restored = check(chats.restore(&ok.to_string()));
            let handle = restored["ok"]["handle"].as_u64().unwrap() as u32;
            assert_eq!(&check(chats.save(handle))["ok"], ok);
        }
    }
    assert!(handles.len() > 10, "some chats were made");
    assert!(ids.len() > 1, "some compactions started");
    for status in ["COMPRESSED", "SUMMARIZER_FAILED", "ABORTED", "NOOP"] {
        assert!(
            statuses.contains(status),
            "{status} never came: {statuses:?}"
        );
    }
}
