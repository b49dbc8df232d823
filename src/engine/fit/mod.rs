//! Every send fits the window (every send fits, docs/behaviour.md): how a run is planned so that the
//! next prompt fits and every summary request fits the model.
//!
//! * **The tail yields.** The retention minimums (`excludeMessages`,
//!   `excludeContextWindowPercent`) hold while they fit. When the kept tail,
//!   the summary reserve and the pending message would leave the next prompt
//!   at or above `auto` (`hard` for a run forced at `hard` whose pending
//!   message alone is at `auto`), the tail starts later, at a clean boundary (never between a
//!   call and its response: a boundary whose tail would hold a result of a
//!   call before it is skipped), down to the last one; the pinned messages
//!   before the tail are kept too and count against it, and are never
//!   slimmed; when even that does not
//!   fit, its largest messages are slimmed ([`crate::slim`]) and their
//!   copies go into the outcome's head.
//! * **A message that cannot fit.** When the pending message, with the
//!   smallest compacted history possible before it, is at or above `hard`,
//!   nothing runs: NOOP `messageTooLarge` with `overBy`. At or above `auto`
//!   on an auto run, nothing runs either (`wouldNotFit`): compacting could
//!   not bring the next prompt below `auto`.
//! * **Clearing first** (`clearToolOutputs`): tool outputs before the tail
//!   become markers; when that brings the prompt below `warn`, the run ends
//!   there (COMPRESSED, `method: "cleared"`, no call).
//! * **The request fits.** Its input is at most `window − cap − 1 024`
//!   (provider tokens, through the chat's provider scale). When the part to
//!   summarize is larger, its tool outputs and call arguments are slimmed to
//!   a per-message budget (a quarter of a request), and if it is still too
//!   large it is summarized in chunks ([`Chunks`]), each request carrying
//!   the summary so far; a single message larger than a request is slimmed
//!   to fit one.
//! * **Manual runs** drop an unanswered trailing function call: no response
//!   will come between turns.
//!
//! [`plan`] takes these as named steps (`steps.rs`), each tested on its
//! own (`tests.rs`): the budget, the tail chosen, the tail slimmed, the
//! part replaced, clearing, the request fitted.

use crate::prelude::*;

mod steps;
#[cfg(test)]
mod tests;

use crate::content::Content;
use crate::estimate::{EstimateOptions, message_tokens};
use crate::format::MessageFacts;
use crate::ladder::{COMPACT_MAX_OUTPUT_TOKENS, Thresholds};
use crate::options::CompactionOptions;
use crate::slim::{fit_messages, slim_message};
use crate::summary_request::{
    ACKNOWLEDGEMENT, BRIDGE, SummaryRequest, fixed_overhead, fold_request, is_compaction_message,
    rendered_tokens, summary_message,
};

use super::gap::Gap;
use super::outcome::{NoopReason, Trigger};

use steps::Clearing;

/// What a run is planned from.
pub(super) struct FitInput<'a> {
    pub history: &'a [Content],
    /// One per message of `history`: pinned messages, tool results, calls.
    pub facts: &'a [MessageFacts],
    pub window: f64,
    pub thresholds: &'a Thresholds,
    pub options: &'a CompactionOptions,
    pub last_prompt_token_count: u64,
    /// The estimated tokens of the message about to be sent (0 for `/compact`).
    pub pending_tokens: f64,
    pub trigger: Trigger,
    pub focus: Option<&'a str>,
}

/// What the planning decided.
pub(super) enum Plan {
    /// Nothing runs.
    Noop(NoopReason),
    /// Made small enough without a model call (cleared tool outputs,
    /// slimmed messages): the new history is `head` + `history[kept_from..]`.
    Cleared {
        head: Vec<Content>,
        kept_from: usize,
        pinned: Vec<usize>,
        /// The host index each message of `head` was copied from.
        copied_from: Vec<usize>,
        history_tokens: u64,
        new_tokens: u64,
    },
    /// A summary run.
    Summarize(Box<Prepared>),
}

/// A summary run, ready to hand out its first request.
pub(super) struct Prepared {
    pub request: SummaryRequest,
    pub kept_from: usize,
    /// The pinned messages before `kept_from`, which the new history keeps
    /// first and verbatim.
    pub pinned: Vec<usize>,
    pub starts_with_model: bool,
    pub history_tokens: u64,
    pub history_estimate: f64,
    pub summarized_estimate: f64,
    pub tail_estimate: f64,
    pub request_overhead: f64,
    /// The usage-gap model the run was planned with.
    pub gap: Gap,
    pub state: FitState,
}

/// What a run in flight keeps beyond the spec's basis: the parts of the
/// new history it already made (slimmed tail copies), the chunks still to
/// summarize, and what the no-loop check needs.
#[derive(Clone, Debug)]
pub(super) struct FitState {
    /// Copies of tail messages that go into the head after the summary
    /// (slimmed ones, or the tail before a dropped trailing call).
    pub tail_copies: Vec<Content>,
    /// The host index each of `tail_copies` was made from.
    pub tail_sources: Vec<usize>,
    /// The chunks not yet summarized, for a multi-call run.
    pub chunks: Option<Chunks>,
    /// Summary requests handed out so far.
    pub calls: u32,
    /// Whether the request holds the summarized messages verbatim, so that
    /// the call's input count measures them (else the new size is estimated).
    pub exact: bool,
    /// The next prompt must be below this (`auto`, or `hard` for a hard run).
    pub limit: f64,
    /// The pending message's estimated tokens.
    pub pending_tokens: f64,
}

/// The part of a multi-call run still to summarize: media-free, slimmed
/// copies, handed out one request at a time.
#[derive(Clone, Debug)]
pub(super) struct Chunks {
    messages: Vec<Content>,
    facts: Vec<MessageFacts>,
    next: usize,
    system_instruction: String,
    cap: u64,
    /// The estimator's budget for one request's input.
    room: f64,
    /// The estimator's count the summary so far may take: the cap (a model
    /// that honours it never writes more; a longer one is cut, so that the
    /// next request still fits).
    so_far_budget: f64,
}

impl Chunks {
    /// Whether every message was handed out.
    pub fn is_done(&self) -> bool {
        self.next >= self.messages.len()
    }

    /// The next request: the summary so far, then as many whole units
    /// (a unit starts at a clean boundary, so a call and its response are
    /// never in different requests) as the room holds, at least one, slimmed
    /// further if it alone is too large.
    pub fn next_request(
        &mut self,
        so_far: Option<&str>,
        options: &EstimateOptions,
    ) -> SummaryRequest {
        let cut;
        let so_far = match so_far {
            Some(text)
                if message_tokens(&Content::text("user", text), options) > self.so_far_budget =>
            {
                let slim = slim_message(&Content::text("user", text), self.so_far_budget, options);
                cut = slim
                    .parts
                    .first()
                    .and_then(|p| p.as_map().get("text"))
                    .and_then(|t| t.as_str())
                    .unwrap_or_default()
                    .to_string();
                Some(cut.as_str())
            }
            other => other,
        };
        let carried = so_far.map_or(0.0, |s| {
            message_tokens(&summary_message(s), options)
                + message_tokens(&Content::text("model", ACKNOWLEDGEMENT), options)
                + message_tokens(&Content::text("user", BRIDGE), options)
        });
        let room = (self.room - fixed_overhead(&self.system_instruction, options) - carried)
            .max(self.room / 8.0);
        let start = self.next;
        let mut end = start;
        let mut used = 0.0;
        while end < self.messages.len() {
            let unit_end = unit_end(&self.messages, &self.facts, end);
            let unit: f64 = self.messages[end..unit_end]
                .iter()
                .map(|m| rendered_tokens(m, options))
                .sum();
            if end > start && used + unit > room {
                break;
            }
            used += unit;
            end = unit_end;
        }
        self.next = end;
        let chunk = if used > room {
            fit_messages(&self.messages[start..end], room, options)
        } else {
            self.messages[start..end].to_vec()
        };
        fold_request(so_far, &chunk, &self.system_instruction, self.cap)
    }
}

/// Whether a clean boundary is at `i`: a user's own message (not a tool
/// result, not one of this library's), or a model turn right after a
/// user-side one (the response of every earlier call precedes it).
fn is_boundary(messages: &[Content], facts: &[MessageFacts], i: usize) -> bool {
    let m = &messages[i];
    if facts[i].pinned {
        false
    } else if m.is_model() {
        i > 0 && !messages[i - 1].is_model()
    } else {
        !facts[i].tool_result && !is_compaction_message(m)
    }
}

/// Where the unit that starts at `start` ends: at the next boundary.
fn unit_end(messages: &[Content], facts: &[MessageFacts], start: usize) -> usize {
    (start + 1..messages.len())
        .find(|&i| is_boundary(messages, facts, i))
        .unwrap_or(messages.len())
}

/// The largest output cap a summary call may have: 20 000 or the model's
/// limit.
pub(super) fn model_cap(options: &CompactionOptions) -> u64 {
    options
        .fit
        .max_output_tokens
        .map_or(COMPACT_MAX_OUTPUT_TOKENS, |n| {
            n.min(COMPACT_MAX_OUTPUT_TOKENS)
        })
}

/// Plans a run: see the module docs.
pub(super) fn plan(input: &FitInput<'_>, split_from: usize) -> Plan {
    let budget = match steps::budget(input) {
        Ok(budget) => budget,
        Err(reason) => return Plan::Noop(reason),
    };
    let tail = steps::choose_tail(&budget, split_from);
    let kept = steps::slim_tail(&budget, &tail, &input.options.estimate);
    let replaced = steps::replaced(&budget, tail.from);
    let cleared = match steps::clear(input, &budget, &kept, &replaced) {
        Clearing::Enough { copies, new_tokens } => {
            let mut head = copies;
            head.extend(kept.copies);
            let mut copied_from = replaced.indices;
            copied_from.extend(kept.sources);
            return Plan::Cleared {
                head,
                kept_from: kept.from,
                pinned: replaced.pinned,
                copied_from,
                history_tokens: budget.history_tokens,
                new_tokens,
            };
        }
        Clearing::NothingToCompress => return Plan::Noop(NoopReason::NothingToCompress),
        Clearing::Summarize(cleared) => cleared,
    };
    steps::fit_request(input, &budget, kept, replaced, cleared)
}
