//! The new history's head in the host's own format.
//!
//! The engine works on [`Content`] copies (Gemini-shaped); a host that keeps
//! its history in another [`Format`] gets its new history here: the
//! library's own messages (summary, acknowledgement, bridge) written with
//! [`Format::write`], then the host's own kept messages, each the host's
//! message itself, or, where the engine slimmed its copy, the host's message
//! with its long strings cut to the copy's estimated size
//! ([`crate::slim::slim_json`]). The JS API and a Rust host calling the
//! engine directly get the same head from the same code.

use crate::prelude::*;

use crate::content::Content;
use crate::error::{Error, ErrorCode};
use crate::estimate::{EstimateOptions, message_tokens};
use crate::format::{Format, History};
use crate::json::Value;

use super::outcome::CompactionOutcome;

/// A copy of the host's own message `original` (in `format`) matching the
/// engine's `copy` of its content `source`: the message itself when the
/// copy is unchanged, else the message with its long strings cut to the
/// copy's estimated size.
fn host_copy(
    format: Format,
    original: &Value,
    copy: &Content,
    source: Option<&Content>,
    options: &EstimateOptions,
) -> Value {
    if source == Some(copy) {
        return original.clone();
    }
    crate::slim::slim_json(original, message_tokens(copy, options), |v| {
        format
            .read_message(v.clone(), "message")
            .ok()
            .map(|(c, _)| message_tokens(&c, options))
    })
}

/// The host's copies of the engine's `copies`, whose sources are
/// `sources` (indices into `originals`, the host's messages, and into
/// `history`, what [`Format::read`] made of them).
pub(crate) fn host_copies(
    format: Format,
    originals: &[Value],
    history: &History,
    copies: &[Content],
    sources: &[usize],
    options: &EstimateOptions,
) -> Result<Vec<Value>, Error> {
    let mut made = Vec::with_capacity(copies.len());
    for (copy, &i) in copies.iter().zip(sources) {
        let Some(original) = originals.get(i) else {
            return Err(Error::new(
                ErrorCode::InvalidState,
                format!("history[{i}] is gone: the history changed during the check"),
            ));
        };
        made.push(host_copy(
            format,
            original,
            copy,
            history.contents.get(i),
            options,
        ));
    }
    Ok(made)
}

/// COMPRESSED only: the head in `format`, its library messages written and
/// its last `copied_from().len()` messages `copies` (the host's copies made
/// by [`host_copies`]; `None` when none were made).
pub(crate) fn assemble<C>(
    outcome: &CompactionOutcome<C>,
    format: Format,
    copies: Option<Vec<Value>>,
) -> Result<Option<Vec<Value>>, Error> {
    let Some(head) = outcome.head() else {
        return Ok(None);
    };
    let copied = outcome.copied_from().len().min(head.len());
    let mut written = Vec::with_capacity(head.len());
    for c in &head[..head.len() - copied] {
        written.push(format.write(c)?);
    }
    match copies {
        Some(copies) if copies.len() == copied => written.extend(copies),
        _ if copied == 0 => {}
        _ => {
            return Err(Error::new(
                ErrorCode::InvalidState,
                "the copies of the kept messages were lost for this run",
            ));
        }
    }
    Ok(Some(written))
}

impl<C> CompactionOutcome<C> {
    /// COMPRESSED only: the new history's head in `format`, for a host whose
    /// history is in that format: `originals` is the history the run
    /// started from as the host's own messages, and `history` what
    /// [`Format::read`] made of them. The library's messages are
    /// written in `format`; the host's kept messages are its own, cut where
    /// the engine slimmed them. `None` on every other status. An `originals`
    /// without a message the head copies is `INVALID_STATE`.
    ///
    /// ```
    /// use compaction_core::{json, Compactor, CompactorConfig, Format, HistoryRef, Next, SendDecision, SummaryAnswer};
    /// // An OpenAI chat history past auto at a 32,000-token window.
    /// let originals: Vec<_> = (0..12).flat_map(|i| [
    ///     json!({ "role": "user", "content": format!("question {i} {}", "q ".repeat(2_000)) }),
    ///     json!({ "role": "assistant", "content": format!("answer {i} {}", "a ".repeat(2_000)) }),
    /// ]).collect();
    /// let history = Format::OpenAi.read(json!(originals.clone()), "history").unwrap();
    /// let mut config = CompactorConfig::new(32_000.0);
    /// config.options.format = Format::OpenAi;
    /// let mut chat = Compactor::new(config).unwrap();
    /// let (user, _) = Format::OpenAi.read_message(json!({ "role": "user", "content": "go on" }), "message").unwrap();
    /// let SendDecision::Summarize { id, .. } = chat.poll_before_send(HistoryRef::Read(&history), &[user]).unwrap()
    /// else { panic!("a history past auto is summarized") };
    /// let answer = || SummaryAnswer { text: "The user asked 12 questions.".into(), finish_reason: Some("stop".into()), usage: None };
    /// // Answer every summary call of the run (a long history takes several).
    /// let mut next = chat.handle_answer(id, answer()).unwrap();
    /// let outcome = loop {
    ///     match next {
    ///         Next::Summarize { id, .. } => next = chat.handle_answer(id, answer()).unwrap(),
    ///         Next::Done(outcome) => break outcome,
    ///         _ => unreachable!(),
    ///     }
    /// };
    /// let options = chat.options().estimate;
    /// let head = outcome.head_in(Format::OpenAi, &originals, &history, &options).unwrap().unwrap();
    /// // The summary as an OpenAI user message, then the acknowledgement.
    /// assert_eq!(head[0]["role"], "user");
    /// assert!(head[0]["content"].as_str().unwrap().contains("The user asked 12 questions."));
    /// assert_eq!(head[1]["role"], "assistant");
    /// // The new history: the head, then the host's own kept messages as they were.
    /// let new = outcome.new_history_in(Format::OpenAi, &originals, &history, &options).unwrap().unwrap();
    /// assert_eq!(new[..head.len()], head[..]);
    /// assert_eq!(new[head.len()..], originals[outcome.kept_from()..]);
    /// ```
    pub fn head_in(
        &self,
        format: Format,
        originals: &[Value],
        history: &History,
        options: &EstimateOptions,
    ) -> Result<Option<Vec<Value>>, Error> {
        let Some(head) = self.head() else {
            return Ok(None);
        };
        let copied = self.copied_from().len().min(head.len());
        let copies = if copied == 0 {
            None
        } else {
            let copies = &head[head.len() - copied..];
            Some(host_copies(
                format,
                originals,
                history,
                copies,
                self.copied_from(),
                options,
            )?)
        };
        assemble(self, format, copies)
    }

    /// COMPRESSED only: the new history in `format` for `originals` (see
    /// [`CompactionOutcome::head_in`]): the pinned messages, the head, then
    /// `originals[kept_from..]`. `None` on every other status.
    pub fn new_history_in(
        &self,
        format: Format,
        originals: &[Value],
        history: &History,
        options: &EstimateOptions,
    ) -> Result<Option<Vec<Value>>, Error> {
        let Some(head) = self.head_in(format, originals, history, options)? else {
            return Ok(None);
        };
        let kept_from = self.kept_from().min(originals.len());
        let pinned = self.pinned().iter().filter_map(|&i| originals.get(i));
        Ok(Some(
            pinned
                .cloned()
                .chain(head)
                .chain(originals[kept_from..].iter().cloned())
                .collect(),
        ))
    }
}
