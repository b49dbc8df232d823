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

use crate::prelude::*;

use crate::content::Content;
use crate::estimate::{EstimateOptions, message_tokens};
use crate::format::{MessageFacts, start_keeping_calls};
use crate::ladder::{COMPACT_MAX_OUTPUT_TOKENS, Thresholds};
use crate::options::CompactionOptions;
use crate::read::MAX_COUNT;
use crate::slim::{clear_tool_outputs, fit_messages, slim_message};
use crate::summary_request::{
    ACKNOWLEDGEMENT, BRIDGE, REQUEST_OVERHEAD_TOKENS, SummaryRequest, build_summary_request,
    fixed_overhead, fold_request, is_compaction_message, max_output_tokens, provider_scale,
    rendered_tokens, request_size_margin, request_tokens, summary_message, system_instruction,
    without_media,
};

use super::gap::Gap;
use super::outcome::{NoopReason, Trigger};

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
    let options = &input.options.estimate;
    let len = input.history.len().min(input.facts.len());
    let history = &input.history[..len];
    let facts = &input.facts[..len];
    let calls = |i: usize| !facts[i].calls.is_empty();
    let thresholds = input.thresholds;
    let manual = matches!(input.trigger, Trigger::Manual);
    // Between turns no response will come for a trailing call: drop it.
    let body_len = if manual && len > 0 && calls(len - 1) {
        len - 1
    } else {
        len
    };
    let dropped_call = body_len < history.len();
    let body = &history[..body_len];
    let sizes: Vec<f64> = history.iter().map(|m| message_tokens(m, options)).collect();
    let history_estimate: f64 = sizes.iter().sum();
    let declared = input.options.fit.overhead_tokens;
    let history_tokens = if input.last_prompt_token_count > 0 {
        input.last_prompt_token_count
    } else {
        ((history_estimate + declared.map_or(0.0, |n| n as f64)).ceil() as u64).min(MAX_COUNT)
    };
    // What the provider counts and the estimator does not see: the fixed
    // part the host declared (system prompt, tool schemas), and the
    // estimator's error, which scales with the history (see `gap`): the
    // tail yields for what it will really cost, not for a gap that the
    // compaction removes with the history.
    let gap = Gap::new(input.last_prompt_token_count, history_estimate, declared);
    let framing = message_tokens(&summary_message(""), options)
        + message_tokens(&Content::text("model", ACKNOWLEDGEMENT), options)
        + message_tokens(&Content::text("user", BRIDGE), options);
    let pending = input.pending_tokens;
    let trailing_call = !manual && body_len > 0 && calls(body_len - 1);
    let smallest_tail = if trailing_call {
        sizes[body_len - 1]
    } else {
        0.0
    };
    // The smallest prompt any run could leave: the summary's framing, the
    // call the pending message answers, and the message. What the estimator
    // cannot see is left out: it is not the message's doing, and a run
    // cannot shrink it either way.
    let smallest = framing + pending + smallest_tail;
    if !manual && smallest >= thresholds.hard {
        return Plan::Noop(NoopReason::MessageTooLarge {
            over_by: ((smallest - thresholds.hard).ceil() as u64).clamp(1, MAX_COUNT),
        });
    }
    if matches!(input.trigger, Trigger::Auto) && smallest >= thresholds.auto {
        return Plan::Noop(NoopReason::WouldNotFit);
    }
    // The next prompt must end below `auto`; only a hard run whose pending
    // message alone keeps it at `auto` aims at `hard` (fitting the window
    // beats not compacting; the message is in the history on the next turn,
    // where it can be summarized).
    let limit = if matches!(input.trigger, Trigger::Hard) && smallest >= thresholds.auto {
        thresholds.hard
    } else {
        thresholds.auto
    };
    let cap_fit = model_cap(input.options);
    // The room the summary is expected to take: its cap, at most a quarter
    // of `auto` (a small window would otherwise keep no tail at all; the
    // no-loop check still judges the real summary).
    let reserve = (cap_fit as f64).min(thresholds.auto / 4.0);
    let tail_budget = (gap.room_for(limit - 1.0 - reserve) - framing - pending).max(0.0);

    // The tail yields: the earliest clean boundary from the spec's split
    // whose tail fits, else the last one.
    let mut suffix = vec![0.0; body_len + 1];
    for i in (0..body_len).rev() {
        suffix[i] = suffix[i + 1] + sizes[i];
    }
    // Pinned messages before the tail stay too (first, verbatim): what a
    // tail from `i` keeps is its suffix and the pinned messages before it.
    let mut pinned_before = vec![0.0; body_len + 1];
    for i in 0..body_len {
        pinned_before[i + 1] = pinned_before[i] + if facts[i].pinned { sizes[i] } else { 0.0 };
    }
    let kept = |i: usize| suffix[i] + pinned_before[i];
    let split_from = split_from.min(body_len);
    let tail_from = if kept(split_from) <= tail_budget {
        split_from
    } else {
        let last = if trailing_call {
            body_len - 1
        } else {
            body_len
        };
        // A later tail also starts at a clean boundary that leaves no
        // result in it without its call.
        let body_facts = &facts[..body_len];
        let boundaries: Vec<usize> = (split_from + 1..last)
            .filter(|&i| {
                is_boundary(body, body_facts, i) && start_keeping_calls(body_facts, i) == i
            })
            .collect();
        boundaries
            .iter()
            .copied()
            .find(|&i| kept(i) <= tail_budget)
            .or_else(|| boundaries.last().copied())
            .unwrap_or(split_from)
    };
    let tail = &body[tail_from..];
    let pinned_estimate = pinned_before[tail_from];
    let mut tail_estimate = suffix[tail_from];
    let mut tail_copies: Vec<Content> = Vec::new();
    let mut tail_sources: Vec<usize> = Vec::new();
    let mut kept_from = tail_from;
    if pinned_estimate + tail_estimate > tail_budget {
        // Pinned messages in the tail are never slimmed: the others share
        // what they leave.
        let tail_facts = &facts[tail_from..body_len];
        let pinned_in_tail: f64 = tail
            .iter()
            .zip(tail_facts)
            .filter(|(_, f)| f.pinned)
            .map(|(m, _)| message_tokens(m, options))
            .sum();
        let slimmable: Vec<Content> = tail
            .iter()
            .zip(tail_facts)
            .filter(|(_, f)| !f.pinned)
            .map(|(m, _)| m.clone())
            .collect();
        let budget = tail_budget - pinned_estimate - pinned_in_tail;
        let mut fitted_rest = fit_messages(&slimmable, budget, options).into_iter();
        let fitted: Vec<Content> = tail
            .iter()
            .zip(tail_facts)
            .map(|(m, f)| {
                if f.pinned {
                    m.clone()
                } else {
                    fitted_rest.next().unwrap_or_else(|| m.clone())
                }
            })
            .collect();
        let last_changed = fitted
            .iter()
            .zip(tail)
            .rposition(|(a, b)| a != b)
            .map_or(0, |i| i + 1);
        tail_estimate = fitted.iter().map(|m| message_tokens(m, options)).sum();
        tail_copies = fitted[..last_changed].to_vec();
        tail_sources = (tail_from..tail_from + last_changed).collect();
        kept_from = tail_from + last_changed;
    }
    // What the new history keeps verbatim besides the head: judged with it.
    let kept_estimate = pinned_estimate + tail_estimate;
    if dropped_call {
        // The rest of the tail is copied too, so that the new history ends
        // before the dropped call.
        tail_copies.extend(body[kept_from..].iter().cloned());
        tail_sources.extend(kept_from..body_len);
        kept_from = history.len();
    }
    let starts_with_model = tail_copies
        .first()
        .or_else(|| history.get(kept_from))
        .is_some_and(Content::is_model);
    // The head is what is replaced: the messages before the tail, pinned
    // ones left out (they stay, first and verbatim).
    let pinned: Vec<usize> = (0..tail_from).filter(|&i| facts[i].pinned).collect();
    let summarized: Vec<usize> = (0..tail_from).filter(|&i| !facts[i].pinned).collect();
    let summarized_estimate: f64 = summarized.iter().map(|&i| sizes[i]).sum();
    let head: Vec<Content> = summarized.iter().map(|&i| body[i].clone()).collect();
    let head_facts: Vec<MessageFacts> = summarized.iter().map(|&i| facts[i].clone()).collect();
    let nothing_to_summarize = head.is_empty() || head.iter().all(is_compaction_message);

    let clear = input.options.fit.clear_tool_outputs;
    let cleared: Option<Vec<Content>> =
        clear.then(|| head.iter().map(clear_tool_outputs).collect());
    if nothing_to_summarize || cleared.is_some() {
        let head_copies: Vec<Content> = cleared.clone().unwrap_or_else(|| head.to_vec());
        let head_estimate: f64 = head_copies.iter().map(|m| message_tokens(m, options)).sum();
        let new_estimate = gap.predict(head_estimate + kept_estimate);
        let enough = new_estimate + pending < thresholds.warn
            || (nothing_to_summarize && new_estimate + pending < limit);
        if enough && (!tail_copies.is_empty() || cleared.is_some()) && kept_from > 0 {
            let new_tokens = (new_estimate.ceil() as u64).min(MAX_COUNT);
            if new_tokens < history_tokens {
                let mut new_head = head_copies;
                new_head.extend(tail_copies);
                let mut copied_from = summarized.clone();
                copied_from.extend(tail_sources);
                return Plan::Cleared {
                    head: new_head,
                    kept_from,
                    pinned,
                    copied_from,
                    history_tokens,
                    new_tokens,
                };
            }
        }
        if nothing_to_summarize {
            return Plan::Noop(NoopReason::NothingToCompress);
        }
    }

    // The request fits the model.
    // Provider tokens per estimated token of the messages, the declared
    // fixed part left out, with the margin a request is sized with.
    let scale = provider_scale(
        (input.last_prompt_token_count as f64 - gap.fixed).max(0.0) as u64,
        history_estimate,
    ) * request_size_margin(options);
    let system = system_instruction(&input.options.prompt, input.focus);
    let overhead = fixed_overhead(&system, options);
    let window = input.window;
    let cap_multi = cap_fit.min(
        ((window - REQUEST_OVERHEAD_TOKENS - overhead * scale) / 3.0)
            .floor()
            .max(1.0) as u64,
    );
    // One request is enough while it leaves the summary a fair cap: a
    // sixteenth of the window (at least 1 024), or what chunks would get.
    let min_single = cap_multi.min(cap_fit.min(((window / 16.0).floor() as u64).max(1_024)));
    let fits = |request: &SummaryRequest| -> Option<u64> {
        let cap = max_output_tokens(window, (request_tokens(request, options) * scale).ceil())
            .min(cap_fit);
        (cap >= min_single).then_some(cap)
    };
    let mut state = FitState {
        tail_copies,
        tail_sources,
        chunks: None,
        calls: 1,
        exact: false,
        limit,
        pending_tokens: pending,
    };
    let prepared = |request: SummaryRequest, state: FitState, request_overhead: f64| {
        Plan::Summarize(Box::new(Prepared {
            request,
            kept_from,
            pinned: pinned.clone(),
            starts_with_model,
            history_tokens,
            history_estimate,
            summarized_estimate,
            tail_estimate: kept_estimate,
            request_overhead,
            gap,
            state,
        }))
    };
    if cleared.is_none() {
        let mut request = build_summary_request(
            &head,
            window,
            &input.options.prompt,
            input.focus,
            options,
            scale,
        );
        if let Some(cap) = fits(&request) {
            request.config.max_output_tokens = cap;
            let request_overhead =
                message_tokens(&Content::text("user", &request.system_instruction), options)
                    + request
                        .contents
                        .last()
                        .map_or(0.0, |c| message_tokens(c, options));
            state.exact = true;
            return prepared(request, state, request_overhead);
        }
    }
    // Slim each message to a per-message budget, then try one request again.
    let room = ((window - cap_multi as f64 - REQUEST_OVERHEAD_TOKENS) / scale).max(1.0);
    let per_message = ((room - overhead - cap_multi as f64 / scale) / 4.0).max(1.0);
    let source: Vec<Content> = cleared.unwrap_or_else(|| head.clone());
    let messages: Vec<Content> = source
        .iter()
        .map(|m| {
            let m = without_media(m);
            // Tool traffic (outputs, call arguments) is cut first; a long
            // text of the user's or the model's is left to the chunks, and
            // cut only if it alone is larger than one request.
            let tool = m.is_tool_result() || m.has_function_call();
            if tool && message_tokens(&m, options) > per_message {
                slim_message(&m, per_message, options)
            } else {
                m
            }
        })
        .collect();
    let single = fold_request(None, &messages, &system, cap_multi);
    if let Some(cap) = fits(&single) {
        let mut request = single;
        request.config.max_output_tokens = cap;
        return prepared(request, state, 0.0);
    }
    let mut chunks = Chunks {
        messages,
        facts: head_facts,
        next: 0,
        system_instruction: system,
        cap: cap_multi,
        room,
        so_far_budget: cap_multi as f64 / scale,
    };
    let request = chunks.next_request(None, options);
    state.chunks = Some(chunks);
    prepared(request, state, 0.0)
}
