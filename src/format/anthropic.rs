//! Anthropic messages (`@anthropic-ai/sdk`'s `MessageParam`, v1).
//!
//! The system prompt is the request's `system` parameter, outside the
//! messages ([`read_system`] reads it as a pinned message for counting); a
//! `{ role: "system" }` message, which the SDK's `MessageParam` also
//! declares, is pinned.
//!
//! | block | becomes |
//! |---|---|
//! | `text` | text |
//! | `image` (`base64`, `url`, `file` source) | media |
//! | `document` | text for a `text` or `content` source (with its title and context), media for a PDF or a file |
//! | `search_result` | text (title, source, content) |
//! | `tool_use` | `functionCall { id, name, args: input }` |
//! | `tool_result` (`tool_use_id`, string or nested content, `is_error`) | `functionResponse { id, response: { output } }` (`{ error }` when `is_error`), nested media as its `parts` |
//! | `thinking` | thought text |
//! | `redacted_thinking`, server tool blocks, newer blocks | unknown parts, counted by their JSON |
//!
//! A message's `content` may also be a plain string (one text block).

use crate::prelude::*;

use crate::json::Quoted;

use crate::json;
use crate::json::{Map, Value};

use super::{
    CallNames, CallRef, Format, Outcome, ReadMessage, Speaker, call_part, check_foreign,
    file_media, foreign_message, inline_media, invalid, join_texts, mismatch, missing_role, object,
    observed_part, opt_string, part_type, response_part, role, sniff_part, string, text_part,
    thought_part, unknown_part,
};
use crate::content::{Content, Part};
use crate::error::Error;
use crate::read::describe;

const ROLES: &str = "\"user\" or \"assistant\" (the system prompt is the request's `system`)";

/// Reads one Anthropic message (see the module docs).
pub(crate) fn read_message(
    message: &Value,
    path: &str,
    names: &CallNames,
) -> Result<ReadMessage, Error> {
    let map = object(message, path, "a message object { role, content }")?;
    let Some(role) = role(map, path, ROLES)? else {
        // Without a role, a message of another format is named as such.
        return Err(foreign_message(
            map,
            path,
            Format::Anthropic,
            missing_role(path, ROLES),
        ));
    };
    check_foreign(map, path, Format::Anthropic)?;
    let (core_role, pinned) = match role {
        "user" => ("user", false),
        "assistant" => ("model", false),
        "system" => ("system", true),
        other => {
            return Err(invalid(format!(
                "{path}.role must be {ROLES}, got {other}",
                other = Quoted(other)
            )));
        }
    };
    let mut read = ReadMessage::new(core_role, Vec::new());
    read.pinned = pinned;
    match map.get("content") {
        Some(Value::String(text)) => read.content.parts.push(text_part(text)),
        Some(Value::Array(blocks)) => {
            for (i, block) in blocks.iter().enumerate() {
                let block_path = format!("{path}.content[{i}]");
                read_block(block, &block_path, pinned, names, &mut read)?;
            }
        }
        Some(other) => {
            return Err(invalid(format!(
                "{path}.content must be a string or an array of content blocks, got {}",
                describe(other)
            )));
        }
        None => return Err(invalid(format!("{path}.content is missing"))),
    }
    read.tool_result = core_role == "user" && !read.answers.is_empty();
    Ok(read)
}

fn read_block(
    block: &Value,
    path: &str,
    system: bool,
    names: &CallNames,
    read: &mut ReadMessage,
) -> Result<(), Error> {
    let map = object(block, path, "a content block { type, ... }")?;
    let kind = part_type(map, path)?;
    if system && kind != "text" {
        return Err(invalid(format!(
            "{path} must be a text block (a system message holds text), got type {kind}",
            kind = Quoted(kind)
        )));
    }
    let parts = &mut read.content.parts;
    match kind {
        "text" => parts.push(text_part(string(map, "text", path)?)),
        "image" => parts.push(image(map, path)?),
        "document" => document(map, path, parts)?,
        "search_result" => parts.push(text_part(&search_result(map, path)?)),
        "thinking" => parts.push(thought_part(string(map, "thinking", path)?)?),
        "tool_use" => {
            let id = string(map, "id", path)?;
            let name = string(map, "name", path)?;
            let input = map.get("input").cloned().unwrap_or(Value::Null);
            parts.push(call_part(Some(id), name, input)?);
            read.calls.push(CallRef::with_id(id, name, path));
        }
        "tool_result" => {
            let id = string(map, "tool_use_id", path)?;
            let (texts, nested) = result_content(map, path)?;
            let text = Value::String(join_texts(&texts));
            let outcome = if map.get("is_error") == Some(&Value::Bool(true)) {
                Outcome::Error(text)
            } else {
                Outcome::Output(text)
            };
            let name = names.get(id).map(String::as_str);
            parts.push(response_part(Some(id), name, outcome, nested)?);
            read.answers.push(CallRef::with_id(id, "", path));
        }
        _ => match sniff_part(map) {
            Some(format) if format != Format::Anthropic => {
                return Err(mismatch(path, &observed_part(map), format));
            }
            // redacted_thinking, server tool use and results, container
            // uploads, blocks newer than this reader: counted whole.
            _ => parts.push(unknown_part(block)),
        },
    }
    Ok(())
}

fn image(map: &Map, path: &str) -> Result<Part, Error> {
    let source = source(map, path)?;
    let source_path = format!("{path}.source");
    match part_type(source, &source_path)? {
        "base64" => inline_media(string(source, "media_type", &source_path)?),
        "url" => file_media("image/unknown", string(source, "url", &source_path)?),
        "file" => file_media("image/unknown", string(source, "file_id", &source_path)?),
        other => Err(invalid(format!(
            "{source_path}.type must be \"base64\", \"url\" or \"file\", got {other}",
            other = Quoted(other)
        ))),
    }
}

fn document(map: &Map, path: &str, parts: &mut Vec<Part>) -> Result<(), Error> {
    let source = source(map, path)?;
    let source_path = format!("{path}.source");
    // The title and context are sent to the model with the document.
    let mut heading = Vec::new();
    for key in ["title", "context"] {
        if let Some(text) = opt_string(map, key, path)? {
            heading.push(text.to_string());
        }
    }
    match part_type(source, &source_path)? {
        "base64" => parts.push(inline_media(
            opt_string(source, "media_type", &source_path)?.unwrap_or("application/pdf"),
        )?),
        "url" => parts.push(file_media(
            "application/pdf",
            string(source, "url", &source_path)?,
        )?),
        "file" => parts.push(file_media(
            "application/octet-stream",
            string(source, "file_id", &source_path)?,
        )?),
        "text" => heading.push(string(source, "data", &source_path)?.to_string()),
        "content" => match source.get("content") {
            Some(Value::String(text)) => heading.push(text.clone()),
            Some(Value::Array(blocks)) => {
                for (i, block) in blocks.iter().enumerate() {
                    let block_path = format!("{source_path}.content[{i}]");
                    let block = object(block, &block_path, "a text or image block")?;
                    match part_type(block, &block_path)? {
                        "text" => heading.push(string(block, "text", &block_path)?.to_string()),
                        "image" => parts.push(image(block, &block_path)?),
                        other => {
                            return Err(invalid(format!(
                                "{block_path} must be a text or image block, got type {other}",
                                other = Quoted(other)
                            )));
                        }
                    }
                }
            }
            Some(other) => {
                return Err(invalid(format!(
                    "{source_path}.content must be a string or an array of blocks, got {}",
                    describe(other)
                )));
            }
            None => return Err(invalid(format!("{source_path}.content is missing"))),
        },
        other => {
            return Err(invalid(format!(
                "{source_path}.type must be \"base64\", \"text\", \"content\", \"url\" or \"file\", got {other}",
                other = Quoted(other)
            )));
        }
    }
    if !heading.is_empty() {
        parts.push(text_part(&join_texts(&heading)));
    }
    Ok(())
}

fn search_result(map: &Map, path: &str) -> Result<String, Error> {
    let mut texts = Vec::new();
    for key in ["title", "source"] {
        if let Some(text) = opt_string(map, key, path)? {
            texts.push(text.to_string());
        }
    }
    if let Some(Value::Array(blocks)) = map.get("content") {
        for (i, block) in blocks.iter().enumerate() {
            let block_path = format!("{path}.content[{i}]");
            let block = object(block, &block_path, "a text block")?;
            texts.push(string(block, "text", &block_path)?.to_string());
        }
    }
    Ok(join_texts(&texts))
}

/// A `tool_result`'s content: its texts (joined into the output) and its
/// media (nested parts, counted as media).
fn result_content(map: &Map, path: &str) -> Result<(Vec<String>, Vec<Part>), Error> {
    let mut texts = Vec::new();
    let mut nested = Vec::new();
    match map.get("content") {
        None | Some(Value::Null) => {}
        Some(Value::String(text)) => texts.push(text.clone()),
        Some(Value::Array(blocks)) => {
            for (i, block) in blocks.iter().enumerate() {
                let block_path = format!("{path}.content[{i}]");
                let block_map = object(block, &block_path, "a content block { type, ... }")?;
                match part_type(block_map, &block_path)? {
                    "text" => texts.push(string(block_map, "text", &block_path)?.to_string()),
                    "image" => nested.push(image(block_map, &block_path)?),
                    "search_result" => texts.push(search_result(block_map, &block_path)?),
                    "document" => {
                        let mut parts = Vec::new();
                        document(block_map, &block_path, &mut parts)?;
                        for p in parts {
                            match p.kind() {
                                crate::content::PartKind::Text { text, .. } => {
                                    texts.push(text.to_string());
                                }
                                _ => nested.push(p),
                            }
                        }
                    }
                    _ => match sniff_part(block_map) {
                        Some(format) if format != Format::Anthropic => {
                            return Err(mismatch(&block_path, &observed_part(block_map), format));
                        }
                        // tool_reference, browser_state, newer blocks.
                        _ => texts.push(block.to_string()),
                    },
                }
            }
        }
        Some(other) => {
            return Err(invalid(format!(
                "{path}.content must be a string or an array of content blocks, got {}",
                describe(other)
            )));
        }
    }
    Ok((texts, nested))
}

fn source<'a>(map: &'a Map, path: &str) -> Result<&'a Map, Error> {
    match map.get("source") {
        Some(Value::Object(source)) => Ok(source),
        Some(other) => Err(invalid(format!(
            "{path}.source must be an object, got {}",
            describe(other)
        ))),
        None => Err(invalid(format!("{path}.source is missing"))),
    }
}

/// Reads the request's `system` parameter (a string or text blocks) as a
/// pinned message, so a host can count its system prompt.
///
/// ```
/// let c = compaction_core::format::anthropic::read_system(
///     &compaction_core::json!([{ "type": "text", "text": "Be brief." }]), "system").unwrap();
/// assert_eq!(c.role, "system");
/// ```
pub fn read_system(value: &Value, path: &str) -> Result<Content, Error> {
    let message = json!({ "role": "system", "content": value });
    read_message(&message, path, &CallNames::new()).map(|read| read.content)
}

/// `{ role: "user" | "assistant", content: text }`.
pub(crate) fn write(role: Speaker, text: &str) -> Value {
    let role = match role {
        Speaker::User => "user",
        Speaker::Model => "assistant",
    };
    json!({ "role": role, "content": text })
}
