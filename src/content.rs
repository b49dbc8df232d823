//! The message shapes agent UIs send, Gemini style: `{ role, parts }`.
//!
//! A [`Part`] keeps the JSON object it was made from, field order included,
//! so that nothing a host put in a message is lost or reordered when the
//! library hands it back (kept messages stay verbatim). [`Part::kind`]
//! classifies it; parts and fields of unknown kinds are tolerated.

use crate::prelude::*;

use crate::json::{Map, ObjectWriter, ToJson, Value};

use crate::error::{Error, ErrorCode};
use crate::read::describe;

/// One message: who said it and what it is made of.
#[derive(Clone, Debug, PartialEq)]
pub struct Content {
    /// `"user"` or `"model"` (`"assistant"` is read as `"model"`); other
    /// roles are kept as they are and treated as user-side.
    pub role: String,
    /// The message's parts, in order.
    pub parts: Vec<Part>,
}

/// One part of a message, as the JSON object it arrived as.
#[derive(Clone, Debug, PartialEq)]
pub struct Part(Map);

impl TryFrom<Value> for Part {
    type Error = Error;
    fn try_from(value: Value) -> Result<Part, Error> {
        Part::from_value(value, "part")
    }
}

impl From<Part> for Value {
    fn from(part: Part) -> Value {
        Value::Object(part.0)
    }
}

impl TryFrom<Value> for Content {
    type Error = Error;
    fn try_from(value: Value) -> Result<Content, Error> {
        Content::from_value(value, "message")
    }
}

/// `{ role, parts }`, Gemini style.
impl ToJson for Content {
    fn write_json(&self, out: &mut String) {
        let mut o = ObjectWriter::new(out);
        o.field("role", &self.role).field("parts", &self.parts);
        o.end();
    }
}

/// The object the part was made from, fields in their order.
impl ToJson for Part {
    fn write_json(&self, out: &mut String) {
        self.0.write_json(out);
    }
}

/// What a part is, borrowed from it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PartKind<'a> {
    /// Plain text; `thought` is true for a model's thought summary.
    Text {
        /// The text.
        text: &'a str,
        /// Whether the part is marked `thought: true`.
        thought: bool,
    },
    /// `functionCall { id?, name, args }`.
    FunctionCall(&'a Map),
    /// `functionResponse { id?, name, response, parts? }`.
    FunctionResponse(&'a Map),
    /// `inlineData { mimeType, data }`: an image or document sent inline.
    InlineData {
        /// The MIME type, or `application/octet-stream` when absent.
        mime_type: &'a str,
    },
    /// `fileData { mimeType, fileUri }`: an image or document by reference.
    FileData {
        /// The MIME type, or `application/octet-stream` when absent.
        mime_type: &'a str,
    },
    /// A part of a kind this library does not know; counted by its JSON.
    Unknown,
}

/// Fields that carry a part's payload; any other field is "extra".
const KIND_FIELDS: [&str; 5] = [
    "text",
    "functionCall",
    "functionResponse",
    "inlineData",
    "fileData",
];
/// Fields that are metadata, not prompt text: never counted as tokens.
const METADATA_FIELDS: [&str; 2] = ["thought", "thoughtSignature"];
const DEFAULT_MIME: &str = "application/octet-stream";

impl Part {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Part {
        let mut map = Map::new();
        map.insert("text".into(), Value::String(text.into()));
        Part(map)
    }

    /// Makes a part from a JSON value, checking the fields it knows.
    /// `path` names the value in error messages (e.g. `history[3].parts[0]`).
    pub fn from_value(value: Value, path: &str) -> Result<Part, Error> {
        let Value::Object(map) = value else {
            return Err(invalid(format!(
                "{path} must be an object, got {}",
                describe(&value)
            )));
        };
        if let Some(text) = map.get("text")
            && !text.is_string()
        {
            return Err(invalid(format!(
                "{path}.text must be a string, got {}",
                describe(text)
            )));
        }
        for key in ["functionCall", "functionResponse", "inlineData", "fileData"] {
            if let Some(field) = map.get(key)
                && !field.is_object()
            {
                return Err(invalid(format!(
                    "{path}.{key} must be an object, got {}",
                    describe(field)
                )));
            }
        }
        for key in ["functionCall", "functionResponse"] {
            if let Some(Value::Object(inner)) = map.get(key)
                && let Some(name) = inner.get("name")
                && !name.is_string()
            {
                return Err(invalid(format!(
                    "{path}.{key}.name must be a string, got {}",
                    describe(name)
                )));
            }
        }
        if let Some(Value::Object(response)) = map.get("functionResponse")
            && let Some(parts) = response.get("parts")
        {
            let Value::Array(items) = parts else {
                return Err(invalid(format!(
                    "{path}.functionResponse.parts must be an array, got {}",
                    describe(parts)
                )));
            };
            for (i, item) in items.iter().enumerate() {
                Part::from_value(item.clone(), &format!("{path}.functionResponse.parts[{i}]"))?;
            }
        }
        Ok(Part(map))
    }

    /// Classifies the part. A part with several payload fields is read by
    /// the first of text, functionCall, functionResponse, inlineData, fileData.
    pub fn kind(&self) -> PartKind<'_> {
        let map = &self.0;
        if let Some(Value::String(text)) = map.get("text") {
            let thought = matches!(map.get("thought"), Some(Value::Bool(true)));
            return PartKind::Text { text, thought };
        }
        if let Some(Value::Object(call)) = map.get("functionCall") {
            return PartKind::FunctionCall(call);
        }
        if let Some(Value::Object(response)) = map.get("functionResponse") {
            return PartKind::FunctionResponse(response);
        }
        if let Some(Value::Object(data)) = map.get("inlineData") {
            return PartKind::InlineData {
                mime_type: mime_of(data),
            };
        }
        if let Some(Value::Object(data)) = map.get("fileData") {
            return PartKind::FileData {
                mime_type: mime_of(data),
            };
        }
        PartKind::Unknown
    }

    /// The JSON object behind the part.
    pub fn as_map(&self) -> &Map {
        &self.0
    }

    /// Fields of a known part that are neither its payload nor metadata
    /// (`thought`, `thoughtSignature`); `None` when there are none, and for
    /// unknown parts (which are counted whole).
    pub fn extra_fields(&self) -> Option<Map> {
        if matches!(self.kind(), PartKind::Unknown) {
            return None;
        }
        let extra: Map = self
            .0
            .iter()
            .filter(|(k, _)| {
                !KIND_FIELDS.contains(&k.as_str()) && !METADATA_FIELDS.contains(&k.as_str())
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        (!extra.is_empty()).then_some(extra)
    }

    /// Whether this part is a function call.
    pub fn is_function_call(&self) -> bool {
        matches!(self.kind(), PartKind::FunctionCall(_))
    }

    /// Whether this part is a function response (a tool result).
    pub fn is_function_response(&self) -> bool {
        matches!(self.kind(), PartKind::FunctionResponse(_))
    }
}

impl Content {
    /// A message with one text part.
    pub fn text(role: &str, text: impl Into<String>) -> Content {
        Content {
            role: role.into(),
            parts: vec![Part::text(text)],
        }
    }

    /// Makes a message from a JSON value, with errors that name `path`.
    pub fn from_value(value: Value, path: &str) -> Result<Content, Error> {
        let Value::Object(mut map) = value else {
            return Err(invalid(format!(
                "{path} must be a message object {{ role, parts }}, got {}",
                describe(&value)
            )));
        };
        let role = match map.remove("role") {
            Some(Value::String(role)) if !role.is_empty() => role,
            Some(other) => {
                return Err(invalid(format!(
                    "{path}.role must be a non-empty string such as \"user\" or \"model\", got {}",
                    describe(&other)
                )));
            }
            None => {
                return Err(invalid(format!(
                    "{path}.role is missing (expected \"user\" or \"model\")"
                )));
            }
        };
        let parts = match map.remove("parts") {
            Some(Value::Array(items)) => {
                let mut parts = Vec::with_capacity(items.len());
                for (i, item) in items.into_iter().enumerate() {
                    parts.push(Part::from_value(item, &format!("{path}.parts[{i}]"))?);
                }
                parts
            }
            // A message without parts is legal in the Gemini shape and counts 0.
            None | Some(Value::Null) => Vec::new(),
            Some(other) => {
                return Err(invalid(format!(
                    "{path}.parts must be an array, got {}",
                    describe(&other)
                )));
            }
        };
        Ok(Content { role, parts })
    }

    /// Makes a message list from a JSON array.
    pub fn list_from_value(value: Value, path: &str) -> Result<Vec<Content>, Error> {
        let Value::Array(items) = value else {
            return Err(invalid(format!(
                "{path} must be an array of messages, got {}",
                describe(&value)
            )));
        };
        let mut contents = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            contents.push(Content::from_value(item, &format!("{path}[{i}]"))?);
        }
        Ok(contents)
    }

    /// Whether the model said this (`"model"`, or `"assistant"`).
    pub fn is_model(&self) -> bool {
        self.role == "model" || self.role == "assistant"
    }

    /// Whether this is a user-side message that carries tool results.
    pub fn is_tool_result(&self) -> bool {
        !self.is_model() && self.parts.iter().any(Part::is_function_response)
    }

    /// Whether this message asks for tool calls.
    pub fn has_function_call(&self) -> bool {
        self.parts.iter().any(Part::is_function_call)
    }
}

fn mime_of(data: &Map) -> &str {
    data.get("mimeType")
        .and_then(Value::as_str)
        .unwrap_or(DEFAULT_MIME)
}

fn invalid(message: String) -> Error {
    Error::new(ErrorCode::InvalidContent, message)
}
