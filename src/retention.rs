//! What stays verbatim when a chat is compacted (docs/spec.md §5).
//!
//! The history splits into a head that is summarized and a tail kept as it
//! is. The tail is the larger of two minimums:
//!
//! * `excludeMessages`: the last N user/model pairs, counted as the last
//!   2 × N messages;
//! * `excludeContextWindowPercent`: the most recent messages that together
//!   reach that share of the window, by the estimator.
//!
//! The split then moves earlier, never later, to a clean boundary, so that
//! the tail is a conversation the model can continue:
//!
//! * preferably a user message that is not a tool result (nor one of this
//!   library's own summary messages);
//! * failing that, or when that user message is so far back that it would
//!   summarize less than half of what the alternative would (a long agent
//!   loop under a single request), a model message right after a user-side
//!   message, which leaves every function call of the head with its
//!   response; the new history then needs a one-line bridge before it (see
//!   [`crate::summary_request::BRIDGE`]);
//! * a function call at the very end, still waiting for the response the
//!   host is about to send, always stays in the tail;
//! * pinned messages (system / developer, [`crate::format::MessageFacts`])
//!   are never a boundary: they stay first and verbatim wherever the split
//!   falls, and are never summarized;
//! * the tail never holds a result whose call is before it (calls and
//!   results pair by id in every format): the split moves back to the call,
//!   and to a clean boundary again, until neither rule moves it.
//!
//! When the split lands at the start, nothing would be compressed: the
//! engine reports NOOP.
//!
//! Both are minimums while they fit: when the kept tail would leave the next
//! prompt at or above `auto`, the engine starts it later, at a clean
//! boundary of the same kind, and slims what still does not fit (every send fits, docs/behaviour.md;
//! see the engine's `fit` module).

use crate::prelude::*;

use crate::json::{ObjectWriter, ToJson, json_object, write_str};

use crate::content::Content;
use crate::estimate::{EstimateOptions, message_tokens};
use crate::format::{MessageFacts, facts_of, start_keeping_calls};

/// Default minimum number of recent user/model message pairs kept verbatim.
pub const DEFAULT_EXCLUDE_MESSAGES: u32 = 2;
/// Default minimum percent of the window kept as recent messages.
pub const DEFAULT_EXCLUDE_CONTEXT_WINDOW_PERCENT: f64 = 2.0;

/// How much of the recent history is kept verbatim.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RetentionSettings {
    /// `compaction.excludeMessages`: recent user/model pairs kept verbatim.
    pub exclude_messages: u32,
    /// `compaction.excludeContextWindowPercent`: percent of the window kept
    /// as recent messages.
    pub exclude_context_window_percent: f64,
}

json_object! {
    /// Writes the two fields into an object being written (options and
    /// saved states hold them flat).
    pub(crate) fields RetentionSettings {
        exclude_messages: "excludeMessages",
        exclude_context_window_percent: "excludeContextWindowPercent",
    }
    pub(crate) const FIELDS;
}

impl ToJson for RetentionSettings {
    fn write_json(&self, out: &mut String) {
        let mut o = ObjectWriter::new(out);
        self.write_fields(&mut o);
        o.end();
    }
}

impl Default for RetentionSettings {
    fn default() -> Self {
        RetentionSettings {
            exclude_messages: DEFAULT_EXCLUDE_MESSAGES,
            exclude_context_window_percent: DEFAULT_EXCLUDE_CONTEXT_WINDOW_PERCENT,
        }
    }
}

/// Which minimum set the size of the kept tail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetentionRule {
    /// `excludeMessages` asked for more messages (ties go here).
    Messages,
    /// `excludeContextWindowPercent` asked for more messages.
    Percent,
}

impl ToJson for RetentionRule {
    fn write_json(&self, out: &mut String) {
        write_str(
            out,
            match self {
                RetentionRule::Messages => "messages",
                RetentionRule::Percent => "percent",
            },
        );
    }
}

/// Where the verbatim tail starts, and why there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Split {
    /// Index of the first kept message; `history[..kept_from]` is summarized.
    /// 0 means nothing would be compressed.
    pub kept_from: usize,
    /// The rule that asked for the larger tail.
    pub rule: RetentionRule,
    /// Whether the tail starts with a model message (the fallback boundary).
    pub starts_with_model: bool,
}

json_object! {
    Split {
        kept_from: "keptFrom",
        rule: "rule",
        starts_with_model: "startsWithModel",
    }
}

/// Finds where the verbatim tail starts. Costs O(tail), plus a walk back
/// to the boundary.
///
/// ```
/// use compaction_core::{split_point, Content, EstimateOptions, RetentionSettings};
/// let history: Vec<Content> = (0..10)
///     .map(|i| Content::text(if i % 2 == 0 { "user" } else { "model" }, format!("message {i}")))
///     .collect();
/// let settings = RetentionSettings { exclude_messages: 2, exclude_context_window_percent: 0.0 };
/// let split = split_point(&history, 100_000.0, &settings, &EstimateOptions::default());
/// assert_eq!(split.kept_from, 6); // the last two pairs stay
/// ```
pub fn split_point(
    history: &[Content],
    window: f64,
    settings: &RetentionSettings,
    options: &EstimateOptions,
) -> Split {
    split_point_with(history, &facts_of(history), window, settings, options)
}

/// [`split_point`] for a history read from any format, with its facts
/// ([`crate::format::History`]): pinned messages (system / developer) are
/// never a boundary, tool results are the ones the facts name, and the
/// split moves back until the tail holds the call of every result in it
/// (calls and results pair by id), re-checking the clean boundary each time
/// (both rules only move it back).
pub fn split_point_with(
    history: &[Content],
    facts: &[MessageFacts],
    window: f64,
    settings: &RetentionSettings,
    options: &EstimateOptions,
) -> Split {
    let len = history.len().min(facts.len());
    let history = &history[..len];
    let facts = &facts[..len];
    let by_messages = len.saturating_sub((settings.exclude_messages as usize).saturating_mul(2));
    let by_percent = percent_start(history, window, settings, options);
    let (mut start, rule) = if by_percent < by_messages {
        (by_percent, RetentionRule::Percent)
    } else {
        (by_messages, RetentionRule::Messages)
    };
    if facts.last().is_some_and(|f| !f.calls.is_empty()) {
        // The host is about to send this call's response: they stay together.
        start = start.min(len - 1);
    }
    let kept_from = keeping_calls(history, facts, start);
    Split {
        kept_from,
        rule,
        starts_with_model: history.get(kept_from).is_some_and(Content::is_model),
    }
}

/// The latest start whose suffix reaches the percent budget; 0 when the
/// whole history is below it.
fn percent_start(
    history: &[Content],
    window: f64,
    settings: &RetentionSettings,
    options: &EstimateOptions,
) -> usize {
    let budget = window * settings.exclude_context_window_percent / 100.0;
    if budget <= 0.0 || !budget.is_finite() {
        return history.len();
    }
    let mut kept = 0.0;
    for (i, message) in history.iter().enumerate().rev() {
        kept += message_tokens(message, options);
        if kept >= budget {
            return i;
        }
    }
    0
}

/// The clean boundary at or before `start` whose tail answers no call of
/// the head: the two rules applied in turn until neither moves.
pub(crate) fn keeping_calls(history: &[Content], facts: &[MessageFacts], start: usize) -> usize {
    let mut at = clean_boundary(history, facts, start);
    loop {
        let paired = start_keeping_calls(facts, at);
        if paired == at {
            return at;
        }
        let next = clean_boundary(history, facts, paired);
        if next == at {
            return at;
        }
        at = next;
    }
}

/// Whether a user-side message at `i` is the user's own turn: not a tool
/// result, not pinned, not one of this library's messages.
pub(crate) fn is_user_turn(history: &[Content], facts: &[MessageFacts], i: usize) -> bool {
    let m = &history[i];
    !m.is_model()
        && !facts[i].tool_result
        && !facts[i].pinned
        && !crate::summary_request::is_compaction_message(m)
}

/// Moves `start` back to the nearest clean boundary; see the module docs.
fn clean_boundary(history: &[Content], facts: &[MessageFacts], start: usize) -> usize {
    if start >= history.len() {
        // An empty tail: the host's next message follows the summary directly.
        return history.len();
    }
    // Our own summary and bridge are user-side but not the user's words, so
    // they are no turn to keep a tail from.
    let user_turn = (1..=start).rev().find(|&i| is_user_turn(history, facts, i));
    // A model turn after a user-side one keeps each call of the head with
    // its response (the response precedes the cut).
    let model_turn = (1..=start)
        .rev()
        .find(|&i| history[i].is_model() && !history[i - 1].is_model());
    match (user_turn, model_turn) {
        // A user turn is preferred, unless it would summarize less than half
        // of what the model turn would: in a long agent loop under one
        // request the last user turn is far back, and cutting there would
        // leave almost everything uncompressed.
        (Some(u), Some(m)) if u.saturating_mul(2) < m => m,
        (Some(u), _) => u,
        (None, Some(m)) => m,
        (None, None) => 0,
    }
}
