//! What stays verbatim: `excludeMessages`, `excludeContextWindowPercent`, clean boundaries between calls and responses.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests assert on data they built
mod common;

use common::{big_response, call, conversation, model, response, user};
use compaction_core::summary_request::{ACKNOWLEDGEMENT, BRIDGE, summary_message};
use compaction_core::{
    Content, EstimateOptions, RetentionRule, RetentionSettings, Split, split_point,
};

fn split(history: &[Content], window: f64, pairs: u32, percent: f64) -> Split {
    split_point(
        history,
        window,
        &RetentionSettings {
            exclude_messages: pairs,
            exclude_context_window_percent: percent,
        },
        &EstimateOptions::default(),
    )
}

#[test]
fn the_message_pairs_setting_wins_when_it_keeps_more() {
    // 40 messages of 100 tokens; 2 % of 100 000 = 2 000 tokens = 20 messages.
    let history = conversation(20, 400);
    let s = split(&history, 100_000.0, 15, 2.0);
    assert_eq!(s.kept_from, 10); // 15 pairs = 30 messages
    assert_eq!(s.rule, RetentionRule::Messages);
    assert!(!s.starts_with_model);
}

#[test]
fn the_percent_setting_wins_when_it_keeps_more() {
    let history = conversation(20, 400);
    let s = split(&history, 100_000.0, 2, 2.0);
    assert_eq!(s.kept_from, 20); // 20 messages reach 2 000 tokens
    assert_eq!(s.rule, RetentionRule::Percent);
    // The defaults (2 pairs, 2 %) on a 1M window: 20 000 tokens.
    let history = conversation(200, 4_000); // 1 000 tokens a message
    let s = split_point(
        &history,
        1_000_000.0,
        &RetentionSettings::default(),
        &EstimateOptions::default(),
    );
    assert_eq!(s.kept_from, 400 - 20);
    assert_eq!(s.rule, RetentionRule::Percent);
}

#[test]
fn a_history_below_both_minimums_is_kept_whole() {
    let history = conversation(3, 400);
    assert_eq!(split(&history, 200_000.0, 2, 2.0).kept_from, 0);
    assert_eq!(split(&history, 200_000.0, 10, 0.0).kept_from, 0);
    assert_eq!(split(&[], 200_000.0, 2, 2.0).kept_from, 0);
}

#[test]
fn with_both_settings_at_zero_the_tail_is_empty() {
    let history = conversation(3, 400);
    assert_eq!(split(&history, 200_000.0, 0, 0.0).kept_from, 6);
}

#[test]
fn the_tail_starts_at_a_user_turn_that_is_not_a_tool_result() {
    // user, call, response, model, user, call, response, model
    let history = vec![
        user("first"),
        call("ls"),
        response("ls"),
        model("listed"),
        user("second"),
        call("cat"),
        response("cat"),
        model("read"),
    ];
    // One pair = the last 2 messages: [response, model]. The start moves
    // back past the tool result and its call, to "second".
    let s = split(&history, 100_000.0, 1, 0.0);
    assert_eq!(s.kept_from, 4);
    assert_eq!(history[s.kept_from], user("second"));
}

#[test]
fn a_call_is_never_separated_from_its_response() {
    let mut history = vec![user("start")];
    for i in 0..10 {
        history.push(user(&format!("step {i}")));
        history.push(call(&format!("tool{i}")));
        history.push(response(&format!("tool{i}")));
        history.push(model(&format!("did {i}")));
    }
    for pairs in 0..12 {
        for percent in [0.0, 0.5, 1.0, 5.0] {
            let s = split(&history, 10_000.0, pairs, percent);
            let k = s.kept_from;
            if k > 0 && k < history.len() {
                // The first kept message is never a tool result, and the last
                // summarized one is never a call waiting for it.
                assert!(
                    !history[k].is_tool_result(),
                    "pairs {pairs} percent {percent}"
                );
                assert!(
                    !history[k - 1].has_function_call(),
                    "pairs {pairs} percent {percent}"
                );
            }
        }
    }
}

#[test]
fn a_trailing_call_waiting_for_its_response_stays_in_the_tail() {
    let mut history = conversation(10, 400);
    history.push(user("run the tests"));
    history.push(call("run_tests"));
    // Even with nothing to keep by the settings, the call and the user turn
    // that asked for it stay.
    let s = split(&history, 100_000.0, 0, 0.0);
    assert_eq!(s.kept_from, history.len() - 2);
    assert_eq!(history[s.kept_from], user("run the tests"));
}

#[test]
fn a_long_agent_loop_is_cut_at_a_model_turn() {
    // One request and 40 tool round trips of 2 000 tokens.
    let mut history = vec![user("migrate the schema")];
    for i in 0..40 {
        history.push(call(&format!("step{i}")));
        history.push(big_response(&format!("step{i}"), 4_000));
    }
    let s = split(&history, 200_000.0, 2, 2.0);
    assert!(s.starts_with_model);
    assert!(history[s.kept_from].is_model());
    assert!(!history[s.kept_from - 1].is_model());
    // 2 % of 200 000 = 4 000 tokens, two responses: the cut is right before
    // the call of the second-to-last response.
    assert_eq!(s.kept_from, history.len() - 4);
}

#[test]
fn a_far_user_turn_loses_to_a_model_turn_that_summarizes_more() {
    // A second request early on, then a long loop.
    let mut history = vec![user("start"), model("ok"), user("also migrate")];
    for i in 0..40 {
        history.push(call(&format!("s{i}")));
        history.push(big_response(&format!("s{i}"), 4_000));
    }
    let s = split(&history, 200_000.0, 2, 2.0);
    assert!(s.kept_from > 70, "{}", s.kept_from);
    assert!(s.starts_with_model);
    // A near one wins over a model turn.
    let mut history = conversation(10, 400);
    history.push(user("one more"));
    history.push(call("x"));
    history.push(response("x"));
    history.push(model("done"));
    let s = split(&history, 200_000.0, 1, 0.0);
    assert_eq!(history[s.kept_from], user("one more"));
}

#[test]
fn our_own_summary_and_bridge_are_not_user_turns_to_cut_at() {
    let mut history = vec![
        summary_message("earlier work"),
        model(ACKNOWLEDGEMENT),
        user(BRIDGE),
    ];
    for i in 0..30 {
        history.push(call(&format!("t{i}")));
        history.push(big_response(&format!("t{i}"), 4_000));
    }
    let s = split(&history, 200_000.0, 2, 2.0);
    assert!(s.kept_from > 3);
    assert!(s.starts_with_model);
}
