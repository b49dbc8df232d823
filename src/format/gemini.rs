//! Gemini `Content { role, parts }` (`@google/genai`), the core's own model.
//!
//! Read as [`Content::from_value`] reads it, plus what the other readers
//! know: a message with `content` and no `parts` is another format's (it
//! would otherwise read as an empty message and count 0 tokens), and a part
//! with a `type` field is an AI SDK UI message part. Calls and responses
//! without an `id` pair by name, in order, as Gemini pairs them. A message
//! with the role `system` or `developer` (which the Gemini API itself does
//! not take in `contents`, but some hosts keep in their history) is pinned.

use crate::prelude::*;

use crate::json;
use crate::json::{Map, Value};

use super::{CallRef, Format, ReadMessage, Speaker, invalid, mismatch, observed_part};
use crate::content::{Content, PartKind};
use crate::error::Error;
use crate::read::describe;

/// Reads one Gemini message (see the module docs).
pub(crate) fn read_message(message: Value, path: &str) -> Result<ReadMessage, Error> {
    if let Value::Object(map) = &message {
        check_shape(map, path)?;
    }
    let content = Content::from_value(message, path)?;
    Ok(read_content(content, path))
}

/// The facts of a Gemini message already read as a [`Content`].
pub(crate) fn read_content(content: Content, path: &str) -> ReadMessage {
    let mut read = ReadMessage::new(&content.role, Vec::new());
    read.pinned = matches!(content.role.as_str(), "system" | "developer");
    for (i, part) in content.parts.iter().enumerate() {
        let part_path = format!("{path}.parts[{i}]");
        match part.kind() {
            PartKind::FunctionCall(call) => read.calls.push(call_ref(call, part_path)),
            PartKind::FunctionResponse(response) => {
                read.answers.push(call_ref(response, part_path));
            }
            _ => {}
        }
    }
    read.tool_result = !content.is_model() && !read.answers.is_empty();
    read.content = content;
    read
}

/// Another format's telltales, caught before they would read as an empty
/// or odd Gemini message.
fn check_shape(map: &Map, path: &str) -> Result<(), Error> {
    match map.get("parts") {
        None | Some(Value::Null) => {
            if let Some(format @ (Format::LangChain | Format::OpenAiResponses)) =
                super::sniff_message(map)
            {
                return Err(mismatch(path, &super::observed_message(map), format));
            }
            if map.contains_key("content") {
                let observed = "has \"content\" and no \"parts\"";
                return Err(match super::sniff_message(map) {
                    Some(format) if format != Format::Gemini => mismatch(path, observed, format),
                    _ => invalid(format!(
                        "{path} {observed}: an OpenAI, Anthropic or AI SDK message? pass format: \
                         \"openai\", \"anthropic\" or \"ai-sdk\""
                    )),
                });
            }
        }
        Some(Value::Array(parts)) => {
            for (i, item) in parts.iter().enumerate() {
                if let Some(item) = item.as_object()
                    && item.get("type").is_some_and(Value::is_string)
                {
                    return Err(invalid(format!(
                        "{path}.parts[{i}] {}: an AI SDK UI message? convert it with \
                         convertToModelMessages and pass format: \"ai-sdk\"",
                        observed_part(item)
                    )));
                }
            }
        }
        Some(_) => {}
    }
    Ok(())
}

pub(crate) fn call_ref(map: &Map, path: String) -> CallRef {
    CallRef {
        id: map
            .get("id")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty())
            .map(str::to_string),
        name: map
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        path,
    }
}

/// Reads a `systemInstruction` (a `Content`, or a plain string as the SDK
/// also takes) as a pinned message, so a host can count its system prompt.
///
/// ```
/// let c = compaction_core::format::gemini::read_system_instruction(
///     compaction_core::json!("Be brief."), "systemInstruction").unwrap();
/// assert_eq!(c.role, "system");
/// ```
pub fn read_system_instruction(value: Value, path: &str) -> Result<Content, Error> {
    match value {
        Value::String(text) => Ok(Content::text("system", text)),
        Value::Object(mut map) => {
            map.insert("role".into(), Value::String("system".into()));
            Content::from_value(Value::Object(map), path)
        }
        other => Err(invalid(format!(
            "{path} must be a string or a Content {{ parts }}, got {}",
            describe(&other)
        ))),
    }
}

/// `{ role: "user" | "model", parts: [{ text }] }`.
pub(crate) fn write(role: Speaker, text: &str) -> Value {
    let role = match role {
        Speaker::User => "user",
        Speaker::Model => "model",
    };
    json!({ "role": role, "parts": [{ "text": text }] })
}
