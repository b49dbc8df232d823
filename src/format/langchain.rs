//! LangChain JS messages (`@langchain/core/messages`, v1): the instances as
//! `JSON.stringify` writes them (`{ lc: 1, type: "constructor", id: [...,
//! "AIMessage"], kwargs }`), the stored form (`{ type: "ai", data }`), and
//! the plain message-likes LangChain itself accepts (`{ type: "ai", content,
//! tool_calls }`, or `role` instead of `type`).
//!
//! | message | becomes |
//! |---|---|
//! | `SystemMessage` (`system`, `developer`) | a pinned message of text |
//! | `HumanMessage` (`human`, `user`) | a user message; image, file, audio and video blocks are media |
//! | `AIMessage` (`ai`, `assistant`): `content` (string or blocks), `tool_calls` `[{ id, name, args }]`, `invalid_tool_calls` | a model message: text, thought text (`reasoning`, `thinking` blocks), then one `functionCall` per tool call |
//! | `ToolMessage` (`tool`): `tool_call_id`, `content`, `status: "error"` | a user message with one `functionResponse` answering that id (`{ error }` for a failed call), media as nested parts |
//! | `ChatMessage` (`generic`, with its `role`) | a message of its role |
//!
//! An `AIMessage` from a provider may carry the provider's own blocks in
//! its `content` beside `tool_calls` (Anthropic's `tool_use`, the Responses
//! API's `function_call`): a block whose id is one of the message's tool
//! calls is the same call and is counted once. Without `tool_calls`, the
//! OpenAI-shaped `additional_kwargs.tool_calls` are the calls (what older
//! messages carry). Other blocks (`redacted_thinking`, `non_standard`,
//! server tool blocks, newer ones) are counted by their JSON. `usage_metadata`
//! and `response_metadata` are not prompt text and are not counted.

use crate::prelude::*;

use crate::json::Quoted;

use crate::json::{Map, Value};

use super::openai::arguments_value;
use super::{
    CallNames, CallRef, Format, Outcome, ReadMessage, Speaker, call_part, data_url_mime,
    file_media, foreign_message, inline_media, invalid, join_texts, mismatch, object, opt_string,
    response_part, sniff_message, string, text_part, thought_part, unknown_part,
};
use crate::content::Part;
use crate::error::Error;
use crate::read::describe;

const KINDS: &str = "a LangChain message (an instance, its JSON { lc, type, id, kwargs }, \
                     or { type: \"human\" | \"ai\" | \"system\" | \"tool\", content })";

/// Reads one LangChain message (see the module docs).
pub(crate) fn read_message(
    message: &Value,
    path: &str,
    names: &CallNames,
) -> Result<ReadMessage, Error> {
    let map = object(message, path, KINDS)?;
    let (kind, fields, fields_path) = unwrap(map, path)?;
    let fields_path = format!("{path}{fields_path}");
    let path = fields_path.as_str();
    let kind = match kind {
        // A ChatMessage's role says who speaks.
        // A ChatMessage's role says who speaks.
        "generic" | "chat" => opt_string(fields, "role", path)?.unwrap_or_default(),
        other => other,
    };
    match kind {
        "system" | "developer" => {
            let parts = content(fields, path, &[])?;
            let mut read = ReadMessage::new("system", parts);
            read.pinned = true;
            Ok(read)
        }
        "human" | "user" => Ok(ReadMessage::new("user", content(fields, path, &[])?)),
        "ai" | "assistant" => ai(fields, path),
        "tool" => {
            let id = string(fields, "tool_call_id", path)?;
            let parts = content(fields, path, &[])?;
            let (texts, nested) = split_texts(parts);
            let text = Value::String(join_texts(&texts));
            let outcome = if fields.get("status").and_then(Value::as_str) == Some("error") {
                Outcome::Error(text)
            } else {
                Outcome::Output(text)
            };
            let name = opt_string(fields, "name", path)?.or(names.get(id).map(String::as_str));
            let mut read = ReadMessage::new(
                "user",
                vec![response_part(Some(id), name, outcome, nested)?],
            );
            read.tool_result = true;
            read.answers.push(CallRef::with_id(id, "", path));
            Ok(read)
        }
        other => Err(invalid(format!(
            "{path} has the type {}, which is not {KINDS}",
            Quoted(other)
        ))),
    }
}

/// The message's kind (`human`, `ai`, ...), its fields, and where they are
/// (`.kwargs`, `.data` or the message itself), in any of the three forms.
fn unwrap<'a>(map: &'a Map, path: &str) -> Result<(&'a str, &'a Map, &'static str), Error> {
    let lc = map.contains_key("lc");
    let found = match (map.get("type"), map.get("data"), map.get("role")) {
        // `{ lc: 1, type: "constructor", id: [..., "AIMessage"], kwargs }`
        (_, _, _) if lc => match (map.get("id"), map.get("kwargs")) {
            (Some(Value::Array(id)), Some(Value::Object(kwargs))) => {
                let class = id.last().and_then(Value::as_str).unwrap_or_default();
                let kind = match class.strip_suffix("Chunk").unwrap_or(class) {
                    "HumanMessage" => "human",
                    "AIMessage" => "ai",
                    "SystemMessage" => "system",
                    "ToolMessage" => "tool",
                    "ChatMessage" => "generic",
                    _ => class,
                };
                Some((kind, kwargs, ".kwargs"))
            }
            _ => None,
        },
        (Some(Value::String(kind)), Some(Value::Object(data)), _) if is_kind(kind) => {
            Some((kind.as_str(), data, ".data"))
        }
        (Some(Value::String(kind)), _, _) if is_kind(kind) => Some((kind.as_str(), map, "")),
        // `{ role, content }`, as LangChain coerces it: only when nothing
        // marks it as another format's message.
        (None, _, Some(Value::String(role)))
            if is_kind(role) && sniff_message(map).is_none_or(|f| f == Format::LangChain) =>
        {
            Some((role.as_str(), map, ""))
        }
        _ => None,
    };
    found.ok_or_else(|| {
        let fallback = format!("{path} must be {KINDS}");
        if lc {
            invalid(fallback)
        } else {
            foreign_message(map, path, Format::LangChain, fallback)
        }
    })
}

/// The message kinds LangChain names (`type`) or coerces (`role`).
pub(crate) fn is_kind(kind: &str) -> bool {
    matches!(
        kind,
        "human"
            | "user"
            | "ai"
            | "assistant"
            | "system"
            | "developer"
            | "tool"
            | "generic"
            | "chat"
            | "remove"
    )
}

fn ai(fields: &Map, path: &str) -> Result<ReadMessage, Error> {
    let mut calls = Vec::new();
    let mut call_parts = Vec::new();
    for key in ["tool_calls", "invalid_tool_calls"] {
        match fields.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    let call_path = format!("{path}.{key}[{i}]");
                    let call = object(item, &call_path, "a tool call { id, name, args }")?;
                    if call.contains_key("function") && !call.contains_key("name") {
                        return Err(mismatch(
                            &call_path,
                            "has \"function\" and no \"name\"",
                            Format::OpenAi,
                        ));
                    }
                    let id = string(call, "id", &call_path)?;
                    let name = opt_string(call, "name", &call_path)?.unwrap_or_default();
                    // An invalid call's args is the raw string the model wrote.
                    let args = match call.get("args") {
                        Some(Value::String(s)) => arguments_value(s),
                        Some(v) => v.clone(),
                        None => Value::Object(Map::new()),
                    };
                    call_parts.push(call_part(Some(id), name, args)?);
                    calls.push(CallRef::with_id(id, name, &call_path));
                }
            }
            Some(other) => {
                return Err(invalid(format!(
                    "{path}.{key} must be an array, got {}",
                    describe(other)
                )));
            }
        }
    }
    if calls.is_empty()
        && let Some(Value::Object(extra)) = fields.get("additional_kwargs")
        && let Some(tool_calls) = extra.get("tool_calls")
    {
        // Older messages keep OpenAI's own tool calls here: read as OpenAI's.
        let mut openai = Map::new();
        openai.insert("tool_calls".into(), tool_calls.clone());
        let read = super::openai::assistant(&openai, &format!("{path}.additional_kwargs"))?;
        call_parts = read.content.parts;
        calls = read.calls;
    }
    let ids: Vec<&str> = calls.iter().filter_map(|c| c.id.as_deref()).collect();
    let mut parts = content(fields, path, &ids)?;
    parts.extend(call_parts);
    let mut read = ReadMessage::new("model", parts);
    read.calls = calls;
    Ok(read)
}

/// A message's `content`: a string or an array of blocks. Blocks that
/// repeat one of `call_ids` (a provider's own tool-call block) are skipped.
fn content(fields: &Map, path: &str, call_ids: &[&str]) -> Result<Vec<Part>, Error> {
    match fields.get("content") {
        // An AIMessage with only tool calls may have no content at all.
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(content) => blocks(content, path, call_ids, None),
    }
}

/// A `content` string or array of blocks, LangChain's (any block, unknown
/// ones counted whole) or, with `strict` the message's role, the Responses
/// API's (its own part types only; media not in a system message).
pub(crate) fn blocks(
    content: &Value,
    path: &str,
    call_ids: &[&str],
    strict: Option<&str>,
) -> Result<Vec<Part>, Error> {
    let blocks = match content {
        Value::String(text) => return Ok(vec![text_part(text)]),
        Value::Array(blocks) => blocks,
        other => {
            return Err(invalid(format!(
                "{path}.content must be a string or an array of content blocks, got {}",
                describe(other)
            )));
        }
    };
    let mut parts = Vec::with_capacity(blocks.len());
    for (i, block) in blocks.iter().enumerate() {
        let block_path = format!("{path}.content[{i}]");
        let map = match block {
            Value::String(text) if strict.is_none() => {
                parts.push(text_part(text));
                continue;
            }
            Value::Object(map) => map,
            other => {
                return Err(invalid(format!(
                    "{block_path} must be a content block {{ type, ... }}, got {}",
                    describe(other)
                )));
            }
        };
        let kind = super::part_type(map, &block_path)?;
        let media_ok = !matches!(strict, Some("system" | "developer"));
        match (kind, strict) {
            ("input_text" | "output_text", _) | ("text" | "text-plain", None) => {
                parts.push(text_part(string(map, "text", &block_path)?));
            }
            ("refusal", Some(_)) => parts.push(text_part(string(map, "refusal", &block_path)?)),
            ("input_image" | "input_file" | "input_audio", _) if media_ok => {
                parts.push(media(map, kind)?);
            }
            ("image_url" | "image" | "file" | "audio" | "video", None) => {
                parts.push(media(map, kind)?);
            }
            ("reasoning", None) => {
                let text = opt_string(map, "reasoning", &block_path)?
                    .or(opt_string(map, "text", &block_path)?)
                    .unwrap_or_default();
                parts.push(thought_part(text)?);
            }
            ("thinking", None) => parts.push(thought_part(string(map, "thinking", &block_path)?)?),
            ("tool_use" | "tool_call" | "function_call", None)
                if block_call_id(map).is_some_and(|id| call_ids.contains(&id)) => {}
            // redacted_thinking, non_standard, server tool blocks, newer
            // blocks: counted whole.
            (_, None) => parts.push(unknown_part(block)),
            // (Another format's parts were named by the message's check.)
            (_, Some(role)) => {
                return Err(invalid(format!(
                    "{block_path} has type {kind}, which a {role} message does not hold",
                    kind = Quoted(kind),
                    role = Quoted(role)
                )));
            }
        }
    }
    Ok(parts)
}

/// The id of a provider's tool-call block (`id`, or the Responses API's `call_id`).
fn block_call_id(map: &Map) -> Option<&str> {
    map.get("call_id").or(map.get("id")).and_then(Value::as_str)
}

/// An image, file, audio or video block in any spelling LangChain, the
/// Responses API or the Agents SDK uses: a URL or a `data:` URL, base64
/// data, a file id (`image_url`, `url`, `file_data`, `file_url`, `image`,
/// `file`, `data`, `fileId`, `file_id`; a string or `{ url }` / `{ id }`),
/// with `mimeType` / `mime_type` / `media_type` when given.
pub(crate) fn media(map: &Map, kind: &str) -> Result<Part, Error> {
    let mime = ["mimeType", "mime_type", "media_type"]
        .iter()
        .find_map(|k| map.get(k).and_then(Value::as_str))
        .unwrap_or(match kind {
            "file" | "input_file" => "application/octet-stream",
            "audio" | "input_audio" => "audio/unknown",
            "video" => "video/unknown",
            _ => "image/unknown",
        });
    for key in [
        "image_url",
        "url",
        "file_data",
        "file_url",
        "image",
        "file",
        "fileId",
        "file_id",
    ] {
        let reference = match map.get(key) {
            Some(Value::String(s)) => s.as_str(),
            Some(Value::Object(inner)) => match inner.get("url").or(inner.get("id")) {
                Some(Value::String(s)) => s.as_str(),
                _ => return inline_media(mime),
            },
            _ => continue,
        };
        return match data_url_mime(reference) {
            Some(inline) => inline_media(inline),
            // Base64 data given without a data: URL (Agents SDK file data).
            None if key == "file_data" => inline_media(mime),
            None => file_media(mime, reference),
        };
    }
    inline_media(mime)
}

/// Text parts as texts, media as nested parts (a tool result's content).
fn split_texts(parts: Vec<Part>) -> (Vec<String>, Vec<Part>) {
    let mut texts = Vec::new();
    let mut nested = Vec::new();
    for part in parts {
        match part.kind() {
            crate::content::PartKind::Text { text, .. } => texts.push(text.to_string()),
            crate::content::PartKind::Unknown => {
                texts.push(Value::Object(part.as_map().clone()).to_string());
            }
            _ => nested.push(part),
        }
    }
    (texts, nested)
}

/// `JSON.stringify(new HumanMessage(text))` (or `AIMessage`): LangChain's
/// own serialised form, which its message reducers and `load` revive.
pub(crate) fn write(role: Speaker, text: &str) -> Value {
    let class = match role {
        Speaker::User => "HumanMessage",
        Speaker::Model => "AIMessage",
    };
    super::template(
        &[
            r#"{"lc":1,"type":"constructor","id":["langchain_core","messages",""#,
            class,
            r#""],"kwargs":{"content":"#,
        ],
        text,
        r#","additional_kwargs":{},"response_metadata":{}}}"#,
    )
}
