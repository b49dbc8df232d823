//! The plan's steps, in the order [`super::plan`] takes them: the budget,
//! the tail chosen, the tail slimmed, the part replaced, clearing, and the
//! request fitted to the model. Each step takes what the ones before it
//! decided.

use crate::prelude::*;

use crate::content::Content;
use crate::engine::gap::Gap;
use crate::engine::outcome::{NoopReason, Trigger};
use crate::estimate::{EstimateOptions, message_tokens};
use crate::format::{MessageFacts, start_keeping_calls};
use crate::read::MAX_COUNT;
use crate::slim::{clear_tool_outputs, fit_messages, slim_message};
use crate::summary_request::{
    ACKNOWLEDGEMENT, BRIDGE, REQUEST_OVERHEAD_TOKENS, SummaryRequest, build_summary_request,
    fixed_overhead, fold_request, is_compaction_message, max_output_tokens, provider_scale,
    request_size_margin, request_tokens, summary_message, system_instruction, without_media,
};

use super::{Chunks, FitInput, FitState, Plan, Prepared, is_boundary, model_cap};

/// What the first step measured: the history as the run sees it, and what
/// the next prompt and the kept tail may take.
pub(super) struct Budget<'a> {
    /// The host's history, cut to the messages it has facts for.
    pub history: &'a [Content],
    /// One per message of `history`.
    pub facts: &'a [MessageFacts],
    /// How many messages of `history` a run keeps or replaces: all but a
    /// trailing call a manual run drops.
    pub body_len: usize,
    /// Whether a manual run dropped a trailing call.
    pub dropped_call: bool,
    /// Whether the body ends with a call (not on a manual run): the pending
    /// message answers it, so the tail keeps it.
    pub trailing_call: bool,
    /// The estimator's count of each message of `history`.
    pub sizes: Vec<f64>,
    /// Their sum.
    pub history_estimate: f64,
    /// Prompt size of the history: the last usage, or the estimate (the
    /// declared overhead included) when there is none.
    pub history_tokens: u64,
    /// The usage-gap model of this history.
    pub gap: Gap,
    /// The pending message's estimated tokens.
    pub pending: f64,
    /// The next prompt must be below this (`auto`, or `hard`).
    pub limit: f64,
    /// The largest output cap a summary call may have ([`model_cap`]).
    pub cap_fit: u64,
    /// What the kept tail, with the pinned messages before it, may take
    /// (estimated tokens).
    pub tail_budget: f64,
}

impl<'a> Budget<'a> {
    /// The messages a run keeps or replaces.
    pub fn body(&self) -> &'a [Content] {
        &self.history[..self.body_len]
    }
}

/// Step 1, the budget: what the history costs, what the next prompt must
/// stay below and what that leaves the kept tail; or why nothing runs
/// (`messageTooLarge`, `wouldNotFit`).
pub(super) fn budget<'a>(input: &FitInput<'a>) -> Result<Budget<'a>, NoopReason> {
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
        return Err(NoopReason::MessageTooLarge {
            over_by: ((smallest - thresholds.hard).ceil() as u64).clamp(1, MAX_COUNT),
        });
    }
    if matches!(input.trigger, Trigger::Auto) && smallest >= thresholds.auto {
        return Err(NoopReason::WouldNotFit);
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
    Ok(Budget {
        history,
        facts,
        body_len,
        dropped_call,
        trailing_call,
        sizes,
        history_estimate,
        history_tokens,
        gap,
        pending,
        limit,
        cap_fit,
        tail_budget,
    })
}

/// Where the kept tail starts, and what it keeps.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tail {
    /// Index of its first message.
    pub from: usize,
    /// The estimator's count of the pinned messages before it, which the
    /// new history keeps too.
    pub pinned_estimate: f64,
    /// The estimator's count of its messages.
    pub estimate: f64,
}

/// Step 2, the tail yields: the spec's split `split_from` while what it
/// keeps (the pinned messages before it included) fits the tail budget;
/// else the earliest later clean boundary whose tail fits, a boundary that
/// would leave a result in the tail without its call skipped; else the
/// last such boundary.
pub(super) fn choose_tail(budget: &Budget<'_>, split_from: usize) -> Tail {
    let body_len = budget.body_len;
    let body = budget.body();
    let facts = budget.facts;
    let sizes = &budget.sizes;
    let tail_budget = budget.tail_budget;
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
        let last = if budget.trailing_call {
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
    Tail {
        from: tail_from,
        pinned_estimate: pinned_before[tail_from],
        estimate: suffix[tail_from],
    }
}

/// What the new history keeps besides the summary: the pinned messages
/// before the tail, copies of tail messages, and the host's own messages
/// from `from` on.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Kept {
    /// Where the host's messages resume, verbatim (`history[from..]`).
    pub from: usize,
    /// The estimator's count of the pinned messages before the tail and of
    /// the tail, slimmed where it was.
    pub estimate: f64,
    /// Copies of tail messages that go into the head after the summary
    /// (slimmed ones, or the tail before a dropped trailing call).
    pub copies: Vec<Content>,
    /// The host index each of `copies` was made from.
    pub sources: Vec<usize>,
}

impl Kept {
    /// Whether the kept messages start with a model message (then the head
    /// ends with a bridge).
    pub fn starts_with_model(&self, history: &[Content]) -> bool {
        self.copies
            .first()
            .or_else(|| history.get(self.from))
            .is_some_and(Content::is_model)
    }
}

/// Step 3, the tail slimmed: when the tail and the pinned messages before
/// it exceed the tail budget, the tail's largest messages are slimmed
/// ([`fit_messages`]; pinned ones never) and their copies kept, up to the
/// last one changed; after a dropped trailing call the rest of the tail is
/// copied too, so that the new history ends before the call.
pub(super) fn slim_tail(budget: &Budget<'_>, tail: &Tail, options: &EstimateOptions) -> Kept {
    let body = budget.body();
    let body_len = budget.body_len;
    let facts = budget.facts;
    let tail_from = tail.from;
    let tail_budget = budget.tail_budget;
    let pinned_estimate = tail.pinned_estimate;
    let messages = &body[tail_from..];
    let mut tail_estimate = tail.estimate;
    let mut tail_copies: Vec<Content> = Vec::new();
    let mut tail_sources: Vec<usize> = Vec::new();
    let mut kept_from = tail_from;
    if pinned_estimate + tail_estimate > tail_budget {
        // Pinned messages in the tail are never slimmed: the others share
        // what they leave.
        let tail_facts = &facts[tail_from..body_len];
        let pinned_in_tail: f64 = messages
            .iter()
            .zip(tail_facts)
            .filter(|(_, f)| f.pinned)
            .map(|(m, _)| message_tokens(m, options))
            .sum();
        let slimmable: Vec<Content> = messages
            .iter()
            .zip(tail_facts)
            .filter(|(_, f)| !f.pinned)
            .map(|(m, _)| m.clone())
            .collect();
        let left = tail_budget - pinned_estimate - pinned_in_tail;
        let mut fitted_rest = fit_messages(&slimmable, left, options).into_iter();
        let fitted: Vec<Content> = messages
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
            .zip(messages)
            .rposition(|(a, b)| a != b)
            .map_or(0, |i| i + 1);
        tail_estimate = fitted.iter().map(|m| message_tokens(m, options)).sum();
        tail_copies = fitted[..last_changed].to_vec();
        tail_sources = (tail_from..tail_from + last_changed).collect();
        kept_from = tail_from + last_changed;
    }
    // What the new history keeps verbatim besides the head: judged with it.
    let kept_estimate = pinned_estimate + tail_estimate;
    if budget.dropped_call {
        // The rest of the tail is copied too, so that the new history ends
        // before the dropped call.
        tail_copies.extend(body[kept_from..].iter().cloned());
        tail_sources.extend(kept_from..body_len);
        kept_from = budget.history.len();
    }
    Kept {
        from: kept_from,
        estimate: kept_estimate,
        copies: tail_copies,
        sources: tail_sources,
    }
}

/// The part a run replaces: the messages before the tail, pinned ones left
/// out (they stay, first and verbatim).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Replaced {
    /// The pinned messages before the tail (indices, ascending).
    pub pinned: Vec<usize>,
    /// The replaced messages (indices, ascending).
    pub indices: Vec<usize>,
    /// Their estimator's count.
    pub estimate: f64,
    /// Copies of them.
    pub messages: Vec<Content>,
    /// Their facts.
    pub facts: Vec<MessageFacts>,
    /// Whether there is nothing to summarize: no message, or only what
    /// compaction wrote (an earlier summary).
    pub nothing_to_summarize: bool,
}

/// Step 4, the part replaced: every message before `tail_from` but the
/// pinned ones.
pub(super) fn replaced(budget: &Budget<'_>, tail_from: usize) -> Replaced {
    let body = budget.body();
    let facts = budget.facts;
    // The head is what is replaced: the messages before the tail, pinned
    // ones left out (they stay, first and verbatim).
    let pinned: Vec<usize> = (0..tail_from).filter(|&i| facts[i].pinned).collect();
    let summarized: Vec<usize> = (0..tail_from).filter(|&i| !facts[i].pinned).collect();
    let summarized_estimate: f64 = summarized.iter().map(|&i| budget.sizes[i]).sum();
    let head: Vec<Content> = summarized.iter().map(|&i| body[i].clone()).collect();
    let head_facts: Vec<MessageFacts> = summarized.iter().map(|&i| facts[i].clone()).collect();
    let nothing_to_summarize = head.is_empty() || head.iter().all(is_compaction_message);
    Replaced {
        pinned,
        indices: summarized,
        estimate: summarized_estimate,
        messages: head,
        facts: head_facts,
        nothing_to_summarize,
    }
}

/// What clearing decided.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Clearing {
    /// The replaced messages' copies (tool outputs cleared, or as they are
    /// when there is nothing to summarize) and the kept part make the
    /// prompt small enough: the run ends without a call, the new head is
    /// `copies` then the kept copies.
    Enough {
        /// The copies of the replaced messages.
        copies: Vec<Content>,
        /// The new prompt's size.
        new_tokens: u64,
    },
    /// Nothing to summarize, and nothing gained without a call.
    NothingToCompress,
    /// A summary run follows, over the cleared copies when there are.
    Summarize(Option<Vec<Content>>),
}

/// Step 5, clearing (`clearToolOutputs`): tool outputs of the replaced
/// messages become markers; when that brings the prompt below `warn` (or,
/// with nothing to summarize, the kept tail's slimming alone below the
/// limit), and the new prompt is smaller than the old, no call is made.
pub(super) fn clear(
    input: &FitInput<'_>,
    budget: &Budget<'_>,
    kept: &Kept,
    replaced: &Replaced,
) -> Clearing {
    let options = &input.options.estimate;
    let thresholds = input.thresholds;
    let head = &replaced.messages;
    let nothing_to_summarize = replaced.nothing_to_summarize;
    let clear = input.options.fit.clear_tool_outputs;
    let cleared: Option<Vec<Content>> =
        clear.then(|| head.iter().map(clear_tool_outputs).collect());
    if nothing_to_summarize || cleared.is_some() {
        let head_copies: Vec<Content> = cleared.clone().unwrap_or_else(|| head.to_vec());
        let head_estimate: f64 = head_copies.iter().map(|m| message_tokens(m, options)).sum();
        let new_estimate = budget.gap.predict(head_estimate + kept.estimate);
        let enough = new_estimate + budget.pending < thresholds.warn
            || (nothing_to_summarize && new_estimate + budget.pending < budget.limit);
        if enough && (!kept.copies.is_empty() || cleared.is_some()) && kept.from > 0 {
            let new_tokens = (new_estimate.ceil() as u64).min(MAX_COUNT);
            if new_tokens < budget.history_tokens {
                return Clearing::Enough {
                    copies: head_copies,
                    new_tokens,
                };
            }
        }
        if nothing_to_summarize {
            return Clearing::NothingToCompress;
        }
    }
    Clearing::Summarize(cleared)
}

/// The messages of a request, their tool traffic (outputs, call arguments)
/// slimmed to `per_message` tokens each and their media left out; a long
/// text of the user's or the model's is left to the chunks, and cut only if
/// it alone is larger than one request.
fn slim_tool_traffic(
    source: &[Content],
    per_message: f64,
    options: &EstimateOptions,
) -> Vec<Content> {
    source
        .iter()
        .map(|m| {
            let m = without_media(m);
            let tool = m.is_tool_result() || m.has_function_call();
            if tool && message_tokens(&m, options) > per_message {
                slim_message(&m, per_message, options)
            } else {
                m
            }
        })
        .collect()
}

/// Step 6, the request fits the model: its input at most `window − cap −
/// 1 024` provider tokens. One request over the replaced messages when it
/// leaves the summary a fair cap; else one over copies whose tool traffic
/// is slimmed to a per-message budget; else chunks ([`Chunks`]), the first
/// request handed out now.
pub(super) fn fit_request(
    input: &FitInput<'_>,
    budget: &Budget<'_>,
    kept: Kept,
    replaced: Replaced,
    cleared: Option<Vec<Content>>,
) -> Plan {
    let options = &input.options.estimate;
    let gap = budget.gap;
    let cap_fit = budget.cap_fit;
    let history_tokens = budget.history_tokens;
    let history_estimate = budget.history_estimate;
    let starts_with_model = kept.starts_with_model(budget.history);
    let kept_from = kept.from;
    let kept_estimate = kept.estimate;
    let Replaced {
        pinned,
        estimate: summarized_estimate,
        messages: head,
        facts: head_facts,
        ..
    } = replaced;
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
        tail_copies: kept.copies,
        tail_sources: kept.sources,
        chunks: None,
        calls: 1,
        exact: false,
        limit: budget.limit,
        pending_tokens: budget.pending,
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
    let messages = slim_tool_traffic(&source, per_message, options);
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
