//! Loading the compaction settings from a parsed settings file.
//!
//! Keys are read nested (`{ "compaction": { "excludeMessages": 3 } }`) or
//! dotted (`{ "compaction.excludeMessages": 3 }`). The removed
//! `chatCompression.contextPercentageThreshold` is ignored with a warning
//! and never fails a load. There is no environment-variable override and no
//! on/off switch: the ladder is built in.

use crate::prelude::*;

use crate::json::{Value, json_object};

use crate::error::{Error, ErrorCode};
use crate::estimate::DEFAULT_IMAGE_TOKEN_ESTIMATE;
use crate::read::{IMAGE_TOKEN_ESTIMATE, PERCENT, Rule, SMALL_COUNT, describe};
pub use crate::retention::{DEFAULT_EXCLUDE_CONTEXT_WINDOW_PERCENT, DEFAULT_EXCLUDE_MESSAGES};

/// The warning printed when the removed threshold setting is present.
pub const REMOVED_THRESHOLD_WARNING: &str = "chatCompression.contextPercentageThreshold has been removed and is now \
     controlled by built-in thresholds. The value is ignored; remove the key to silence this warning.";

/// The settings this library reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// `chatCompression.imageTokenEstimate`: tokens per image or document.
    pub image_token_estimate: f64,
    /// `compaction.excludeMessages`: recent message pairs kept verbatim.
    pub exclude_messages: u32,
    /// `compaction.excludeContextWindowPercent`: percent of the window kept
    /// as recent messages.
    pub exclude_context_window_percent: f64,
}

json_object! {
    Settings {
        image_token_estimate: "imageTokenEstimate",
        exclude_messages: "excludeMessages",
        exclude_context_window_percent: "excludeContextWindowPercent",
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            image_token_estimate: DEFAULT_IMAGE_TOKEN_ESTIMATE,
            exclude_messages: DEFAULT_EXCLUDE_MESSAGES,
            exclude_context_window_percent: DEFAULT_EXCLUDE_CONTEXT_WINDOW_PERCENT,
        }
    }
}

/// Settings and the warnings the load produced (the host prints them).
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedSettings {
    /// The validated settings, defaults filled in.
    pub settings: Settings,
    /// One line per warning.
    pub warnings: Vec<String>,
}

json_object! {
    LoadedSettings {
        settings: "settings",
        warnings: "warnings",
    }
}

/// Loads settings from a parsed settings object. `null` or a missing
/// section gives the defaults.
///
/// ```
/// let loaded = compaction_core::load_settings(&compaction_core::json!({
///     "chatCompression": { "contextPercentageThreshold": 0.5 }
/// })).unwrap();
/// assert_eq!(loaded.warnings.len(), 1);
/// assert_eq!(loaded.settings, compaction_core::Settings::default());
/// ```
pub fn load_settings(value: &Value) -> Result<LoadedSettings, Error> {
    if !matches!(value, Value::Object(_) | Value::Null) {
        return Err(invalid(format!(
            "settings must be an object, got {}",
            describe(value)
        )));
    }
    let mut warnings = Vec::new();
    if lookup(value, "chatCompression", "contextPercentageThreshold")?.is_some() {
        warnings.push(REMOVED_THRESHOLD_WARNING.to_string());
    }
    let mut settings = Settings::default();
    // The same rules as the options, reported as settings errors.
    let read = |section: &str, key: &str, rule: Rule| -> Result<Option<f64>, Error> {
        match lookup(value, section, key)? {
            Some(v) => Ok(Some(
                rule.with_code(ErrorCode::InvalidSettings)
                    .read(&format!("{section}.{key}"), v)?,
            )),
            None => Ok(None),
        }
    };
    if let Some(n) = read(
        "chatCompression",
        "imageTokenEstimate",
        IMAGE_TOKEN_ESTIMATE,
    )? {
        settings.image_token_estimate = n;
    }
    if let Some(n) = read("compaction", "excludeMessages", SMALL_COUNT)? {
        settings.exclude_messages = n as u32;
    }
    if let Some(n) = read("compaction", "excludeContextWindowPercent", PERCENT)? {
        settings.exclude_context_window_percent = n;
    }
    Ok(LoadedSettings { settings, warnings })
}

/// Finds `section.key`, nested or dotted. Fails if the section is present
/// but not an object, or if both spellings are present.
fn lookup<'a>(root: &'a Value, section: &str, key: &str) -> Result<Option<&'a Value>, Error> {
    let nested = match root.get(section) {
        None | Some(Value::Null) => None,
        Some(Value::Object(map)) => map.get(key),
        Some(other) => {
            return Err(invalid(format!(
                "{section} must be an object, got {}",
                describe(other)
            )));
        }
    };
    let dotted = root.get(format!("{section}.{key}"));
    match (nested, dotted) {
        (Some(_), Some(_)) => Err(invalid(format!(
            "{section}.{key} is set twice, nested and as a dotted key; keep one"
        ))),
        (found, None) | (None, found) => Ok(found.filter(|v| !v.is_null())),
    }
}

fn invalid(message: String) -> Error {
    Error::new(ErrorCode::InvalidSettings, message)
}
