//! A compaction's steps as the JS layer reads them: `summarize`, `done` or
//! `needHistory` (keys declared once, [`Step::KINDS`], and generated into
//! the JS layer), the done result's data, and the host's own copies in its
//! `head`.

use super::*;
use crate::engine::head;

/// The host's copies of `sources` (indices into the history text), made
/// like the engine's `copies`, for a format other than Gemini
/// ([`crate::engine::head`]).
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
    head::host_copies(format, &items, history, copies, sources, options)
}

/// A result as the JS layer gets it: the outcome, its `head` in the host's
/// format ([`crate::engine::head`]).
pub(super) fn done_value<C>(
    outcome: &CompactionOutcome<C>,
    format: Format,
    copies: Option<Vec<Value>>,
) -> Result<Value, Error> {
    let mut value = crate::json::to_value(outcome);
    if format == Format::Gemini {
        return Ok(value);
    }
    if let (Some(head), Value::Object(map)) = (head::assemble(outcome, format, copies)?, &mut value)
    {
        map.insert("head".into(), Value::Array(head));
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
