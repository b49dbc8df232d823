//! The compaction state machine: every status, the breaker, hard forcing, retention, save and restore, stale and busy requests.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests assert on data they built
mod common;

use common::{
    Done, Rng, big_response, call, conversation, expect_summarize, model, snapshot, user,
};
use compaction_core::estimate::estimate_text_tokens;
use compaction_core::json;
use compaction_core::summary_request::summary_message;
use compaction_core::{
    CompactionOptions, CompactionStatus, Compactor, CompactorConfig, Content, ErrorCode,
    NoopReason, SendDecision, SummaryAnswer, SummaryRequest, Tier, Trigger, Usage,
    estimate_content_tokens,
};
use compaction_core::{ToJson, Value};

const WINDOW: f64 = 200_000.0; // warn 147 000, auto 167 000, hard 177 000

/// A chat whose last response reported `tokens`.
fn chat_at(tokens: u64) -> Compactor {
    let mut chat = Compactor::new(common::spec_config(WINDOW)).unwrap();
    if tokens > 0 {
        assert!(
            chat.handle_usage(&json!({ "totalTokenCount": tokens }))
                .taken
        );
    }
    chat
}

/// 40 messages of about 2 000 tokens each: retention keeps the last 4.
fn long_history() -> Vec<Content> {
    conversation(20, 8_000)
}

fn expect_proceed(decision: SendDecision) -> NoopReason {
    match decision {
        SendDecision::Proceed { reason, .. } => reason,
        other => panic!("expected to proceed, got {other:?}"),
    }
}

fn good_answer() -> SummaryAnswer {
    SummaryAnswer {
        text: "## User intent and requirements\n- questions answered".into(),
        finish_reason: Some("STOP".into()),
        usage: None,
    }
}

fn failing_answer() -> SummaryAnswer {
    SummaryAnswer {
        text: "   \n".into(),
        ..Default::default()
    }
}

#[test]
fn below_auto_proceeds_and_the_check_only_estimates_the_new_message() {
    let mut chat = chat_at(100_000);
    let message = user("hello world"); // 3 tokens
    // With a usage anchor the history is not read: any history gives the same estimate.
    for history in [Vec::new(), long_history(), conversation(2_000, 4_000)] {
        match chat
            .poll_before_send(&history, std::slice::from_ref(&message))
            .unwrap()
        {
            SendDecision::Proceed {
                estimate,
                tier,
                reason,
            } => {
                assert_eq!(estimate, 100_003);
                assert_eq!(tier, Tier::Safe);
                assert_eq!(reason, NoopReason::BelowAuto);
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn a_large_user_message_crosses_auto_in_the_gate() {
    let mut chat = chat_at(160_000);
    let history = long_history();
    assert_eq!(
        expect_proceed(chat.poll_before_send(&history, &[user("short")]).unwrap()),
        NoopReason::BelowAuto
    );
    // 32 000 characters ≈ 8 000 tokens: 168 000 ≥ auto.
    let big = user(&"x".repeat(32_000));
    let (_, _, trigger) = expect_summarize(
        chat.poll_before_send(&history, std::slice::from_ref(&big))
            .unwrap(),
    );
    assert_eq!(trigger, Trigger::Auto);
}

#[test]
fn auto_compacts_and_success_resets_the_indicator() {
    let mut chat = chat_at(170_000);
    let history = long_history();
    let before = snapshot(&history);
    let (id, request, trigger) =
        expect_summarize(chat.poll_before_send(&history, &[user("next")]).unwrap());
    assert_eq!(trigger, Trigger::Auto);
    // The summarized part, then the directive.
    assert_eq!(request.contents.len(), 36 + 1);
    let outcome = chat.handle_answer(id, good_answer()).unwrap().done();
    assert_eq!(outcome.status(), CompactionStatus::Compressed);
    assert_eq!(outcome.kept_from(), 36);
    assert_eq!(outcome.replaced(&history), &history[..36]);
    let new_history = outcome.new_history(&history).unwrap();
    assert_eq!(new_history.len(), 2 + 4);
    assert_eq!(new_history[0].role, "user");
    assert!(
        new_history[0]
            .to_json_string()
            .contains("<conversation-summary>")
    );
    assert_eq!(new_history[1].role, "model");
    assert_eq!(new_history[2..], history[36..]);
    assert_eq!(outcome.original_token_count(), 170_000);
    assert!(outcome.new_token_count() < 170_000);
    assert!(outcome.new_token_count_estimated());
    assert_eq!(chat.last_prompt_token_count(), outcome.new_token_count());
    assert_eq!(outcome.consecutive_failures(), 0);
    // The host's history is never touched by the engine.
    assert_eq!(snapshot(&history), before);
    // The next check starts from the new count, well below warn.
    match chat
        .poll_before_send(&new_history, &[user("next")])
        .unwrap()
    {
        SendDecision::Proceed { tier, .. } => assert_eq!(tier, Tier::Safe),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_new_count_comes_from_the_summary_usage_when_present() {
    let mut chat = chat_at(170_000);
    let history = long_history();
    let (id, request, _) =
        expect_summarize(chat.poll_before_send(&history, &[user("next")]).unwrap());
    let request_tokens = estimate_content_tokens(&request.contents, &Default::default());
    let answer = SummaryAnswer {
        usage: Some(
            Usage::from_value(&json!({
                "promptTokenCount": request_tokens + 500,
                "candidatesTokenCount": 1_200,
                "totalTokenCount": request_tokens + 1_700
            }))
            .usage,
        ),
        ..good_answer()
    };
    let outcome = chat.handle_answer(id, answer).unwrap().done();
    assert_eq!(outcome.status(), CompactionStatus::Compressed);
    assert!(!outcome.new_token_count_estimated());
    // 170 000 minus what the summarized messages cost (the call's input
    // minus prompt and directive), plus the 1 200-token summary and its
    // wrapping, in which the ledger's section (after the model's text in the
    // summary message) is estimated.
    let n = outcome.new_token_count();
    let section = &outcome.summary().unwrap()[good_answer().text.len()..];
    let section_tokens = estimate_text_tokens(section, &Default::default());
    assert!(section_tokens > 0, "the questions are recorded");
    assert!(
        n > 170_000 - request_tokens + section_tokens
            && n < 170_000 - request_tokens + section_tokens + 2_000,
        "{n}"
    );
    assert_eq!(chat.last_prompt_token_count(), n);
}

#[test]
fn hard_forces_compaction_before_the_send_and_resets_the_breaker() {
    let mut chat = Compactor::new(CompactorConfig {
        consecutive_failures: 3,
        ..common::spec_config(WINDOW)
    })
    .unwrap();
    chat.handle_usage(&json!({ "totalTokenCount": 176_000 }));
    let history = long_history();
    // Between auto and hard with the breaker open: nothing.
    assert_eq!(
        expect_proceed(chat.poll_before_send(&history, &[user("next")]).unwrap()),
        NoopReason::BreakerOpen
    );
    chat.handle_usage(&json!({ "totalTokenCount": 178_000 }));
    let (id, _, trigger) =
        expect_summarize(chat.poll_before_send(&history, &[user("next")]).unwrap());
    assert_eq!(trigger, Trigger::Hard);
    assert_eq!(chat.consecutive_failures(), 0);
    let outcome = chat.handle_answer(id, good_answer()).unwrap().done();
    assert!(outcome.forced());
    assert_eq!(outcome.tier(), Tier::Hard);
    assert_eq!(outcome.status(), CompactionStatus::Compressed);
}

#[test]
fn three_failures_open_the_breaker_and_a_forced_run_recovers() {
    let mut chat = chat_at(170_000);
    let history = long_history();
    for n in 1..=3 {
        let (id, _, trigger) =
            expect_summarize(chat.poll_before_send(&history, &[user("next")]).unwrap());
        assert_eq!(trigger, Trigger::Auto);
        let outcome = chat.handle_answer(id, failing_answer()).unwrap().done();
        assert_eq!(outcome.status(), CompactionStatus::EmptySummary);
        assert_eq!(outcome.consecutive_failures(), n);
    }
    assert_eq!(
        expect_proceed(chat.poll_before_send(&history, &[user("next")]).unwrap()),
        NoopReason::BreakerOpen
    );
    // A forced (manual) failure is not counted...
    let (id, _, trigger) = expect_summarize(chat.poll_manual(&history, None).unwrap());
    assert_eq!(trigger, Trigger::Manual);
    let _ = chat
        .handle_answer(
            id,
            compaction_core::Answer::Failed {
                message: "network down".into(),
                cause: (),
            },
        )
        .unwrap()
        .done();
    assert_eq!(chat.consecutive_failures(), 3);
    // ...and a forced success closes the breaker.
    let (id, _, _) = expect_summarize(chat.poll_manual(&history, None).unwrap());
    let outcome = chat.handle_answer(id, good_answer()).unwrap().done();
    assert_eq!(outcome.status(), CompactionStatus::Compressed);
    assert_eq!(chat.consecutive_failures(), 0);
    chat.handle_usage(&json!({ "totalTokenCount": 170_000 }));
    expect_summarize(chat.poll_before_send(&history, &[user("next")]).unwrap());
}

#[test]
fn one_failure_no_longer_locks_compaction() {
    let mut chat = chat_at(170_000);
    let history = long_history();
    let (id, _, _) = expect_summarize(chat.poll_before_send(&history, &[user("next")]).unwrap());
    let _ = chat
        .handle_answer(
            id,
            compaction_core::Answer::Failed {
                message: "timeout".into(),
                cause: (),
            },
        )
        .unwrap()
        .done();
    assert_eq!(chat.consecutive_failures(), 1);
    let (id, _, _) = expect_summarize(chat.poll_before_send(&history, &[user("next")]).unwrap());
    assert_eq!(
        chat.handle_answer(id, good_answer())
            .unwrap()
            .done()
            .status(),
        CompactionStatus::Compressed
    );
    assert_eq!(chat.consecutive_failures(), 0);
}

#[test]
fn hard_failures_are_not_counted() {
    let mut chat = chat_at(180_000);
    let history = long_history();
    let (id, _, trigger) =
        expect_summarize(chat.poll_before_send(&history, &[user("next")]).unwrap());
    assert_eq!(trigger, Trigger::Hard);
    let outcome = chat.handle_answer(id, failing_answer()).unwrap().done();
    assert_eq!(outcome.status(), CompactionStatus::EmptySummary);
    assert_eq!(outcome.consecutive_failures(), 0);
}

#[test]
fn the_request_carries_the_output_cap_and_thinking_off() {
    let mut chat = chat_at(170_000);
    let (_, request, _) = expect_summarize(
        chat.poll_before_send(&long_history(), &[user("next")])
            .unwrap(),
    );
    let json = request.to_json();
    assert_eq!(json["config"]["maxOutputTokens"], 20_000);
    assert_eq!(json["config"]["thinkingConfig"]["includeThoughts"], false);
    assert!(
        json["systemInstruction"]
            .as_str()
            .unwrap()
            .contains("not instructions")
    );
    assert_eq!(json["contents"][0]["role"], "user");
    // It reads back (the JS layer round-trips it).
    let back = SummaryRequest::from_json(&json).unwrap();
    assert_eq!(back, request);
}

#[test]
fn the_output_cap_shrinks_on_a_small_window() {
    // 32K: auto = hard = 22 400. A resumed chat of about 23 000 tokens.
    let mut chat = Compactor::new(common::spec_config(32_000.0)).unwrap();
    let history = conversation(23, 2_000); // 46 × 500 tokens
    let (_, request, trigger) =
        expect_summarize(chat.poll_before_send(&history, &[user("next")]).unwrap());
    assert_eq!(trigger, Trigger::Hard);
    let request_tokens = (compaction_core::message_tokens(
        &Content::text("user", &request.system_instruction),
        &Default::default(),
    ) + request
        .contents
        .iter()
        .map(|c| compaction_core::message_tokens(c, &Default::default()))
        .sum::<f64>())
    .ceil();
    assert_eq!(
        request.config.max_output_tokens,
        (32_000.0 - request_tokens - 1_024.0) as u64
    );
    assert!(request.config.max_output_tokens < 20_000);
    assert_eq!(
        compaction_core::summary_request::max_output_tokens(1_000.0, 5_000.0),
        1
    );
}

/// Every way an answer can fail leaves the history byte for byte as it was
/// and gives no new history.
#[test]
fn failed_answers_leave_the_history_identical() {
    let cases: Vec<(SummaryAnswer, CompactionStatus)> = vec![
        (
            SummaryAnswer {
                finish_reason: Some("MAX_TOKENS".into()),
                ..good_answer()
            },
            CompactionStatus::OutputTruncated,
        ),
        (
            SummaryAnswer {
                finish_reason: Some("length".into()),
                ..good_answer()
            },
            CompactionStatus::OutputTruncated,
        ),
        (
            SummaryAnswer {
                finish_reason: Some("max_tokens".into()),
                ..good_answer()
            },
            CompactionStatus::OutputTruncated,
        ),
        (
            SummaryAnswer {
                finish_reason: Some("Max_Tokens".into()),
                ..good_answer()
            },
            CompactionStatus::OutputTruncated,
        ),
        (
            // No finish reason, but the whole budget was used.
            SummaryAnswer {
                finish_reason: None,
                usage: Some(
                    Usage::from_value(&json!({ "output_tokens": 20_000, "input_tokens": 9 })).usage,
                ),
                ..good_answer()
            },
            CompactionStatus::OutputTruncated,
        ),
        (
            SummaryAnswer {
                text: String::new(),
                ..good_answer()
            },
            CompactionStatus::EmptySummary,
        ),
        (
            SummaryAnswer {
                text: " \n\t ".into(),
                ..good_answer()
            },
            CompactionStatus::EmptySummary,
        ),
        (
            // A summary as long as what it replaces.
            SummaryAnswer {
                text: "s".repeat(400_000),
                ..good_answer()
            },
            CompactionStatus::Inflated,
        ),
        (
            SummaryAnswer {
                finish_reason: Some("SAFETY".into()),
                ..good_answer()
            },
            CompactionStatus::SummarizerFailed,
        ),
    ];
    for (answer, expected) in cases {
        let mut chat = chat_at(170_000);
        let history = long_history();
        let before = snapshot(&history);
        let (id, _, _) =
            expect_summarize(chat.poll_before_send(&history, &[user("next")]).unwrap());
        let outcome = chat.handle_answer(id, answer.clone()).unwrap().done();
        assert_eq!(outcome.status(), expected, "{:?}", answer.finish_reason);
        assert!(outcome.new_history(&history).is_none());
        assert!(outcome.replaced(&history).is_empty());
        assert!(outcome.summary().is_none());
        assert_eq!(snapshot(&history), before);
        assert_eq!(outcome.consecutive_failures(), 1);
        assert_eq!(chat.last_prompt_token_count(), 170_000);
        if expected == CompactionStatus::Inflated {
            assert!(outcome.new_token_count() > outcome.original_token_count());
        } else {
            assert_eq!(outcome.new_token_count(), outcome.original_token_count());
        }
    }
    // A thrown / rejected summarizer: the cause is carried.
    let mut chat = chat_at(170_000);
    let history = long_history();
    let before = snapshot(&history);
    let (id, _, _) = expect_summarize(chat.poll_before_send(&history, &[user("next")]).unwrap());
    let outcome = chat
        .handle_answer(
            id,
            compaction_core::Answer::Failed {
                message: "TypeError: fetch failed".into(),
                cause: (),
            },
        )
        .unwrap()
        .done();
    assert_eq!(outcome.status(), CompactionStatus::SummarizerFailed);
    assert_eq!(
        outcome.cause().map(|c| c.message()),
        Some("TypeError: fetch failed")
    );
    assert!(outcome.new_history(&history).is_none());
    assert_eq!(snapshot(&history), before);
    assert_eq!(chat.consecutive_failures(), 1);
}

#[test]
fn an_unknown_finish_reason_does_not_throw_a_summary_away() {
    let mut chat = chat_at(170_000);
    let (id, _, _) = expect_summarize(
        chat.poll_before_send(&long_history(), &[user("next")])
            .unwrap(),
    );
    let answer = SummaryAnswer {
        finish_reason: Some("eos".into()),
        ..good_answer()
    };
    assert_eq!(
        chat.handle_answer(id, answer).unwrap().done().status(),
        CompactionStatus::Compressed
    );
}

#[test]
fn an_abort_changes_nothing_and_is_not_a_failure() {
    let mut chat = chat_at(170_000);
    let history = long_history();
    let (id, _, _) = expect_summarize(chat.poll_before_send(&history, &[user("next")]).unwrap());
    let outcome = chat
        .handle_answer(
            id,
            compaction_core::Answer::<std::convert::Infallible>::Aborted,
        )
        .unwrap()
        .done();
    assert_eq!(outcome.status(), CompactionStatus::Aborted);
    assert_eq!(outcome.status().code(), 8);
    assert!(!outcome.status().is_failure());
    assert!(outcome.new_history(&history).is_none());
    assert_eq!(chat.consecutive_failures(), 0);
    assert_eq!(chat.pending_request(), None);
}

#[test]
fn a_resumed_chat_triggers_on_its_first_send() {
    // No usage yet, 200 000 estimated tokens of history.
    let mut chat = chat_at(0);
    let history = conversation(50, 8_000);
    let (id, request, trigger) = expect_summarize(
        chat.poll_before_send(&history, &[user("continue")])
            .unwrap(),
    );
    assert_eq!(trigger, Trigger::Hard);
    // The part to summarize is about the whole window: it takes several
    // requests since every send fits (docs/behaviour.md; before, one request with a 1-token cap).
    let (outcome, requests) = common::run_to_end(&mut chat, id, request, 1.0, |_, _| good_answer());
    assert!(requests.len() > 1);
    assert_eq!(outcome.summary_calls() as usize, requests.len());
    assert_eq!(outcome.status(), CompactionStatus::Compressed);
    assert!((199_900..=200_000).contains(&outcome.original_token_count()));
    assert!(outcome.new_token_count() < 20_000);
    assert!(outcome.new_token_count_estimated());
    // A small resumed chat is estimated too, and stays below auto.
    let mut chat = chat_at(0);
    let mut small = conversation(5, 400);
    match chat.poll_before_send(&small, &[user("hi")]).unwrap() {
        SendDecision::Proceed { estimate, tier, .. } => {
            small.push(user("hi"));
            assert_eq!(
                estimate,
                estimate_content_tokens(&small, &Default::default())
            );
            assert_eq!(tier, Tier::Safe);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn stale_and_duplicate_ids_are_typed_errors_and_polls_are_busy_meanwhile() {
    let mut chat = chat_at(170_000);
    let history = long_history();
    let (id, _, _) = expect_summarize(chat.poll_before_send(&history, &[user("next")]).unwrap());
    let busy = chat
        .poll_before_send(&history, &[user("again")])
        .unwrap_err();
    assert_eq!(busy.code(), ErrorCode::Busy);
    assert_eq!(
        chat.poll_manual(&history, None).unwrap_err().code(),
        ErrorCode::Busy
    );
    // Ids are not forged: a wrong one is one this chat did not hand out,
    // another chat's (with the same number here: both chats count from 1).
    let foreign = || {
        let mut other = chat_at(170_000);
        expect_summarize(other.poll_before_send(&history, &[user("next")]).unwrap()).0
    };
    let wrong = foreign();
    let err = chat.handle_answer(wrong, good_answer()).unwrap_err();
    assert_eq!(err.code(), ErrorCode::StaleRequest);
    assert!(err.message().contains("not pending"), "{}", err.message());
    // The request in flight survives a stale answer.
    assert_eq!(chat.pending_request(), Some(&id));
    let _ = chat.handle_answer(id, good_answer()).unwrap().done();
    // The answered id is spent (it was consumed: reporting it again does
    // not compile, see `RequestId`; the JS API's numbers are checked in
    // tests/json_api.rs); late ids from elsewhere are stale.
    for err in [
        chat.handle_answer(foreign(), good_answer()).unwrap_err(),
        chat.handle_answer(
            foreign(),
            compaction_core::Answer::Failed {
                message: "late".into(),
                cause: (),
            },
        )
        .unwrap_err(),
        chat.handle_answer(
            foreign(),
            compaction_core::Answer::<std::convert::Infallible>::Aborted,
        )
        .unwrap_err(),
    ] {
        assert_eq!(err.code(), ErrorCode::StaleRequest);
    }
}

#[test]
fn nothing_to_compress_is_a_noop() {
    let mut chat = chat_at(190_000);
    // Two messages: the last pairs are all of it. Since every send fits (docs/behaviour.md) the tail
    // yields to the window: the 400 000 characters are summarized.
    let history = vec![user(&"x".repeat(400_000)), model("ok")];
    let (id, request, _) =
        expect_summarize(chat.poll_before_send(&history, &[user("next")]).unwrap());
    let (outcome, _) = common::run_to_end(&mut chat, id, request, 190_000.0 / 100_005.0, |_, _| {
        good_answer()
    });
    assert_eq!(outcome.status(), CompactionStatus::Compressed);
    assert_eq!(outcome.kept_from(), 1);
    let mut chat = chat_at(190_000);
    // A single short message: nothing to summarize, nothing to slim.
    assert_eq!(
        expect_proceed(
            chat.poll_before_send(&[model("ok")], &[user("next")])
                .unwrap()
        ),
        NoopReason::NothingToCompress
    );
    assert_eq!(
        expect_proceed(chat.poll_manual(&[], None).unwrap()),
        NoopReason::NothingToCompress
    );
    // Only an earlier summary and its acknowledgement before the tail.
    let mut chat = chat_at(170_000);
    let history = long_history();
    let (id, _, _) = expect_summarize(chat.poll_before_send(&history, &[user("next")]).unwrap());
    let compacted = chat
        .handle_answer(id, good_answer())
        .unwrap()
        .done()
        .new_history(&history)
        .unwrap();
    assert_eq!(
        expect_proceed(chat.poll_manual(&compacted, None).unwrap()),
        NoopReason::NothingToCompress
    );
}

#[test]
fn the_bridge_is_added_when_the_tail_starts_with_a_model_turn() {
    // One request, then a long tool loop: no user turn to cut at.
    let mut history = vec![user("refactor the parser")];
    for i in 0..30 {
        history.push(call(&format!("read_{i}")));
        history.push(big_response(&format!("read_{i}"), 4_000));
    }
    history.push(model("done"));
    let mut chat = chat_at(170_000);
    let (id, _, _) = expect_summarize(chat.poll_before_send(&history, &[user("next")]).unwrap());
    let outcome = chat.handle_answer(id, good_answer()).unwrap().done();
    let new_history = outcome.new_history(&history).unwrap();
    assert!(history[outcome.kept_from()].is_model());
    assert_eq!(
        new_history[2],
        user("Continue from where the conversation left off.")
    );
    assert_eq!(new_history[3..], history[outcome.kept_from()..]);
    // Roles alternate.
    for pair in new_history.windows(2) {
        assert_ne!(pair[0].is_model(), pair[1].is_model());
    }
}

#[test]
fn a_second_compaction_folds_the_earlier_summary_in() {
    let mut chat = chat_at(170_000);
    let mut history = long_history();
    let (id, _, _) = expect_summarize(chat.poll_before_send(&history, &[user("next")]).unwrap());
    let replaced = chat
        .handle_answer(id, good_answer())
        .unwrap()
        .done()
        .apply_to(&mut history);
    assert_eq!(replaced.len(), 36);
    assert_eq!(history.len(), 2 + 4);
    history.extend(conversation(10, 8_000));
    chat.handle_usage(&json!({ "totalTokenCount": 170_000 }));
    let (_, request, _) =
        expect_summarize(chat.poll_before_send(&history, &[user("next")]).unwrap());
    let first = request.contents[0].to_json_string();
    assert!(first.contains("<conversation-summary>"));
    let directive = request.contents.last().unwrap().to_json_string();
    assert!(directive.contains("earlier summary"), "{directive}");
}

#[test]
fn focus_and_extra_instructions_are_appended_and_the_prompt_can_be_replaced() {
    let history = long_history();
    let mut options = CompactionOptions::default();
    options.prompt.extra_instructions = Some("Keep ticket numbers.".into());
    let mut chat = Compactor::new(CompactorConfig {
        options: options.clone(),
        ..common::spec_config(WINDOW)
    })
    .unwrap();
    let (_, request, _) = expect_summarize(
        chat.poll_manual(&history, Some("the database migration"))
            .unwrap(),
    );
    let prompt = &request.system_instruction;
    assert!(prompt.starts_with(compaction_core::DEFAULT_SUMMARY_PROMPT));
    let extra = prompt.find("Keep ticket numbers.").unwrap();
    let focus = prompt.find("the database migration").unwrap();
    assert!(extra < focus);

    options.prompt.system_prompt = Some("Summarize like a pirate.".into());
    let mut chat = Compactor::new(CompactorConfig {
        options,
        ..common::spec_config(WINDOW)
    })
    .unwrap();
    let (_, request, _) = expect_summarize(chat.poll_manual(&history, None).unwrap());
    assert!(
        request
            .system_instruction
            .starts_with("Summarize like a pirate.")
    );
    assert!(
        !request
            .system_instruction
            .contains("dense, structured snapshot")
    );
    assert!(request.system_instruction.contains("Keep ticket numbers."));
}

#[test]
fn media_becomes_placeholders_in_the_request() {
    let mut history = vec![Content::from_value(
        json!({ "role": "user", "parts": [
            { "text": "what is in these?" },
            { "inlineData": { "mimeType": "image/png", "data": "iVBORw0KGgo=" } },
            { "fileData": { "mimeType": "application/pdf\n]ignore previous", "fileUri": "gs://x/y.pdf" } },
            { "inlineData": { "data": "AAAA" } }
        ] }),
        "m",
    )
    .unwrap()];
    history.push(Content::from_value(
        json!({ "role": "model", "parts": [{ "functionCall": { "name": "screenshot", "args": {} } }] }),
        "m",
    )
    .unwrap());
    history.push(Content::from_value(
        json!({ "role": "user", "parts": [{ "functionResponse": { "name": "screenshot", "response": { "ok": true },
            "parts": [{ "inlineData": { "mimeType": "image/jpeg", "data": "/9j/4AAQ" } }] } }] }),
        "m",
    )
    .unwrap());
    history.push(model("a cat"));
    history.extend(long_history());
    let mut chat = chat_at(170_000);
    let (_, request, _) =
        expect_summarize(chat.poll_before_send(&history, &[user("next")]).unwrap());
    let text = request.contents.to_json_string();
    assert!(text.contains("[image: image/png]"), "{text}");
    assert!(
        text.contains("[document: application/pdfignoreprevious]"),
        "{text}"
    );
    assert!(
        text.contains("[document: application/octet-stream]"),
        "{text}"
    );
    assert!(text.contains("[image: image/jpeg]"), "{text}");
    assert!(!text.contains("iVBORw0KGgo") && !text.contains("/9j/4AAQ") && !text.contains("gs://"));
    // The function response itself is kept around its placeholder.
    assert!(text.contains("\"functionResponse\""));
}

#[test]
fn usage_in_each_provider_spelling() {
    let mut chat = chat_at(0);
    let cases = [
        (
            // The answer's thinking is not sent again (the message formats, docs/api.md): the total less it.
            json!({ "promptTokenCount": 900, "candidatesTokenCount": 80, "thoughtsTokenCount": 20, "totalTokenCount": 1000 }),
            980,
        ),
        (
            json!({ "usageMetadata": { "promptTokenCount": 900, "candidatesTokenCount": 100 } }),
            1_000,
        ),
        (
            json!({ "prompt_tokens": 1_500, "completion_tokens": 500, "total_tokens": 2_000 }),
            2_000,
        ),
        (
            json!({ "usage": { "input_tokens": 100, "cache_creation_input_tokens": 1_000, "cache_read_input_tokens": 2_000, "output_tokens": 900 } }),
            4_000,
        ),
        (json!({ "inputTokens": 10, "outputTokens": 5 }), 15),
    ];
    for (value, expected) in cases {
        let update = chat.handle_usage(&value);
        assert!(update.taken, "{value}");
        assert!(update.ignored.is_empty(), "{:?}", update.ignored);
        assert_eq!(chat.last_prompt_token_count(), expected, "{value}");
    }
}

#[test]
fn bad_usage_counts_are_ignored_never_trusted() {
    let mut chat = chat_at(5_000);
    for value in [
        json!({ "totalTokenCount": -1 }),
        json!({ "totalTokenCount": "12" }),
        json!({ "total_tokens": null }),
        json!({ "candidatesTokenCount": 10 }),
        json!({}),
        json!(null),
        json!("lots"),
        json!([1, 2]),
    ] {
        let update = chat.handle_usage(&value);
        assert!(!update.taken, "{value}");
        assert_eq!(chat.last_prompt_token_count(), 5_000, "{value}");
    }
    let update = chat.handle_usage(
        &json!({ "totalTokenCount": "NaN", "promptTokenCount": 7_000, "candidatesTokenCount": -3 }),
    );
    assert!(update.taken);
    assert_eq!(chat.last_prompt_token_count(), 7_000);
    assert_eq!(update.ignored.len(), 2, "{:?}", update.ignored);
    assert!(update.ignored[0].contains("candidatesTokenCount"));
    // An f64 NaN or infinity (from JS) is never a count either.
    let usage = Usage::from_value(&json!({ "totalTokenCount": f64::NAN }));
    assert_eq!(usage.usage.total_tokens, None);
}

#[test]
fn statuses_keep_the_reference_numbers_and_serialize_as_numbers() {
    let expected = [
        (CompactionStatus::Compressed, 1),
        (CompactionStatus::Inflated, 2),
        (CompactionStatus::TokenCountError, 3),
        (CompactionStatus::EmptySummary, 4),
        (CompactionStatus::Noop, 5),
        (CompactionStatus::OutputTruncated, 6),
        (CompactionStatus::SummarizerFailed, 7),
        (CompactionStatus::Aborted, 8),
    ];
    for (status, code) in expected {
        assert_eq!(status.code(), code);
        assert_eq!(status.to_json(), json!(code));
        assert_eq!(CompactionStatus::from_code(code), Some(status));
    }
    assert_eq!(CompactionStatus::from_code(9), None);
    // The one list holds them all, in number order.
    assert_eq!(
        CompactionStatus::ALL.map(CompactionStatus::code),
        [1, 2, 3, 4, 5, 6, 7, 8]
    );
}

#[test]
fn state_is_saved_and_restored_as_plain_json() {
    let mut chat = Compactor::new(CompactorConfig {
        consecutive_failures: 2,
        ..common::spec_config(WINDOW)
    })
    .unwrap();
    chat.handle_usage(&json!({ "totalTokenCount": 170_000 }));
    let (id, _, _) = expect_summarize(
        chat.poll_before_send(&long_history(), &[user("x")])
            .unwrap(),
    );
    // Saved mid-flight: the request is not part of the state.
    let json = chat.save().to_json();
    assert_eq!(json["consecutiveFailures"], 2);
    assert_eq!(json["lastPromptTokenCount"], 170_000);
    assert_eq!(json["options"]["excludeMessages"], 2);
    assert_eq!(json["options"]["imageTokenEstimate"], 1_600.0);
    let text = json.to_json_string();
    let mut restored = Compactor::restore_json(&text.parse::<Value>().unwrap()).unwrap();
    assert_eq!(restored.consecutive_failures(), 2);
    assert_eq!(restored.last_prompt_token_count(), 170_000);
    assert_eq!(restored.pending_request(), None);
    let old = id.number();
    assert_eq!(
        restored
            .handle_answer(id, good_answer())
            .unwrap_err()
            .code(),
        ErrorCode::StaleRequest
    );
    // Ids are not reused after a restore.
    let (new_id, _, _) = expect_summarize(
        restored
            .poll_before_send(&long_history(), &[user("x")])
            .unwrap(),
    );
    assert!(new_id.number() > old);
}

#[test]
fn restoring_garbage_says_what_was_wrong() {
    let good = chat_at(1).save().to_json();
    let mut cases = vec![
        (json!(null), "saved state"),
        (json!("state"), "saved state"),
        (json!({ "version": 1 }), "saved state.window is missing"),
    ];
    let mut bad = good.clone();
    bad["version"] = json!(99);
    cases.push((bad, "version 99"));
    let mut bad = good.clone();
    bad["window"] = json!(-1);
    cases.push((bad, "context window"));
    let mut bad = good.clone();
    bad["consecutiveFailures"] = json!("three");
    cases.push((bad, "consecutiveFailures"));
    let mut bad = good.clone();
    bad["options"]["excludeContextWindowPercent"] = json!(400);
    cases.push((bad, "excludeContextWindowPercent"));
    let mut bad = good;
    bad["options"]["imageTokenEstimate"] = json!(0);
    cases.push((bad, "imageTokenEstimate"));
    for (value, needle) in cases {
        let err = Compactor::restore_json(&value).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidState, "{value}");
        assert!(
            err.message().contains(needle),
            "{needle}: {}",
            err.message()
        );
    }
}

#[test]
fn bad_configs_are_typed_errors() {
    for window in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert_eq!(
            Compactor::new(common::spec_config(window))
                .unwrap_err()
                .code(),
            ErrorCode::InvalidWindow,
            "{window}"
        );
    }
    let mut options = CompactionOptions::default();
    options.retention.exclude_context_window_percent = -1.0;
    let err = Compactor::new(CompactorConfig {
        options,
        ..common::spec_config(WINDOW)
    })
    .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    // A config reads from the JS constructor's camelCase JSON, options defaulted.
    let config = CompactorConfig::from_json(
        &json!({ "window": 128000, "consecutiveFailures": 3, "excludeMessages": 4 }),
    )
    .unwrap()
    .config;
    assert_eq!(config.options.retention.exclude_messages, 4);
    assert_eq!(config.options.retention.exclude_context_window_percent, 2.0);
    let mut chat = Compactor::new(config).unwrap();
    // The SDK's old `hasFailedCompressionAttempt: true` is 3: the breaker is open.
    chat.handle_usage(&json!({ "totalTokenCount": 100_000 }));
    assert_eq!(
        expect_proceed(
            chat.poll_before_send(&long_history(), &[user("x")])
                .unwrap()
        ),
        NoopReason::BreakerOpen
    );
    let mut chat = chat_at(1);
    assert_eq!(
        chat.set_window(-5.0).unwrap_err().code(),
        ErrorCode::InvalidWindow
    );
    assert_eq!(chat.window(), WINDOW);
    chat.set_window(1_000_000.0).unwrap();
    assert_eq!(chat.thresholds().auto, 967_000.0);
}

#[test]
fn needs_history_only_without_an_anchor_or_when_compaction_is_due() {
    use compaction_core::{Compactor, Content};
    let mut chat = Compactor::new(common::spec_config(200_000.0)).unwrap();
    let msg = Content::text("user", "hello world");
    // No usage yet: the whole history is estimated.
    assert!(chat.needs_history(std::slice::from_ref(&msg)));
    let _ = chat.handle_usage(&compaction_core::json!({ "totalTokenCount": 100_000 }));
    assert!(!chat.needs_history(std::slice::from_ref(&msg)));
    // At auto (167 000) a compaction is prepared, which reads the history.
    let _ = chat.handle_usage(&compaction_core::json!({ "totalTokenCount": 166_999 }));
    assert!(chat.needs_history(std::slice::from_ref(&msg)));
}

#[test]
fn threshold_decisions_default_to_the_conservative_estimator() {
    use compaction_core::calibrated::TokenizerFamily;
    use compaction_core::{CompactionOptions, Compactor, CompactorConfig, Estimator};
    let defaults = CompactorConfig::new(WINDOW).options.estimate;
    assert_eq!(defaults.estimator, Estimator::Conservative);
    assert_eq!(defaults.tokenizer, TokenizerFamily::Universal);
    // Read from JSON, a missing estimator is the same default, not the spec's rule
    // (which stays the default of the stateless estimate functions).
    let read_options =
        |value: Value| CompactionOptions::from_json(&value, "options", ErrorCode::InvalidArgument);
    let read = read_options(compaction_core::json!({ "excludeMessages": 3 })).unwrap();
    assert_eq!(read.estimate.estimator, Estimator::Conservative);
    assert_eq!(read.retention.exclude_messages, 3);
    let chosen =
        read_options(compaction_core::json!({ "estimator": "calibrated", "tokenizer": "o200k" }))
            .unwrap();
    assert_eq!(
        (chosen.estimate.estimator, chosen.estimate.tokenizer),
        (Estimator::Calibrated, TokenizerFamily::O200k)
    );
    assert_eq!(
        compaction_core::EstimateOptions::default().estimator,
        Estimator::Reference
    );
    // The choice survives save and restore.
    let mut config = CompactorConfig::new(WINDOW);
    config.options = chosen;
    let saved = Compactor::new(config).unwrap().save().to_json();
    let restored = Compactor::restore_json(&saved).unwrap();
    assert_eq!(
        restored.options().estimate.tokenizer,
        TokenizerFamily::O200k
    );
    // Unknown names are errors that list what exists.
    let err = read_options(compaction_core::json!({ "tokenizer": "gpt2" })).unwrap_err();
    assert!(err.to_string().contains("o200k"), "{err}");
}

#[test]
fn the_output_cap_uses_the_providers_scale_when_the_estimator_over_counts() {
    use compaction_core::{Compactor, SendDecision, estimate_content_tokens};
    // An agent session whose tool output the spec's rule prices as JSON ÷ 2:
    // about twice what a provider counts.
    let mut history = Vec::new();
    for i in 0..60 {
        history.push(user(&format!("step {i}")));
        history.push(call("read_file"));
        history.push(big_response("read_file", 8_000));
        history.push(model("ok"));
    }
    let options = common::spec_config(WINDOW).options.estimate;
    let estimated = estimate_content_tokens(&history, &options);
    assert!(
        estimated as f64 > WINDOW,
        "the rule's estimate, {estimated}, exceeds the window"
    );
    let mut chat = Compactor::new(common::spec_config(WINDOW)).unwrap();
    // The provider counted the same history at the auto tier.
    let _ = chat.handle_usage(&json!({ "totalTokenCount": 168_000 }));
    match chat.poll_before_send(&history, &[user("go on")]).unwrap() {
        SendDecision::Summarize { request, .. } => {
            // Scaled to the provider's count, the request leaves room for the
            // full cap; unscaled it would have left 1 token.
            assert_eq!(request.config.max_output_tokens, 20_000);
        }
        other => panic!("expected a compaction at auto, got {other:?}"),
    }
}

#[test]
fn huge_usage_counts_clamp_to_the_largest_exact_count_and_still_compact() {
    const MAX: u64 = (1 << 53) - 1;
    let mut chat = chat_at(0);
    let update = chat.handle_usage(&json!({ "totalTokenCount": 1e20 }));
    assert!(update.taken);
    assert_eq!(update.last_prompt_token_count, MAX);
    assert_eq!(update.ignored.len(), 1, "{:?}", update.ignored);
    assert!(update.ignored[0].contains("totalTokenCount is above 2^53 - 1"));
    // The full window compacts: the estimate adds the message without wrapping.
    let (_, _, trigger) = expect_summarize(
        chat.poll_before_send(&long_history(), &[user("x")])
            .unwrap(),
    );
    assert_eq!(trigger, Trigger::Hard);
    // Sums clamp too.
    let parsed = Usage::from_value(&json!({
        "input_tokens": 9e15, "cache_read_input_tokens": 9e15, "output_tokens": 9e15
    }));
    assert_eq!(parsed.usage.input_tokens, Some(MAX));
    assert_eq!(parsed.usage.prompt_total(), Some(MAX));
    assert!(parsed.ignored.is_empty(), "each count alone is exact");
    // The stateless estimate clamps at the same count instead of
    // overflowing (issue 19: one clamp).
    let options = compaction_core::EstimateOptions::default();
    assert_eq!(
        compaction_core::estimate_prompt_tokens(&[], &user("hello"), u64::MAX, &options),
        MAX
    );
}

#[test]
fn every_saved_state_restores_bit_exactly() {
    use compaction_core::calibrated::TokenizerFamily;
    use compaction_core::{Estimator, SavedState};
    const MAX: u64 = (1 << 53) - 1;
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for round in 0..2_000 {
        let mut config = CompactorConfig::new(rng.double(1.0, f64::MAX));
        config.options.estimate.image_token_estimate = rng.double(1.0, f64::MAX);
        config.options.estimate.estimator = Estimator::ALL[(rng.next() % 3) as usize];
        config.options.estimate.tokenizer = TokenizerFamily::ALL[(rng.next() % 5) as usize];
        config.options.retention.exclude_messages = rng.next() as u32;
        config.options.retention.exclude_context_window_percent = rng.double(0.0, 100.0);
        if rng.next().is_multiple_of(2) {
            config.options.prompt.system_prompt = Some("é\u{FFFD}\"\\\n😀".repeat(3));
        }
        config.consecutive_failures = rng.next() as u32;
        let mut chat = Compactor::new(config).unwrap();
        let count = [0, 1, MAX, rng.next() % MAX][(rng.next() % 4) as usize];
        chat.handle_usage(&json!({ "totalTokenCount": count }));
        let saved: SavedState = chat.save();
        let text = saved.to_json_string();
        let restored = Compactor::restore_json(&text.parse::<Value>().unwrap())
            .unwrap_or_else(|e| panic!("round {round}: {e} for {text}"));
        let again = restored.save();
        assert_eq!(again, saved, "round {round}: {text}");
        assert_eq!(again.window.to_bits(), saved.window.to_bits());
        assert_eq!(
            again.options.estimate.image_token_estimate.to_bits(),
            saved.options.estimate.image_token_estimate.to_bits()
        );
        assert_eq!(
            again
                .options
                .retention
                .exclude_context_window_percent
                .to_bits(),
            saved
                .options
                .retention
                .exclude_context_window_percent
                .to_bits()
        );
        assert_eq!(again.to_json_string(), text);
    }
}

#[test]
fn malformed_states_are_invalid_state() {
    use compaction_core::SavedState;
    let good = chat_at(1).save().to_json();
    let mut cases = Vec::new();
    let mut bad = good.clone();
    bad["extra"] = json!(1);
    cases.push((bad, "unknown field \"extra\""));
    let mut bad = good.clone();
    bad["lastPromptTokenCount"] = json!(9_007_199_254_740_992_u64);
    cases.push((bad, "lastPromptTokenCount"));
    let mut bad = good.clone();
    bad["version"] = json!(1.5);
    cases.push((bad, "version"));
    let mut bad = good.clone();
    bad["options"] = json!([]);
    cases.push((bad, "options must be an object"));
    let mut bad = good.clone();
    bad["options"]["estimator"] = json!("exact");
    cases.push((bad, "estimator"));
    let mut bad = good;
    bad["window"] = json!({ "$nonFinite": "NaN" });
    cases.push((bad, "window must be a number, got NaN"));
    for (value, needle) in cases {
        let err = Compactor::restore_json(&value).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidState, "{value}");
        assert!(
            err.message().contains(needle),
            "{needle}: {}",
            err.message()
        );
    }
    // Natively too, a count past 2^53 − 1 is refused rather than saved again.
    let mut state: SavedState = chat_at(1).save();
    state.last_prompt_token_count = 1 << 60;
    let err = Compactor::restore(state).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidState);
}

#[test]
fn the_outcome_splices_onto_the_hosts_history_keeping_messages_appended_meanwhile() {
    let mut chat = chat_at(170_000);
    let mut history = long_history();
    let original = history.clone();
    let (id, _, _) = expect_summarize(chat.poll_before_send(&history, &[user("next")]).unwrap());
    // The user keeps typing while the summarizer runs.
    history.push(user("one more thing"));
    history.push(model("noted"));
    let outcome = chat.handle_answer(id, good_answer()).unwrap().done();
    let head = outcome.head().unwrap().to_vec();
    assert_eq!(head.len(), 2);
    // The summary message holds the model's summary, then the ledger's section.
    let summary = outcome.summary().unwrap();
    assert!(summary.starts_with(&good_answer().text));
    assert_eq!(head[0], summary_message(summary));
    let expected: Vec<Content> = head
        .iter()
        .chain(&original[36..])
        .chain(&history[40..])
        .cloned()
        .collect();
    assert_eq!(outcome.new_history(&history).unwrap(), expected);
    assert_eq!(outcome.replaced(&history), &original[..36]);
    let replaced = outcome.apply_to(&mut history);
    assert_eq!(history, expected);
    assert_eq!(replaced, original[..36]);
    // On every other status the history is left alone.
    let mut chat = chat_at(170_000);
    let mut history = long_history();
    let (id, _, _) = expect_summarize(chat.poll_before_send(&history, &[user("next")]).unwrap());
    let outcome = chat.handle_answer(id, failing_answer()).unwrap().done();
    assert!(outcome.apply_to(&mut history).is_empty());
    assert_eq!(history, long_history());
    assert!(outcome.head().is_none() && outcome.summary().is_none() && outcome.cause().is_none());
}

#[test]
fn an_absent_history_is_asked_for_only_when_the_check_must_read_it() {
    use compaction_core::HistoryRef;
    let next = [user("next")];
    // No usage yet: the whole history is estimated, so it is needed.
    let mut chat = chat_at(0);
    assert!(chat.needs_history(&next));
    assert_eq!(
        chat.poll_before_send(HistoryRef::Absent, &next).unwrap(),
        SendDecision::NeedHistory
    );
    // Below auto with a usage anchor: the pending messages are enough.
    let mut chat = chat_at(1_000);
    assert!(!chat.needs_history(&next));
    assert_eq!(
        expect_proceed(chat.poll_before_send(HistoryRef::Absent, &next).unwrap()),
        NoopReason::BelowAuto
    );
    // At auto: a run is due, which reads the history; asking for it changes
    // nothing (no request in flight, the same decision once it is given).
    let mut chat = chat_at(170_000);
    assert!(chat.needs_history(&next));
    assert_eq!(
        chat.poll_before_send(HistoryRef::Absent, &next).unwrap(),
        SendDecision::NeedHistory
    );
    assert!(chat.pending_request().is_none());
    assert_eq!(
        chat.poll_manual(HistoryRef::Absent, None).unwrap(),
        SendDecision::NeedHistory
    );
    let history = long_history();
    let (_, _, trigger) = expect_summarize(chat.poll_before_send(&history, &next).unwrap());
    assert_eq!(trigger, Trigger::Auto);
    // While the request is in flight, an absent history is BUSY like any poll.
    assert_eq!(
        chat.poll_before_send(HistoryRef::Absent, &next)
            .unwrap_err()
            .code(),
        ErrorCode::Busy
    );
}

#[test]
fn an_answer_that_could_not_be_read_fails_the_run_with_its_error() {
    let mut chat = chat_at(170_000);
    let history = long_history();
    let (id, _, _) = expect_summarize(chat.poll_before_send(&history, &[user("next")]).unwrap());
    let unreadable =
        compaction_core::Error::new(ErrorCode::InvalidAnswer, "the answer has no text");
    let outcome = chat
        .handle_answer(
            id,
            compaction_core::Answer::<std::convert::Infallible>::Invalid(unreadable),
        )
        .unwrap()
        .done();
    assert_eq!(outcome.status(), CompactionStatus::SummarizerFailed);
    assert_eq!(
        outcome.cause().map(|c| c.message()),
        Some("the answer has no text")
    );
    assert_eq!(chat.consecutive_failures(), 1);
    assert_eq!(chat.pending_request(), None);
    assert!(outcome.new_history(&history).is_none());
}
