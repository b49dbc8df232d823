//! A compaction's steps as the JS layer reads them: `summarize`, `done` or
//! `needHistory` (keys declared once, [`Step::KINDS`], and generated into
//! the JS layer), the done result's data, and the host's own copies in its
//! `head`.

use super::*;

/// A copy of the host's own message `original` (in `format`) matching the
/// engine's `copy` of its content `source`: the message itself when the
/// copy is unchanged, else the message with its long strings cut to the
/// copy's estimated size ([`crate::slim::slim_json`]).
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

/// The host's copies of `sources` (indices into the history text), made
/// like the engine's `copies`, for a format other than Gemini.
pub(super) fn host_copies(
    format: Format,
    history_text: &str,
    history: &History,
    copies: &[Content],
    sources: &[usize],
    options: &EstimateOptions,
) -> Result<Vec<Value>, Error> {
    let Value::Array(items) = parse_json(history_text, "history", ErrorCode::InvalidContent)?
    else {
        return Err(Error::new(
            ErrorCode::InvalidContent,
            "history must be an array of messages",
        ));
    };
    let mut made = Vec::with_capacity(copies.len());
    for (copy, &i) in copies.iter().zip(sources) {
        let Some(original) = items.get(i) else {
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

/// A result as the JS layer gets it: the outcome, its `head` in the host's
/// format (the library's own messages written with [`Format::write`], then
/// the host's copies).
pub(super) fn done_value<C>(
    outcome: &CompactionOutcome<C>,
    format: Format,
    copies: Option<Vec<Value>>,
) -> Result<Value, Error> {
    let mut value = crate::json::to_value(outcome);
    if format == Format::Gemini {
        return Ok(value);
    }
    if let (Some(head), Value::Object(map)) = (outcome.head(), &mut value) {
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
        map.insert("head".into(), Value::Array(written));
    }
    Ok(value)
}

/// What [`Chats::before_send`], [`Chats::compact`], [`Chats::answer`],
/// [`Chats::fail`] and [`Chats::abort`] return inside `ok`.
#[must_use = "a summarize step must be answered with answer, fail or abort"]
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Run `request` through the model, then report with `answer`, `fail`
    /// or `abort`, passing `id`.
    Summarize {
        /// The request's id.
        id: u64,
        /// The summarization call.
        request: SummaryRequest,
    },
    /// The compaction is over: the result (see the module docs), its
    /// `head` in the chat's format.
    Done(Value),
    /// `{"needHistory": true}`: [`Chats::before_send`] was called without
    /// the history (`""`) and the check needs it; call again with it.
    NeedHistory,
}

impl Step {
    /// The key of a [`Step::Summarize`] on the wire.
    pub const SUMMARIZE: &'static str = "summarize";
    /// The key of a [`Step::Done`] on the wire.
    pub const DONE: &'static str = "done";
    /// The key of a [`Step::NeedHistory`] on the wire.
    pub const NEED_HISTORY: &'static str = "needHistory";
    /// Every step's key, by the name the JS layer gives it: scripts/build
    /// writes them into the JS layer's generated `statuses.js`
    /// ([`super::lists`]), which reads a step by its key.
    pub const KINDS: [(&'static str, &'static str); 3] = [
        ("SUMMARIZE", Step::SUMMARIZE),
        ("DONE", Step::DONE),
        ("NEED_HISTORY", Step::NEED_HISTORY),
    ];
}

/// `{"summarize": {"id", "request"}}`, `{"done": result}` or
/// `{"needHistory": true}`: an object with one key, from [`Step::KINDS`].
impl ToJson for Step {
    fn write_json(&self, out: &mut String) {
        let mut o = ObjectWriter::new(out);
        match self {
            Step::Summarize { id, request } => {
                let mut s = ObjectWriter::new(o.key(Step::SUMMARIZE));
                s.field("id", id).field("request", request);
                s.end();
            }
            Step::Done(result) => {
                o.field(Step::DONE, result);
            }
            Step::NeedHistory => {
                o.field(Step::NEED_HISTORY, &true);
            }
        }
        o.end();
    }
}
