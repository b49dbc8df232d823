//! The host asks before a send ([`Compactor::poll_before_send`]) or for a
//! manual run ([`Compactor::poll_manual`]): the gate, the estimate, and the plan of the run.

use super::*;

impl Compactor {
    /// Decides, before the `pending` messages are sent, whether to compact
    /// (docs/spec.md §3): at or past `hard` the failure count is reset and
    /// the run is forced; otherwise an open breaker or a prompt below `auto`
    /// sends as is, and at `auto` the history is compacted.
    ///
    /// `pending` is everything the model call sends after what the last
    /// usage covered, in order: the user's message (a 1-slice), or every
    /// tool result of a step (with parallel calls OpenAI has one message per
    /// result). Each is counted in the estimate and in the room the run
    /// leaves; `history` is everything before them ([`HistoryRef`]: Gemini
    /// contents, a history read from any format, or not supplied).
    ///
    /// With a usage anchor this costs O(`pending`); the history is only read
    /// when there is no anchor yet, or when a compaction is prepared (with
    /// [`HistoryRef::Absent`], that is [`SendDecision::NeedHistory`]).
    /// Fails with `BUSY` while a request is in flight.
    pub fn poll_before_send<'h>(
        &mut self,
        history: impl Into<HistoryRef<'h>>,
        pending: &[Content],
    ) -> Result<SendDecision, Error> {
        self.poll_before_send_with(history.into(), pending)
    }

    /// The estimated prompt: the last usage and the pending messages, or,
    /// without usage, the declared overhead, the history and the pending
    /// messages. With one pending message and no overhead declared, this is
    /// [`estimate_prompt_tokens`] (docs/spec.md §2).
    fn estimate_prompt(&self, history: &[Content], pending: &[Content]) -> u64 {
        let options = &self.options.estimate;
        match (pending, self.options.fit.overhead_tokens) {
            ([one], None) => {
                estimate_prompt_tokens(history, one, self.last_prompt_token_count, options)
            }
            _ if self.last_prompt_token_count > 0 => self
                .last_prompt_token_count
                .saturating_add(estimate_content_tokens(pending, options)),
            (_, declared) => {
                let total: f64 = history
                    .iter()
                    .chain(pending)
                    .map(|c| message_tokens(c, options))
                    .sum();
                ((total + declared.map_or(0.0, |n| n as f64)).ceil() as u64).min(MAX_COUNT)
            }
        }
    }

    fn poll_before_send_with(
        &mut self,
        history: HistoryRef<'_>,
        pending: &[Content],
    ) -> Result<SendDecision, Error> {
        self.ensure_idle()?;
        let absent = matches!(history, HistoryRef::Absent);
        if absent && self.last_prompt_token_count == 0 {
            return Ok(SendDecision::NeedHistory);
        }
        let (history, facts) = history.parts();
        let estimate = self.estimate_prompt(history, pending);
        let tokens = estimate as f64;
        let tier = current_tier(tokens, &self.thresholds);
        let proceed = |reason| SendDecision::Proceed {
            estimate,
            tier,
            reason,
        };
        match self.gate(tokens) {
            Err(reason) => Ok(proceed(reason)),
            Ok(_) if absent => Ok(SendDecision::NeedHistory),
            Ok(Trigger::Hard) => {
                let pending = self.pending_tokens(pending);
                let decision =
                    self.prepare(history, facts, estimate, tier, Trigger::Hard, None, pending);
                // A forced run resets the breaker; a message no run can fit
                // starts none, and leaves the count as it was.
                if !matches!(
                    decision,
                    SendDecision::Proceed {
                        reason: NoopReason::MessageTooLarge { .. },
                        ..
                    }
                ) {
                    self.consecutive_failures = 0;
                }
                Ok(decision)
            }
            Ok(trigger) => {
                let pending = self.pending_tokens(pending);
                Ok(self.prepare(history, facts, estimate, tier, trigger, None, pending))
            }
        }
    }

    /// The cheap gate of docs/spec.md §3 for a prompt of `tokens`: which run to
    /// start, or why none. `hard` is checked first, so it overrides the
    /// breaker.
    fn gate(&self, tokens: f64) -> Result<Trigger, NoopReason> {
        if tokens >= self.thresholds.hard {
            Ok(Trigger::Hard)
        } else if self.consecutive_failures >= MAX_CONSECUTIVE_FAILURES {
            Err(NoopReason::BreakerOpen)
        } else if tokens < self.thresholds.auto {
            Err(NoopReason::BelowAuto)
        } else {
            Ok(Trigger::Auto)
        }
    }

    /// Whether [`Compactor::poll_before_send`] will read the history for
    /// the `pending` messages: without a usage anchor, or when the anchored
    /// estimate calls for a compaction. A host whose history must be
    /// converted first (the JS binding) skips that work on ordinary turns,
    /// passing [`HistoryRef::Absent`].
    pub fn needs_history(&self, pending: &[Content]) -> bool {
        if self.last_prompt_token_count == 0 {
            return true;
        }
        self.gate(self.estimate_prompt(&[], pending) as f64).is_ok()
    }

    /// The estimated tokens of the pending messages.
    fn pending_tokens(&self, pending: &[Content]) -> f64 {
        pending
            .iter()
            .map(|c| message_tokens(c, &self.options.estimate))
            .sum()
    }

    /// Prepares a manual compaction (`/compact`): forced, whatever the size
    /// and the breaker. `focus`, the user's instructions, is appended to the
    /// prompt. Returns [`SendDecision::Proceed`] when there is nothing to
    /// compress, [`SendDecision::NeedHistory`] for [`HistoryRef::Absent`].
    /// Fails with `BUSY` while a request is in flight.
    pub fn poll_manual<'h>(
        &mut self,
        history: impl Into<HistoryRef<'h>>,
        focus: Option<&str>,
    ) -> Result<SendDecision, Error> {
        self.poll_manual_with(history.into(), focus)
    }

    fn poll_manual_with(
        &mut self,
        history: HistoryRef<'_>,
        focus: Option<&str>,
    ) -> Result<SendDecision, Error> {
        self.ensure_idle()?;
        if matches!(history, HistoryRef::Absent) {
            return Ok(SendDecision::NeedHistory);
        }
        let (history, facts) = history.parts();
        let estimate = self.estimate_prompt(history, &[]);
        let tier = current_tier(estimate as f64, &self.thresholds);
        Ok(self.prepare(history, facts, estimate, tier, Trigger::Manual, focus, 0.0))
    }

    /// Plans the run ([`fit::plan`]): the spec's split, then the tail, the
    /// clearing and the requests fitted to the window; hands out the first
    /// request, or says why nothing runs.
    #[allow(clippy::too_many_arguments)]
    fn prepare(
        &mut self,
        history: &[Content],
        facts: Option<&[MessageFacts]>,
        estimate: u64,
        tier: Tier,
        trigger: Trigger,
        focus: Option<&str>,
        pending_tokens: f64,
    ) -> SendDecision {
        let options = &self.options;
        // Bare contents are Gemini's: their facts come from the parts.
        let derived;
        let facts = match facts {
            Some(facts) if facts.len() == history.len() => facts,
            _ => {
                derived = facts_of(history);
                &derived
            }
        };
        let split = split_point_with(
            history,
            facts,
            self.window,
            &options.retention,
            &options.estimate,
        );
        let input = FitInput {
            history,
            facts,
            window: self.window,
            thresholds: &self.thresholds,
            options,
            last_prompt_token_count: self.last_prompt_token_count,
            pending_tokens,
            trigger,
            focus,
        };
        let prepared = match fit::plan(&input, split.kept_from) {
            Plan::Noop(reason) => {
                return SendDecision::Proceed {
                    estimate,
                    tier,
                    reason,
                };
            }
            Plan::Cleared {
                head,
                kept_from,
                pinned,
                copied_from,
                history_tokens,
                new_tokens,
            } => {
                let run = Run {
                    trigger,
                    estimate,
                    tier,
                    kept_from,
                    original_token_count: history_tokens,
                    consecutive_failures: 0,
                    summary_calls: 0,
                    method: Method::Cleared,
                };
                return self.cleared(run, head, pinned, copied_from, new_tokens);
            }
            Plan::Summarize(prepared) => *prepared,
        };
        let (previous_summary, ledger) = self.replaced_record(history, facts, prepared.kept_from);
        let id = self.next_id();
        let handed_out = self.request_id(id.number);
        let request = prepared.request;
        self.pending = Some(Pending {
            id,
            trigger,
            estimate,
            tier,
            kept_from: prepared.kept_from,
            pinned: prepared.pinned,
            basis: Basis {
                history_tokens: prepared.history_tokens,
                history_estimate: prepared.history_estimate,
                summarized_estimate: prepared.summarized_estimate,
                tail_estimate: prepared.tail_estimate,
                request_overhead: prepared.request_overhead,
                gap: prepared.gap,
                max_output_tokens: request.config.max_output_tokens,
                tail_starts_with_model: prepared.starts_with_model,
            },
            ledger,
            system_instruction: request.system_instruction.clone(),
            fit: prepared.state,
            previous_summary,
        });
        SendDecision::Summarize {
            id: handed_out,
            request,
            forced: trigger.is_forced(),
            trigger,
            estimate,
            tier,
            kept_from: prepared.kept_from,
        }
    }

    /// A run that only cleared old tool outputs: COMPRESSED with no summary
    /// (nothing was summarized, so nothing to check), the failures reset.
    fn cleared(
        &mut self,
        run: Run,
        head: Vec<Content>,
        pinned: Vec<usize>,
        copied_from: Vec<usize>,
        new_tokens: u64,
    ) -> SendDecision {
        self.consecutive_failures = 0;
        self.last_prompt_token_count = new_tokens;
        SendDecision::Cleared(CompactionOutcome::Compressed {
            run,
            head,
            pinned,
            copied_from,
            summary: String::new(),
            new_token_count: new_tokens,
            new_token_count_estimated: true,
            summary_check: None,
            cause: None,
        })
    }

    /// What a run keeps of the part it replaces, `history[..kept_from]` as
    /// the host gave it: the summary it starts with (the ledger fallback's
    /// record carries it on) and the ledger of its messages, pinned ones
    /// left out.
    fn replaced_record(
        &self,
        history: &[Content],
        facts: &[MessageFacts],
        kept_from: usize,
    ) -> (Option<String>, Option<Ledger>) {
        let options = &self.options;
        let before = &history[..kept_from.min(history.len())];
        let previous_summary = if options.fit.fallback_ledger {
            before
                .iter()
                .find(|m| is_summary_message(m))
                .and_then(summary_text)
        } else {
            None
        };
        let ledger = options.ledger.enabled.then(|| {
            let replaced: Cow<'_, [Content]> = if facts.iter().take(before.len()).any(|f| f.pinned)
            {
                Cow::Owned(
                    before
                        .iter()
                        .zip(facts)
                        .filter(|(_, f)| !f.pinned)
                        .map(|(m, _)| m.clone())
                        .collect(),
                )
            } else {
                Cow::Borrowed(before)
            };
            Ledger::from_messages(&replaced, &options.ledger, self.window, &options.estimate)
        });
        (previous_summary, ledger)
    }
}
