//! Building the core's parts from what a format's reader found: text,
//! thoughts, calls, responses, media, parts the library does not know.

use super::*;

/// A part from JSON this module built; never fails for the shapes below, but
/// the check stays rather than an `unwrap`.
pub(super) fn part(value: Value) -> Result<Part, Error> {
    Part::from_value(value, "part")
}

pub(super) fn text_part(text: &str) -> Part {
    Part::text(text)
}

pub(super) fn thought_part(text: &str) -> Result<Part, Error> {
    part(json!({ "text": text, "thought": true }))
}

pub(super) fn call_part(id: Option<&str>, name: &str, args: Value) -> Result<Part, Error> {
    let mut call = Map::new();
    if let Some(id) = id {
        call.insert("id".into(), Value::String(id.into()));
    }
    call.insert("name".into(), Value::String(name.into()));
    call.insert("args".into(), args);
    part(json!({ "functionCall": call }))
}

/// What a tool said: `output` for a result, `error` for a failure.
pub(super) enum Outcome {
    Output(Value),
    Error(Value),
}

pub(super) fn response_part(
    id: Option<&str>,
    name: Option<&str>,
    outcome: Outcome,
    nested: Vec<Part>,
) -> Result<Part, Error> {
    let mut response = Map::new();
    if let Some(id) = id {
        response.insert("id".into(), Value::String(id.into()));
    }
    if let Some(name) = name {
        response.insert("name".into(), Value::String(name.into()));
    }
    response.insert(
        "response".into(),
        match outcome {
            Outcome::Output(v) => json!({ "output": v }),
            Outcome::Error(v) => json!({ "error": v }),
        },
    );
    if !nested.is_empty() {
        response.insert(
            "parts".into(),
            Value::Array(nested.into_iter().map(Value::from).collect()),
        );
    }
    part(json!({ "functionResponse": response }))
}

/// Media sent inline: the kind and MIME type are all the core needs (it
/// counts `imageTokenEstimate` and shows a placeholder to the summarizer),
/// so the bytes are not copied.
pub(super) fn inline_media(mime_type: &str) -> Result<Part, Error> {
    part(json!({ "inlineData": { "mimeType": mime_type } }))
}

/// Media by reference (a URL or a provider file id).
pub(super) fn file_media(mime_type: &str, uri: &str) -> Result<Part, Error> {
    part(json!({ "fileData": { "mimeType": mime_type, "fileUri": uri } }))
}

/// Media from a URL that may be a `data:` URL (inline) or a link.
pub(super) fn url_media(url: &str, fallback_mime: &str) -> Result<Part, Error> {
    match data_url_mime(url) {
        Some(mime) => inline_media(mime),
        None => file_media(fallback_mime, url),
    }
}

/// The MIME type of a `data:<mime>;base64,` URL.
pub(super) fn data_url_mime(url: &str) -> Option<&str> {
    let rest = url.strip_prefix("data:")?;
    let end = rest.find([';', ','])?;
    rest.get(..end).filter(|m| !m.is_empty())
}

/// A block this reader does not know, kept whole and counted by its JSON;
/// wrapped when its fields would make it read as a known part.
pub(super) fn unknown_part(block: &Value) -> Part {
    match Part::from_value(block.clone(), "part") {
        Ok(p) if matches!(p.kind(), PartKind::Unknown) => p,
        _ => {
            let mut map = Map::new();
            map.insert("block".into(), block.clone());
            // An object whose only field is "block" is an unknown part.
            Part::from_value(Value::Object(map), "part").unwrap_or_else(|_| Part::text(""))
        }
    }
}

/// Texts joined for a tool output the model reads as one text.
pub(super) fn join_texts(texts: &[String]) -> String {
    crate::read::join(texts, "\n")
}
