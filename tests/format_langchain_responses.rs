//! The two formats of issue 22 message by message: LangChain JS messages
//! (instances as JSON.stringify writes them, the stored form, plain
//! message-likes) and OpenAI Responses input items (with the Agents SDK's
//! spelling). The suites over every format (tests/format.rs,
//! tests/format_engine.rs) run them too.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests assert on data they built

use compaction_core::Value;
use compaction_core::format::{Format, History, MessageFacts};
use compaction_core::json;
use compaction_core::{Content, ErrorCode, PartKind};

fn read(format: Format, history: Value) -> History {
    match format.read(history, "history") {
        Ok(read) => read,
        Err(e) => panic!("{format} history should read: {e}"),
    }
}

fn read_err(format: Format, history: Value) -> String {
    match format.read(history, "history") {
        Ok(read) => panic!("{format} should reject this history, read {read:?}"),
        Err(e) => {
            assert_eq!(e.code(), ErrorCode::InvalidContent, "{e}");
            e.message().to_string()
        }
    }
}

fn kinds(content: &Content) -> Vec<String> {
    content
        .parts
        .iter()
        .map(|p| match p.kind() {
            PartKind::Text {
                text,
                thought: false,
            } => format!("text:{text}"),
            PartKind::Text {
                text,
                thought: true,
            } => format!("thought:{text}"),
            PartKind::FunctionCall(call) => format!(
                "call:{}:{}:{}",
                call.get("id").and_then(Value::as_str).unwrap_or("-"),
                call["name"].as_str().unwrap_or("?"),
                call["args"]
            ),
            PartKind::FunctionResponse(r) => format!(
                "response:{}:{}:{}{}",
                r.get("id").and_then(Value::as_str).unwrap_or("-"),
                r.get("name").and_then(Value::as_str).unwrap_or("-"),
                r["response"],
                r.get("parts")
                    .and_then(Value::as_array)
                    .map_or(String::new(), |n| format!(":{} nested", n.len()))
            ),
            PartKind::InlineData { mime_type } => format!("inline:{mime_type}"),
            PartKind::FileData { mime_type } => format!(
                "file:{mime_type}:{}",
                p.as_map()["fileData"]["fileUri"].as_str().unwrap_or("")
            ),
            PartKind::Unknown => "unknown".to_string(),
        })
        .collect()
}

fn facts(pinned: bool, tool_result: bool, calls: &[&str], answers: &[&str]) -> MessageFacts {
    MessageFacts {
        pinned,
        tool_result,
        calls: calls.iter().map(|s| s.to_string()).collect(),
        answers: answers.iter().map(|s| s.to_string()).collect(),
    }
}

fn lc(class: &str, kwargs: Value) -> Value {
    json!({ "lc": 1, "type": "constructor", "id": ["langchain_core", "messages", class], "kwargs": kwargs })
}

// ---- LangChain ----------------------------------------------------------------

#[test]
fn langchain_every_message_kind_in_every_form() {
    let history = json!([
        lc("SystemMessage", json!({ "content": "Be terse." })),
        // The stored form (mapChatMessagesToStoredMessages).
        { "type": "human", "data": { "content": "Look at this.", "additional_kwargs": {} } },
        lc("HumanMessage", json!({ "content": [
            { "type": "text", "text": "and these" },
            { "type": "image_url", "image_url": { "url": "data:image/png;base64,AAAA" } },
            { "type": "image_url", "image_url": "https://example.com/a.png" },
            { "type": "image", "mimeType": "image/jpeg", "data": "AAAA" },
            { "type": "file", "mimeType": "application/pdf", "url": "https://example.com/a.pdf" },
            { "type": "audio", "mimeType": "audio/wav", "data": "AAAA" }] })),
        // An Anthropic-backed AIMessage: its tool_use block is the tool call.
        lc("AIMessage", json!({ "content": [
            { "type": "thinking", "thinking": "Plan.", "signature": "sig" },
            { "type": "text", "text": "Reading." },
            { "type": "tool_use", "id": "t1", "name": "read", "input": { "path": "a.rs" } },
            { "type": "redacted_thinking", "data": "xx" }],
            "tool_calls": [
                { "id": "t1", "name": "read", "args": { "path": "a.rs" }, "type": "tool_call" },
                { "id": "t2", "name": "read", "args": { "path": "b.rs" }, "type": "tool_call" }],
            "invalid_tool_calls": [{ "id": "t3", "name": "grep", "args": "{\"q\":", "error": "bad json" }],
            "usage_metadata": { "input_tokens": 10, "output_tokens": 5, "total_tokens": 15 } })),
        lc("ToolMessage", json!({ "content": "fn a() {}", "tool_call_id": "t1", "name": "read" })),
        lc("ToolMessage", json!({ "content": "missing", "tool_call_id": "t2", "status": "error" })),
        // The plain form LangChain coerces.
        { "type": "tool", "tool_call_id": "t3", "content": [
            { "type": "text", "text": "shot" },
            { "type": "image", "mimeType": "image/png", "data": "AAAA" }] },
        // Older OpenAI-backed messages keep the calls in additional_kwargs.
        { "type": "ai", "content": "", "additional_kwargs": { "tool_calls": [
            { "id": "o1", "type": "function", "function": { "name": "ls", "arguments": "{}" } }] } },
        { "role": "tool", "content": "a.rs", "tool_call_id": "o1" },
        { "type": "ai", "content": [{ "type": "reasoning", "reasoning": "Done thinking." }, "Done."] },
        lc("ChatMessage", json!({ "content": "Note.", "role": "user" })),
        { "role": "user", "content": "Thanks." },
        { "type": "developer", "content": "Prefer Rust." }
    ]);
    // A role-keyed tool message is OpenAI's own: it names that format.
    assert_eq!(
        read_err(Format::LangChain, history.clone()),
        "history[8] has \"tool_call_id\": an OpenAI message? pass format: \"openai\""
    );
    let mut history = history.as_array().unwrap().clone();
    history[8] = json!({ "type": "tool", "content": "a.rs", "tool_call_id": "o1" });
    let read = read(Format::LangChain, Value::Array(history));
    let k: Vec<Vec<String>> = read.contents.iter().map(kinds).collect();
    assert_eq!(k[0], ["text:Be terse."]);
    assert_eq!(k[1], ["text:Look at this."]);
    assert_eq!(
        k[2],
        [
            "text:and these",
            "inline:image/png",
            "file:image/unknown:https://example.com/a.png",
            "inline:image/jpeg",
            "file:application/pdf:https://example.com/a.pdf",
            "inline:audio/wav"
        ]
    );
    assert_eq!(
        k[3],
        [
            "thought:Plan.",
            "text:Reading.",
            "unknown",
            "call:t1:read:{\"path\":\"a.rs\"}",
            "call:t2:read:{\"path\":\"b.rs\"}",
            "call:t3:grep:\"{\\\"q\\\":\""
        ]
    );
    assert_eq!(k[4], ["response:t1:read:{\"output\":\"fn a() {}\"}"]);
    assert_eq!(k[5], ["response:t2:read:{\"error\":\"missing\"}"]);
    assert_eq!(k[6], ["response:t3:grep:{\"output\":\"shot\"}:1 nested"]);
    assert_eq!(k[7], ["text:", "call:o1:ls:{}"]);
    assert_eq!(k[8], ["response:o1:ls:{\"output\":\"a.rs\"}"]);
    assert_eq!(k[9], ["thought:Done thinking.", "text:Done."]);
    assert_eq!(k[10], ["text:Note."]);
    assert_eq!(read.contents[10].role, "user");
    assert_eq!(k[11], ["text:Thanks."]);
    assert_eq!(read.facts[0], facts(true, false, &[], &[]));
    assert_eq!(read.facts[12], facts(true, false, &[], &[]));
    assert_eq!(read.facts[3], facts(false, false, &["t1", "t2", "t3"], &[]));
    assert_eq!(read.facts[4], facts(false, true, &[], &["t1"]));
    assert_eq!(read.facts[7], facts(false, false, &["o1"], &[]));
    assert_eq!(read.start_keeping_calls(5), 3);
    assert_eq!(read.contents[3].role, "model");
}

#[test]
fn langchain_shapes_it_does_not_hold_are_errors_naming_the_field() {
    let cases = [
        (
            json!([lc("RemoveMessage", json!({ "id": "__remove_all__" }))]),
            "history[0].kwargs has the type \"RemoveMessage\", which is not a LangChain message (an instance, its JSON { lc, type, id, kwargs }, or { type: \"human\" | \"ai\" | \"system\" | \"tool\", content })",
        ),
        (
            json!([lc("Document", json!({ "pageContent": "x" }))]),
            "history[0].kwargs has the type \"Document\", which is not a LangChain message (an instance, its JSON { lc, type, id, kwargs }, or { type: \"human\" | \"ai\" | \"system\" | \"tool\", content })",
        ),
        (
            json!([{ "type": "tool", "content": "x" }]),
            "history[0].tool_call_id is missing",
        ),
        (
            json!([{ "type": "ai", "content": 7 }]),
            "history[0].content must be a string or an array of content blocks, got the number 7",
        ),
        (
            json!([{ "type": "ai", "content": "", "tool_calls": [{ "id": "c", "type": "function", "function": { "name": "f", "arguments": "{}" } }] }]),
            "history[0].tool_calls[0] has \"function\" and no \"name\": an OpenAI message? pass format: \"openai\"",
        ),
        (
            json!([{ "type": "human", "content": [{ "text": "no type" }] }]),
            "history[0].content[0].type is missing (a content part is { type, ... })",
        ),
        (
            json!([{ "role": "model", "parts": [{ "text": "hi" }] }]),
            "history[0] has \"parts\": a Gemini message? pass format: \"gemini\"",
        ),
        (
            json!([{ "type": "function_call", "call_id": "c", "name": "f", "arguments": "{}" }]),
            "history[0] has type \"function_call\": an OpenAI Responses message? pass format: \"openai-responses\"",
        ),
    ];
    for (history, expected) in cases {
        assert_eq!(read_err(Format::LangChain, history), expected);
    }
}

#[test]
fn other_formats_name_langchain_for_its_messages() {
    let history = json!([lc("HumanMessage", json!({ "content": "hi" }))]);
    for format in [
        Format::Gemini,
        Format::OpenAi,
        Format::Anthropic,
        Format::AiSdk,
        Format::OpenAiResponses,
    ] {
        assert_eq!(
            read_err(format, history.clone()),
            "history[0] has \"lc\" and \"kwargs\": a LangChain message? pass format: \"langchain\"",
            "{format}"
        );
    }
    let plain = json!([{ "type": "ai", "content": "ok", "tool_calls": [] }]);
    for format in [Format::OpenAi, Format::OpenAiResponses, Format::Gemini] {
        assert_eq!(
            read_err(format, plain.clone()),
            "history[0] has type \"ai\": a LangChain message? pass format: \"langchain\"",
            "{format}"
        );
    }
}

// ---- OpenAI Responses -------------------------------------------------------------

#[test]
fn responses_every_item_kind() {
    let history = json!([
        { "type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAA".repeat(30) },
        { "role": "developer", "content": "Be terse." },
        { "type": "message", "role": "system", "content": [{ "type": "input_text", "text": "Prefer Rust." }] },
        { "role": "user", "content": [
            { "type": "input_text", "text": "Look" },
            { "type": "input_image", "image_url": "data:image/png;base64,AAAA", "detail": "auto" },
            { "type": "input_image", "file_id": "file_1" },
            { "type": "input_file", "file_data": "data:application/pdf;base64,JVBER", "filename": "a.pdf" },
            { "type": "input_file", "file_url": "https://example.com/b.pdf" }] },
        { "type": "reasoning", "id": "rs_1", "summary": [{ "type": "summary_text", "text": "Plan." }], "encrypted_content": "gAAAA" },
        { "type": "function_call", "id": "fc_1", "call_id": "c1", "name": "read", "arguments": "{\"path\":\"a.rs\"}", "status": "completed" },
        { "type": "custom_tool_call", "call_id": "c2", "name": "patch", "input": "*** Begin Patch" },
        { "type": "web_search_call", "id": "ws_1", "status": "completed", "action": { "type": "search", "query": "x" } },
        { "type": "function_call_output", "call_id": "c1", "output": "fn a() {}" },
        { "type": "custom_tool_call_output", "call_id": "c2", "output": [
            { "type": "input_text", "text": "patched" },
            { "type": "input_image", "image_url": "https://example.com/s.png" }] },
        { "type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [
            { "type": "output_text", "text": "Done.", "annotations": [] },
            { "type": "refusal", "refusal": "Not that." }] },
        { "type": "item_reference", "id": "msg_0" }
    ]);
    let read = read(Format::OpenAiResponses, history);
    let k: Vec<Vec<String>> = read.contents.iter().map(kinds).collect();
    assert_eq!(k[0], ["unknown"]);
    assert_eq!(read.facts[0], facts(true, false, &[], &[]));
    assert_eq!(k[1], ["text:Be terse."]);
    assert!(read.facts[1].pinned && read.facts[2].pinned);
    assert_eq!(
        k[3],
        [
            "text:Look",
            "inline:image/png",
            "file:image/unknown:file_1",
            "inline:application/pdf",
            "file:application/octet-stream:https://example.com/b.pdf"
        ]
    );
    assert_eq!(k[4], ["thought:Plan."]);
    assert_eq!(read.contents[4].role, "model");
    assert_eq!(k[5], ["call:c1:read:{\"path\":\"a.rs\"}"]);
    // A custom tool's call and output: counted whole, paired by call id.
    assert_eq!(k[6], ["unknown"]);
    assert_eq!(k[7], ["unknown"]);
    assert_eq!(k[8], ["response:c1:read:{\"output\":\"fn a() {}\"}"]);
    assert_eq!(k[9], ["unknown"]);
    assert_eq!(read.facts[6], facts(false, false, &["c2"], &[]));
    assert_eq!(k[10], ["text:Done.", "text:Not that."]);
    assert_eq!(k[11], ["unknown"]);
    assert_eq!(read.facts[5], facts(false, false, &["c1"], &[]));
    assert_eq!(read.facts[8], facts(false, true, &[], &["c1"]));
    assert_eq!(read.facts[9], facts(false, true, &[], &["c2"]));
    // A tail that keeps c2's output keeps its call, and with it c1's
    // output, and so c1's call.
    assert_eq!(read.start_keeping_calls(9), 5);
    assert_eq!(read.start_keeping_calls(8), 5);
}

#[test]
fn responses_reads_the_agents_sdk_spelling() {
    // Items as an @openai/agents session holds them.
    let history = json!([
        { "role": "user", "content": "List the files." },
        { "type": "reasoning", "id": "rs_1", "content": [{ "type": "input_text", "text": "Use ls." }],
          "providerData": { "encrypted_content": "gAAAA" } },
        { "type": "function_call", "callId": "call_1", "name": "ls", "arguments": "{}", "status": "completed",
          "providerData": { "id": "fc_1" } },
        { "type": "function_call_result", "callId": "call_1", "name": "ls", "status": "completed",
          "output": { "type": "text", "text": "a.rs b.rs" } },
        { "type": "hosted_tool_call", "name": "web_search", "status": "completed" },
        { "role": "assistant", "status": "completed", "content": [{ "type": "output_text", "text": "Two files." }] },
        { "role": "user", "content": [
            { "type": "input_text", "text": "And this?" },
            { "type": "input_image", "image": "https://example.com/x.png" },
            { "type": "input_file", "file": { "id": "file_9" } }] },
        { "type": "compaction", "encrypted_content": "gAAAA" }
    ]);
    let read = read(Format::OpenAiResponses, history);
    let k: Vec<Vec<String>> = read.contents.iter().map(kinds).collect();
    assert_eq!(k[1], ["thought:Use ls."]);
    assert_eq!(k[2], ["call:call_1:ls:{}"]);
    assert_eq!(k[3], ["response:call_1:ls:{\"output\":\"a.rs b.rs\"}"]);
    assert_eq!(k[4], ["unknown"]);
    assert_eq!(k[5], ["text:Two files."]);
    assert_eq!(
        k[6],
        [
            "text:And this?",
            "file:image/unknown:https://example.com/x.png",
            "file:application/octet-stream:file_9"
        ]
    );
    assert_eq!(read.facts[2], facts(false, false, &["call_1"], &[]));
    assert_eq!(read.facts[3], facts(false, true, &[], &["call_1"]));
    assert!(read.facts[7].pinned);
}

#[test]
fn responses_shapes_it_does_not_hold_are_errors_naming_the_field() {
    let cases = [
        (
            json!([{ "type": "function_call", "name": "f", "arguments": "{}" }]),
            "history[0].call_id is missing",
        ),
        (
            json!([{ "type": "function_call_output", "call_id": "c" }]),
            "history[0].output is missing",
        ),
        (
            json!([{ "type": "function_call", "call_id": "c", "name": "f", "arguments": { "a": 1 } }]),
            "history[0].arguments must be a string, got an object",
        ),
        (
            json!([{ "type": "message", "content": "hi" }]),
            "history[0].role is missing (expected \"system\", \"developer\", \"user\" or \"assistant\")",
        ),
        (
            json!([{ "role": "tool", "tool_call_id": "c", "content": "x" }]),
            "history[0] has \"tool_call_id\": an OpenAI message? pass format: \"openai\"",
        ),
        (
            json!([{ "role": "user", "content": [{ "type": "image_url", "image_url": { "url": "https://x" } }] }]),
            "history[0] has content[0] of type \"image_url\": an OpenAI message? pass format: \"openai\"",
        ),
        (
            json!([{ "role": "assistant", "content": [{ "type": "tool_use", "id": "t", "name": "f", "input": {} }] }]),
            "history[0] has content[0] of type \"tool_use\": an Anthropic message? pass format: \"anthropic\"",
        ),
        (
            json!([{ "role": "system", "content": [{ "type": "input_image", "image_url": "https://x" }] }]),
            "history[0].content[0] has type \"input_image\", which a \"system\" message does not hold",
        ),
    ];
    for (history, expected) in cases {
        assert_eq!(read_err(Format::OpenAiResponses, history), expected);
    }
    // Other formats name this one for its items.
    let item = json!([{ "type": "function_call_output", "call_id": "c", "output": "x" }]);
    for format in [
        Format::Gemini,
        Format::OpenAi,
        Format::Anthropic,
        Format::AiSdk,
    ] {
        assert_eq!(
            read_err(format, item.clone()),
            "history[0] has type \"function_call_output\": an OpenAI Responses message? pass format: \"openai-responses\"",
            "{format}"
        );
    }
    let part = json!([{ "role": "user", "content": [{ "type": "input_text", "text": "hi" }] }]);
    assert_eq!(
        read_err(Format::OpenAi, part),
        "history[0] has content[0] of type \"input_text\": an OpenAI Responses message? pass format: \"openai-responses\""
    );
}
