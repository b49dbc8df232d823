//! A simulated 300-turn session: a provider that counts tokens, a scripted
//! summarizer, the driver, tips after every response, and a reload midway.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests assert on data they built

mod common;

use compaction_core::StrMap;
use compaction_core::{ToJson, Value};
use std::cell::{Cell, RefCell};

use common::{big_response, block_on, call, model, user};
use compaction_core::json;
use compaction_core::{
    CompactionStatus, Compactor, Content, EstimateOptions, SummarizeError, SummaryAnswer,
    SummaryRequest, TipContext, Trigger, before_send, message_tokens, select_tip,
};

const WINDOW: f64 = 200_000.0; // warn 147 000, auto 167 000, hard 177 000
/// What the provider counts beyond the messages: system prompt, tools.
const HIDDEN_TOKENS: u64 = 3_000;

/// The provider's count of a prompt whose messages hold `tokens`: it counts
/// them as the reference estimator does, plus what it adds.
fn provider_count(tokens: f64) -> u64 {
    tokens.ceil() as u64 + HIDDEN_TOKENS
}

/// The messages' tokens, unrounded (kept as a running sum while the session
/// grows, so the simulation does not re-read the whole history each turn).
fn exact_tokens(history: &[Content]) -> f64 {
    history
        .iter()
        .map(|c| message_tokens(c, &EstimateOptions::default()))
        .sum()
}

/// The scripted summarizer: a 2 000-token summary with usage, except on
/// attempts 3, 4 and 5 (the third cycle's tries), each failing a different way.
struct Script {
    attempts: Cell<u32>,
    requests: RefCell<Vec<SummaryRequest>>,
}

impl Script {
    async fn summarize(&self, request: SummaryRequest) -> Result<SummaryAnswer, SummarizeError> {
        let attempt = self.attempts.get() + 1;
        self.attempts.set(attempt);
        let options = EstimateOptions::default();
        let input = (message_tokens(
            &Content::text("user", &request.system_instruction),
            &options,
        ) + request
            .contents
            .iter()
            .map(|c| message_tokens(c, &options))
            .sum::<f64>())
        .ceil() as u64;
        assert_eq!(request.config.max_output_tokens, 20_000);
        assert!(!request.config.thinking_config.include_thoughts);
        self.requests.borrow_mut().push(request);
        let text = format!("summary #{attempt}: {}", "s".repeat(8_000));
        let usage = json!({ "promptTokenCount": input, "candidatesTokenCount": 2_000, "totalTokenCount": input + 2_000 });
        let ok = SummaryAnswer {
            text,
            finish_reason: Some("STOP".into()),
            usage: Some(compaction_core::Usage::from_value(&usage).usage),
        };
        match attempt {
            3 => Err(SummarizeError::failed("HTTP 503 from the summarizer")),
            4 => Ok(SummaryAnswer {
                finish_reason: Some("MAX_TOKENS".into()),
                ..ok
            }),
            5 => Ok(SummaryAnswer {
                text: "  ".into(),
                ..ok
            }),
            _ => Ok(ok),
        }
    }
}

#[derive(Default)]
struct Log {
    /// Tips shown, split into cycles at each successful compaction.
    cycles: Vec<Vec<&'static str>>,
    /// Every compaction outcome that was not a NOOP: (turn, status, trigger).
    compactions: Vec<(usize, CompactionStatus, Option<Trigger>)>,
    /// Usage right after each successful compaction's next response.
    after_compaction: Vec<u64>,
    restored_at: Option<usize>,
}

#[test]
fn three_hundred_turns() {
    let script = Script {
        attempts: Cell::new(0),
        requests: RefCell::new(Vec::new()),
    };
    let summarizer = |request: SummaryRequest| script.summarize(request);
    // The ledger off: this session's sizes and tips are tuned to the
    // summary alone (with the ledger, tests/ledger_engine.rs).
    let mut config = common::spec_config(WINDOW);
    config.options.ledger.enabled = false;
    let mut chat = RefCell::new(Compactor::new(config).unwrap());
    let thresholds = *chat.borrow().thresholds();
    let mut history: Vec<Content> = Vec::new();
    let mut tokens = 0.0_f64;
    let mut log = Log {
        cycles: vec![Vec::new()],
        ..Log::default()
    };
    let mut last_shown: StrMap<String, u64> = StrMap::new();
    let mut prompts = 0_u64;
    let mut just_compacted = false;

    // Sends one message the way a host does: check, maybe compact, send,
    // report usage, show a tip.
    let mut send = |chat: &RefCell<Compactor>,
                    history: &mut Vec<Content>,
                    tokens: &mut f64,
                    message: Content,
                    answer: Content,
                    turn: usize,
                    log: &mut Log| {
        let outcome = block_on(before_send(
            chat,
            &summarizer,
            &*history,
            std::slice::from_ref(&message),
        ))
        .unwrap();
        if outcome.status() != CompactionStatus::Noop {
            log.compactions
                .push((turn, outcome.status(), outcome.trigger()));
        }
        match outcome.new_history(history) {
            Some(new_history) => {
                assert_eq!(outcome.status(), CompactionStatus::Compressed);
                assert_eq!(
                    new_history[new_history.len() - (history.len() - outcome.kept_from())..],
                    history[outcome.kept_from()..]
                );
                assert_eq!(outcome.replaced(history), &history[..outcome.kept_from()]);
                *history = new_history;
                // The engine's new count is the provider's, give or take rounding.
                *tokens = exact_tokens(history);
                let real = provider_count(*tokens);
                assert!(
                    outcome.new_token_count().abs_diff(real) <= 3,
                    "{} vs {real}",
                    outcome.new_token_count()
                );
                log.cycles.push(Vec::new());
                just_compacted = true;
            }
            // The history is only lent to the driver (`&[Content]`), so a
            // failure cannot touch it; tests/engine.rs compares the JSON.
            None => assert_ne!(outcome.status(), CompactionStatus::Compressed),
        }
        *tokens += message_tokens(&message, &EstimateOptions::default());
        history.push(message);
        // Never send more than the window holds.
        assert!((provider_count(*tokens) as f64) < WINDOW, "turn {turn}");
        *tokens += message_tokens(&answer, &EstimateOptions::default());
        history.push(answer);
        let update = chat.borrow_mut().handle_usage(
            &json!({ "usageMetadata": { "totalTokenCount": provider_count(*tokens) } }),
        );
        assert!(update.taken);
        if just_compacted {
            log.after_compaction.push(update.last_prompt_token_count);
            just_compacted = false;
        }
        prompts += 1;
        let tip = select_tip(&TipContext {
            last_prompt_token_count: chat.borrow().last_prompt_token_count() as f64,
            context_window_size: Some(WINDOW),
            thresholds: Some(thresholds),
            session_prompt_count: prompts,
            last_shown: last_shown.clone(),
        })
        .unwrap();
        if let Some(tip) = tip {
            last_shown.insert(tip.id.to_string(), prompts);
            let cycle = log.cycles.last_mut().unwrap();
            if cycle.last() != Some(&tip.id) {
                cycle.push(tip.id);
            }
        }
    };

    for turn in 0..300 {
        let question = user(&format!("turn {turn}: {}", "q".repeat(1_200)));
        if turn % 4 == 3 {
            // A tool round: the model calls, the host sends the result (a
            // check too, with a function call waiting at the end of the history).
            send(
                &chat,
                &mut history,
                &mut tokens,
                question,
                call(&format!("read_{turn}")),
                turn,
                &mut log,
            );
            send(
                &chat,
                &mut history,
                &mut tokens,
                big_response(&format!("read_{turn}"), 3_000),
                model(&format!("read it. {}", "r".repeat(4_000))),
                turn,
                &mut log,
            );
        } else {
            send(
                &chat,
                &mut history,
                &mut tokens,
                question,
                model(&format!("answer {turn}: {}", "a".repeat(9_000))),
                turn,
                &mut log,
            );
        }

        // A reload midway, while failures are being counted: the webview is
        // killed and the chat comes back from its saved JSON.
        if log.restored_at.is_none() && chat.borrow().consecutive_failures() == 2 {
            let saved = chat.borrow().save().to_json_string();
            let (failures, count) = {
                let c = chat.borrow();
                (c.consecutive_failures(), c.last_prompt_token_count())
            };
            chat = RefCell::new(Compactor::restore_json(&saved.parse::<Value>().unwrap()).unwrap());
            assert_eq!(chat.borrow().consecutive_failures(), failures);
            assert_eq!(chat.borrow().last_prompt_token_count(), count);
            log.restored_at = Some(turn);
        }
    }

    let statuses: Vec<_> = log.compactions.iter().map(|&(_, s, t)| (s, t)).collect();
    let successes = statuses
        .iter()
        .filter(|(s, _)| *s == CompactionStatus::Compressed)
        .count();
    assert!(successes >= 4, "{statuses:?}");
    assert!(log.restored_at.is_some());

    // The script: two auto compactions, three failed tries (one each way),
    // the breaker holds until hard forces a compaction, then auto again.
    use CompactionStatus::*;
    assert_eq!(
        statuses[..7],
        [
            (Compressed, Some(Trigger::Auto)),
            (Compressed, Some(Trigger::Auto)),
            (SummarizerFailed, Some(Trigger::Auto)),
            (OutputTruncated, Some(Trigger::Auto)),
            (EmptySummary, Some(Trigger::Auto)),
            (Compressed, Some(Trigger::Hard)),
            (Compressed, Some(Trigger::Auto)),
        ],
        "{statuses:?}"
    );
    assert_eq!(chat.borrow().consecutive_failures(), 0);

    // Tips fire in order within each cycle; context-high never lingers
    // after a compaction and context-critical only when compaction failed.
    for (i, cycle) in log.cycles.iter().enumerate() {
        let expected: &[&str] = if i == 2 {
            &["context-warn", "context-high", "context-critical"]
        } else if i + 1 == log.cycles.len() {
            // The last cycle may end mid-way.
            &["context-warn", "context-high"][..cycle.len().min(2)]
        } else {
            &["context-warn", "context-high"]
        };
        assert_eq!(cycle, expected, "cycle {i}: {:?}", log.cycles);
    }

    // The indicator resets: after each compaction the usage is back below warn.
    assert_eq!(log.after_compaction.len(), successes);
    for tokens in &log.after_compaction {
        assert!((*tokens as f64) < thresholds.warn / 4.0, "{tokens}");
    }

    // From the second compaction on, the summarized part starts with the
    // earlier summary, which the request asks to fold in.
    let requests = script.requests.borrow();
    assert!(requests.len() >= 7);
    for request in &requests[1..] {
        let first = request.contents[0].to_json_string();
        assert!(first.contains("<conversation-summary>"), "{first:.200}");
        let directive = request.contents.last().unwrap().to_json_string();
        assert!(directive.contains("earlier summary"));
    }
}
