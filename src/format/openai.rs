//! OpenAI chat completions messages (`openai`'s `ChatCompletionMessageParam`,
//! v6).
//!
//! | message | becomes |
//! |---|---|
//! | `system`, `developer` (string or text parts) | a pinned message of text |
//! | `user` (string, or parts `text`, `image_url`, `input_audio`, `file`) | a user message; images, audio and files are media |
//! | `assistant` (`content` string / text and `refusal` parts, `refusal`, `tool_calls`) | a model message: text, refusal text, then one `functionCall` per tool call (parallel calls included) |
//! | `tool` (`tool_call_id`, string or text parts) | a user message with one `functionResponse` answering that id |
//! | deprecated `function_call` / `function` | a call and a response paired by name |
//!
//! A tool call's `arguments` is a JSON string, counted as it is. When the
//! string is the compact JSON text of a value (what the API sends), `args`
//! holds that value, whose JSON text is the string byte for byte, so the
//! estimators count exactly its characters, as they count Gemini's `args`.
//! Otherwise (spaces, escapes, invalid JSON from a truncated answer) `args`
//! holds the string itself, which the estimators count with its JSON
//! escapes: a little high, never low. The host's own message, sent back
//! as it is, is never rewritten.

use crate::prelude::*;

use crate::json::Quoted;

use crate::json;
use crate::json::{Map, Value};

use super::{
    CallNames, CallRef, Format, Outcome, ReadMessage, Speaker, call_part, check_foreign,
    data_url_mime, file_media, inline_media, invalid, join_texts, mismatch, missing_role, object,
    observed_part, opt_string, part_type, response_part, role, sniff_part, string, text_part,
    url_media,
};
use crate::content::Part;
use crate::error::Error;
use crate::read::describe;

const ROLES: &str = "\"system\", \"developer\", \"user\", \"assistant\" or \"tool\"";

/// Reads one OpenAI chat message (see the module docs).
pub(crate) fn read_message(
    message: &Value,
    path: &str,
    names: &CallNames,
) -> Result<ReadMessage, Error> {
    let map = object(message, path, "a chat message object { role, content }")?;
    check_foreign(map, path, Format::OpenAi)?;
    let role = role(map, path, ROLES)?.ok_or_else(|| invalid(missing_role(path, ROLES)))?;
    match role {
        "system" | "developer" => {
            let mut read = ReadMessage::new(role, text_content(map, path, true)?);
            read.pinned = true;
            Ok(read)
        }
        "user" => Ok(ReadMessage::new("user", user_content(map, path)?)),
        "assistant" => assistant(map, path),
        "tool" => {
            let id = string(map, "tool_call_id", path)?;
            let output = join_texts(&texts(map, path)?);
            let mut read = ReadMessage::new(
                "user",
                vec![response_part(
                    Some(id),
                    names.get(id).map(String::as_str),
                    Outcome::Output(Value::String(output)),
                    Vec::new(),
                )?],
            );
            read.tool_result = true;
            read.answers.push(CallRef::with_id(id, "", path));
            Ok(read)
        }
        "function" => {
            let name = string(map, "name", path)?;
            let output = opt_string(map, "content", path)?.unwrap_or_default();
            let mut read = ReadMessage::new(
                "user",
                vec![response_part(
                    None,
                    Some(name),
                    Outcome::Output(Value::String(output.into())),
                    Vec::new(),
                )?],
            );
            read.tool_result = true;
            read.answers.push(CallRef {
                id: None,
                name: name.into(),
                path: path.into(),
            });
            Ok(read)
        }
        "model" => Err(mismatch(path, "has the role \"model\"", Format::Gemini)),
        other => Err(invalid(format!(
            "{path}.role must be {ROLES}, got {other}",
            other = Quoted(other)
        ))),
    }
}

/// `content` that may hold only text: a string, or `text` parts.
fn text_content(map: &Map, path: &str, required: bool) -> Result<Vec<Part>, Error> {
    if required && !map.contains_key("content") {
        return Err(invalid(format!("{path}.content is missing")));
    }
    Ok(texts(map, path)?.iter().map(|t| text_part(t)).collect())
}

/// The texts of a string or text-parts `content`.
fn texts(map: &Map, path: &str) -> Result<Vec<String>, Error> {
    match map.get("content") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(vec![s.clone()]),
        Some(Value::Array(items)) => {
            let mut texts = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let item_path = format!("{path}.content[{i}]");
                let part = object(item, &item_path, "a content part { type, ... }")?;
                match part_type(part, &item_path)? {
                    "text" => texts.push(string(part, "text", &item_path)?.to_string()),
                    _ => return Err(foreign_part(part, &item_path, "a text part")),
                }
            }
            Ok(texts)
        }
        Some(other) => Err(invalid(format!(
            "{path}.content must be a string or an array of content parts, got {}",
            describe(other)
        ))),
    }
}

fn user_content(map: &Map, path: &str) -> Result<Vec<Part>, Error> {
    let items = match map.get("content") {
        Some(Value::Array(items)) => items,
        _ => return text_content(map, path, true),
    };
    let read = |i: usize, item: &Value| -> Result<Part, Error> {
        let item_path = format!("{path}.content[{i}]");
        let part = object(item, &item_path, "a content part { type, ... }")?;
        match part_type(part, &item_path)? {
            "text" => Ok(text_part(string(part, "text", &item_path)?)),
            "image_url" => {
                let image = object_field(part, "image_url", &item_path)?;
                let url = string(image, "url", &format!("{item_path}.image_url"))?;
                url_media(url, "image/unknown")
            }
            "input_audio" => {
                let audio = object_field(part, "input_audio", &item_path)?;
                let mime = match audio.get("format").and_then(Value::as_str) {
                    Some("mp3") => "audio/mpeg",
                    Some("wav") => "audio/wav",
                    _ => "audio/unknown",
                };
                inline_media(mime)
            }
            "file" => {
                let file = object_field(part, "file", &item_path)?;
                let file_path = format!("{item_path}.file");
                let by_name = mime_from_name(opt_string(file, "filename", &file_path)?);
                match (
                    opt_string(file, "file_data", &file_path)?,
                    opt_string(file, "file_id", &file_path)?,
                ) {
                    (Some(data), _) => inline_media(data_url_mime(data).unwrap_or(by_name)),
                    (None, Some(id)) => file_media(by_name, id),
                    (None, None) => Err(invalid(format!(
                        "{file_path} must have file_data or file_id"
                    ))),
                }
            }
            _ => Err(foreign_part(
                part,
                &item_path,
                "a text, image_url, input_audio or file part",
            )),
        }
    };
    let mut parts = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        parts.push(read(i, item)?);
    }
    Ok(parts)
}

pub(crate) fn assistant(map: &Map, path: &str) -> Result<ReadMessage, Error> {
    let mut parts = Vec::new();
    match map.get("content") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => parts.push(text_part(s)),
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                let item_path = format!("{path}.content[{i}]");
                let part = object(item, &item_path, "a content part { type, ... }")?;
                parts.push(match part_type(part, &item_path)? {
                    "text" => text_part(string(part, "text", &item_path)?),
                    "refusal" => text_part(string(part, "refusal", &item_path)?),
                    _ => return Err(foreign_part(part, &item_path, "a text or refusal part")),
                });
            }
        }
        Some(other) => {
            return Err(invalid(format!(
                "{path}.content must be a string, an array of content parts or null, got {}",
                describe(other)
            )));
        }
    }
    if let Some(refusal) = opt_string(map, "refusal", path)? {
        parts.push(text_part(refusal));
    }
    let mut calls = Vec::new();
    match map.get("tool_calls") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                let call_path = format!("{path}.tool_calls[{i}]");
                let call = object(item, &call_path, "a tool call { id, type, function }")?;
                let id = string(call, "id", &call_path)?;
                let (name, arguments) = match call.get("type").and_then(Value::as_str) {
                    Some("custom") => {
                        let custom = object_field(call, "custom", &call_path)?;
                        let custom_path = format!("{call_path}.custom");
                        (
                            string(custom, "name", &custom_path)?,
                            string(custom, "input", &custom_path)?,
                        )
                    }
                    _ => {
                        let function = object_field(call, "function", &call_path)?;
                        let fn_path = format!("{call_path}.function");
                        (
                            string(function, "name", &fn_path)?,
                            string(function, "arguments", &fn_path)?,
                        )
                    }
                };
                parts.push(call_part(Some(id), name, arguments_value(arguments))?);
                calls.push(CallRef::with_id(id, name, &call_path));
            }
        }
        Some(other) => {
            return Err(invalid(format!(
                "{path}.tool_calls must be an array, got {}",
                describe(other)
            )));
        }
    }
    if let Some(call) = map.get("function_call").filter(|v| !v.is_null()) {
        let call_path = format!("{path}.function_call");
        let call = object(call, &call_path, "a function call { name, arguments }")?;
        let name = string(call, "name", &call_path)?;
        let arguments = string(call, "arguments", &call_path)?;
        parts.push(call_part(None, name, arguments_value(arguments))?);
        calls.push(CallRef {
            id: None,
            name: name.into(),
            path: call_path,
        });
    }
    let mut read = ReadMessage::new("model", parts);
    read.calls = calls;
    Ok(read)
}

/// `args` for an `arguments` string; see the module docs.
pub fn arguments_value(arguments: &str) -> Value {
    match crate::json::from_str(arguments) {
        Ok(value) if crate::json::to_string(&value) == arguments => value,
        _ => Value::String(arguments.into()),
    }
}

fn object_field<'a>(map: &'a Map, key: &str, path: &str) -> Result<&'a Map, Error> {
    match map.get(key) {
        Some(Value::Object(inner)) => Ok(inner),
        Some(other) => Err(invalid(format!(
            "{path}.{key} must be an object, got {}",
            describe(other)
        ))),
        None => Err(invalid(format!("{path}.{key} is missing"))),
    }
}

/// A part this message cannot hold: another format's when it tells, else
/// an error listing what it may hold.
fn foreign_part(part: &Map, path: &str, expected: &str) -> Error {
    match sniff_part(part) {
        Some(format) if format != Format::OpenAi => mismatch(path, &observed_part(part), format),
        _ => invalid(format!(
            "{path} must be {expected}, got {}",
            observed_part(part)
        )),
    }
}

fn mime_from_name(name: Option<&str>) -> &'static str {
    let ext = name
        .and_then(|n| n.rsplit_once('.'))
        .map(|(_, e)| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("pdf") => "application/pdf",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("txt") => "text/plain",
        _ => "application/octet-stream",
    }
}

/// `{ role: "user" | "assistant", content: text }`.
pub(crate) fn write(role: Speaker, text: &str) -> Value {
    let role = match role {
        Speaker::User => "user",
        Speaker::Model => "assistant",
    };
    json!({ "role": role, "content": text })
}
