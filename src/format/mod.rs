//! The message shapes hosts keep their history in, read into the core's
//! content model and written back out of it.
//!
//! The core works on [`Content`] (Gemini's `{ role, parts }`) and stays
//! format-free. Each [`Format`] has one reader, from that format's message
//! list to `Content`s plus the [`MessageFacts`] the core needs (which
//! messages are pinned system prompts, which are tool results, which tool
//! calls each message makes and answers, by id), and one writer, from a core
//! text message (the summary, the acknowledgement, the bridge) to that
//! format's message JSON.
//!
//! Readers map each host message to exactly one `Content`, in order, so that
//! an index into the contents is an index into the host's array: the kept
//! tail is `host.slice(keptFrom)`, the host's own objects.
//!
//! | format | name | module |
//! |---|---|---|
//! | Gemini `Content` | `gemini` | [`gemini`] |
//! | OpenAI chat `ChatCompletionMessageParam` | `openai` | [`openai`] |
//! | Anthropic `MessageParam` | `anthropic` | [`anthropic`] |
//! | AI SDK `ModelMessage` (`ai` v5/v6) | `ai-sdk` | [`ai_sdk`] |
//! | LangChain JS messages (instances, their JSON) | `langchain` | [`langchain`] |
//! | OpenAI Responses input items (and the Agents SDK's) | `openai-responses` | [`openai_responses`] |
//!
//! What every reader does the same way:
//!
//! * text, refusals and documents given as text become text parts; thinking
//!   and reasoning become thought text parts (`thought: true`);
//! * images, audio and binary documents become `inlineData` (data sent
//!   inline, its bytes not copied) or `fileData` (by URL or file id), so
//!   that each counts `imageTokenEstimate` whatever the format;
//! * tool calls become `functionCall { id, name, args }` with the arguments
//!   as given (see [`openai`] for its JSON-string `arguments`), tool results
//!   `functionResponse { id, name, response: { output } }` (`{ error }` for a
//!   failed call), with media inside a result as nested `parts`;
//! * blocks of a kind the reader does not know, but which do not look like
//!   another format's, are kept whole as unknown parts and counted by their
//!   JSON (never as 0);
//! * provider metadata that is not prompt text (`cache_control`,
//!   `providerOptions`, signatures) is dropped from the content; the host's
//!   own objects are what goes back to the provider.
//!
//! A message that does not have the format's shape is an `INVALID_CONTENT`
//! error naming the message, what it looks like and which format it seems
//! to be in: `history[3] has "content" and no "parts": an OpenAI message?
//! pass format: "openai"`.

use crate::prelude::*;

use crate::json::Quoted;

use alloc::collections::VecDeque;

use crate::StrMap;
use core::fmt;
use core::str::FromStr;

use crate::json;
use crate::json::{Map, Value};

use crate::content::{Content, Part, PartKind};
use crate::error::{Error, ErrorCode};
use crate::read::describe;

pub mod ai_sdk;
pub mod anthropic;
pub mod gemini;
pub mod langchain;
pub mod openai;
pub mod openai_responses;
mod parts;
mod reading;

use parts::*;
use reading::*;

/// A message format a host keeps its history in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Format {
    /// Gemini `Content { role, parts }` (`@google/genai`): the core's own model.
    #[default]
    Gemini,
    /// OpenAI chat completions messages (`openai`'s `ChatCompletionMessageParam`).
    OpenAi,
    /// Anthropic messages (`@anthropic-ai/sdk`'s `MessageParam`).
    Anthropic,
    /// The Vercel AI SDK's `ModelMessage` (`ai` v5 and v6).
    AiSdk,
    /// LangChain JS messages: instances (as `JSON.stringify` writes them),
    /// their stored form, and the plain message-likes LangChain accepts.
    LangChain,
    /// OpenAI Responses API input items, and the Agents SDK's spelling of them.
    OpenAiResponses,
}

impl Format {
    /// Every format, in the order their names are listed in errors.
    pub const ALL: [Format; 6] = [
        Format::Gemini,
        Format::OpenAi,
        Format::Anthropic,
        Format::AiSdk,
        Format::LangChain,
        Format::OpenAiResponses,
    ];

    /// The name in options: `gemini`, `openai`, `anthropic`, `ai-sdk`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Gemini => "gemini",
            Format::OpenAi => "openai",
            Format::Anthropic => "anthropic",
            Format::AiSdk => "ai-sdk",
            Format::LangChain => "langchain",
            Format::OpenAiResponses => "openai-responses",
        }
    }

    /// How the format is called in messages ("an OpenAI message").
    pub fn label(self) -> &'static str {
        match self {
            Format::Gemini => "a Gemini",
            Format::OpenAi => "an OpenAI",
            Format::Anthropic => "an Anthropic",
            Format::AiSdk => "an AI SDK",
            Format::LangChain => "a LangChain",
            Format::OpenAiResponses => "an OpenAI Responses",
        }
    }

    /// The format with this name; anything else is an `INVALID_ARGUMENT`
    /// error that lists the names.
    ///
    /// ```
    /// use compaction_core::format::Format;
    /// assert_eq!(Format::from_name("ai-sdk").unwrap(), Format::AiSdk);
    /// let e = Format::from_name("claude").unwrap_err();
    /// assert_eq!(e.message(), "format must be one of \"gemini\", \"openai\", \"anthropic\", \"ai-sdk\", \"langchain\", \"openai-responses\", got \"claude\"");
    /// ```
    pub fn from_name(name: &str) -> Result<Format, Error> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == name)
            .ok_or_else(|| {
                let names: Vec<String> = Format::ALL
                    .iter()
                    .map(|f| Quoted(f.name()).to_string())
                    .collect();
                Error::new(
                    ErrorCode::InvalidArgument,
                    format!(
                        "format must be one of {}, got {name}",
                        crate::read::join(&names, ", "),
                        name = Quoted(name)
                    ),
                )
            })
    }

    /// Reads a message list in this format. `path` names the list in errors
    /// (`history` gives `history[3]`).
    ///
    /// ```
    /// use compaction_core::format::Format;
    /// let history = compaction_core::json!([
    ///     { "role": "system", "content": "Be brief." },
    ///     { "role": "user", "content": "What is in a.txt?" },
    ///     { "role": "assistant", "content": null, "tool_calls": [
    ///         { "id": "call_1", "type": "function", "function": { "name": "read", "arguments": "{\"path\":\"a.txt\"}" } } ] },
    ///     { "role": "tool", "tool_call_id": "call_1", "content": "hello" },
    /// ]);
    /// let read = Format::OpenAi.read(history, "history").unwrap();
    /// assert!(read.facts[0].pinned);
    /// assert_eq!(read.facts[2].calls, ["call_1"]);
    /// assert_eq!(read.facts[3].answers, ["call_1"]);
    /// assert_eq!(read.call_site("call_1"), Some(2));
    /// ```
    pub fn read(self, messages: Value, path: &str) -> Result<History, Error> {
        let Value::Array(items) = messages else {
            return Err(invalid(format!(
                "{path} must be an array of messages, got {}",
                describe(&messages)
            )));
        };
        let mut pairing = Pairing::default();
        let mut names = CallNames::new();
        let mut history = History {
            contents: Vec::with_capacity(items.len()),
            facts: Vec::with_capacity(items.len()),
        };
        for (i, item) in items.into_iter().enumerate() {
            let read = self.read_one(item, &format!("{path}[{i}]"), &names)?;
            for call in &read.calls {
                if let Some(id) = &call.id {
                    names.insert(id.clone(), call.name.clone());
                }
            }
            let facts = pairing.resolve(&read);
            history.contents.push(read.content);
            history.facts.push(facts);
        }
        Ok(history)
    }

    /// Reads one message in this format (a new user message, say). Calls and
    /// results without ids pair only within the message.
    pub fn read_message(
        self,
        message: Value,
        path: &str,
    ) -> Result<(Content, MessageFacts), Error> {
        let read = self.read_one(message, path, &CallNames::new())?;
        let facts = Pairing::default().resolve(&read);
        Ok((read.content, facts))
    }

    /// Writes a core text message (role `user` or `model`, text parts only:
    /// the summary, the acknowledgement, the bridge) as this format's
    /// message. Anything else is an `INVALID_ARGUMENT` error: the library
    /// never writes a host's own messages, it hands them back.
    ///
    /// ```
    /// use compaction_core::{format::Format, Content};
    /// let ack = Content::text("model", "Understood.");
    /// assert_eq!(Format::Anthropic.write(&ack).unwrap(),
    ///     compaction_core::json!({ "role": "assistant", "content": "Understood." }));
    /// assert_eq!(Format::Gemini.write(&ack).unwrap(),
    ///     compaction_core::json!({ "role": "model", "parts": [{ "text": "Understood." }] }));
    /// ```
    pub fn write(self, message: &Content) -> Result<Value, Error> {
        let (role, text) = text_message(message)?;
        Ok(match self {
            Format::Gemini => gemini::write(role, &text),
            Format::OpenAi => openai::write(role, &text),
            Format::Anthropic => anthropic::write(role, &text),
            Format::AiSdk => ai_sdk::write(role, &text),
            Format::LangChain => langchain::write(role, &text),
            Format::OpenAiResponses => openai_responses::write(role, &text),
        })
    }

    fn read_one(self, message: Value, path: &str, names: &CallNames) -> Result<ReadMessage, Error> {
        match self {
            Format::Gemini => gemini::read_message(message, path),
            Format::OpenAi => openai::read_message(&message, path, names),
            Format::Anthropic => anthropic::read_message(&message, path, names),
            Format::AiSdk => ai_sdk::read_message(&message, path),
            Format::LangChain => langchain::read_message(&message, path, names),
            Format::OpenAiResponses => openai_responses::read_message(&message, path, names),
        }
    }
}

/// Written as its name (`"ai-sdk"`), as options and saved states spell it.
impl crate::json::ToJson for Format {
    fn write_json(&self, out: &mut String) {
        crate::json::write_str(out, self.name());
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = Error;
    fn from_str(name: &str) -> Result<Format, Error> {
        Format::from_name(name)
    }
}

/// Who speaks a message the library writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Speaker {
    /// The user side (`user` in every format).
    User,
    /// The model side (`model` in Gemini, `assistant` elsewhere).
    Model,
}

/// A message list read into the core's model, one content and one set of
/// facts per host message, in the host's order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct History {
    /// The messages as the core sees them.
    pub contents: Vec<Content>,
    /// What the core needs to know about each message.
    pub facts: Vec<MessageFacts>,
}

/// What the core needs to know about one host message beyond its content.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MessageFacts {
    /// A `system` / `developer` message: never summarized, kept first and
    /// verbatim, counted in the estimate.
    pub pinned: bool,
    /// The message carries results of tool calls (an OpenAI or AI SDK `tool`
    /// message, an Anthropic user message with `tool_result` blocks, a Gemini
    /// user message with `functionResponse` parts).
    pub tool_result: bool,
    /// Ids of the tool calls this message makes, in order.
    pub calls: Vec<String>,
    /// Ids of the tool calls this message answers, in order.
    pub answers: Vec<String>,
}

impl History {
    /// A Gemini history already read as [`Content`]s, with its facts (what
    /// [`Format::Gemini`]'s reader finds: `system` / `developer` roles
    /// pinned, calls and responses paired by id, or by name in order).
    pub fn from_contents(contents: Vec<Content>) -> History {
        let facts = facts_of(&contents);
        History { contents, facts }
    }

    /// Index of the message that makes the call `id`, if it is in the list.
    pub fn call_site(&self, id: &str) -> Option<usize> {
        self.facts
            .iter()
            .position(|f| f.calls.iter().any(|c| c == id))
    }

    /// Indices of the pinned messages.
    pub fn pinned(&self) -> impl Iterator<Item = usize> + '_ {
        self.facts
            .iter()
            .enumerate()
            .filter(|(_, f)| f.pinned)
            .map(|(i, _)| i)
    }

    /// The latest start ≤ `kept_from` from which every result in the tail
    /// has its call in the tail too: a kept tail must never answer a call
    /// that was summarized (providers reject such an orphan). Results whose
    /// call is nowhere in the list do not move the start.
    ///
    /// ```
    /// use compaction_core::format::Format;
    /// let history = compaction_core::json!([
    ///     { "role": "user", "content": "go" },
    ///     { "role": "assistant", "content": [
    ///         { "type": "tool_use", "id": "t1", "name": "ls", "input": {} } ] },
    ///     { "role": "user", "content": [
    ///         { "type": "tool_result", "tool_use_id": "t1", "content": "a.txt" } ] },
    /// ]);
    /// let read = Format::Anthropic.read(history, "history").unwrap();
    /// assert_eq!(read.start_keeping_calls(2), 1);
    /// assert_eq!(read.start_keeping_calls(0), 0);
    /// ```
    pub fn start_keeping_calls(&self, kept_from: usize) -> usize {
        start_keeping_calls(&self.facts, kept_from)
    }
}

/// The facts of Gemini messages already read as [`Content`]s (see
/// [`History::from_contents`]); what the engine uses for a history passed
/// as bare contents.
pub fn facts_of(contents: &[Content]) -> Vec<MessageFacts> {
    let mut pairing = Pairing::default();
    contents
        .iter()
        .enumerate()
        .map(|(i, content)| {
            // Only the facts are kept: the content is the caller's.
            let mut read = gemini::read_content(
                Content {
                    role: content.role.clone(),
                    parts: Vec::new(),
                },
                "",
            );
            for (j, part) in content.parts.iter().enumerate() {
                match part.kind() {
                    PartKind::FunctionCall(call) => {
                        read.calls
                            .push(gemini::call_ref(call, format!("[{i}].parts[{j}]")));
                    }
                    PartKind::FunctionResponse(response) => {
                        read.answers
                            .push(gemini::call_ref(response, format!("[{i}].parts[{j}]")));
                    }
                    _ => {}
                }
            }
            read.tool_result = !content.is_model() && !read.answers.is_empty();
            pairing.resolve(&read)
        })
        .collect()
}

/// [`History::start_keeping_calls`] over the facts alone.
pub fn start_keeping_calls(facts: &[MessageFacts], kept_from: usize) -> usize {
    let mut sites: StrMap<&str, usize> = StrMap::new();
    for (i, facts) in facts.iter().enumerate() {
        for id in &facts.calls {
            sites.get_or_insert_with(id.as_str(), || i);
        }
    }
    let mut start = kept_from.min(facts.len());
    // Moving the start back brings in messages whose own results may
    // answer still earlier calls: scan each newly kept message once.
    let mut scanned_from = facts.len();
    while scanned_from > start {
        let earliest = facts[start..scanned_from]
            .iter()
            .flat_map(|f| f.answers.iter())
            .filter_map(|id| sites.get(id.as_str()).copied())
            .min();
        scanned_from = start;
        if let Some(site) = earliest
            && site < start
        {
            start = site;
        }
    }
    start
}

/// The tool name of each call id read so far: OpenAI and Anthropic results
/// carry only the id, and the response part names its tool, as Gemini's does
/// (the summarizer reads it, and the spec's rule counts it).
pub(crate) type CallNames = StrMap<String, String>;

/// One message as a reader produced it, before ids are resolved.
pub(crate) struct ReadMessage {
    pub(crate) content: Content,
    pub(crate) pinned: bool,
    pub(crate) tool_result: bool,
    pub(crate) calls: Vec<CallRef>,
    pub(crate) answers: Vec<CallRef>,
}

impl ReadMessage {
    fn new(role: &str, parts: Vec<Part>) -> ReadMessage {
        ReadMessage {
            content: Content {
                role: role.into(),
                parts,
            },
            pinned: false,
            tool_result: false,
            calls: Vec::new(),
            answers: Vec::new(),
        }
    }
}

/// A tool call or result as written in a message: its id when the format
/// gives one, else its name and where it is (Gemini's optional ids, OpenAI's
/// deprecated `function_call`).
pub(crate) struct CallRef {
    pub(crate) id: Option<String>,
    pub(crate) name: String,
    pub(crate) path: String,
}

impl CallRef {
    fn with_id(id: &str, name: &str, path: &str) -> CallRef {
        CallRef {
            id: Some(id.into()),
            name: name.into(),
            path: path.into(),
        }
    }
}

/// Gives calls and results without an id one: a call is named by where it
/// is (`history[3].parts[0]`), a result answers the earliest call of the same
/// name still unanswered, in order (which is how Gemini pairs them), or
/// failing that is named by where it is (an orphan).
#[derive(Default)]
struct Pairing {
    pending: StrMap<String, VecDeque<String>>,
}

impl Pairing {
    fn resolve(&mut self, read: &ReadMessage) -> MessageFacts {
        let calls = read
            .calls
            .iter()
            .map(|call| match &call.id {
                Some(id) => id.clone(),
                None => {
                    self.pending
                        .get_or_insert_with(call.name.clone(), VecDeque::new)
                        .push_back(call.path.clone());
                    call.path.clone()
                }
            })
            .collect();
        let answers = read
            .answers
            .iter()
            .map(|answer| match &answer.id {
                Some(id) => id.clone(),
                None => self
                    .pending
                    .get_mut(&answer.name)
                    .and_then(VecDeque::pop_front)
                    .unwrap_or_else(|| answer.path.clone()),
            })
            .collect();
        MessageFacts {
            pinned: read.pinned,
            tool_result: read.tool_result,
            calls,
            answers,
        }
    }
}

/// A message written from JSON text pieces around its one string: `head`
/// (concatenated), `text` as a JSON string, then `tail`. Smaller in the
/// wasm than building the same value field by field.
fn template(head: &[&str], text: &str, tail: &str) -> Value {
    let mut out = String::new();
    for piece in head {
        out.push_str(piece);
    }
    json::write_str(&mut out, text);
    out.push_str(tail);
    // The pieces are this crate's own JSON; the text is written escaped.
    json::from_str(&out).unwrap_or(Value::Null)
}

/// The role and text of a message the library writes.
fn text_message(message: &Content) -> Result<(Speaker, String), Error> {
    let speaker = match message.role.as_str() {
        "user" => Speaker::User,
        "model" | "assistant" => Speaker::Model,
        other => {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                format!(
                    "only user and model messages are written, got the role {other}",
                    other = Quoted(other)
                ),
            ));
        }
    };
    let mut text = String::new();
    for part in &message.parts {
        match part.kind() {
            PartKind::Text {
                text: t,
                thought: false,
            } => text.push_str(t),
            _ => {
                return Err(Error::new(
                    ErrorCode::InvalidArgument,
                    "only messages of text parts are written".to_string(),
                ));
            }
        }
    }
    Ok((speaker, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_urls_give_their_mime_type() {
        assert_eq!(
            data_url_mime("data:image/png;base64,AAAA"),
            Some("image/png")
        );
        assert_eq!(data_url_mime("data:,hello"), None);
        assert_eq!(data_url_mime("https://x/y.png"), None);
    }

    #[test]
    fn unknown_blocks_that_look_known_are_wrapped() {
        let p = unknown_part(&json!({ "type": "x", "text": 3 }));
        assert!(matches!(p.kind(), PartKind::Unknown));
        let p = unknown_part(&json!({ "type": "x", "text": "t" }));
        assert!(matches!(p.kind(), PartKind::Unknown));
        assert!(p.as_map().contains_key("block"));
    }
}
