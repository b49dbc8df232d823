//! Every send fits the window (docs/behaviour.md). One test per rule and per scenario
//! of the issue; every summary request goes through `common::check_request`
//! (cap ≤ the model's limit, input ≤ window − cap − margin).
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests assert on data they built

mod common;

use common::{
    Done, call, check_request, conversation, expect_summarize, model, run_to_end, snapshot, user,
};
use compaction_core::ToJson;
use compaction_core::Value;
use compaction_core::json;
use compaction_core::{
    CompactionOutcome, CompactionStatus, Compactor, CompactorConfig, Content, EstimateOptions,
    Method, NoopReason, RequestId, SendDecision, SummaryAnswer, SummaryRequest, Trigger,
    estimate_content_tokens, message_tokens, slim_message,
};

const WINDOW: f64 = 128_000.0; // warn 76 800, auto 95 000, hard 105 000

/// The dev corpus's agent sessions.
pub fn corpus_sessions() -> Vec<Vec<Content>> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/corpus/histories-dev.jsonl"
    );
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .map(|line| {
            let row: Value = line.parse::<Value>().unwrap();
            Content::list_from_value(row["history"].clone(), "history").unwrap()
        })
        .collect()
}

/// The corpus's sessions one after the other, repeated, until the history
/// reaches `tokens` estimated tokens: a long resumed agent session.
pub fn agent_session(tokens: f64, options: &EstimateOptions) -> Vec<Content> {
    let sessions = corpus_sessions();
    let mut history = Vec::new();
    let mut total = 0.0;
    'fill: loop {
        for session in &sessions {
            for message in session {
                total += message_tokens(message, options);
                history.push(message.clone());
            }
            if total >= tokens {
                break 'fill;
            }
        }
    }
    history
}

fn config(window: f64, max_output_tokens: Option<u64>) -> CompactorConfig {
    let mut config = CompactorConfig::new(window);
    config.options.fit.max_output_tokens = max_output_tokens;
    config
}

fn summary(text: &str) -> SummaryAnswer {
    SummaryAnswer {
        text: text.into(),
        finish_reason: Some("STOP".into()),
        usage: None,
    }
}

/// A summary of about `chars` characters that names the request it answers.
fn summary_of(request: &SummaryRequest, n: usize, chars: usize) -> SummaryAnswer {
    let words = format!(
        "## Task status\n- part {n} of the work, {} messages read\n",
        request.contents.len()
    );
    summary(&words.repeat((chars / words.len()).max(1)))
}

/// Varied prose of `chars` characters (not one repeated letter, which some
/// estimators count unlike text).
fn prose(chars: usize) -> String {
    let mut text = String::with_capacity(chars + 16);
    let mut i = 0u64;
    while text.len() < chars {
        text.push_str(&format!(
            "line {i} of the pasted log: value={} ok\n",
            i * 7919 % 10007
        ));
        i += 1;
    }
    text.truncate(chars);
    text
}

/// The next prompt after `outcome` on `history` with `next` sent, estimated.
fn next_prompt(
    outcome: &CompactionOutcome,
    history: &[Content],
    next: &Content,
    chat: &Compactor,
) -> u64 {
    let mut new_history = outcome.new_history(history).expect("compressed");
    new_history.push(next.clone());
    estimate_content_tokens(&new_history, &chat.options().estimate)
}

/// `answer` with the usage a provider reports for `request`, as every ready
/// summarizer returns it: the request's input and the summary's output,
/// counted by the estimator the chat uses.
fn with_usage(
    request: &SummaryRequest,
    answer: SummaryAnswer,
    chat_estimate: &EstimateOptions,
) -> SummaryAnswer {
    let input = compaction_core::summary_request::request_tokens(request, chat_estimate).ceil();
    let output = message_tokens(&Content::text("model", &answer.text), chat_estimate).ceil();
    let usage = json!({ "prompt_tokens": input, "completion_tokens": output });
    SummaryAnswer {
        usage: Some(compaction_core::Usage::from_value(&usage).usage),
        ..answer
    }
}

#[test]
fn a_resumed_session_with_a_400k_character_message_compacts_below_auto() {
    // Without usage in the summary's answer, and with it (issue 19, defect
    // 2: with usage the slimmed tail's savings were not subtracted, and the
    // run was INFLATED).
    for usage in [false, true] {
        a_resumed_session_with_a_400k_character_message(usage);
    }
}

fn a_resumed_session_with_a_400k_character_message(usage: bool) {
    let next = user("go on with the fix");
    // The pasted message in the last exchange, then as the very last message.
    let cases = [
        vec![
            user("set up the project"),
            model("done"),
            user("what does the log say?"),
            model("paste it"),
            user(&prose(400_000)),
            model("the log shows a timeout in the fetch loop"),
        ],
        vec![
            user("set up the project"),
            model("done"),
            user("print the log"),
            model(&prose(400_000)),
        ],
    ];
    for history in cases {
        let mut chat = Compactor::new(config(WINDOW, None)).unwrap();
        let before = snapshot(&history);
        let decision = chat
            .poll_before_send(&history, std::slice::from_ref(&next))
            .unwrap();
        let (id, request, trigger) = expect_summarize(decision);
        assert_eq!(trigger, Trigger::Hard);
        let estimate = chat.options().estimate;
        let (outcome, _) = run_to_end(&mut chat, id, request, 1.0, |r, n| {
            let answer = summary_of(r, n, 2_000);
            if usage {
                with_usage(r, answer, &estimate)
            } else {
                answer
            }
        });
        assert_eq!(
            outcome.status(),
            CompactionStatus::Compressed,
            "usage {usage}: {outcome:?}"
        );
        assert_eq!(
            snapshot(&history),
            before,
            "the host's history is not touched"
        );
        let prompt = next_prompt(&outcome, &history, &next, &chat);
        assert!(
            (prompt as f64) < chat.thresholds().auto,
            "next prompt {prompt} not below auto"
        );
        // What was slimmed says so.
        let head = outcome.head().unwrap().to_json_string();
        let new_history = outcome.new_history(&history).unwrap();
        if outcome.kept_from() == history.len() {
            assert!(
                head.contains("characters removed by compaction"),
                "{head:.300}"
            );
        }
        assert!(new_history.len() >= 3);
    }
}

#[test]
fn a_million_token_agent_session_on_128k_with_a_16k_model() {
    let options = CompactorConfig::new(WINDOW).options.estimate;
    let history = agent_session(1_000_000.0, &options);
    let next = user("continue");
    let mut chat = Compactor::new(config(WINDOW, Some(16_384))).unwrap();
    let (id, request, trigger) = expect_summarize(
        chat.poll_before_send(&history, std::slice::from_ref(&next))
            .unwrap(),
    );
    assert_eq!(trigger, Trigger::Hard);
    let (outcome, requests) =
        run_to_end(&mut chat, id, request, 1.0, |r, n| summary_of(r, n, 6_000));
    assert!(requests.len() > 2, "{} calls", requests.len());
    assert!(
        requests
            .iter()
            .all(|r| r.config.max_output_tokens <= 16_384)
    );
    // Each request after the first carries the summary so far.
    for r in &requests[1..] {
        assert!(compaction_core::summary_request::is_summary_message(
            &r.contents[0]
        ));
    }
    assert_eq!(
        outcome.status(),
        CompactionStatus::Compressed,
        "{outcome:?}"
    );
    assert_eq!(outcome.summary_calls() as usize, requests.len());
    assert_eq!(outcome.method(), Some(Method::Summarized));
    let kept_from = outcome.kept_from();
    assert_eq!(outcome.replaced(&history), &history[..kept_from]);
    let new_history = outcome.new_history(&history).unwrap();
    assert_eq!(
        &new_history[new_history.len() - (history.len() - kept_from)..],
        &history[kept_from..]
    );
    let prompt = next_prompt(&outcome, &history, &next, &chat);
    assert!((prompt as f64) < chat.thresholds().auto, "{prompt}");
    // The compactor's count agrees with the new history it gave.
    assert!(outcome.new_token_count() as f64 <= chat.thresholds().auto);
}

#[test]
fn an_abort_at_the_second_call_leaves_everything_as_it_was() {
    let options = CompactorConfig::new(WINDOW).options.estimate;
    let history = agent_session(1_000_000.0, &options);
    let before = snapshot(&history);
    let mut chat = Compactor::new(config(WINDOW, Some(16_384))).unwrap();
    let (id, request, _) = expect_summarize(chat.poll_before_send(&history, &[user("x")]).unwrap());
    check_request(&request, &chat, 1.0);
    let second = match chat.handle_answer(id, summary("so far")).unwrap() {
        compaction_core::Next::Summarize { id, request } => {
            check_request(&request, &chat, 1.0);
            id
        }
        other => panic!("expected a second call, got {other:?}"),
    };
    // The first id is spent (consumed: reporting it again does not
    // compile); an id this chat did not hand out is stale.
    let mut other = Compactor::new(config(WINDOW, Some(16_384))).unwrap();
    let (foreign, _, _) = expect_summarize(other.poll_before_send(&history, &[user("x")]).unwrap());
    assert_eq!(
        chat.handle_answer(
            foreign,
            compaction_core::Answer::<std::convert::Infallible>::Aborted
        )
        .unwrap_err()
        .code(),
        compaction_core::ErrorCode::StaleRequest
    );
    let outcome = chat
        .handle_answer(
            second,
            compaction_core::Answer::<std::convert::Infallible>::Aborted,
        )
        .unwrap()
        .done();
    assert_eq!(outcome.status(), CompactionStatus::Aborted);
    assert_eq!(outcome.summary_calls(), 2);
    assert_eq!(outcome.consecutive_failures(), 0);
    assert!(outcome.new_history(&history).is_none());
    let mut host = history.clone();
    assert!(outcome.apply_to(&mut host).is_empty());
    assert_eq!(snapshot(&host), before);
    assert_eq!(chat.pending_request(), None);
    assert_eq!(chat.consecutive_failures(), 0);
}

/// A session at the auto tier whose part to summarize needs several calls:
/// the run is not forced, so a failure counts.
fn auto_run() -> (Compactor, Vec<Content>, RequestId, SummaryRequest, f64) {
    let options = CompactorConfig::new(WINDOW).options.estimate;
    let history = agent_session(600_000.0, &options);
    let mut chat = Compactor::new(config(WINDOW, Some(16_384))).unwrap();
    let _ = chat.handle_usage(&json!({ "totalTokenCount": 100_000 }));
    let estimate: f64 = history.iter().map(|m| message_tokens(m, &options)).sum();
    let scale = compaction_core::summary_request::provider_scale(100_000, estimate);
    let (id, request, trigger) =
        expect_summarize(chat.poll_before_send(&history, &[user("x")]).unwrap());
    assert_eq!(trigger, Trigger::Auto);
    (chat, history, id, request, scale)
}

/// One way a step can fail: its status and the summary calls the run made.
type Fail = fn(&mut Compactor, RequestId) -> (CompactionStatus, u32);

fn by_answer(
    chat: &mut Compactor,
    id: RequestId,
    answer: SummaryAnswer,
) -> (CompactionStatus, u32) {
    match chat.handle_answer(id, answer).unwrap() {
        compaction_core::Next::Done(outcome) => (outcome.status(), outcome.summary_calls()),
        other => panic!("expected the end of the run, got {other:?}"),
    }
}

#[test]
fn a_failure_at_any_step_counts_once_and_changes_nothing() {
    let failures: [(Fail, CompactionStatus); 4] = [
        (
            |c, id| {
                let o = c
                    .handle_answer(
                        id,
                        compaction_core::Answer::Failed {
                            message: "503".into(),
                            cause: (),
                        },
                    )
                    .unwrap()
                    .done();
                (o.status(), o.summary_calls())
            },
            CompactionStatus::SummarizerFailed,
        ),
        (
            |c, id| by_answer(c, id, summary("  ")),
            CompactionStatus::EmptySummary,
        ),
        (
            |c, id| {
                let cut = SummaryAnswer {
                    finish_reason: Some("MAX_TOKENS".into()),
                    ..summary("half")
                };
                by_answer(c, id, cut)
            },
            CompactionStatus::OutputTruncated,
        ),
        (
            |c, id| {
                let refused = SummaryAnswer {
                    finish_reason: Some("SAFETY".into()),
                    ..summary("no")
                };
                by_answer(c, id, refused)
            },
            CompactionStatus::SummarizerFailed,
        ),
    ];
    for (fail, expected) in failures {
        for step in 0..2 {
            let (mut chat, history, mut id, mut request, scale) = auto_run();
            let before = snapshot(&history);
            for _ in 0..step {
                check_request(&request, &chat, scale);
                match chat.handle_answer(id, summary("so far")).unwrap() {
                    compaction_core::Next::Summarize { id: i, request: r } => {
                        (id, request) = (i, r)
                    }
                    other => panic!("expected more calls, got {other:?}"),
                }
            }
            check_request(&request, &chat, scale);
            let (status, calls) = fail(&mut chat, id);
            assert_eq!(status, expected, "step {step}");
            assert_eq!(calls as usize, step + 1);
            assert_eq!(
                chat.consecutive_failures(),
                1,
                "counted once at step {step}"
            );
            assert_eq!(chat.pending_request(), None);
            assert_eq!(snapshot(&history), before);
        }
    }
}

#[test]
fn the_cap_is_the_smallest_of_20000_the_model_and_the_window() {
    let history = conversation(60, 6_000); // about 90 000 tokens
    for (limit, expected) in [
        (None, 20_000),
        (Some(16_384), 16_384),
        (Some(50_000), 20_000),
    ] {
        let mut chat = Compactor::new(config(200_000.0, limit)).unwrap();
        let _ = chat.handle_usage(&json!({ "totalTokenCount": 170_000 }));
        let (_, request, _) =
            expect_summarize(chat.poll_before_send(&history, &[user("x")]).unwrap());
        assert_eq!(request.config.max_output_tokens, expected, "{limit:?}");
    }
    // setModelLimits changes both at once, and nothing on an error.
    let mut chat = Compactor::new(config(200_000.0, None)).unwrap();
    chat.set_model_limits(128_000.0, Some(8_192.0)).unwrap();
    assert_eq!(
        (chat.window(), chat.options().fit.max_output_tokens),
        (128_000.0, Some(8_192))
    );
    assert!(chat.set_model_limits(64_000.0, Some(0.5)).is_err());
    assert!(chat.set_model_limits(f64::NAN, Some(4_096.0)).is_err());
    assert_eq!(
        (chat.window(), chat.options().fit.max_output_tokens),
        (128_000.0, Some(8_192))
    );
    chat.set_model_limits(128_000.0, None).unwrap();
    assert_eq!(chat.options().fit.max_output_tokens, None);
    // The ladder keeps its reserve whatever the model's limit.
    let t = Compactor::new(config(128_000.0, Some(4_096))).unwrap();
    assert_eq!(t.thresholds().auto, 95_000.0);
}

#[test]
fn a_500k_character_message_is_message_too_large_and_no_call_is_made() {
    let mut chat = Compactor::new(config(WINDOW, None)).unwrap();
    let history = conversation(4, 400);
    let message = user(&prose(500_000));
    match chat
        .poll_before_send(&history, std::slice::from_ref(&message))
        .unwrap()
    {
        SendDecision::Proceed {
            reason: NoopReason::MessageTooLarge { over_by },
            ..
        } => {
            let tokens = message_tokens(&message, &chat.options().estimate);
            assert!(
                over_by as f64 >= tokens - chat.thresholds().hard,
                "{over_by}"
            );
            assert!((over_by as f64) <= tokens - chat.thresholds().hard + 200.0);
        }
        other => panic!("expected messageTooLarge, got {other:?}"),
    }
    assert_eq!(chat.pending_request(), None);
    // The host slims it with the same rule and sends it: it fits now.
    let budget = 40_000.0;
    let slim = slim_message(&message, budget, &chat.options().estimate);
    assert!(message_tokens(&slim, &chat.options().estimate) <= budget);
    let text = slim.to_json_string();
    assert!(text.contains("characters removed by compaction"));
    assert!(
        text.contains("line 0 of the pasted log"),
        "the head is kept"
    );
    match chat
        .poll_before_send(&history, std::slice::from_ref(&slim))
        .unwrap()
    {
        SendDecision::Proceed { reason, .. } => assert_eq!(reason, NoopReason::BelowAuto),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_message_between_auto_and_hard_does_not_start_an_auto_run() {
    let mut chat = Compactor::new(common::spec_config(WINDOW)).unwrap();
    let history = conversation(4, 400);
    // About 97 000 tokens alone: at auto, below hard.
    let message = user(&"word ".repeat(77_600));
    match chat
        .poll_before_send(&history, std::slice::from_ref(&message))
        .unwrap()
    {
        SendDecision::Proceed { reason, .. } => assert_eq!(reason, NoopReason::WouldNotFit),
        other => panic!("expected wouldNotFit, got {other:?}"),
    }
    assert_eq!(chat.consecutive_failures(), 0);
}

#[test]
fn clearing_tool_outputs_is_enough_without_a_call() {
    let options = CompactorConfig::new(WINDOW).options.estimate;
    let history = agent_session(100_000.0, &options);
    let mut config = config(WINDOW, None);
    config.options.fit.clear_tool_outputs = true;
    let mut chat = Compactor::new(config).unwrap();
    let next = user("next step");
    let outcome = match chat
        .poll_before_send(&history, std::slice::from_ref(&next))
        .unwrap()
    {
        SendDecision::Cleared(outcome) => outcome,
        other => panic!("expected clearing to be enough, got {other:?}"),
    };
    assert_eq!(outcome.status(), CompactionStatus::Compressed);
    assert_eq!(outcome.method(), Some(Method::Cleared));
    assert_eq!(outcome.summary_calls(), 0);
    assert_eq!(outcome.summary(), None);
    assert_eq!(chat.pending_request(), None);
    let prompt = next_prompt(&outcome, &history, &next, &chat);
    assert!((prompt as f64) < chat.thresholds().warn, "{prompt}");
    let head = outcome.head().unwrap().to_json_string();
    assert!(head.contains("cleared by compaction"));
    // Every call still has its response: the head has as many of each.
    let count = |needle: &str| head.matches(needle).count();
    assert_eq!(count("\"functionCall\""), count("\"functionResponse\""));
    // Off by default: the same chat summarizes.
    let mut chat = Compactor::new(CompactorConfig::new(WINDOW)).unwrap();
    let (id, request, _) = expect_summarize(
        chat.poll_before_send(&history, std::slice::from_ref(&next))
            .unwrap(),
    );
    let (outcome, _) = run_to_end(&mut chat, id, request, 1.0, |r, n| summary_of(r, n, 2_000));
    assert_eq!(outcome.method(), Some(Method::Summarized));
}

#[test]
fn when_clearing_is_not_enough_the_cleared_part_is_summarized() {
    let options = CompactorConfig::new(WINDOW).options.estimate;
    let mut history = agent_session(60_000.0, &options);
    // Plain conversation (nothing to clear) on top.
    for i in 0..20 {
        history.push(user(&format!("question {i}: {}", prose(8_000))));
        history.push(model(&format!("answer {i}: {}", prose(8_000))));
    }
    let mut config = config(WINDOW, None);
    config.options.fit.clear_tool_outputs = true;
    let mut chat = Compactor::new(config).unwrap();
    let (id, request, _) = expect_summarize(chat.poll_before_send(&history, &[user("x")]).unwrap());
    let text = request.to_json_string();
    assert!(
        text.contains("cleared by compaction"),
        "the request holds the cleared outputs"
    );
    let (outcome, _) = run_to_end(&mut chat, id, request, 1.0, |r, n| summary_of(r, n, 2_000));
    assert_eq!(outcome.status(), CompactionStatus::Compressed);
    assert_eq!(outcome.method(), Some(Method::Summarized));
}

#[test]
fn manual_compaction_drops_an_unanswered_trailing_call() {
    let mut history = conversation(10, 2_000);
    history.push(user("read the file"));
    history.push(call("read_file"));
    let mut chat = Compactor::new(CompactorConfig::new(WINDOW)).unwrap();
    let (id, request, trigger) = expect_summarize(chat.poll_manual(&history, None).unwrap());
    assert_eq!(trigger, Trigger::Manual);
    assert!(!request.to_json_string().contains("functionCall"));
    let (outcome, _) = run_to_end(&mut chat, id, request, 1.0, |r, n| summary_of(r, n, 500));
    assert_eq!(outcome.status(), CompactionStatus::Compressed);
    assert_eq!(outcome.kept_from(), history.len());
    let new_history = outcome.new_history(&history).unwrap();
    assert!(!new_history.iter().any(Content::has_function_call));
    assert_eq!(new_history.last(), Some(&history[history.len() - 2]));
    assert_eq!(outcome.replaced(&history).last(), history.last());
    // beforeSend keeps it: the pending message carries its response.
    let mut chat = Compactor::new(CompactorConfig::new(WINDOW)).unwrap();
    let mut long = conversation(60, 8_000);
    long.push(call("read_file"));
    let (id, request, _) = expect_summarize(
        chat.poll_before_send(&long, &[common::response("read_file")])
            .unwrap(),
    );
    let (outcome, _) = run_to_end(&mut chat, id, request, 1.0, |r, n| summary_of(r, n, 500));
    assert_eq!(outcome.new_history(&long).unwrap().last(), long.last());
}

#[test]
fn a_summary_that_would_leave_the_next_prompt_at_auto_is_a_counted_failure() {
    // Reference estimator: 4 characters a token. 102 000 estimated tokens,
    // the provider counted 104 000 (auto tier, below hard 105 000).
    let mut chat = Compactor::new(common::spec_config(WINDOW)).unwrap();
    let _ = chat.handle_usage(&json!({ "totalTokenCount": 104_000 }));
    let mut history = conversation(15, 4_000);
    history.extend(conversation(2, 72_000));
    let (id, request, trigger) =
        expect_summarize(chat.poll_before_send(&history, &[user("x")]).unwrap());
    assert_eq!(trigger, Trigger::Auto);
    // A summary of 24 000 tokens: smaller than what it replaces, but the
    // next prompt would be at auto again.
    let (outcome, _) = run_to_end(&mut chat, id, request, 104_000.0 / 102_000.0, |_, _| {
        summary(&"s".repeat(96_000))
    });
    assert_eq!(outcome.status(), CompactionStatus::Inflated, "{outcome:?}");
    assert!(outcome.new_token_count() < outcome.original_token_count());
    assert!(outcome.new_token_count() as f64 >= chat.thresholds().auto);
    assert_eq!(chat.consecutive_failures(), 1);
}

#[test]
fn the_tail_shrinks_to_a_clean_boundary_and_keeps_calls_with_responses() {
    // A long agent loop under one request, every output large: the spec's
    // tail (2 % of the window) would be all of it.
    let mut history = vec![user("refactor the parser")];
    for i in 0..30 {
        history.push(call(&format!("step{i}")));
        history.push(common::big_response(&format!("step{i}"), 12_000));
    }
    history.push(model("done"));
    let mut config = common::spec_config(WINDOW);
    config.options.retention.exclude_context_window_percent = 100.0;
    let mut chat = Compactor::new(config).unwrap();
    let next = user("thanks");
    let (id, request, _) = expect_summarize(
        chat.poll_before_send(&history, std::slice::from_ref(&next))
            .unwrap(),
    );
    let (outcome, _) = run_to_end(&mut chat, id, request, 1.0, |r, n| summary_of(r, n, 1_000));
    assert_eq!(outcome.status(), CompactionStatus::Compressed);
    let kept = outcome.kept_from();
    assert!(
        kept > 0 && history[kept].is_model(),
        "a model turn after a response"
    );
    assert!(!history[kept - 1].is_model());
    let prompt = next_prompt(&outcome, &history, &next, &chat);
    assert!((prompt as f64) < chat.thresholds().auto);
}

#[test]
fn the_async_driver_runs_every_call_of_a_run() {
    use std::cell::{Cell, RefCell};
    let options = CompactorConfig::new(WINDOW).options.estimate;
    let history = agent_session(400_000.0, &options);
    let chat = RefCell::new(Compactor::new(config(WINDOW, Some(16_384))).unwrap());
    let calls = Cell::new(0usize);
    let summarizer = |request: SummaryRequest| {
        let n = calls.get();
        calls.set(n + 1);
        // The chat is not borrowed while the summarizer runs.
        assert!(chat.try_borrow_mut().is_ok());
        check_request(&request, &chat.borrow(), 1.0);
        async move { Ok::<_, compaction_core::SummarizeError>(summary(&format!("part {n}"))) }
    };
    let outcome = common::block_on(compaction_core::before_send(
        &chat,
        &summarizer,
        &history,
        &[user("x")],
    ))
    .unwrap();
    assert_eq!(outcome.status(), CompactionStatus::Compressed);
    assert!(calls.get() > 1);
    assert_eq!(outcome.summary_calls() as usize, calls.get());
}

#[test]
fn slimming_keeps_head_and_end_and_says_how_much_was_removed() {
    let options = EstimateOptions::default();
    // A tool output: name and id stay, the output keeps its two ends.
    let output: String = (0..50_000)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    let message = Content::from_value(
        json!({ "role": "user", "parts": [{ "functionResponse": { "id": "c1", "name": "grep", "response": { "output": output, "code": 0 } } }] }),
        "m",
    )
    .unwrap();
    let slim = slim_message(&message, 2_000.0, &options);
    assert!(message_tokens(&slim, &options) <= 2_000.0);
    let value = slim.to_json();
    let response = &value["parts"][0]["functionResponse"];
    assert_eq!(
        (&response["id"], &response["name"]),
        (&json!("c1"), &json!("grep"))
    );
    assert_eq!(response["response"]["code"], 0);
    let cut = response["response"]["output"].as_str().unwrap();
    assert!(cut.starts_with("abcdefghij"));
    assert!(cut.ends_with(&output[output.len() - 10..]));
    // The marker counts exactly what is gone.
    let line = cut.lines().find(|l| l.starts_with("[… ")).unwrap();
    assert!(
        line.ends_with(" characters removed by compaction …]"),
        "{line}"
    );
    let number = line.trim_start_matches("[… ").split(' ').next().unwrap();
    assert!(number.contains(','), "digits are grouped: {line}");
    let removed: usize = number.replace(',', "").parse().unwrap();
    let kept = cut.chars().count() - line.chars().count() - 2;
    assert_eq!(removed + kept, 50_000);
    // Multi-byte text, a zero budget, a message with nothing to cut: no panic,
    // never larger than it was.
    let wide = Content::text("model", "日本語のテキスト🙂".repeat(20_000));
    for budget in [0.0, 1.0, 500.0, 1e9] {
        let slim = slim_message(&wide, budget, &options);
        assert!(message_tokens(&slim, &options) <= message_tokens(&wide, &options));
        assert_eq!(slim.role, "model");
    }
    let short = user("short");
    assert_eq!(slim_message(&short, 0.0, &options), short);
    // Several messages to one budget: the largest are cut, small ones stay.
    let messages = vec![
        user("keep me"),
        Content::text("user", prose(80_000)),
        model("me too"),
    ];
    let fitted = compaction_core::fit_messages(&messages, 5_000.0, &options);
    let total: f64 = fitted.iter().map(|m| message_tokens(m, &options)).sum();
    assert!(total <= 5_000.0, "{total}");
    assert_eq!((&fitted[0], &fitted[2]), (&messages[0], &messages[2]));
}

#[test]
fn a_message_too_large_at_hard_leaves_the_failure_count_as_it_was() {
    let mut config = config(WINDOW, None);
    config.consecutive_failures = 3;
    let mut chat = Compactor::new(config).unwrap();
    match chat
        .poll_before_send(&conversation(2, 100), &[user(&prose(600_000))])
        .unwrap()
    {
        SendDecision::Proceed {
            reason: NoopReason::MessageTooLarge { .. },
            ..
        } => {}
        other => panic!("{other:?}"),
    }
    assert_eq!(chat.consecutive_failures(), 3);
}

#[test]
fn a_hard_run_whose_message_alone_is_at_auto_still_makes_the_prompt_fit() {
    let mut chat = Compactor::new(common::spec_config(WINDOW)).unwrap();
    let history = conversation(20, 8_000); // 40 000 tokens
    let message = user(&"word ".repeat(77_600)); // about 97 000 tokens
    let (id, request, trigger) = expect_summarize(
        chat.poll_before_send(&history, std::slice::from_ref(&message))
            .unwrap(),
    );
    assert_eq!(trigger, Trigger::Hard);
    let (outcome, _) = run_to_end(&mut chat, id, request, 1.0, |r, n| summary_of(r, n, 1_000));
    assert_eq!(
        outcome.status(),
        CompactionStatus::Compressed,
        "{outcome:?}"
    );
    let prompt = next_prompt(&outcome, &history, &message, &chat);
    assert!((prompt as f64) < chat.thresholds().hard, "{prompt}");
}

#[test]
fn a_summary_so_far_longer_than_the_cap_is_cut_so_the_next_request_fits() {
    let options = CompactorConfig::new(WINDOW).options.estimate;
    let history = agent_session(400_000.0, &options);
    let mut chat = Compactor::new(config(WINDOW, Some(16_384))).unwrap();
    let (id, request, _) = expect_summarize(chat.poll_before_send(&history, &[user("x")]).unwrap());
    // A summarizer that ignores its cap: 400 000 characters each time.
    let (outcome, requests) =
        run_to_end(&mut chat, id, request, 1.0, |_, _| summary(&prose(400_000)));
    assert!(requests.len() > 1);
    // Judged at the end: far too long for the window, so not applied.
    assert_eq!(outcome.status(), CompactionStatus::Inflated);
}

#[test]
fn a_summary_request_the_estimator_under_counts_as_the_guides_code_fits_the_window_with_its_cap() {
    // A 32,000 window, the calibrated o200k estimator, tool output that is
    // the LangChain guide's line of code repeated 150 times, which the
    // estimator counts 13.2% under o200k (measured in tests/js/fit.test.mjs),
    // and a usage equal to the history's estimate (as when the rest of the
    // history is text the estimator over-counts, which the usage's average
    // then hides the code's under-count behind). Sized with that average
    // alone, the request and its cap pass the window; sized with the
    // margin, a request whose every token is 13.2% under-counted fits.
    use compaction_core::summary_request::{REQUEST_OVERHEAD_TOKENS, request_tokens};
    use compaction_core::{Estimator, TokenizerFamily};
    let window = 32_000.0;
    let mut config = CompactorConfig::new(window);
    config.options.estimate.estimator = Estimator::Calibrated;
    config.options.estimate.tokenizer = TokenizerFamily::O200k;
    let options = config.options.estimate;
    let code = format!(
        "// src/a.rs\n{}",
        "fn helper() { let x = parse(input)?; }\n".repeat(150)
    );
    let mut history = Vec::new();
    for i in 0..17 {
        history.push(user(&format!("read file {i}")));
        history.push(common::result("read_file", &code));
        history.push(model(&format!("file {i} read")));
    }
    let estimate: f64 = history.iter().map(|m| message_tokens(m, &options)).sum();
    let mut chat = Compactor::new(config).unwrap();
    let usage = estimate.ceil();
    assert!(usage >= chat.thresholds().auto, "{usage} tokens reach auto");
    let _ = chat.handle_usage(&json!({ "totalTokenCount": usage }));
    let (_, request, _) =
        expect_summarize(chat.poll_before_send(&history, &[user("next")]).unwrap());
    let provider = request_tokens(&request, &options) / (1.0 - 0.132);
    let cap = request.config.max_output_tokens as f64;
    assert!(
        provider + cap + REQUEST_OVERHEAD_TOKENS <= window,
        "request {provider} (the estimate 13.2% under) + cap {cap} + margin passes {window}"
    );
}
