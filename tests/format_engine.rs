//! The formats through the engine and the JSON API (the message formats, docs/api.md): a long
//! tool-using session in each format's own shape compacts twice with the
//! system prompt pinned, every kept result with its call, and the head in
//! the host's format; a history in the wrong format is an error; parallel
//! calls are never split from their results by the tail; every provider's
//! stop reasons; the SDKs' usage objects; the model table.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests assert on data they built

mod common;
use common::{create, err, ok};

use compaction_core::ToJson;
use compaction_core::Value;
use compaction_core::format::{Format, History};
use compaction_core::json;
use compaction_core::json_api::{self, Chats};
use compaction_core::{CompactionStatus, Compactor, CompactorConfig, Content, SendDecision};

// ---- one session's messages, in each format ------------------------------

const SYSTEM: &str = "You are a coding agent. Keep answers short.";

fn output(turn: usize, call: usize) -> String {
    format!("fn f{turn}_{call}() {{ /* line */ }}\n").repeat(60)
}

/// Turn `t`: a user request, the model's tool calls (two in parallel on
/// odd turns), their results, the model's answer.
fn turn(format: Format, t: usize) -> Vec<Value> {
    let ask = format!("Please read src/f{t}.rs and tell me what it does.");
    let ids: Vec<String> = (0..1 + t % 2).map(|c| format!("call_{t}_{c}")).collect();
    let answer = format!("src/f{t}.rs defines {} functions.", 60 * ids.len());
    match format {
        Format::OpenAi => {
            let mut v = vec![json!({ "role": "user", "content": ask })];
            v.push(json!({ "role": "assistant", "content": null, "tool_calls": ids.iter().map(|id| json!({
                "id": id, "type": "function",
                "function": { "name": "read_file", "arguments": format!("{{\"path\":\"src/f{t}.rs\"}}") }
            })).collect::<Vec<_>>() }));
            for (c, id) in ids.iter().enumerate() {
                v.push(json!({ "role": "tool", "tool_call_id": id, "content": output(t, c) }));
            }
            v.push(json!({ "role": "assistant", "content": answer }));
            v
        }
        Format::Anthropic => {
            let mut calls = vec![json!({ "type": "text", "text": "Let me look." })];
            calls.extend(ids.iter().map(|id| json!({ "type": "tool_use", "id": id, "name": "read_file", "input": { "path": format!("src/f{t}.rs") } })));
            let results: Vec<Value> = ids
                .iter()
                .enumerate()
                .map(|(c, id)| json!({ "type": "tool_result", "tool_use_id": id, "content": output(t, c) }))
                .collect();
            vec![
                json!({ "role": "user", "content": ask }),
                json!({ "role": "assistant", "content": calls }),
                json!({ "role": "user", "content": results }),
                json!({ "role": "assistant", "content": [{ "type": "text", "text": answer }] }),
            ]
        }
        Format::AiSdk => {
            let mut calls = vec![json!({ "type": "text", "text": "Let me look." })];
            calls.extend(ids.iter().map(|id| json!({ "type": "tool-call", "toolCallId": id, "toolName": "read_file", "input": { "path": format!("src/f{t}.rs") } })));
            let results: Vec<Value> = ids
                .iter()
                .enumerate()
                .map(|(c, id)| json!({ "type": "tool-result", "toolCallId": id, "toolName": "read_file", "output": { "type": "text", "value": output(t, c) } }))
                .collect();
            vec![
                json!({ "role": "user", "content": ask }),
                json!({ "role": "assistant", "content": calls }),
                json!({ "role": "tool", "content": results }),
                json!({ "role": "assistant", "content": answer }),
            ]
        }
        Format::LangChain => {
            let calls: Vec<Value> = ids.iter().map(|id| json!({ "id": id, "name": "read_file", "args": { "path": format!("src/f{t}.rs") }, "type": "tool_call" })).collect();
            let mut v = vec![lc("HumanMessage", json!({ "content": ask }))];
            v.push(lc("AIMessage", json!({ "content": "Let me look.", "tool_calls": calls,
                "usage_metadata": { "input_tokens": 1000, "output_tokens": 20, "total_tokens": 1020 } })));
            for (c, id) in ids.iter().enumerate() {
                v.push(lc(
                    "ToolMessage",
                    json!({ "content": output(t, c), "tool_call_id": id, "name": "read_file" }),
                ));
            }
            v.push(lc(
                "AIMessage",
                json!({ "content": [{ "type": "text", "text": answer }], "tool_calls": [] }),
            ));
            v
        }
        Format::OpenAiResponses => {
            let mut v = vec![json!({ "role": "user", "content": ask })];
            v.push(json!({ "type": "reasoning", "id": format!("rs_{t}"), "summary": [{ "type": "summary_text", "text": "Read the file." }], "encrypted_content": "gAAAA".repeat(40) }));
            for id in &ids {
                v.push(json!({ "type": "function_call", "call_id": id, "name": "read_file", "arguments": format!("{{\"path\":\"src/f{t}.rs\"}}") }));
            }
            for (c, id) in ids.iter().enumerate() {
                v.push(json!({ "type": "function_call_output", "call_id": id, "output": output(t, c) }));
            }
            v.push(json!({ "type": "message", "role": "assistant", "status": "completed", "content": [{ "type": "output_text", "text": answer }] }));
            v
        }
        Format::Gemini => {
            let calls: Vec<Value> = ids.iter().map(|id| json!({ "functionCall": { "id": id, "name": "read_file", "args": { "path": format!("src/f{t}.rs") } } })).collect();
            let results: Vec<Value> = ids
                .iter()
                .enumerate()
                .map(|(c, id)| json!({ "functionResponse": { "id": id, "name": "read_file", "response": { "output": output(t, c) } } }))
                .collect();
            vec![
                json!({ "role": "user", "parts": [{ "text": ask }] }),
                json!({ "role": "model", "parts": calls }),
                json!({ "role": "user", "parts": results }),
                json!({ "role": "model", "parts": [{ "text": answer }] }),
            ]
        }
    }
}

/// A LangChain message instance as JSON.stringify writes it.
fn lc(class: &str, mut kwargs: Value) -> Value {
    kwargs["additional_kwargs"] = json!({});
    kwargs["response_metadata"] = json!({});
    json!({ "lc": 1, "type": "constructor", "id": ["langchain_core", "messages", class], "kwargs": kwargs })
}

/// The system prompt as a message of the history (Anthropic keeps it
/// outside the messages).
fn system(format: Format) -> Option<Value> {
    match format {
        Format::OpenAi | Format::AiSdk => Some(json!({ "role": "system", "content": SYSTEM })),
        Format::LangChain => Some(lc("SystemMessage", json!({ "content": SYSTEM }))),
        Format::OpenAiResponses => Some(json!({ "role": "developer", "content": SYSTEM })),
        Format::Gemini => Some(json!({ "role": "system", "parts": [{ "text": SYSTEM }] })),
        Format::Anthropic => None,
    }
}

fn user_message(format: Format, text: &str) -> Value {
    match format {
        Format::Gemini => json!({ "role": "user", "parts": [{ "text": text }] }),
        Format::LangChain => lc("HumanMessage", json!({ "content": text })),
        _ => json!({ "role": "user", "content": text }),
    }
}

/// Every result in `history` answers a call made earlier in it.
fn assert_every_result_has_its_call(format: Format, history: &[Value], what: &str) {
    let read = format
        .read(Value::Array(history.to_vec()), "history")
        .unwrap();
    for (i, facts) in read.facts.iter().enumerate() {
        for id in &facts.answers {
            let site = read.call_site(id);
            assert!(
                site.is_some_and(|s| s < i),
                "{format} {what}: history[{i}] answers {id}, whose call is not before it"
            );
        }
    }
}

fn estimate(format: Format, history: &[Value]) -> f64 {
    let options = json!({ "format": format.name(), "estimator": "conservative" }).to_string();
    ok(json_api::estimate_content_tokens(
        &history.to_json_string(),
        &options,
    ))
    .as_f64()
    .unwrap()
}

/// A COMPRESSED result's `pinned`: the indices of the host's messages kept
/// first, verbatim.
fn pinned_of(result: &Value) -> Vec<usize> {
    result["pinned"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_u64().unwrap() as usize)
        .collect()
}

#[test]
fn a_long_tool_session_in_each_format_compacts_twice_in_that_format() {
    for format in Format::ALL {
        let mut chats = Chats::new();
        let options = json!({ "window": 32_000, "format": format.name() }).to_string();
        let handle = create(&mut chats, &options);
        let mut history: Vec<Value> = system(format).into_iter().collect();
        let mut compactions = 0;
        for t in 0..200 {
            let message = user_message(format, &format!("turn {t}: go on"));
            let text = history.to_json_string();
            let mut step = ok(chats.before_send(handle, &text, &message.to_string()));
            while let Some(summarize) = step.get("summarize") {
                let id = summarize["id"].as_f64().unwrap();
                // The system prompt is never summarized.
                let request = summarize["request"].to_string();
                assert!(
                    !request.contains(SYSTEM),
                    "{format}: the system prompt was summarized"
                );
                let answer = json!({ "text": format!("## Task status\n- read files up to turn {t}"), "finishReason": "stop" });
                step = ok(chats.answer(handle, id, &answer.to_string()));
            }
            let result = &step["done"];
            if result["status"] == 1 {
                compactions += 1;
                let kept_from = result["keptFrom"].as_u64().unwrap() as usize;
                let pinned = pinned_of(result);
                let head = result["head"].as_array().unwrap().clone();
                let expected_pinned: Vec<usize> = if system(format).is_some() {
                    vec![0]
                } else {
                    vec![]
                };
                assert_eq!(pinned, expected_pinned, "{format}");
                // The head is in the host's format: it reads as one.
                Format::read(format, Value::Array(head.clone()), "head").unwrap();
                let model_role = if format == Format::Gemini {
                    "model"
                } else {
                    "assistant"
                };
                if format == Format::LangChain {
                    assert_eq!(head[1]["id"][2], "AIMessage", "{format}");
                } else {
                    assert_eq!(head[1]["role"], model_role, "{format}");
                }
                assert!(head[0].to_string().contains("<conversation-summary>"));
                if format == Format::LangChain {
                    assert!(
                        head.iter()
                            .all(|m| m["lc"] == 1 && m["kwargs"].get("content").is_some())
                    );
                } else if format != Format::Gemini {
                    assert!(
                        head.iter()
                            .all(|m| m.get("parts").is_none() && m.get("content").is_some())
                    );
                }
                let replaced: Vec<Value> = (0..kept_from)
                    .filter(|i| !pinned.contains(i))
                    .map(|i| history[i].clone())
                    .collect();
                assert!(!replaced.is_empty());
                assert!(
                    replaced.iter().all(|m| !m.to_string().contains(SYSTEM)),
                    "{format}: the system prompt is in replaced"
                );
                let before = estimate(format, &history);
                let mut new_history: Vec<Value> =
                    pinned.iter().map(|&i| history[i].clone()).collect();
                new_history.extend(head);
                new_history.extend(history[kept_from..].iter().cloned());
                if let Some(system) = system(format) {
                    assert_eq!(
                        new_history[0], system,
                        "{format}: the system prompt stays first, verbatim"
                    );
                }
                assert_every_result_has_its_call(format, &new_history, "after a compaction");
                if format == Format::Anthropic {
                    for pair in new_history.windows(2) {
                        assert_ne!(
                            pair[0]["role"], pair[1]["role"],
                            "Anthropic roles alternate"
                        );
                    }
                }
                // Estimates agree: the result's new size is the new history's.
                let after = estimate(format, &new_history);
                assert!(after < before, "{format}: {after} >= {before}");
                let new_count = result["newTokenCount"].as_f64().unwrap();
                assert!(
                    (new_count - after).abs() <= after * 0.01 + 2.0,
                    "{format}: newTokenCount {new_count}, the new history estimates {after}"
                );
                history = new_history;
                if compactions == 2 {
                    break;
                }
            } else {
                assert_eq!(result["status"], 5, "{format}: {result}");
            }
            history.push(message);
            history.extend(turn(format, t));
            // The model's answer reports its usage, in the provider's own
            // shape; the provider's count stands in as the estimate.
            let total = estimate(format, &history) as u64;
            let usage = match format {
                Format::Gemini => {
                    json!({ "usageMetadata": { "promptTokenCount": total - 20, "candidatesTokenCount": 20, "totalTokenCount": total } })
                }
                Format::OpenAi => {
                    json!({ "usage": { "prompt_tokens": total - 20, "completion_tokens": 20, "total_tokens": total } })
                }
                Format::Anthropic => {
                    json!({ "usage": { "input_tokens": total - 20, "output_tokens": 20, "cache_read_input_tokens": null } })
                }
                Format::AiSdk => {
                    json!({ "usage": { "inputTokens": total - 20, "outputTokens": 20, "totalTokens": total } })
                }
                // An AIMessage's usage_metadata.
                Format::LangChain => {
                    json!({ "input_tokens": total - 20, "output_tokens": 20, "total_tokens": total, "input_token_details": { "cache_read": 0 } })
                }
                Format::OpenAiResponses => {
                    json!({ "usage": { "input_tokens": total - 20, "output_tokens": 20, "total_tokens": total, "input_tokens_details": { "cached_tokens": 0 } } })
                }
            };
            let update = ok(chats.report_usage(handle, &usage.to_string()));
            assert_eq!(update["lastPromptTokenCount"], total, "{format}");
        }
        assert_eq!(compactions, 2, "{format} never compacted twice");
    }
}

#[test]
fn the_compactor_keeps_pinned_messages_first_and_out_of_replaced() {
    let mut history = vec![json!({ "role": "developer", "content": "Answer in French." })];
    for t in 0..30 {
        history.push(user_message(Format::OpenAi, &format!("turn {t}")));
        history.extend(turn(Format::OpenAi, t));
    }
    let read: History = Format::OpenAi
        .read(Value::Array(history), "history")
        .unwrap();
    let mut chat = Compactor::new(CompactorConfig::new(32_000.0)).unwrap();
    let SendDecision::Summarize { mut id, .. } = chat
        .poll_before_send(&read, &[Content::text("user", "next")])
        .unwrap()
    else {
        panic!("a history past the window must compact")
    };
    let outcome = loop {
        let answer = compaction_core::SummaryAnswer {
            text: "## Task status\n- ok".into(),
            ..Default::default()
        };
        match chat.handle_answer(id, answer).unwrap() {
            compaction_core::Next::Summarize { id: next, request } => {
                assert!(!request.to_json_string().contains("Answer in French."));
                id = next;
            }
            compaction_core::Next::Done(outcome) => break outcome,
            other => panic!("a step this test does not know: {other:?}"),
        }
    };
    assert_eq!(outcome.status(), CompactionStatus::Compressed);
    assert_eq!(outcome.pinned(), [0]);
    let replaced = outcome.replaced(&read.contents);
    assert_eq!(replaced.len(), outcome.kept_from() - 1);
    assert!(replaced.iter().all(|c| c.role != "developer"));
    let mut contents = read.contents.clone();
    let replaced_by_apply = outcome.apply_to(&mut contents);
    assert_eq!(replaced_by_apply, replaced);
    assert_eq!(contents[0], read.contents[0]);
    assert_eq!(
        contents[1..1 + outcome.head().unwrap().len()],
        *outcome.head().unwrap()
    );
    assert_eq!(
        contents[contents.len() - (read.contents.len() - outcome.kept_from())..],
        read.contents[outcome.kept_from()..]
    );
}

#[test]
fn a_history_in_another_format_is_invalid_content_with_the_hint() {
    let mut openai: Vec<Value> = vec![json!({ "role": "system", "content": SYSTEM })];
    openai.extend(turn(Format::OpenAi, 1));
    let text = openai.to_json_string();
    let mut chats = Chats::new();
    let handle = create(&mut chats, r#"{"window":1000}"#);
    let (code, message) =
        err(chats.before_send(handle, &text, r#"{"role":"user","parts":[{"text":"x"}]}"#));
    assert_eq!(code, "INVALID_CONTENT");
    assert_eq!(
        message,
        "history[0] has \"content\" and no \"parts\": an OpenAI, Anthropic or AI SDK message? pass \
         format: \"openai\", \"anthropic\" or \"ai-sdk\""
    );
    let (code, message) = err(chats.compact(handle, &openai[1..].to_json_string(), ""));
    assert_eq!(code, "INVALID_CONTENT");
    assert!(message.contains("pass format: \"openai\""), "{message}");
    // Never 0 tokens: the estimate functions say the same.
    let (code, message) = err(json_api::estimate_content_tokens(
        &openai[2..].to_json_string(),
        "",
    ));
    assert_eq!(code, "INVALID_CONTENT");
    assert!(
        message.starts_with("contents[0] has \"content\" and no \"parts\""),
        "{message}"
    );
    // With the format, it reads; a Gemini message in an OpenAI chat is the error.
    let handle = create(&mut chats, r#"{"window":100000,"format":"openai"}"#);
    let step = ok(chats.before_send(handle, &text, r#"{"role":"user","content":"x"}"#));
    assert_eq!(step["done"]["status"], 5);
    let (code, message) =
        err(chats.before_send(handle, &text, r#"{"role":"model","parts":[{"text":"x"}]}"#));
    assert_eq!(code, "INVALID_CONTENT");
    assert!(message.contains("pass format: \"gemini\""), "{message}");
    let (code, message) = err(chats.create(r#"{"window":1000,"format":"claude"}"#));
    assert_eq!(code, "INVALID_ARGUMENT");
    assert!(
        message.contains("options.format must be one of gemini, openai, anthropic, ai-sdk"),
        "{message}"
    );
    let estimate = ok(json_api::estimate_content_tokens(
        &openai.to_json_string(),
        r#"{"format":"openai"}"#,
    ));
    assert!(estimate.as_f64().unwrap() > 100.0);
    let prompt = ok(json_api::estimate_prompt_tokens(
        &openai.to_json_string(),
        r#"{"role":"user","content":"and now?"}"#,
        0.0,
        r#"{"format":"openai"}"#,
    ));
    assert!(prompt.as_f64().unwrap() > estimate.as_f64().unwrap());
}

/// An agent loop under one request whose last parallel calls are answered
/// apart, with a model note between the results: `[system, user, (call,
/// result) × 12, calls a+b, result a, note, result b, answer]`.
fn split_parallel(note_chars: usize, result_a_chars: usize) -> (Vec<Value>, usize, usize) {
    let mut h = vec![
        json!({ "role": "system", "content": SYSTEM }),
        json!({ "role": "user", "content": "Refactor the whole crate." }),
    ];
    for i in 0..12 {
        let id = format!("loop_{i}");
        h.push(json!({ "role": "assistant", "content": [{ "type": "tool-call", "toolCallId": id, "toolName": "edit", "input": { "path": format!("src/m{i}.rs") } }] }));
        h.push(json!({ "role": "tool", "content": [{ "type": "tool-result", "toolCallId": id, "toolName": "edit", "output": { "type": "text", "value": output(i, 0) } }] }));
    }
    let calls = h.len();
    h.push(json!({ "role": "assistant", "content": [
        { "type": "tool-call", "toolCallId": "a", "toolName": "test", "input": {} },
        { "type": "tool-call", "toolCallId": "b", "toolName": "lint", "input": {} } ] }));
    let test_output = "test module::case ... ok\n".repeat(result_a_chars / 25 + 1);
    h.push(json!({ "role": "tool", "content": [{ "type": "tool-result", "toolCallId": "a", "toolName": "test", "output": { "type": "text", "value": test_output } }] }));
    let note = h.len();
    h.push(json!({ "role": "assistant", "content": "Tests pass; the linter is still running on the changed modules. ".repeat(note_chars / 64 + 1) }));
    h.push(json!({ "role": "tool", "content": [{ "type": "tool-result", "toolCallId": "b", "toolName": "lint", "output": { "type": "text", "value": "clean" } }] }));
    h.push(json!({ "role": "assistant", "content": "All done." }));
    (h, calls, note)
}

fn compact_to_end(chats: &mut Chats, handle: u32, history: &[Value]) -> Value {
    let text = history.to_json_string();
    let mut step = ok(chats.compact(handle, &text, ""));
    while let Some(summarize) = step.get("summarize") {
        let id = summarize["id"].as_f64().unwrap();
        let answer = json!({ "text": "## Task status\n- refactoring", "finishReason": "stop" });
        step = ok(chats.answer(handle, id, &answer.to_string()));
    }
    step["done"].clone()
}

#[test]
fn parallel_calls_answered_apart_keep_their_call_in_the_tail() {
    // The percent rule asks for the tail from the note (a clean boundary by
    // roles alone): result b would be an orphan, so the tail starts at the
    // calls.
    let (history, calls, note) = split_parallel(9_000, 10);
    let mut chats = Chats::new();
    let options = json!({ "window": 200_000, "format": "ai-sdk", "excludeMessages": 0, "excludeContextWindowPercent": 1 });
    let handle = create(&mut chats, &options.to_string());
    let result = compact_to_end(&mut chats, handle, &history);
    assert_eq!(result["status"], 1, "{result}");
    assert_eq!(
        result["keptFrom"], calls,
        "the tail starts at the parallel calls, not at the note {note}"
    );
    assert_eq!(result["pinned"], json!([0]));
    let mut new_history = vec![history[0].clone()];
    new_history.extend(result["head"].as_array().unwrap().iter().cloned());
    new_history.extend(history[calls..].iter().cloned());
    assert_every_result_has_its_call(Format::AiSdk, &new_history, "parallel calls");

    // The same through the engine with bare Gemini contents (facts from parts).
    let gemini: Vec<Content> = Format::AiSdk
        .read(Value::Array(history.clone()), "history")
        .unwrap()
        .contents;
    let split = compaction_core::split_point(
        &gemini,
        200_000.0,
        &compaction_core::RetentionSettings {
            exclude_messages: 0,
            exclude_context_window_percent: 1.0,
        },
        &compaction_core::EstimateOptions::for_thresholds(
            compaction_core::TokenizerFamily::Universal,
        ),
    );
    assert_eq!(split.kept_from, calls);
}

#[test]
fn a_tail_that_yields_never_starts_between_parallel_calls_and_their_results() {
    // Result a is larger than the window: the tail from the calls cannot
    // fit and yields to a later clean boundary. The note would leave result
    // b an orphan; the answer after it is the one taken.
    let (history, calls, note) = split_parallel(9_000, 400_000);
    let mut chats = Chats::new();
    let options = json!({ "window": 64_000, "format": "ai-sdk", "excludeMessages": 0, "excludeContextWindowPercent": 1 });
    let handle = create(&mut chats, &options.to_string());
    let result = compact_to_end(&mut chats, handle, &history);
    assert_eq!(result["status"], 1, "{result}");
    let kept_from = result["keptFrom"].as_u64().unwrap() as usize;
    let copies = result["head"].as_array().unwrap().len().saturating_sub(3);
    assert_ne!(
        kept_from, note,
        "the tail starts at the note: result b is an orphan"
    );
    assert!(kept_from > calls || copies > 0, "{result}");
    let mut new_history = vec![history[0].clone()];
    new_history.extend(result["head"].as_array().unwrap().iter().cloned());
    new_history.extend(history[kept_from..].iter().cloned());
    assert_every_result_has_its_call(Format::AiSdk, &new_history, "a tail that yields");
    // The head reads as AI SDK messages, copies included.
    Format::AiSdk
        .read(Value::Array(new_history), "new history")
        .unwrap();
}

fn replace_string(value: &mut Value, from: &str, to: &str) {
    match value {
        Value::String(s) if s == from => *s = to.to_string(),
        Value::Array(items) => items.iter_mut().for_each(|v| replace_string(v, from, to)),
        Value::Object(map) => map.values_mut().for_each(|v| replace_string(v, from, to)),
        _ => {}
    }
}

#[test]
fn slimmed_copies_come_back_in_the_host_format() {
    // One huge tool output in the kept tail (clearToolOutputs off): the
    // tail is slimmed and its copies go into the head, in the host's shape.
    for format in [
        Format::OpenAi,
        Format::Anthropic,
        Format::AiSdk,
        Format::LangChain,
        Format::OpenAiResponses,
    ] {
        let mut history: Vec<Value> = system(format).into_iter().collect();
        for t in 0..6 {
            history.push(user_message(format, &format!("turn {t}")));
            history.extend(turn(format, t));
        }
        // Turn 7 without its answer: the history ends on its results, so
        // the last clean boundary is its calls, and the huge result in that
        // unit is slimmed.
        let mut big = turn(format, 7);
        big.pop();
        let huge = "fn huge() { let x = 1; }\n".repeat(12_000);
        // The result message of turn 7 gets a huge output.
        // (The Responses API has a reasoning item and an item per call first.)
        let result_at = if format == Format::OpenAiResponses {
            4
        } else {
            2
        };
        replace_string(&mut big[result_at], &output(7, 0), &huge);
        assert!(big[result_at].to_string().len() > huge.len());
        history.push(user_message(format, "last turn"));
        history.extend(big);
        let mut chats = Chats::new();
        let options = json!({ "window": 64_000, "format": format.name(), "excludeMessages": 3 });
        let handle = create(&mut chats, &options.to_string());
        let result = compact_to_end(&mut chats, handle, &history);
        assert_eq!(result["status"], 1, "{format}: {result}");
        let head = result["head"].as_array().unwrap();
        let kept_from = result["keptFrom"].as_u64().unwrap() as usize;
        let pinned = pinned_of(&result);
        let mut new_history: Vec<Value> = pinned.iter().map(|&i| history[i].clone()).collect();
        new_history.extend(head.iter().cloned());
        new_history.extend(history[kept_from..].iter().cloned());
        let text = new_history.to_json_string();
        assert!(
            text.contains("characters removed by compaction"),
            "{format}: no copy was slimmed: {result:#}"
        );
        assert!(!text.contains(&huge), "{format}");
        assert!(
            !text.contains("\"parts\""),
            "{format}: a Gemini shape came back"
        );
        Format::read(format, Value::Array(new_history.clone()), "new history").unwrap();
        assert_every_result_has_its_call(format, &new_history, "slimmed copies");
        assert!(estimate(format, &new_history) < 64_000.0 * 0.8, "{format}");

        // A Rust host driving the engine directly gets the same new history
        // in its format from the core (CompactionOutcome::new_history_in).
        let config = CompactorConfig::from_json(&options).unwrap().config;
        let estimate_options = config.options.estimate;
        let mut chat = Compactor::new(config).unwrap();
        let read = format
            .read(Value::Array(history.clone()), "history")
            .unwrap();
        let decision = chat
            .poll_manual(compaction_core::HistoryRef::Read(&read), None)
            .unwrap();
        let SendDecision::Summarize { id, .. } = decision else {
            panic!("{format}: {decision:?}")
        };
        let answer = || compaction_core::SummaryAnswer {
            text: "## Task status\n- refactoring".into(),
            finish_reason: Some("stop".into()),
            usage: None,
        };
        let mut next = chat.handle_answer(id, answer()).unwrap();
        let outcome = loop {
            match next {
                compaction_core::Next::Summarize { id, .. } => {
                    next = chat.handle_answer(id, answer()).unwrap();
                }
                compaction_core::Next::Done(outcome) => break outcome,
                other => panic!("{format}: {other:?}"),
            }
        };
        let from_core = outcome
            .new_history_in(format, &history, &read, &estimate_options)
            .unwrap()
            .unwrap();
        assert_eq!(from_core, new_history, "{format}: the core's new history");
    }
}

#[test]
fn slim_message_keeps_the_format() {
    let message =
        json!({ "role": "tool", "tool_call_id": "call_1", "content": "w".repeat(40_000) });
    let slim = ok(json_api::slim_message(
        &message.to_string(),
        500.0,
        r#"{"format":"openai"}"#,
    ));
    assert_eq!(slim["tool_call_id"], "call_1");
    assert_eq!(slim["role"], "tool");
    assert!(
        slim["content"]
            .as_str()
            .unwrap()
            .contains("characters removed by compaction")
    );
    let tokens = ok(json_api::estimate_content_tokens(
        &json!([slim]).to_string(),
        r#"{"format":"openai"}"#,
    ));
    assert!(tokens.as_f64().unwrap() <= 501.0, "{tokens}");
}

// ---- stop reasons ---------------------------------------------------------

fn status_for(finish_reason: &str) -> Value {
    status_for_answer(finish_reason, "## Task status\n- ok")
}

fn status_for_answer(finish_reason: &str, text: &str) -> Value {
    let mut chats = Chats::new();
    let handle = create(&mut chats, r#"{"window":32000}"#);
    let mut history = Vec::new();
    for t in 0..40 {
        history.push(user_message(Format::Gemini, &format!("turn {t}")));
        history.extend(turn(Format::Gemini, t));
    }
    let step = ok(chats.before_send(
        handle,
        &history.to_json_string(),
        &user_message(Format::Gemini, "next").to_string(),
    ));
    let mut step = step;
    // Every step of the run gets the same stop reason; a usable one moves
    // to the next step, any other ends the run there.
    while let Some(summarize) = step.get("summarize") {
        let id = summarize["id"].as_f64().unwrap();
        let answer = json!({ "text": text, "finishReason": finish_reason });
        step = ok(chats.answer(handle, id, &answer.to_string()));
    }
    step["done"].clone()
}

#[test]
fn every_providers_stop_reasons_map_to_the_librarys() {
    // (reason, status) per provider, as their SDKs declare them.
    let table: &[(&str, &str, u64)] = &[
        // Gemini FinishReason
        ("gemini", "STOP", 1),
        ("gemini", "MAX_TOKENS", 6),
        ("gemini", "SAFETY", 7),
        ("gemini", "RECITATION", 7),
        ("gemini", "PROHIBITED_CONTENT", 7),
        ("gemini", "MALFORMED_FUNCTION_CALL", 7),
        ("gemini", "TOO_MANY_TOOL_CALLS", 7),
        ("gemini", "OTHER", 7),
        // OpenAI chat finish_reason
        ("openai", "stop", 1),
        ("openai", "length", 6),
        ("openai", "content_filter", 7),
        ("openai", "tool_calls", 7),
        ("openai", "function_call", 7),
        // Anthropic StopReason
        ("anthropic", "end_turn", 1),
        ("anthropic", "stop_sequence", 1),
        ("anthropic", "max_tokens", 6),
        ("anthropic", "tool_use", 7),
        ("anthropic", "pause_turn", 7),
        ("anthropic", "refusal", 7),
        // The window filled while the summary was written: truncated, as
        // the AI SDK maps the same event to `length` (issue 19, defect 3).
        ("anthropic", "model_context_window_exceeded", 6),
        // AI SDK FinishReason
        ("ai-sdk", "stop", 1),
        ("ai-sdk", "length", 6),
        ("ai-sdk", "content-filter", 7),
        ("ai-sdk", "tool-calls", 7),
        ("ai-sdk", "error", 7),
        ("ai-sdk", "other", 7),
    ];
    for &(provider, reason, status) in table {
        // A filtered or refused answer has no text, as a rule: its stop
        // reason still decides (an empty answer that stopped normally is
        // EMPTY_SUMMARY, 4).
        let empty = status_for_answer(reason, "");
        let expected = if status == 1 { 4 } else { status };
        assert_eq!(
            empty["status"], expected,
            "{provider} {reason}, no text: {empty}"
        );
        let result = status_for(reason);
        assert_eq!(result["status"], status, "{provider} {reason}: {result}");
        if status == 7 {
            assert_eq!(
                result["cause"]["code"], "INVALID_ANSWER",
                "{provider} {reason}"
            );
            let message = result["cause"]["message"].as_str().unwrap();
            assert!(
                message.contains(&format!("{reason:?}")),
                "{provider}: {message}"
            );
        }
    }
}

// ---- usage ------------------------------------------------------------------

fn prompt_after(usage: Value) -> Value {
    let mut chats = Chats::new();
    let handle = create(&mut chats, r#"{"window":200000}"#);
    ok(chats.report_usage(handle, &usage.to_string()))
}

#[test]
fn the_sdks_usage_objects_are_read_as_declared_and_reasoning_is_left_out() {
    let cases = [
        // openai ChatCompletion, whole, CompletionUsage with its details.
        (
            "openai chat",
            json!({ "id": "c", "object": "chat.completion", "choices": [], "usage": {
                "prompt_tokens": 1_000, "completion_tokens": 300, "total_tokens": 1_300,
                "completion_tokens_details": { "reasoning_tokens": 200, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0 },
                "prompt_tokens_details": { "cached_tokens": 800, "audio_tokens": 0 } } }),
            Some(1_100),
        ),
        // usage?: CompletionUsage | null on a streamed chunk.
        (
            "openai chunk",
            json!({ "choices": [], "usage": null }),
            None,
        ),
        // openai Responses.
        (
            "openai responses",
            json!({ "usage": { "input_tokens": 1_000, "input_tokens_details": { "cached_tokens": 0 },
                "output_tokens": 300, "output_tokens_details": { "reasoning_tokens": 200 }, "total_tokens": 1_300 } }),
            Some(1_100),
        ),
        // Anthropic Message.usage, nulls as declared.
        (
            "anthropic",
            json!({ "type": "message", "usage": { "input_tokens": 100, "output_tokens": 50,
                "cache_creation_input_tokens": null, "cache_read_input_tokens": 900, "cache_creation": null,
                "server_tool_use": null, "service_tier": "standard", "inference_geo": null, "speed": null,
                "output_tokens_details": { "thinking_tokens": 20 } } }),
            Some(1_030),
        ),
        (
            "anthropic without details",
            json!({ "input_tokens": 100, "output_tokens": 50, "cache_creation_input_tokens": 400,
                "cache_read_input_tokens": null, "output_tokens_details": null }),
            Some(550),
        ),
        // @google/genai GenerateContentResponse.
        (
            "gemini",
            json!({ "candidates": [], "usageMetadata": { "promptTokenCount": 1_000, "candidatesTokenCount": 100,
                "thoughtsTokenCount": 400, "totalTokenCount": 1_500, "cachedContentTokenCount": 600 } }),
            Some(1_100),
        ),
        // ai v6 generateText result: usage (last step) wins over totalUsage.
        (
            "ai-sdk v6",
            json!({ "text": "t", "finishReason": "stop",
                "usage": { "inputTokens": 1_000, "inputTokenDetails": { "noCacheTokens": 200, "cacheReadTokens": 800, "cacheWriteTokens": null },
                    "outputTokens": 300, "outputTokenDetails": { "textTokens": 100, "reasoningTokens": 200 }, "totalTokens": 1_300 },
                "totalUsage": { "inputTokens": 5_000, "outputTokens": 900, "totalTokens": 5_900 } }),
            Some(1_100),
        ),
        // ai v6/v7 generateText result as JSON.stringify writes it: `usage`
        // is a getter (left out), `totalUsage` sums the steps; the last
        // step's usage is the prompt the next call extends.
        (
            "ai-sdk result",
            json!({ "steps": [
                    { "usage": { "inputTokens": 1_000, "outputTokens": 40, "totalTokens": 1_040 } },
                    { "usage": { "inputTokens": 1_200, "inputTokenDetails": { "noCacheTokens": 1_200 }, "outputTokens": 100,
                        "outputTokenDetails": { "textTokens": 100, "reasoningTokens": 0 }, "totalTokens": 1_300 } } ],
                "totalUsage": { "inputTokens": 2_200, "outputTokens": 140, "totalTokens": 2_340 } }),
            Some(1_300),
        ),
        (
            "ai-sdk totalUsage only",
            json!({ "totalUsage": { "inputTokens": 1_000, "inputTokenDetails": {}, "outputTokens": 100,
                "outputTokenDetails": { "reasoningTokens": null }, "totalTokens": 1_100 } }),
            Some(1_100),
        ),
        // ai v5 LanguageModelUsage, undefined fields dropped by JSON.stringify.
        (
            "ai-sdk v5",
            json!({ "inputTokens": 1_000, "outputTokens": 300, "totalTokens": 1_300, "reasoningTokens": 200, "cachedInputTokens": 800 }),
            Some(1_100),
        ),
        (
            "ai-sdk partial",
            json!({ "inputTokens": 1_000, "outputTokens": 100 }),
            Some(1_100),
        ),
    ];
    for (name, usage, expected) in cases {
        let update = prompt_after(usage);
        assert_eq!(update["ignored"], json!([]), "{name}: {update}");
        match expected {
            Some(n) => {
                assert_eq!(update["taken"], true, "{name}");
                assert_eq!(update["lastPromptTokenCount"], n, "{name}: {update}");
            }
            None => assert_eq!(update["taken"], false, "{name}"),
        }
    }
    // A reasoning count that is not a number is named, never trusted.
    let update = prompt_after(
        json!({ "prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15,
        "completion_tokens_details": { "reasoning_tokens": "3" } }),
    );
    assert_eq!(update["lastPromptTokenCount"], 15);
    assert_eq!(update["ignored"].as_array().unwrap().len(), 1, "{update}");
}

// ---- model limits -----------------------------------------------------------

fn limits(id: &str) -> Value {
    ok(json_api::model_limits(id))
}

#[test]
fn model_limits_match_dated_and_prefixed_ids_and_fall_back_with_a_warning() {
    for (id, window, max_output) in [
        ("gpt-4o", 128_000, json!(16_384)),
        ("gpt-4o-2024-08-06", 128_000, json!(16_384)),
        ("gpt-4o-2024-05-13", 128_000, json!(4_096)),
        ("openai/gpt-4o-mini", 128_000, json!(16_384)),
        ("chatgpt-4o-latest", 128_000, json!(16_384)),
        ("openai/gpt-oss-120b", 131_072, Value::Null),
        ("gpt-4.1-mini-2025-04-14", 1_047_576, json!(32_768)),
        ("o3-mini-2025-01-31", 200_000, json!(100_000)),
        ("o1-mini", 128_000, json!(65_536)),
        ("gpt-5-nano", 400_000, json!(128_000)),
        ("gpt-5-chat-latest", 128_000, json!(16_384)),
        ("anthropic/claude-sonnet-4", 200_000, json!(64_000)),
        ("claude-sonnet-4-5-20250929", 200_000, json!(64_000)),
        ("claude-3-5-haiku-latest", 200_000, json!(8_192)),
        ("anthropic/claude-3.7-sonnet", 200_000, json!(64_000)),
        (
            "us.anthropic.claude-opus-4-1-20250805-v1:0",
            200_000,
            json!(32_000),
        ),
        ("models/gemini-2.5-flash", 1_048_576, json!(65_536)),
        ("gemini-2.5-flash-lite", 1_048_576, json!(65_536)),
        ("gemini-1.5-pro-002", 2_097_152, json!(8_192)),
        ("qwen/qwen3-coder", 262_144, json!(65_536)),
        ("qwen3-235b-a22b", 131_072, json!(16_384)),
        ("deepseek-chat", 128_000, json!(8_192)),
        ("deepseek-reasoner", 128_000, json!(64_000)),
        ("meta-llama/Llama-3.3-70B-Instruct", 131_072, Value::Null),
        ("llama3.1:8b", 131_072, Value::Null),
        ("mistral-large-latest", 131_072, Value::Null),
    ] {
        let l = limits(id);
        assert_eq!(l["window"], window, "{id}: {l}");
        assert_eq!(l["maxOutputTokens"], max_output, "{id}: {l}");
        assert_eq!(l["known"], true, "{id}");
        assert!(l.get("warning").is_none(), "{id}");
    }
    let l = limits("my-finetune-v2");
    assert_eq!(
        (l["window"].clone(), l["known"].clone()),
        (json!(131_072), json!(false))
    );
    assert_eq!(l["maxOutputTokens"], Value::Null);
    assert!(
        l["warning"]
            .as_str()
            .unwrap()
            .contains("\"my-finetune-v2\"")
    );
    // Not a prefix of a longer word: "gpt-40" is no gpt-4.
    assert_eq!(limits("gpt-40")["known"], false);
}

#[test]
fn the_model_option_sets_the_limits_and_explicit_values_win() {
    let mut chats = Chats::new();
    let create = |chats: &mut Chats, options: Value| -> (u32, Value, Value) {
        let created = ok(chats.create(&options.to_string()));
        let handle = created["handle"].as_u64().unwrap() as u32;
        let saved = ok(chats.save(handle));
        (handle, saved, created["warnings"].clone())
    };
    let (_, saved, warnings) = create(&mut chats, json!({ "model": "gpt-4o" }));
    assert_eq!(saved["window"], 128_000.0);
    assert_eq!(saved["options"]["maxOutputTokens"], 16_384);
    assert_eq!(warnings, json!([]));
    let (_, saved, _) = create(&mut chats, json!({ "model": "gpt-4o", "window": 50_000 }));
    assert_eq!(saved["window"], 50_000.0);
    assert_eq!(saved["options"]["maxOutputTokens"], 16_384);
    let (_, saved, _) = create(
        &mut chats,
        json!({ "model": "claude-sonnet-4", "maxOutputTokens": 1_000 }),
    );
    assert_eq!(saved["window"], 200_000.0);
    assert_eq!(saved["options"]["maxOutputTokens"], 1_000);
    let (_, saved, warnings) = create(&mut chats, json!({ "model": "unknown-x" }));
    assert_eq!(saved["window"], 131_072.0);
    assert!(saved["options"].get("maxOutputTokens").is_none());
    assert_eq!(warnings.as_array().unwrap().len(), 1);
    assert!(warnings[0].as_str().unwrap().contains("unknown-x"));
    assert!(
        warnings[0]
            .as_str()
            .unwrap()
            .contains("assuming a window of 131072 tokens")
    );
    let (_, saved, warnings) = create(&mut chats, json!({ "model": "unknown-x", "window": 9_000 }));
    assert_eq!(saved["window"], 9_000.0);
    assert!(
        warnings[0]
            .as_str()
            .unwrap()
            .contains("using the window given"),
        "{warnings}"
    );
    // The format is saved and restored with the chat.
    let (handle, saved, _) = create(&mut chats, json!({ "model": "gpt-4o", "format": "openai" }));
    assert_eq!(saved["options"]["format"], "openai");
    let restored = ok(chats.restore(&saved.to_string()))["handle"]
        .as_u64()
        .unwrap() as u32;
    assert_eq!(ok(chats.save(restored)), ok(chats.save(handle)));
    let (code, message) = err(chats.create(r#"{"model":5}"#));
    assert_eq!(code, "INVALID_ARGUMENT");
    assert!(
        message.contains("options.model must be a string"),
        "{message}"
    );
}

#[test]
fn the_reference_status_names_are_aliases_with_the_same_numbers() {
    let aliases = ok(json_api::status_aliases());
    let statuses = ok(json_api::statuses());
    assert_eq!(
        aliases,
        json!({
            "COMPRESSION_FAILED_INFLATED_TOKEN_COUNT": 2,
            "COMPRESSION_FAILED_TOKEN_COUNT_ERROR": 3,
            "COMPRESSION_FAILED_EMPTY_SUMMARY": 4,
            "COMPRESSION_FAILED_OUTPUT_TRUNCATED": 6,
        })
    );
    // statuses() is unchanged: its names are the statusNames.
    assert_eq!(statuses.as_object().unwrap().len(), 8);
    for code in aliases.as_object().unwrap().values() {
        assert!(statuses.as_object().unwrap().values().any(|v| v == code));
    }
}

#[test]
fn the_js_layer_is_generated_from_one_answer_of_the_cores_lists() {
    // scripts/build writes STATUSES, STATUS_ALIASES and STEPS from lists().
    let lists = ok(json_api::lists());
    assert_eq!(lists["statuses"], ok(json_api::statuses()));
    assert_eq!(lists["statusAliases"], ok(json_api::status_aliases()));
    assert_eq!(lists["errorCodes"], ok(json_api::error_codes()));
    let steps = &lists["steps"];
    assert_eq!(
        *steps,
        json!({ "SUMMARIZE": "summarize", "DONE": "done", "NEED_HISTORY": "needHistory" })
    );
    // Every step the core answers is an object with one key, one of STEPS.
    let mut chats = Chats::new();
    let created = ok(chats.create(r#"{"window":200000}"#));
    let handle = created["handle"].as_u64().unwrap() as u32;
    let user = r#"{"role":"user","parts":[{"text":"hi"}]}"#;
    let key = |step: &Value| -> String {
        let object = step.as_object().unwrap();
        assert_eq!(object.len(), 1, "{step}");
        object.keys().next().unwrap().clone()
    };
    let need = ok(chats.before_send(handle, "", user));
    assert_eq!(key(&need), steps["NEED_HISTORY"]);
    assert_eq!(need[steps["NEED_HISTORY"].as_str().unwrap()], true);
    let done = ok(chats.before_send(handle, &format!("[{user}]"), user));
    assert_eq!(key(&done), steps["DONE"]);
    let message = |i: usize| {
        let role = if i.is_multiple_of(2) { "user" } else { "model" };
        json!({ "role": role, "parts": [{ "text": "word ".repeat(2_000) }] })
    };
    let history: Vec<Value> = (0..60).map(message).collect();
    let summarize = ok(chats.compact(handle, &history.to_json_string(), ""));
    assert_eq!(key(&summarize), steps["SUMMARIZE"]);
}

#[test]
fn cleared_copies_and_a_dropped_call_come_back_in_the_host_format() {
    for format in [
        Format::OpenAi,
        Format::Anthropic,
        Format::AiSdk,
        Format::LangChain,
        Format::OpenAiResponses,
    ] {
        let mut history: Vec<Value> = system(format).into_iter().collect();
        for t in 0..14 {
            history.push(user_message(format, &format!("turn {t}")));
            history.extend(turn(format, t));
        }
        let before = estimate(format, &history);

        // clearToolOutputs: the old outputs become markers, no summary call.
        let mut chats = Chats::new();
        let options =
            json!({ "window": 32_000, "format": format.name(), "clearToolOutputs": true });
        let handle = create(&mut chats, &options.to_string());
        let result = compact_to_end(&mut chats, handle, &history);
        assert_eq!(result["status"], 1, "{format}: {result}");
        assert_eq!(result["method"], "cleared", "{format}: {result}");
        let kept_from = result["keptFrom"].as_u64().unwrap() as usize;
        let mut new_history: Vec<Value> = system(format).into_iter().collect();
        assert_eq!(
            result["pinned"],
            json!(if new_history.is_empty() {
                vec![]
            } else {
                vec![0]
            })
        );
        new_history.extend(result["head"].as_array().unwrap().iter().cloned());
        new_history.extend(history[kept_from..].iter().cloned());
        let text = new_history.to_json_string();
        assert!(
            !text.contains("\"parts\""),
            "{format}: a Gemini shape came back"
        );
        assert!(text.contains("removed by compaction"), "{format}");
        Format::read(format, Value::Array(new_history.clone()), "new history").unwrap();
        assert_every_result_has_its_call(format, &new_history, "cleared copies");
        let after = estimate(format, &new_history);
        assert!(after < before / 2.0, "{format}: {after} vs {before}");

        // /compact with a trailing call: the call is dropped, the tail
        // before it comes back as the host's own messages, verbatim.
        let mut with_call = history.clone();
        with_call.push(user_message(format, "one more"));
        let mut last = turn(format, 20);
        // The ask and the calls, no results yet (a reasoning item and the
        // call's item in the Responses API).
        last.truncate(if format == Format::OpenAiResponses {
            3
        } else {
            2
        });
        with_call.extend(last);
        let mut chats = Chats::new();
        let options = json!({ "window": 32_000, "format": format.name(), "excludeMessages": 2 });
        let handle = create(&mut chats, &options.to_string());
        let result = compact_to_end(&mut chats, handle, &with_call);
        assert_eq!(result["status"], 1, "{format}: {result}");
        assert_eq!(result["keptFrom"], with_call.len(), "{format}");
        let head = result["head"].as_array().unwrap();
        let copies: Vec<&Value> = head
            .iter()
            .filter(|m| !m.to_string().contains("conversation-summary"))
            .skip(1)
            .collect();
        assert!(!copies.is_empty(), "{format}: {result}");
        for copy in &copies {
            assert!(
                with_call.contains(copy),
                "{format}: a copy is not the host's message: {copy}"
            );
        }
        assert!(
            !head.contains(with_call.last().unwrap()),
            "{format}: the trailing call stayed"
        );
    }
}
