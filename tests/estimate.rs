//! Token estimation per part kind, both prompt paths, the estimators and their options.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests assert on data they built
use compaction_core::json;
use compaction_core::{
    Content, ErrorCode, EstimateOptions, compute_thresholds, estimate_content_tokens,
    estimate_prompt_tokens,
};
use compaction_core::{ToJson, Value};

fn msgs(value: Value) -> Vec<Content> {
    Content::list_from_value(value, "history").unwrap()
}

fn est(value: Value) -> u64 {
    estimate_content_tokens(&msgs(value), &EstimateOptions::default())
}

#[test]
fn text_counts_characters_over_four_rounded_up_once() {
    assert_eq!(
        est(json!([{ "role": "user", "parts": [{ "text": "hello world" }] }])),
        3
    );
    // 4 + 8 = 12 characters → 3, not ceil(1) + ceil(2) per part.
    assert_eq!(
        est(json!([{ "role": "user", "parts": [{ "text": "aaaa" }, { "text": "bbbbbbbb" }] }])),
        3
    );
    assert_eq!(
        est(
            json!([{ "role": "user", "parts": [{ "text": "a" }] }, { "role": "model", "parts": [{ "text": "b" }] }])
        ),
        1
    );
    assert_eq!(est(json!([])), 0);
    assert_eq!(est(json!([{ "role": "user", "parts": [] }])), 0);
    assert_eq!(est(json!([{ "role": "user" }])), 0);
}

#[test]
fn thought_parts_count_as_text_and_signatures_do_not() {
    let n = est(json!([{ "role": "model", "parts": [
        { "text": "12345678", "thought": true, "thoughtSignature": "c2lnbmF0dXJlIHRoYXQgaXMgbm90IHRleHQ=" }
    ] }]));
    assert_eq!(n, 2);
}

#[test]
fn images_and_documents_count_a_fixed_budget() {
    let image = json!([{ "role": "user", "parts": [{ "inlineData": { "mimeType": "image/png", "data": "iVBORw0KGgo=".repeat(1000) } }] }]);
    assert_eq!(est(image.clone()), 1_600);
    let doc = json!([{ "role": "user", "parts": [{ "fileData": { "mimeType": "application/pdf", "fileUri": "gs://b/f.pdf" } }] }]);
    assert_eq!(est(doc), 1_600);
    let custom = EstimateOptions {
        image_token_estimate: 258.0,
        ..Default::default()
    };
    assert_eq!(estimate_content_tokens(&msgs(image), &custom), 258);
    // Images add to text before the single rounding.
    let mixed = json!([{ "role": "user", "parts": [{ "text": "abc" }, { "inlineData": { "mimeType": "image/jpeg", "data": "" } }] }]);
    assert_eq!(est(mixed), 1_601);
}

#[test]
fn function_calls_and_responses_count_json_over_two() {
    let call = json!({ "name": "read_file", "args": { "path": "src/main.rs" } });
    let call_len = call.to_string().len() as u64; // ASCII: bytes == UTF-16 units
    assert_eq!(
        call.to_string(),
        r#"{"name":"read_file","args":{"path":"src/main.rs"}}"#
    );
    assert_eq!(call_len, 50);
    assert_eq!(
        est(json!([{ "role": "model", "parts": [{ "functionCall": call }] }])),
        call_len.div_ceil(2)
    );

    let response =
        json!({ "id": "c1", "name": "read_file", "response": { "output": "fn main() {}\n" } });
    let response_len = response.to_string().len() as u64;
    assert_eq!(
        est(json!([{ "role": "user", "parts": [{ "functionResponse": response }] }])),
        response_len.div_ceil(2)
    );
}

#[test]
fn media_nested_in_a_tool_result_counts_as_media() {
    let response = json!({ "name": "screenshot", "response": { "output": "ok" } });
    let base = response.to_string().len() as f64 / 2.0;
    let mut with_image = response.clone();
    with_image["parts"] =
        json!([{ "inlineData": { "mimeType": "image/png", "data": "A".repeat(400_000) } }]);
    let n = est(json!([{ "role": "user", "parts": [{ "functionResponse": with_image }] }]));
    assert_eq!(n, (base + 1_600.0).ceil() as u64);
}

#[test]
fn unknown_parts_and_fields_are_counted_by_their_json() {
    let part = json!({ "executableCode": { "language": "PYTHON", "code": "print(1)" } });
    let len = part.to_string().len() as f64;
    assert_eq!(
        est(json!([{ "role": "model", "parts": [part] }])),
        (len / 4.0).ceil() as u64
    );
    // An unknown field beside a known payload is counted too, never dropped as 0.
    let n = est(
        json!([{ "role": "user", "parts": [{ "text": "abcd", "videoMetadata": { "startOffset": "1s" } }] }]),
    );
    let extra = json!({ "videoMetadata": { "startOffset": "1s" } })
        .to_string()
        .len() as f64;
    assert_eq!(n, ((4.0 + extra) / 4.0).ceil() as u64);
}

#[test]
fn text_is_counted_in_utf16_units() {
    // "😀" is a surrogate pair: 2 units, like JavaScript's length.
    assert_eq!(
        est(json!([{ "role": "user", "parts": [{ "text": "😀😀" }] }])),
        1
    );
    assert_eq!(compaction_core::estimate::utf16_len("😀😀"), 4);
    // CJK characters are one unit each.
    assert_eq!(compaction_core::estimate::utf16_len("你好世界"), 4);
    assert_eq!(
        est(json!([{ "role": "user", "parts": [{ "text": "你好世界你" }] }])),
        2
    );
    // JSON lengths too: an emoji in arguments counts 2 units.
    let call = json!({ "name": "say", "args": { "text": "😀" } });
    let units = compaction_core::estimate::utf16_len(&call.to_string()) as u64;
    assert_eq!(units, call.to_string().len() as u64 - 2);
    assert_eq!(
        est(json!([{ "role": "model", "parts": [{ "functionCall": call }] }])),
        units.div_ceil(2)
    );
}

#[test]
fn json_length_matches_javascript_escaping() {
    // Quotes, backslashes and control characters are escaped as JSON.stringify does.
    let call = json!({ "name": "echo", "args": { "s": "a\"b\\c\nd\u{1}" } });
    let text = call.to_string();
    assert!(text.contains(r#"a\"b\\c\nd\u0001"#), "{text}");
    let map = call.as_object().unwrap();
    assert_eq!(compaction_core::estimate::json_utf16_len(map), text.len());
}

#[test]
fn prompt_estimate_uses_the_usage_anchor_when_there_is_one() {
    let history = msgs(json!([{ "role": "user", "parts": [{ "text": "x".repeat(4_000) }] }]));
    let user = Content::text("user", "hello world");
    let opts = EstimateOptions::default();
    // Anchor path: the history is not looked at.
    assert_eq!(
        estimate_prompt_tokens(&history, &user, 50_000, &opts),
        50_003
    );
    // First send of a resumed session: the whole history plus the message.
    assert_eq!(
        estimate_prompt_tokens(&history, &user, 0, &opts),
        (4_011_f64 / 4.0).ceil() as u64
    );
}

#[test]
fn a_huge_usage_anchor_saturates_instead_of_wrapping() {
    // Adding the message must keep the prompt huge (it once wrapped to the
    // message's 3 tokens, and panicked natively), held at the one clamp of
    // every count, 2^53 − 1.
    let user = Content::text("user", "hello world");
    for options in [
        EstimateOptions::default(),
        EstimateOptions::for_thresholds(compaction_core::TokenizerFamily::Universal),
    ] {
        assert_eq!(
            estimate_prompt_tokens(&[], &user, u64::MAX, &options),
            compaction_core::usage::MAX_COUNT
        );
        assert_eq!(
            estimate_prompt_tokens(&[], &user, u64::MAX - 1, &options),
            compaction_core::usage::MAX_COUNT
        );
    }
}

#[test]
fn a_large_user_message_crosses_auto_in_the_cheap_gate() {
    let t = compute_thresholds(128_000.0).unwrap(); // auto = 95 000
    let last = 90_000;
    assert!((last as f64) < t.auto);
    let pasted = Content::text("user", "y".repeat(24_000)); // 6 000 tokens
    let estimate = estimate_prompt_tokens(&[], &pasted, last, &EstimateOptions::default());
    assert_eq!(estimate, 96_000);
    assert!(estimate as f64 >= t.auto);
}

#[test]
fn malformed_messages_are_typed_errors_that_say_where() {
    let cases = [
        (json!({ "role": "user" }), "history must be an array"),
        (json!([42]), "history[0] must be a message object"),
        (json!([{ "parts": [] }]), "history[0].role is missing"),
        (
            json!([{ "role": 1, "parts": [] }]),
            "history[0].role must be a non-empty string",
        ),
        (
            json!([{ "role": "user", "parts": "hi" }]),
            "history[0].parts must be an array",
        ),
        (
            json!([{ "role": "user", "parts": [{ "text": 5 }] }]),
            "history[0].parts[0].text must be a string",
        ),
        (
            json!([{ "role": "user", "parts": [null] }]),
            "history[0].parts[0] must be an object",
        ),
        (
            json!([{ "role": "model", "parts": [{ "functionCall": "x" }] }]),
            "history[0].parts[0].functionCall must be an object",
        ),
        (
            json!([{ "role": "model", "parts": [{ "functionCall": { "name": 3 } }] }]),
            "functionCall.name must be a string",
        ),
    ];
    for (value, expected) in cases {
        let err = Content::list_from_value(value, "history").unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidContent);
        assert!(
            err.message().contains(expected),
            "{} does not contain {expected}",
            err.message()
        );
    }
}

#[test]
fn bad_image_estimates_are_rejected() {
    for v in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let opts = EstimateOptions {
            image_token_estimate: v,
            ..Default::default()
        };
        assert_eq!(
            opts.validate().unwrap_err().code(),
            ErrorCode::InvalidArgument
        );
    }
}

#[test]
fn parts_round_trip_with_their_field_order() {
    let value = json!([{ "role": "model", "parts": [
        { "thoughtSignature": "sig", "functionCall": { "name": "a", "id": "1", "args": { "z": 1, "a": 2 } } }
    ] }]);
    let contents = msgs(value.clone());
    assert_eq!(contents.to_json_string(), value.to_string());
}

/// One clamp for every count (issue 19, defect 4): a prompt estimate over a
/// usage count near the top is held at 2^53 − 1, as usage counts are, never
/// at 2^64 (which JS reads as a larger number than the count it was given).
#[test]
fn a_prompt_estimate_is_clamped_at_2_to_the_53_minus_1_like_every_count() {
    let max = compaction_core::usage::MAX_COUNT;
    let message = Content::text("user", "hello world");
    let options = EstimateOptions::default();
    for last in [max, max - 1, max + 1, u64::MAX / 2, u64::MAX] {
        assert_eq!(
            estimate_prompt_tokens(&[], &message, last, &options),
            max,
            "last {last}"
        );
    }
    // Through the JS API's number: 1e300 is a count far above the clamp.
    for last in [1e300, 2f64.powi(64), max as f64] {
        let text = compaction_core::json_api::estimate_prompt_tokens(
            "[]",
            r#"{"role":"user","parts":[{"text":"hello world"}]}"#,
            last,
            "",
        );
        assert_eq!(text, format!("{{\"ok\":{max}}}"), "last {last}");
    }
}
