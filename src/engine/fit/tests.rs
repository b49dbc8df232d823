//! The plan's steps, each on its own (the whole plan: `tests/fit.rs`).

#![allow(clippy::unwrap_used)] // tests assert on data they built

use crate::prelude::*;

use crate::content::Content;
use crate::engine::outcome::{NoopReason, Trigger};
use crate::format::{MessageFacts, facts_of};
use crate::ladder::{Thresholds, compute_thresholds};
use crate::options::CompactionOptions;
use crate::summary_request::summary_message;

use super::steps::{self, Budget, Clearing, Kept, Replaced, Tail};
use super::{FitInput, Plan};

fn user(text: &str) -> Content {
    Content::text("user", text)
}

fn model(text: &str) -> Content {
    Content::text("model", text)
}

fn call(name: &str) -> Content {
    Content::from_value(
        crate::json!({ "role": "model", "parts": [{ "functionCall": { "name": name, "args": { "path": "src/lib.rs" } } }] }),
        "call",
    )
    .unwrap()
}

fn result(name: &str, output: &str) -> Content {
    Content::from_value(
        crate::json!({ "role": "user", "parts": [{ "functionResponse": { "name": name, "response": { "output": output } } }] }),
        "result",
    )
    .unwrap()
}

/// `pairs` questions and answers of about `chars` characters each.
fn conversation(pairs: usize, chars: usize) -> Vec<Content> {
    (0..pairs)
        .flat_map(|i| {
            [
                user(&format!("question {i} {}", "q ".repeat(chars / 2))),
                model(&format!("answer {i} {}", "a ".repeat(chars / 2))),
            ]
        })
        .collect()
}

/// A history with what a plan reads besides it.
struct Chat {
    history: Vec<Content>,
    facts: Vec<MessageFacts>,
    window: f64,
    thresholds: Thresholds,
    options: CompactionOptions,
}

impl Chat {
    fn new(window: f64, history: Vec<Content>) -> Chat {
        Chat {
            facts: facts_of(&history),
            history,
            window,
            thresholds: compute_thresholds(window).unwrap(),
            options: CompactionOptions::default(),
        }
    }

    fn input(&self, trigger: Trigger, pending_tokens: f64) -> FitInput<'_> {
        FitInput {
            history: &self.history,
            facts: &self.facts,
            window: self.window,
            thresholds: &self.thresholds,
            options: &self.options,
            last_prompt_token_count: 0,
            pending_tokens,
            trigger,
            focus: None,
        }
    }

    /// The budget of a run with a short pending message.
    fn budget(&self, trigger: Trigger) -> Budget<'_> {
        steps::budget(&self.input(trigger, 10.0)).unwrap()
    }
}

/// The tail from `from` as [`steps::choose_tail`] measures it.
fn tail_from(budget: &Budget<'_>, from: usize) -> Tail {
    let pinned = (0..from).filter(|&i| budget.facts[i].pinned);
    Tail {
        from,
        pinned_estimate: pinned.map(|i| budget.sizes[i]).sum(),
        estimate: budget.sizes[from..budget.body_len].iter().sum(),
    }
}

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

#[test]
fn the_budget_refuses_a_message_that_cannot_fit() {
    let chat = Chat::new(128_000.0, conversation(4, 200));
    let (auto, hard) = (chat.thresholds.auto, chat.thresholds.hard);
    let over_by = |pending: f64| match steps::budget(&chat.input(Trigger::Auto, pending)) {
        Err(NoopReason::MessageTooLarge { over_by }) => over_by,
        _ => panic!("a message of {pending} tokens is too large"),
    };
    // The framing counts with the message: at `hard` it is over already,
    // and each token more is one more over.
    assert!(over_by(hard) >= 1);
    assert_eq!(over_by(hard + 100.0) - over_by(hard), 100);
    assert!(matches!(
        steps::budget(&chat.input(Trigger::Hard, hard)),
        Err(NoopReason::MessageTooLarge { .. })
    ));
    // A manual run is never refused for the message's size.
    assert!(steps::budget(&chat.input(Trigger::Manual, hard)).is_ok());
    // Between `auto` and `hard`, an auto run would not bring the prompt
    // below `auto`; a hard run aims at `hard` instead.
    assert!(matches!(
        steps::budget(&chat.input(Trigger::Auto, auto)),
        Err(NoopReason::WouldNotFit)
    ));
    assert_eq!(
        steps::budget(&chat.input(Trigger::Hard, auto))
            .unwrap()
            .limit,
        hard
    );
    assert_eq!(chat.budget(Trigger::Hard).limit, auto);
    assert_eq!(chat.budget(Trigger::Auto).limit, auto);
}

#[test]
fn the_budget_drops_a_trailing_call_on_manual_runs_only() {
    let chat = Chat::new(128_000.0, vec![user("read it"), call("read_file")]);
    let manual = chat.budget(Trigger::Manual);
    assert_eq!(
        (manual.body_len, manual.dropped_call, manual.trailing_call),
        (1, true, false)
    );
    assert_eq!(manual.body().len(), 1);
    let auto = chat.budget(Trigger::Auto);
    assert_eq!(
        (auto.body_len, auto.dropped_call, auto.trailing_call),
        (2, false, true)
    );
    // Only the last call is dropped, and a manual run keeps no call for
    // the pending message (there is none).
    let chat = Chat::new(
        128_000.0,
        vec![user("read them"), call("read_file"), call("list_dir")],
    );
    let manual = chat.budget(Trigger::Manual);
    assert_eq!(
        (manual.body_len, manual.dropped_call, manual.trailing_call),
        (2, true, false)
    );
}

#[test]
fn the_budget_counts_the_provider_where_it_has_counted() {
    let chat = Chat::new(128_000.0, conversation(4, 2_000));
    let estimated = chat.budget(Trigger::Auto);
    assert!(near(
        estimated.history_estimate,
        estimated.sizes.iter().sum()
    ));
    assert_eq!(
        estimated.history_tokens,
        estimated.history_estimate.ceil() as u64
    );
    // The provider counted four times the estimate: the history's tokens
    // are its count, and the tail gets a quarter of the room.
    let mut input = chat.input(Trigger::Auto, 10.0);
    input.last_prompt_token_count = (estimated.history_estimate * 4.0) as u64;
    let counted = steps::budget(&input).unwrap();
    assert_eq!(counted.history_tokens, input.last_prompt_token_count);
    assert!(counted.tail_budget < estimated.tail_budget / 3.0);
    assert!(counted.tail_budget > 0.0);
}

#[test]
fn the_tail_keeps_the_split_while_it_fits() {
    let chat = Chat::new(128_000.0, conversation(10, 400));
    let budget = chat.budget(Trigger::Auto);
    let tail = steps::choose_tail(&budget, 10);
    let expected = tail_from(&budget, 10);
    assert_eq!(tail.from, expected.from);
    assert!(near(tail.estimate, expected.estimate));
    assert!(near(tail.pinned_estimate, expected.pinned_estimate));
}

#[test]
fn the_tail_yields_to_the_earliest_boundary_that_fits() {
    let chat = Chat::new(128_000.0, conversation(10, 400));
    let mut budget = chat.budget(Trigger::Auto);
    budget.tail_budget = budget.sizes[16..].iter().sum::<f64>() + 0.5;
    let tail = steps::choose_tail(&budget, 10);
    assert_eq!(tail.from, 16);
    assert!(near(tail.estimate, budget.sizes[16..].iter().sum()));
    // When no tail fits, the last boundary.
    budget.tail_budget = 0.0;
    assert_eq!(steps::choose_tail(&budget, 10).from, 19);
}

#[test]
fn the_tail_never_starts_between_a_call_and_its_result() {
    // 3 calls, 4 is the user's own words, 5 the call's result: a tail from
    // 4 would hold the result without its call.
    let mut history = conversation(1, 400);
    history.extend([
        user("look at the file"),
        call("read_file"),
        user("and hurry"),
        result("read_file", "fn main() {}"),
        model("done"),
        user("thanks"),
        model("welcome"),
    ]);
    let mut chat = Chat::new(128_000.0, history);
    chat.facts[3].calls = vec!["c1".into()];
    chat.facts[5].answers = vec!["c1".into()];
    chat.facts[5].tool_result = true;
    let mut budget = chat.budget(Trigger::Auto);
    budget.tail_budget = budget.sizes[4..].iter().sum::<f64>() + 0.5;
    assert_eq!(steps::choose_tail(&budget, 2).from, 6);
}

#[test]
fn a_tail_that_fits_is_kept_verbatim() {
    let chat = Chat::new(128_000.0, conversation(4, 400));
    let budget = chat.budget(Trigger::Auto);
    let tail = tail_from(&budget, 4);
    let kept = steps::slim_tail(&budget, &tail, &chat.options.estimate);
    assert_eq!(
        kept,
        Kept {
            from: 4,
            estimate: tail.pinned_estimate + tail.estimate,
            copies: Vec::new(),
            sources: Vec::new(),
        }
    );
}

#[test]
fn a_tail_too_large_is_slimmed_into_copies() {
    let mut history = conversation(1, 400);
    history.extend([user(&"a long paste ".repeat(4_000)), model("noted")]);
    let chat = Chat::new(128_000.0, history);
    let mut budget = chat.budget(Trigger::Auto);
    budget.tail_budget = 1_000.0;
    let tail = tail_from(&budget, 2);
    let kept = steps::slim_tail(&budget, &tail, &chat.options.estimate);
    // Only the paste changed: it is copied, the model's answer stays the
    // host's own.
    assert_eq!(kept.sources, [2]);
    assert_eq!(kept.from, 3);
    assert!(
        kept.copies[0].parts[0].as_map()["text"]
            .as_str()
            .unwrap()
            .contains("removed by compaction")
    );
    assert!(kept.estimate <= 1_000.0);
}

#[test]
fn pinned_messages_in_the_tail_are_never_slimmed() {
    let big = "a long system prompt ".repeat(2_000);
    let mut history = conversation(1, 400);
    history.extend([
        Content::text("system", &big),
        user(&"a long paste ".repeat(4_000)),
        model("noted"),
    ]);
    let chat = Chat::new(128_000.0, history);
    assert!(chat.facts[2].pinned);
    let mut budget = chat.budget(Trigger::Auto);
    budget.tail_budget = budget.sizes[2] + 1_000.0;
    let tail = tail_from(&budget, 2);
    let kept = steps::slim_tail(&budget, &tail, &chat.options.estimate);
    assert_eq!(kept.sources, [2, 3]);
    assert_eq!(kept.copies[0], chat.history[2]);
    assert_ne!(kept.copies[1], chat.history[3]);
}

#[test]
fn after_a_dropped_call_the_tail_is_copied() {
    let mut history = conversation(2, 400);
    history.push(call("read_file"));
    let chat = Chat::new(128_000.0, history);
    let budget = chat.budget(Trigger::Manual);
    let tail = tail_from(&budget, 2);
    let kept = steps::slim_tail(&budget, &tail, &chat.options.estimate);
    assert_eq!(kept.from, 5);
    assert_eq!(kept.sources, [2, 3]);
    assert_eq!(kept.copies, chat.history[2..4]);
    assert!(near(kept.estimate, tail.estimate));
}

#[test]
fn the_replaced_part_leaves_pinned_messages_out() {
    let mut history = vec![Content::text("system", "be brief")];
    history.extend(conversation(2, 400));
    let chat = Chat::new(128_000.0, history);
    let budget = chat.budget(Trigger::Auto);
    let replaced = steps::replaced(&budget, 3);
    assert_eq!(replaced.pinned, [0]);
    assert_eq!(replaced.indices, [1, 2]);
    assert_eq!(replaced.messages, chat.history[1..3]);
    assert_eq!(replaced.facts, chat.facts[1..3]);
    assert!(near(replaced.estimate, budget.sizes[1] + budget.sizes[2]));
    assert!(!replaced.nothing_to_summarize);
    // Only an earlier summary before the tail: nothing to summarize.
    let chat = Chat::new(
        128_000.0,
        vec![summary_message("earlier"), user("go on"), model("ok")],
    );
    let budget = chat.budget(Trigger::Auto);
    assert!(steps::replaced(&budget, 1).nothing_to_summarize);
    assert!(steps::replaced(&budget, 0).nothing_to_summarize);
}

/// The steps before clearing, for a run from `split_from`.
fn up_to_clearing<'a>(
    chat: &'a Chat,
    input: &FitInput<'a>,
    split_from: usize,
) -> (Budget<'a>, Kept, Replaced) {
    let budget = steps::budget(input).unwrap();
    let tail = steps::choose_tail(&budget, split_from);
    let kept = steps::slim_tail(&budget, &tail, &chat.options.estimate);
    let replaced = steps::replaced(&budget, tail.from);
    (budget, kept, replaced)
}

/// A history whose old part is mostly one tool output.
fn with_old_tool_output() -> Vec<Content> {
    let mut history = vec![
        user("read the log"),
        call("read_file"),
        result("read_file", &"log line 42: ok\n".repeat(3_000)),
        model("the log is fine"),
    ];
    history.extend(conversation(2, 400));
    history
}

#[test]
fn clearing_ends_the_run_when_it_is_enough() {
    let mut chat = Chat::new(128_000.0, with_old_tool_output());
    chat.options.fit.clear_tool_outputs = true;
    let input = chat.input(Trigger::Manual, 0.0);
    let (budget, kept, replaced) = up_to_clearing(&chat, &input, 4);
    let Clearing::Enough { copies, new_tokens } = steps::clear(&input, &budget, &kept, &replaced)
    else {
        panic!("clearing the log is enough");
    };
    assert_eq!(copies.len(), 4);
    assert!(crate::json::to_string(&copies[2]).contains("cleared by compaction"));
    assert_eq!(copies[3], chat.history[3]);
    assert!(new_tokens < budget.history_tokens / 4);
    // Not when the prompt stays above `warn`: the run summarizes the
    // cleared copies.
    let input = chat.input(Trigger::Manual, chat.thresholds.warn);
    let (budget, kept, replaced) = up_to_clearing(&chat, &input, 4);
    let Clearing::Summarize(Some(cleared)) = steps::clear(&input, &budget, &kept, &replaced) else {
        panic!("a summary follows, over the cleared copies");
    };
    // (The tail yielded to the larger message: more is replaced.)
    assert_eq!(cleared.len(), replaced.messages.len());
    assert_eq!(cleared[..4], copies[..]);
    // Nor without `clearToolOutputs`.
    chat.options.fit.clear_tool_outputs = false;
    let input = chat.input(Trigger::Manual, 0.0);
    let (budget, kept, replaced) = up_to_clearing(&chat, &input, 4);
    assert_eq!(
        steps::clear(&input, &budget, &kept, &replaced),
        Clearing::Summarize(None)
    );
}

#[test]
fn clearing_finds_nothing_to_compress_after_a_summary() {
    let chat = Chat::new(
        128_000.0,
        vec![summary_message("earlier"), user("go on"), model("ok")],
    );
    let input = chat.input(Trigger::Manual, 0.0);
    let (budget, kept, replaced) = up_to_clearing(&chat, &input, 1);
    assert_eq!(
        steps::clear(&input, &budget, &kept, &replaced),
        Clearing::NothingToCompress
    );
}

#[test]
fn a_request_that_fits_holds_the_replaced_messages_verbatim() {
    let chat = Chat::new(128_000.0, conversation(6, 400));
    let input = chat.input(Trigger::Manual, 0.0);
    let (budget, kept, replaced) = up_to_clearing(&chat, &input, 8);
    let Plan::Summarize(prepared) = steps::fit_request(&input, &budget, kept, replaced, None)
    else {
        panic!("a summary run");
    };
    assert!(prepared.state.exact);
    assert!(prepared.state.chunks.is_none());
    assert_eq!(prepared.kept_from, 8);
    assert_eq!(prepared.request.contents[..8], chat.history[..8]);
    assert!(prepared.request_overhead > 0.0);
}

#[test]
fn a_part_larger_than_a_request_is_summarized_in_chunks() {
    let chat = Chat::new(32_000.0, conversation(60, 4_000));
    let input = chat.input(Trigger::Manual, 0.0);
    let (budget, kept, replaced) = up_to_clearing(&chat, &input, 116);
    let replaced_len = replaced.messages.len();
    let Plan::Summarize(prepared) = steps::fit_request(&input, &budget, kept, replaced, None)
    else {
        panic!("a summary run");
    };
    assert!(!prepared.state.exact);
    let chunks = prepared.state.chunks.as_ref().unwrap();
    assert!(!chunks.is_done());
    // The first request holds the first messages, fewer than all.
    let first = prepared.request.contents.len() - 1;
    assert!(first >= 1 && first < replaced_len);
    assert!(prepared.request.config.max_output_tokens >= 1);
}
