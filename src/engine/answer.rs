//! The host reports what came of a summary request ([`Compactor::handle_answer`]):
//! the answer judged, the next call of a multi-call run, failures, aborts
//! and the ledger fallback.

use super::*;

impl Compactor {
    /// Reports what came of request `id` (which it consumes) and says what
    /// comes next. `answer` is one of:
    ///
    /// * [`Answer::Summary`] (or a [`SummaryAnswer`] itself): the model's
    ///   answer, judged (see [`judge`](mod@judge)): EMPTY_SUMMARY,
    ///   OUTPUT_TRUNCATED, SUMMARIZER_FAILED (a refusal, a filter, a tool
    ///   call), INFLATED, or COMPRESSED with the new history's head. With the
    ///   ledger on (the default), the summary message is the model's summary
    ///   followed by the ledger's section, within what keeps the next prompt
    ///   below `auto` and no larger than before, and the outcome checks the
    ///   model's summary ([`CompactionOutcome::summary_check`]). A summary
    ///   that would leave the next prompt (new history and the pending
    ///   messages) at or above `auto` (`hard` for a run forced at `hard`
    ///   whose pending messages alone are at `auto`) is INFLATED: applied, it
    ///   would compact again on the next turn.
    /// * [`Answer::Invalid`]: the answer could not be read; SUMMARIZER_FAILED
    ///   with that `INVALID_ANSWER` error as the cause.
    /// * [`Answer::Failed`]: the host's summarizer failed (threw, rejected);
    ///   SUMMARIZER_FAILED carrying its message and the host's own error.
    /// * [`Answer::Aborted`]: the host cancelled; ABORTED, nothing changes
    ///   and the failure count stays as it was.
    ///
    /// For a run summarized in several calls, a usable answer to any but the
    /// last request becomes the summary so far and the next request is
    /// handed out ([`Next::Summarize`], with a new id); the last answer, or
    /// anything else at any step, ends the run ([`Next::Done`]). A failure at
    /// any step counts once (unless the run is forced), an abort at any step
    /// not at all, and the history stays as it was until the run is
    /// COMPRESSED. Fails with `STALE_REQUEST`, changing nothing, when `id` is
    /// not the request in flight (another chat's, or one from before a
    /// restore).
    ///
    /// `C` is the type of the host's own error ([`Answer::Failed`]); where
    /// nothing else names it, `Answer::<Infallible>::Aborted` does.
    pub fn handle_answer<C>(
        &mut self,
        id: RequestId,
        answer: impl Into<Answer<C>>,
    ) -> Result<Next<C>, Error> {
        let pending = self.take_pending(id)?;
        let cause = match answer.into() {
            Answer::Summary(answer) => return Ok(self.judge_answer(pending, answer)),
            Answer::Invalid(error) => SummarizerCause::Answer(error),
            Answer::Failed { message, cause } => SummarizerCause::Host { message, cause },
            Answer::Aborted => {
                return Ok(Next::Done(CompactionOutcome::Aborted(self.run(&pending))));
            }
        };
        let failure = CompactionOutcome::SummarizerFailed {
            run: self.fail(&pending),
            cause,
        };
        Ok(Next::Done(self.fall_back(&pending, failure)))
    }

    /// The model's answer to the request in flight: for a step of a
    /// multi-call run with more to summarize, the summary so far and the
    /// next request; else the run's final judgement.
    fn judge_answer<C>(&mut self, mut pending: Pending, answer: SummaryAnswer) -> Next<C> {
        let options = self.options.estimate;
        // A step with more to come: the answer is judged only for being
        // usable (no size ceiling, no ledger section: the last answer gets
        // that), and becomes the summary so far.
        let partial = pending.fit.chunks.take_if(|c| !c.is_done());
        let (verdict, text) = match partial {
            Some(chunks) => {
                let text = answer.text.trim().to_string();
                let verdict = judge(&pending.basis, answer, &options, f64::INFINITY, None);
                (verdict, Some((chunks, text)))
            }
            None => {
                let answer = fit_answer(answer, &pending.fit);
                let ledger = pending
                    .ledger
                    .as_ref()
                    .map(|ledger| (ledger, pending.system_instruction.as_str()));
                // The ledger's section may take only what keeps the next
                // prompt (new history and the pending messages) below the
                // run's limit, so that it never turns a usable summary into a
                // compaction loop.
                let ceiling =
                    self.thresholds.auto.min(pending.fit.limit) - pending.fit.pending_tokens;
                let verdict = judge(&pending.basis, answer, &options, ceiling, ledger);
                (no_loop(verdict, &pending.fit), None)
            }
        };
        let failure = match (verdict, text) {
            (Verdict::Empty, _) => CompactionOutcome::EmptySummary(self.fail(&pending)),
            (Verdict::Truncated, _) => CompactionOutcome::OutputTruncated(self.fail(&pending)),
            (Verdict::Unusable(error), _) => CompactionOutcome::SummarizerFailed {
                run: self.fail(&pending),
                cause: SummarizerCause::Answer(error),
            },
            (Verdict::Inflated { .. } | Verdict::Compressed { .. }, Some((mut chunks, text))) => {
                // A partial summary is never judged for size: it is carried
                // into the next request.
                let request = chunks.next_request(Some(&text), &options);
                pending.fit.chunks = Some(chunks);
                pending.id = self.next_id();
                pending.fit.calls = pending.fit.calls.saturating_add(1);
                let id = self.request_id(pending.id.number);
                self.pending = Some(pending);
                return Next::Summarize { id, request };
            }
            (
                Verdict::Inflated {
                    new_tokens,
                    estimated,
                    summary_check,
                },
                None,
            ) => CompactionOutcome::Inflated {
                run: self.fail(&pending),
                new_token_count: new_tokens,
                new_token_count_estimated: estimated,
                summary_check,
            },
            (
                Verdict::Compressed {
                    mut head,
                    summary,
                    new_tokens,
                    estimated,
                    summary_check,
                },
                None,
            ) => {
                head.extend(pending.fit.tail_copies.iter().cloned());
                self.consecutive_failures = 0;
                // The indicator resets to the freed space.
                self.last_prompt_token_count = new_tokens;
                return Next::Done(CompactionOutcome::Compressed {
                    run: self.run(&pending),
                    head,
                    pinned: pending.pinned.clone(),
                    copied_from: pending.fit.tail_sources.clone(),
                    summary,
                    new_token_count: new_tokens,
                    new_token_count_estimated: estimated,
                    summary_check,
                    cause: None,
                });
            }
        };
        Next::Done(self.fall_back(&pending, failure))
    }

    /// A NOOP outcome for a [`SendDecision::Proceed`], in the same shape as
    /// every other outcome.
    pub fn noop_outcome<C>(
        &self,
        estimate: u64,
        tier: Tier,
        reason: NoopReason,
    ) -> CompactionOutcome<C> {
        CompactionOutcome::Noop {
            reason,
            estimate,
            tier,
            consecutive_failures: self.consecutive_failures,
        }
    }

    pub(super) fn ensure_idle(&self) -> Result<(), Error> {
        match &self.pending {
            Some(p) => Err(Error::new(
                ErrorCode::Busy,
                format!(
                    "summary request {} is in flight; report its answer, failure or abort first",
                    p.id.number
                ),
            )),
            None => Ok(()),
        }
    }

    fn take_pending(&mut self, id: RequestId) -> Result<Pending, Error> {
        match self.pending.take() {
            Some(p) if p.id == id => Ok(p),
            other => {
                let expected = match &other {
                    _ if id.chat != self.chat => "another chat handed it out".to_string(),
                    Some(p) => format!("request {} is the one in flight", p.id.number),
                    None => "no request is in flight".to_string(),
                };
                self.pending = other;
                Err(Error::new(
                    ErrorCode::StaleRequest,
                    format!(
                        "summary request {} is not pending ({expected}); it was already answered, \
                         aborted, or belongs to an earlier session",
                        id.number
                    ),
                ))
            }
        }
    }

    /// A failed run: the history stays as it was; a non-forced failure
    /// counts against the breaker.
    fn fail(&mut self, pending: &Pending) -> Run {
        if !pending.trigger.is_forced() {
            self.consecutive_failures = self.consecutive_failures.saturating_add(1);
        }
        self.run(pending)
    }

    /// The ledger fallback (`fallback: "ledger"`): a forced run that
    /// `failure` ended, whose next send would not fit (its prompt is at or
    /// past `hard`), compacts without a model. The replaced part becomes the
    /// library's record ([`SUMMARY_UNAVAILABLE`], the previous summary, the
    /// ledger's section), judged as a summary would be, so the kept tail,
    /// pinned messages, tool-call pairing and the no-loop check hold. The
    /// outcome is COMPRESSED with `method: Ledger` and the failure as its
    /// cause; when even the record does not fit, `failure` as it was.
    fn fall_back<C>(
        &mut self,
        pending: &Pending,
        failure: CompactionOutcome<C>,
    ) -> CompactionOutcome<C> {
        let Some((head, summary, new_tokens)) = self.ledger_record(pending) else {
            return failure;
        };
        let cause = match failure {
            CompactionOutcome::SummarizerFailed { cause, .. } => cause,
            other => SummarizerCause::Answer(unusable_summary(other.status())),
        };
        CompactionOutcome::Compressed {
            run: Run {
                method: Method::Ledger,
                ..self.run(pending)
            },
            head,
            pinned: pending.pinned.clone(),
            copied_from: pending.fit.tail_sources.clone(),
            summary,
            new_token_count: new_tokens,
            new_token_count_estimated: true,
            // No model summary to check.
            summary_check: None,
            cause: Some(cause),
        }
    }

    /// The ledger fallback's new head, summary text and size, when it is
    /// due and fits (then the chat takes the new size, and the failure
    /// count is reset as for any COMPRESSED run). Not generic over the
    /// host's error type, so that the module holds it once.
    #[inline(never)]
    fn ledger_record(&mut self, pending: &Pending) -> Option<(Vec<Content>, String, u64)> {
        if !(self.options.fit.fallback_ledger
            && pending.trigger.is_forced()
            && pending.estimate as f64 >= self.thresholds.hard)
        {
            return None;
        }
        let ceiling = self.thresholds.auto.min(pending.fit.limit) - pending.fit.pending_tokens;
        let ledger = pending
            .ledger
            .as_ref()
            .map(|ledger| (ledger, pending.system_instruction.as_str()));
        // With the previous summary if it fits, else without it.
        let mut texts = [
            pending
                .previous_summary
                .as_ref()
                .map(|previous| format!("{SUMMARY_UNAVAILABLE}\n\n{previous}")),
            Some(SUMMARY_UNAVAILABLE.to_string()),
        ];
        let mut record = None;
        for text in texts.iter_mut().filter_map(Option::take) {
            let answer = SummaryAnswer {
                text,
                ..SummaryAnswer::default()
            };
            let verdict = judge(
                &pending.basis,
                answer,
                &self.options.estimate,
                ceiling,
                ledger,
            );
            if let Verdict::Compressed {
                head,
                summary,
                new_tokens,
                ..
            } = no_loop(verdict, &pending.fit)
            {
                record = Some((head, summary, new_tokens));
                break;
            }
        }
        let (mut head, summary, new_tokens) = record?;
        head.extend(pending.fit.tail_copies.iter().cloned());
        self.consecutive_failures = 0;
        self.last_prompt_token_count = new_tokens;
        Some((head, summary, new_tokens))
    }

    fn run(&self, pending: &Pending) -> Run {
        Run {
            trigger: pending.trigger,
            estimate: pending.estimate,
            tier: pending.tier,
            kept_from: pending.kept_from,
            original_token_count: pending.basis.history_tokens,
            consecutive_failures: self.consecutive_failures,
            summary_calls: pending.fit.calls,
            method: Method::Summarized,
        }
    }
}

/// The answer as judging needs it: when the request did not hold the
/// summarized messages verbatim (slimmed, cleared, or in several calls), the
/// call's input count does not measure them, so only its output count is
/// kept (for the truncation check) and the new size is estimated.
fn fit_answer(mut answer: SummaryAnswer, fit: &FitState) -> SummaryAnswer {
    if !fit.exact {
        answer.usage = answer.usage.map(|u| Usage {
            input_tokens: None,
            output_tokens: u.answer_tokens(),
            thoughts_tokens: u.thoughts_tokens,
            total_tokens: None,
        });
    }
    answer
}

/// No compaction loop: a summary that leaves the next prompt (new history
/// and the pending message) at or above the run's limit would compact again
/// on the next turn, so it is not applied; it counts as INFLATED, a failure.
fn no_loop(verdict: Verdict, fit: &FitState) -> Verdict {
    match verdict {
        Verdict::Compressed {
            new_tokens,
            estimated,
            summary_check,
            ..
        } if new_tokens as f64 + fit.pending_tokens >= fit.limit => Verdict::Inflated {
            new_tokens,
            estimated,
            summary_check,
        },
        other => other,
    }
}

/// The cause a ledger-fallback outcome carries for a summary that came back
/// but could not be used (`status`: empty, truncated or inflating).
fn unusable_summary(status: outcome::CompactionStatus) -> Error {
    let mut message = String::from("the summary could not be used: ");
    message.push_str(status.as_str());
    Error::new(ErrorCode::InvalidAnswer, message)
}
