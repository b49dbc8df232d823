//! The ledger through the engine (the ledger, docs/behaviour.md): a careless summary loses
//! neither the files nor the user's words, across compactions, in any
//! language, with the host's own tool names, within the budget, never
//! pushing the result to `auto` or past the original; off, the engine
//! behaves as before; the JSON result carries `summaryCheck`.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests assert on data they built

mod common;
use common::{Done, call_with as call, model, ok, result, user};

use compaction_core::ToJson;
use compaction_core::Value;
use compaction_core::engine::Next;
use compaction_core::estimate::{estimate_text_tokens, message_tokens};
use compaction_core::json;
use compaction_core::json_api::Chats;
use compaction_core::ledger::{LEDGER_HEADING, LedgerOptions, parse_sections};
use compaction_core::summary_request::summary_message;
use compaction_core::{
    CompactionOutcome, CompactionStatus, Compactor, CompactorConfig, Content,
    DEFAULT_SUMMARY_PROMPT, ErrorCode, PartKind, RequestId, SendDecision, SummaryAnswer,
    SummaryRequest, Usage, estimate_content_tokens,
};

const WINDOW: f64 = 128_000.0; // auto 95 000
const CONSTRAINT: &str = "Before you touch anything: all changes must be backward compatible. \
Every public function keeps its name and signature, and the v1 endpoints keep answering.";
const GENERIC: &str = "The assistant worked on the storage refactoring and made progress.";

/// The twelve files the refactoring writes, each through a different tool
/// call an agent makes.
const WRITTEN: [&str; 12] = [
    "src/storage/repository.rs",
    "src/storage/mod.rs",
    "src/storage/sql.rs",
    "src/handlers/users.rs",
    "src/handlers/orders.rs",
    "src/handlers/mod.rs",
    "src/db/pool.rs",
    "src/lib.rs",
    "tests/repository.rs",
    "tests/compat_v1.rs",
    "migrations/0007_indexes.sql",
    "CHANGELOG.md",
];
/// What is left at the end: named only in the last (verbatim) exchange.
const PENDING: [&str; 2] = ["src/handlers/admin.rs", "src/handlers/export.rs"];

/// A tool exchange: the call and its result.
fn tool(name: &str, args: Value, output: &str) -> [Content; 2] {
    [call(name, args), result(name, output)]
}

/// Source-like text of about `chars` characters (a file the agent reads).
fn code(seed: usize, chars: usize) -> String {
    let mut out = String::new();
    let mut i = seed;
    while out.len() < chars {
        out.push_str(&format!(
            "pub fn handler_{i}(db: &Pool, id: u64) -> Result<Row, Error> {{\n    let row = db.query(\"SELECT * FROM t{} WHERE id = ?\", id)?;\n    Ok(row)\n}}\n",
            i % 17
        ));
        i += 1;
    }
    out
}

fn text_of(content: &Content) -> String {
    content
        .parts
        .iter()
        .filter_map(|p| match p.kind() {
            PartKind::Text { text, .. } => Some(text.to_string()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The product page's example as a script: the constraint early, reading
/// (enough to reach `auto` on a 128K window), twelve files written, three
/// failed builds each fixed, then the last two exchanges: a full test run,
/// and "what is left" answered with the two pending files. Returns the
/// history and the index of the last two exchanges' first message.
fn refactoring_session(estimate: &compaction_core::EstimateOptions) -> (Vec<Content>, usize) {
    let f = WRITTEN;
    let mut h = vec![
        user(
            "Move the SQL out of the HTTP handlers into a repository module under src/storage, \
             one function per query.",
        ),
        model("I'll read the handlers first."),
        user(CONSTRAINT),
        model("Understood: the public API and the v1 endpoints stay as they are."),
    ];
    // Exploration: reads until the history is well past auto.
    let mut i = 0;
    while estimate_content_tokens(&h, estimate) < 100_000 {
        h.extend(tool(
            "read_file",
            json!({ "file_path": format!("src/handlers/h{i}.rs") }),
            &code(i, 12_000),
        ));
        i += 1;
    }
    let writes = [
        tool(
            "write_file",
            json!({ "file_path": f[0], "content": "pub struct Repository;" }),
            "ok",
        ),
        tool(
            "edit",
            json!({ "filePath": f[1], "oldString": "", "newString": "pub mod repository;" }),
            "ok",
        ),
        tool(
            "create_file",
            json!({ "path": f[2], "content": "pub const USERS: &str = \"…\";" }),
            "ok",
        ),
        tool(
            "replace",
            json!({ "file_path": f[3], "old_string": "db.query", "new_string": "repo.user" }),
            "ok",
        ),
    ];
    h.extend(writes.into_iter().flatten());
    h.extend(tool(
        "run_shell_command",
        json!({ "command": "cargo build" }),
        "error[E0433]: failed to resolve: use of undeclared crate or module `repository`",
    ));
    h.extend(tool(
        "str_replace_based_edit_tool",
        json!({ "command": "str_replace", "path": f[4], "old_str": "use crate::db", "new_str": "use crate::storage" }),
        "ok",
    ));
    h.extend(tool(
        "multi_edit",
        json!({ "file_path": f[5], "edits": [{ "old_string": "a", "new_string": "b" }] }),
        "ok",
    ));
    h.extend(tool(
        "run_shell_command",
        json!({ "command": "cargo build" }),
        "error[E0308]: mismatched types: expected `PoolRef`, found `&Pool`",
    ));
    h.extend(tool(
        "apply_patch",
        json!({ "input": format!(
            "*** Begin Patch\n*** Update File: {}\n@@\n-pub fn get(&self)\n+pub fn get(&self) -> PoolRef\n*** Update File: {}\n@@\n+pub use storage::Repository;\n*** End Patch",
            f[6], f[7]
        ) }),
        "Done",
    ));
    h.extend(tool(
        "run_shell_command",
        json!({ "command": "cargo build && cargo test" }),
        "test compat_v1::old_signature ... FAILED\nerror: test failed",
    ));
    h.extend(tool(
        "write_to_file",
        json!({ "path": f[8], "content": "#[test] fn finds_a_user() {}" }),
        "ok",
    ));
    h.extend(tool(
        "str_replace_editor",
        json!({ "command": "create", "path": f[9], "file_text": "#[test] fn v1_still_answers() {}" }),
        "ok",
    ));
    h.extend(tool(
        "run_shell_command",
        json!({ "command": "cargo test" }),
        "test result: ok. 212 passed; 0 failed",
    ));
    h.push(user("Good. Add the missing indexes and note the change."));
    h.extend(tool(
        "save_file",
        json!({ "filename": f[10], "content": "CREATE INDEX orders_user ON orders(user_id);" }),
        "ok",
    ));
    h.extend(tool(
        "edit_file",
        json!({ "target_file": f[11], "instructions": "add an Unreleased entry" }),
        "ok",
    ));
    h.push(model("Indexes added and the changelog updated."));
    // The last two exchanges, kept verbatim.
    let last = h.len();
    h.push(user("Run the whole test suite once more."));
    h.extend(tool(
        "run_shell_command",
        json!({ "command": "cargo test --all" }),
        &"test storage::repository::tests::finds ... ok\n".repeat(320),
    ));
    h.push(model("All 214 tests pass."));
    h.push(user("What is left?"));
    h.push(model(&format!(
        "Two files still build SQL by hand: {} and {}. I'll move them next.",
        PENDING[0], PENDING[1]
    )));
    (h, last)
}

fn summarize(decision: SendDecision) -> (RequestId, SummaryRequest, usize) {
    match decision {
        SendDecision::Summarize {
            id,
            request,
            kept_from,
            ..
        } => (id, request, kept_from),
        other => panic!("expected a summary request, got {other:?}"),
    }
}

fn generic() -> SummaryAnswer {
    SummaryAnswer {
        text: GENERIC.into(),
        finish_reason: Some("STOP".into()),
        usage: None,
    }
}

fn chat(options: Value) -> Compactor {
    let mut value = options;
    value["window"] = json!(WINDOW);
    Compactor::new(CompactorConfig::from_json(&value).unwrap().config).unwrap()
}

/// Compacts `history` before `next` with `answer` (to every summary call
/// of the run: a part too large for one request takes several); the
/// outcome and the new history.
fn compact(
    chat: &mut Compactor,
    history: &[Content],
    answer: SummaryAnswer,
) -> (CompactionOutcome, Vec<Content>) {
    let (mut id, _, _) = summarize(chat.poll_before_send(history, &[user("next")]).unwrap());
    let outcome = loop {
        match chat.handle_answer(id, answer.clone()).unwrap() {
            Next::Done(outcome) => break outcome,
            Next::Summarize { id: next, .. } => id = next,
            other => panic!("a step this test does not know: {other:?}"),
        }
    };
    let new_history = outcome.new_history(history).unwrap_or_default();
    (outcome, new_history)
}

#[test]
fn the_product_pages_example_a_generic_summary_loses_no_file_and_no_constraint() {
    let mut chat = chat(json!({}));
    let (history, last) = refactoring_session(&chat.options().estimate);
    let (id, request, kept_from) =
        summarize(chat.poll_before_send(&history, &[user("next")]).unwrap());
    assert_eq!(kept_from, last, "the tail starts at the last two exchanges");
    let outcome = chat.handle_answer(id, generic()).unwrap().done();
    assert_eq!(outcome.status(), CompactionStatus::Compressed);
    let new_history = outcome.new_history(&history).unwrap();

    // The summary message: the model's sentence, then the ledger's section
    // with all twelve paths and the constraint in the user's own words.
    let summary = outcome.summary().unwrap();
    assert!(summary.starts_with(GENERIC));
    assert_eq!(new_history[0], summary_message(summary));
    let written = text_of(&new_history[0]);
    assert!(written.contains(LEDGER_HEADING));
    for path in WRITTEN {
        assert!(written.contains(path), "{path} is named");
    }
    assert!(written.contains(&json!(CONSTRAINT).to_string()));
    let (files, words) = parse_sections(&written);
    assert_eq!(
        files.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(),
        WRITTEN
    );
    assert_eq!(
        words,
        [
            "Good. Add the missing indexes and note the change.",
            CONSTRAINT,
            "Move the SQL out of the HTTP handlers into a repository module under src/storage, \
             one function per query."
        ]
    );
    // Reads change nothing.
    assert!(!written.contains("src/handlers/h0.rs"));

    // The last two exchanges are verbatim, the pending files with them.
    assert_eq!(new_history[2..], history[last..]);
    let tail = new_history[2..].to_json_string();
    for path in PENDING {
        assert!(tail.contains(path));
    }

    // The check says what the model left out.
    let check = outcome.summary_check().unwrap();
    assert_eq!(check.missing_files, WRITTEN);
    assert_eq!(check.sections.len(), 5);
    assert!(check.sections.values().all(|has| !has));
    assert!(!check.is_complete());
    assert!(
        request
            .system_instruction
            .starts_with(DEFAULT_SUMMARY_PROMPT)
    );

    // The count includes the section, and stays far below auto.
    assert!(outcome.new_token_count_estimated());
    assert_eq!(chat.last_prompt_token_count(), outcome.new_token_count());
    assert!((outcome.new_token_count() as f64) < chat.thresholds().warn);
    // Without usage: the new history's estimate, plus the fraction of a
    // token the rounded original held beyond it.
    let estimate = &chat.options().estimate;
    let new_estimate = estimate_content_tokens(&new_history, estimate);
    assert!(outcome.new_token_count().abs_diff(new_estimate) <= 1);
}

#[test]
fn a_good_summary_leaves_the_ledger_only_what_it_misses() {
    let mut chat = chat(json!({}));
    let (history, _) = refactoring_session(&chat.options().estimate);
    let text = format!(
        "## User intent and requirements\n- {CONSTRAINT}\n## Task status\n- done: the repository\n\
         ## Files\n{}\n## Decisions and constraints\n- v1 stays\n## Next steps\n- {} and {}",
        WRITTEN[..11]
            .iter()
            .map(|p| format!("- {p}"))
            .collect::<Vec<_>>()
            .join("\n"),
        PENDING[0],
        PENDING[1]
    );
    let answer = SummaryAnswer {
        text: text.clone(),
        ..generic()
    };
    let (outcome, new_history) = compact(&mut chat, &history, answer);
    let check = outcome.summary_check().unwrap();
    assert!(check.sections.values().all(|&has| has), "{check:?}");
    assert_eq!(check.missing_files, ["CHANGELOG.md"]);
    let section = &outcome.summary().unwrap()[text.len()..];
    // Listed: the one file and the words the summary lacks; the rest only
    // carried (`= …`) for the next compaction.
    assert!(section.contains("- CHANGELOG.md (edited)"));
    assert!(section.contains("= src/lib.rs (edited)"));
    assert!(section.contains(&format!("= {}", json!(CONSTRAINT))));
    assert!(text_of(&new_history[0]).ends_with("```\n</conversation-summary>"));
}

#[test]
fn two_compactions_in_a_row_keep_what_came_before_the_first() {
    let mut chat = chat(json!({}));
    let (history, _) = refactoring_session(&chat.options().estimate);
    let (first, mut history) = compact(&mut chat, &history, generic());
    assert_eq!(first.status(), CompactionStatus::Compressed);
    // The session goes on: a new request, a new file, more reading.
    history.push(user(
        "Now the admin handler. Keep the audit log format unchanged.",
    ));
    history.extend(tool(
        "edit",
        json!({ "file_path": PENDING[0], "old_string": "db.query", "new_string": "repo.admin" }),
        "ok",
    ));
    let mut i = 100;
    while estimate_content_tokens(&history, &chat.options().estimate) < 100_000 {
        history.extend(tool(
            "read_file",
            json!({ "file_path": format!("src/admin/a{i}.rs") }),
            &code(i, 12_000),
        ));
        i += 1;
    }
    history.push(user("Status?"));
    history.push(model("The admin handler is moved; export is next."));
    chat.handle_usage(&json!({ "totalTokenCount": 0 }));
    let (id, request, _) = summarize(chat.poll_before_send(&history, &[user("next")]).unwrap());
    // The request starts with the first summary, ledger included.
    assert!(text_of(&request.contents[0]).contains(LEDGER_HEADING));
    let second = chat.handle_answer(id, generic()).unwrap().done();
    assert_eq!(second.status(), CompactionStatus::Compressed);
    let written = second.summary().unwrap();
    for path in WRITTEN.iter().chain(&PENDING[..1]) {
        assert!(
            written.contains(path),
            "{path} survives the second compaction"
        );
    }
    let (files, words) = parse_sections(written);
    assert_eq!(files.len(), 13);
    assert_eq!(
        words[..2],
        [
            "Now the admin handler. Keep the audit log format unchanged.",
            "What is left?"
        ]
    );
    assert!(
        words.iter().any(|w| w == CONSTRAINT),
        "the constraint from before the first compaction: {words:?}"
    );
    // The earlier summary's own sentence is not mistaken for the user's words.
    assert!(!words.iter().any(|w| w.contains(GENERIC)));
}

#[test]
fn a_session_in_chinese() {
    let mut chat = chat(json!({ "tokenizer": "qwen" }));
    let constraint = "所有修改必须向后兼容：旧的接口一个都不能删，返回值的格式也不能变。";
    let mut history = vec![
        user("把用户模块拆成两个文件：模型放在 src/用户/模型.rs，接口放在 src/用户/接口.rs。"),
        model("好的，我先看一下现有的代码。"),
        user(constraint),
        model("明白，旧接口保持不变。"),
    ];
    history.extend(tool(
        "write_file",
        json!({ "file_path": "src/用户/模型.rs", "content": "pub struct 用户;" }),
        "ok",
    ));
    history.extend(tool(
        "write_file",
        json!({ "file_path": "src/用户/接口.rs", "content": "pub fn 获取() {}" }),
        "ok",
    ));
    history.extend(tool("delete_file", json!({ "path": "src/用户.rs" }), "ok"));
    let mut i = 0;
    while estimate_content_tokens(&history, &chat.options().estimate) < 100_000 {
        history.extend(tool(
            "read_file",
            json!({ "file_path": format!("src/旧/文件{i}.rs") }),
            &format!("// 这是第{i}个文件的内容，里面有很多旧的代码。\n").repeat(200),
        ));
        i += 1;
    }
    history.push(user("测试都通过了吗？"));
    history.push(model("全部通过。"));
    history.push(user("好，下一步做什么？"));
    history.push(model("更新文档。"));
    let answer = SummaryAnswer {
        text: "用户在重构代码。".into(),
        ..generic()
    };
    let (outcome, new_history) = compact(&mut chat, &history, answer);
    assert_eq!(outcome.status(), CompactionStatus::Compressed);
    let written = text_of(&new_history[0]);
    assert!(written.contains("- src/用户/模型.rs (written)"));
    assert!(written.contains("- src/用户/接口.rs (written)"));
    assert!(written.contains("- src/用户.rs (deleted)"));
    let (_, words) = parse_sections(&written);
    assert!(words.iter().any(|w| w == constraint), "{words:?}");
    assert!(
        outcome.summary_check().unwrap().missing_files
            == ["src/用户/模型.rs", "src/用户/接口.rs", "src/用户.rs"]
    );
}

#[test]
fn the_hosts_own_tool_names_through_the_option() {
    let session = |chat: &Compactor| {
        let mut history = vec![user("Rename the widget everywhere."), model("On it.")];
        history.extend(tool(
            "put_source",
            json!({ "where": "lib/widget.ts", "body": "export class Widget {}" }),
            "ok",
        ));
        history.extend(tool(
            "relocate",
            json!({ "from": "lib/old_widget.ts", "to": "lib/legacy/widget.ts" }),
            "ok",
        ));
        let mut i = 0;
        while estimate_content_tokens(&history, &chat.options().estimate) < 100_000 {
            history.extend(tool(
                "peek",
                json!({ "where": format!("lib/w{i}.ts") }),
                &code(i, 12_000),
            ));
            i += 1;
        }
        history.extend([
            user("Tests?"),
            model("Green."),
            user("Thanks."),
            model("Anything else?"),
        ]);
        history
    };
    // Unknown to the defaults: nothing recorded.
    let mut plain = chat(json!({}));
    let history = session(&plain);
    let (outcome, _) = compact(&mut plain, &history, generic());
    assert!(!outcome.summary().unwrap().contains("lib/widget.ts"));
    assert!(outcome.summary_check().unwrap().missing_files.is_empty());
    // Named by the host: recorded.
    let mut host = chat(json!({ "ledger": {
        "written": ["put_source"], "moved": ["relocate"], "pathArguments": ["where"]
    } }));
    assert_eq!(host.options().ledger.written, ["put_source"]);
    let (outcome, _) = compact(&mut host, &history, generic());
    let written = outcome.summary().unwrap();
    assert!(written.contains("- lib/widget.ts (written)"), "{written}");
    assert!(written.contains("- lib/old_widget.ts (moved to lib/legacy/widget.ts)"));
    assert!(written.contains("- lib/legacy/widget.ts (moved from lib/old_widget.ts)"));
    assert!(!written.contains("lib/w0.ts"), "a read is not a write");
    // The names survive a reload.
    let restored = Compactor::restore_json(&host.save().to_json()).unwrap();
    assert_eq!(restored.options(), host.options());
}

/// A history whose user messages are huge pastes.
fn pastes(count: usize, chars: usize) -> Vec<Content> {
    let mut history = Vec::new();
    for i in 0..count {
        history.push(user(&format!(
            "paste {i}: {}",
            "Requirement text the user pasted. ".repeat(chars / 34)
        )));
        history.push(model(&format!("Read paste {i}.")));
    }
    history.push(user("Summarise the requirements."));
    history.push(model("Done."));
    history
}

#[test]
fn the_words_budget_is_respected_and_huge_user_messages_do_not_inflate() {
    for budget in [300.0, 2_000.0] {
        let mut chat = chat(json!({ "ledger": { "userWordsBudget": budget } }));
        let history = pastes(16, 40_000);
        let (outcome, _) = compact(&mut chat, &history, generic());
        assert_eq!(outcome.status(), CompactionStatus::Compressed);
        assert!(outcome.new_token_count() < outcome.original_token_count());
        let (_, words) = parse_sections(outcome.summary().unwrap());
        let estimate = &chat.options().estimate;
        let used: u64 = words
            .iter()
            .map(|w| estimate_text_tokens(w, estimate))
            .sum();
        assert!(
            !words.is_empty() && used as f64 <= budget,
            "{used} > {budget}"
        );
        assert!(
            words
                .iter()
                .all(|w| w.contains("characters removed by compaction"))
        );
    }
    // A manual compaction whose summary is nearly as large as what it
    // replaces: the section shrinks to the room left, never inflating.
    let mut chat = chat(json!({}));
    let history = pastes(3, 8_000);
    let original = estimate_content_tokens(&history, &chat.options().estimate);
    let (id, _, kept_from) = summarize(chat.poll_manual(&history, None).unwrap());
    let head_tokens: f64 = history[..kept_from]
        .iter()
        .map(|c| message_tokens(c, &chat.options().estimate))
        .sum();
    // A summary with (almost) the replaced part's size.
    let mut text = String::new();
    while (estimate_text_tokens(&text, &chat.options().estimate) as f64) < head_tokens - 150.0 {
        text.push_str("The user pasted requirements about the billing export. ");
    }
    let outcome = chat
        .handle_answer(id, SummaryAnswer { text, ..generic() })
        .unwrap()
        .done();
    assert_eq!(
        outcome.status(),
        CompactionStatus::Compressed,
        "{outcome:?}"
    );
    assert!(outcome.new_token_count() <= original);
}

/// A chat whose provider count hides `hidden` tokens the estimator cannot
/// see (system prompt, tools), so the new prompt's size can be set to land
/// anywhere near `auto`.
fn near_auto(ledger: Value, hidden: u64) -> (Compactor, Vec<Content>, CompactionOutcome) {
    // The hidden tokens are what the host sends besides the messages (a
    // system prompt, tool schemas), declared as such: the usage-gap model
    // keeps them whole in every later prompt.
    let mut chat = chat(json!({ "ledger": ledger, "overheadTokens": hidden }));
    let (history, _) = refactoring_session(&chat.options().estimate);
    let visible = estimate_content_tokens(&history, &chat.options().estimate);
    chat.handle_usage(&json!({ "totalTokenCount": visible + hidden }));
    let (mut id, _, _) = summarize(chat.poll_before_send(&history, &[user("next")]).unwrap());
    // Hidden tokens make the part to summarize large on the provider's
    // scale: the run may take several calls, each answered generically.
    let outcome = loop {
        match chat.handle_answer(id, generic()).unwrap() {
            Next::Done(outcome) => break outcome,
            Next::Summarize { id: next, .. } => id = next,
            other => panic!("a step this test does not know: {other:?}"),
        }
    };
    (chat, history, outcome)
}

#[test]
fn the_ledger_never_pushes_the_result_to_auto() {
    // Without the ledger: how far below auto the summary alone lands.
    let (chat, _, off) = near_auto(json!({ "enabled": false }), 80_000);
    let auto = chat.thresholds().auto;
    let room = auto - off.new_token_count() as f64;
    assert!(room > 0.0);
    let full = near_auto(json!({}), 0).2;
    let full_section = full.summary().unwrap().len() - GENERIC.len();
    let full_tokens =
        full.new_token_count() - estimate_content_tokens(&[], &chat.options().estimate);
    let mut shrunk = 0;
    for margin in [5.0, 60.0, 120.0, 250.0, 400.0, 2_000.0] {
        // Hide more, so that the summary alone and the pending message land
        // `margin` below auto (the next prompt holds both).
        let pending = message_tokens(&user("next"), &chat.options().estimate).ceil();
        let hidden = 80_000 + (room - margin - pending) as u64;
        let (_, _, on) = near_auto(json!({}), hidden);
        let (_, _, off) = near_auto(json!({ "enabled": false }), hidden);
        assert_eq!(on.status(), CompactionStatus::Compressed);
        assert!((on.new_token_count() as f64) < auto, "margin {margin}");
        let section = on.summary().unwrap().len() - GENERIC.len();
        let added = on.new_token_count() - off.new_token_count();
        assert!(added as f64 <= margin, "margin {margin}: +{added}");
        if margin == 5.0 {
            assert_eq!(section, 0, "no room for even the heading");
        } else if margin == 2_000.0 {
            // Room for all of it: nothing left out (the run's split depends
            // on the hidden tokens, so its section is not `full`'s).
            assert!(section > 0, "room for all of it");
            assert!(!on.summary().unwrap().contains("left out for room"));
        } else if section > 0 && section < full_section {
            assert!(on.summary().unwrap().contains("left out for room"));
            shrunk += 1;
        }
    }
    assert!(
        shrunk >= 2,
        "the section shrinks to the room left ({full_tokens} tokens in full)"
    );
}

#[test]
fn with_usage_the_section_is_counted_in_the_wrapping() {
    let run = |ledger: Value| {
        let mut chat = chat(json!({ "ledger": ledger }));
        let (history, _) = refactoring_session(&chat.options().estimate);
        let (id, request, _) = summarize(chat.poll_before_send(&history, &[user("next")]).unwrap());
        let input = estimate_content_tokens(&request.contents, &chat.options().estimate) + 2_000;
        let answer = SummaryAnswer {
            usage: Some(
                Usage::from_value(
                    &json!({ "promptTokenCount": input, "candidatesTokenCount": 40 }),
                )
                .usage,
            ),
            ..generic()
        };
        let outcome = chat.handle_answer(id, answer).unwrap().done();
        assert!(!outcome.new_token_count_estimated());
        (chat, outcome)
    };
    let (chat, on) = run(json!({}));
    let (_, off) = run(json!({ "enabled": false }));
    let estimate = &chat.options().estimate;
    let section = &on.summary().unwrap()[GENERIC.len()..];
    let added = on.new_token_count() as f64 - off.new_token_count() as f64;
    let expected = message_tokens(&summary_message(on.summary().unwrap()), estimate)
        - message_tokens(&summary_message(GENERIC), estimate);
    assert!(!section.is_empty());
    assert!((added - expected).abs() <= 1.0, "{added} vs {expected}");
}

#[test]
fn disabled_gives_todays_behaviour() {
    let mut chat = chat(json!({ "ledger": { "enabled": false } }));
    assert!(!chat.options().ledger.enabled);
    let (history, last) = refactoring_session(&chat.options().estimate);
    let before = estimate_content_tokens(&history, &chat.options().estimate);
    let (outcome, new_history) = compact(&mut chat, &history, generic());
    assert_eq!(outcome.status(), CompactionStatus::Compressed);
    assert_eq!(outcome.summary(), Some(GENERIC));
    assert_eq!(new_history[0], summary_message(GENERIC));
    assert_eq!(new_history[2..], history[last..]);
    assert!(outcome.summary_check().is_none());
    // Without usage: the new history's estimate (nothing hidden here but
    // the fraction of a token the rounded original held).
    assert_eq!(outcome.original_token_count(), before);
    let new_estimate = estimate_content_tokens(&new_history, &chat.options().estimate);
    assert!(outcome.new_token_count().abs_diff(new_estimate) <= 1);
    let value = outcome.to_json();
    assert_eq!(value["summaryCheck"], Value::Null);
    assert_eq!(value["summary"], GENERIC);
    // The default is on.
    assert!(LedgerOptions::default().enabled);
    assert!(
        Compactor::new(CompactorConfig::new(WINDOW))
            .unwrap()
            .options()
            .ledger
            .enabled
    );
}

#[test]
fn an_inflated_summary_carries_its_check_and_no_section_is_added() {
    let run = |ledger: Value| {
        let mut chat = chat(json!({ "ledger": ledger }));
        let history = pastes(6, 4_000);
        let (id, _, _) = summarize(chat.poll_manual(&history, None).unwrap());
        let answer = SummaryAnswer {
            text: "## Files\n- none\n".repeat(3_000),
            ..generic()
        };
        chat.handle_answer(id, answer).unwrap().done()
    };
    let outcome = run(json!({}));
    assert_eq!(outcome.status(), CompactionStatus::Inflated);
    let check = outcome.summary_check().unwrap();
    assert_eq!(check.sections.get("Files"), Some(&true));
    assert_eq!(check.sections.get("Next steps"), Some(&false));
    let value = outcome.to_json();
    assert_eq!(value["summaryCheck"]["sections"]["Files"], true);
    // The size it would have had is the summary's alone: no room, no section.
    let off = run(json!({ "enabled": false }));
    assert_eq!(off.status(), CompactionStatus::Inflated);
    assert_eq!(outcome.new_token_count(), off.new_token_count());
    assert!(off.summary_check().is_none());
}

#[test]
fn the_json_result_carries_summary_check() {
    let history = refactoring_session(&CompactorConfig::new(WINDOW).options.estimate).0;
    let history_text = history.to_json_string();
    let user_message = r#"{"role":"user","parts":[{"text":"next"}]}"#;
    let mut chats = Chats::new();
    for (options, expect_check) in [
        (json!({ "window": WINDOW }), true),
        (
            json!({ "window": WINDOW, "ledger": { "enabled": false } }),
            false,
        ),
    ] {
        let handle = ok(chats.create(&options.to_string()))["handle"]
            .as_u64()
            .unwrap() as u32;
        let step = ok(chats.before_send(handle, &history_text, user_message));
        let id = step["summarize"]["id"].as_f64().unwrap();
        let answer = json!({ "text": "## Task status\n- in progress", "finishReason": "STOP" });
        let done = ok(chats.answer(handle, id, &answer.to_string()))["done"].clone();
        assert_eq!(done["statusName"], "COMPRESSED");
        if expect_check {
            let check = &done["summaryCheck"];
            assert_eq!(check["sections"]["Task status"], true);
            assert_eq!(check["sections"]["Files"], false);
            assert_eq!(check["sections"].as_object().unwrap().len(), 5);
            assert_eq!(check["missingFiles"], json!(WRITTEN));
            let summary = done["summary"].as_str().unwrap();
            assert!(summary.contains(LEDGER_HEADING));
            assert!(done["head"][0].to_string().contains("CHANGELOG.md"));
        } else {
            assert_eq!(done["summaryCheck"], Value::Null);
            assert_eq!(done["summary"], "## Task status\n- in progress");
        }
        // The options, ledger included, survive save and restore.
        let saved = ok(chats.save(handle));
        assert_eq!(saved["options"]["ledger"]["enabled"], expect_check);
        let restored = ok(chats.restore(&saved.to_string()))["handle"]
            .as_u64()
            .unwrap() as u32;
        assert_eq!(ok(chats.save(restored))["options"], saved["options"]);
    }
}

#[test]
fn bad_ledger_options_are_typed_errors_naming_the_field() {
    let err = |options: Value| {
        let mut value = options;
        value["window"] = json!(WINDOW);
        CompactorConfig::from_json(&value).unwrap_err()
    };
    let e = err(json!({ "ledger": { "edited": "patch_source" } }));
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    assert_eq!(
        e.message(),
        "options.ledger.edited must be an array of strings, got the string \"patch_source\""
    );
    let e = err(json!({ "ledger": { "userWordsBudget": { "$nonFinite": "Infinity" } } }));
    assert!(
        e.message()
            .contains("options.ledger.userWordsBudget must be a finite number"),
        "{}",
        e.message()
    );
    let e = err(json!({ "ledger": { "enable": false } }));
    assert!(
        e.message()
            .contains("options.ledger: unknown field \"enable\""),
        "{}",
        e.message()
    );
    let e = err(json!({ "ledger": true }));
    assert!(
        e.message().contains("options.ledger must be an object"),
        "{}",
        e.message()
    );
    // From Rust, validated by the engine.
    let mut config = CompactorConfig::new(WINDOW);
    config.options.ledger.user_words_budget = Some(f64::NAN);
    assert_eq!(
        Compactor::new(config).unwrap_err().code(),
        ErrorCode::InvalidArgument
    );
    // Inside a saved state, INVALID_STATE.
    let mut saved = Compactor::new(CompactorConfig::new(WINDOW))
        .unwrap()
        .save()
        .to_json();
    saved["options"]["ledger"] = json!({ "written": [1] });
    let e = Compactor::restore_json(&saved).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidState);
    assert!(
        e.message().contains("saved state.options.ledger.written"),
        "{}",
        e.message()
    );
    // A state saved before the ledger existed restores with it on.
    let mut old = Compactor::new(CompactorConfig::new(WINDOW))
        .unwrap()
        .save()
        .to_json();
    old["options"].as_object_mut().unwrap().remove("ledger");
    assert!(
        Compactor::restore_json(&old)
            .unwrap()
            .options()
            .ledger
            .enabled
    );
    // Bit-exact through a save.
    let mut config = CompactorConfig::new(WINDOW);
    config.options.ledger.user_words_budget = Some(0.1 + 0.2);
    let chat = Compactor::new(config).unwrap();
    let text = chat.save().to_json_string();
    let back = Compactor::restore_json(&text.parse::<Value>().unwrap()).unwrap();
    assert_eq!(
        back.options().ledger.user_words_budget.map(f64::to_bits),
        Some((0.1f64 + 0.2).to_bits())
    );
}
