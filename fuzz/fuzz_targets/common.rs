//! What every target checks of a json_api answer, and a reader of fuzz bytes.

use compaction_core::Value;

/// The error codes a JS host may see (`CompactionErrorCode` in types.d.ts).
pub const CODES: [&str; 8] = [
    "INVALID_WINDOW",
    "INVALID_ARGUMENT",
    "INVALID_CONTENT",
    "INVALID_SETTINGS",
    "INVALID_STATE",
    "BUSY",
    "STALE_REQUEST",
    "INVALID_ANSWER",
];

/// Parses an envelope and checks its shape: exactly `{"ok": …}` or
/// `{"error": {"code": <a known code>, "message": <non-empty string>}}`.
/// Returns the `ok` value, or `None` for an error.
pub fn envelope(text: &str) -> Option<Value> {
    let value: Value = match text.parse::<Value>() {
        Ok(v) => v,
        Err(e) => panic!("not JSON ({e}): {text}"),
    };
    let Value::Object(map) = value else { panic!("not an object: {text}") };
    assert_eq!(map.len(), 1, "an envelope has one key: {text}");
    if let Some(ok) = map.get("ok") {
        return Some(ok.clone());
    }
    let error = map.get("error").unwrap_or_else(|| panic!("neither ok nor error: {text}"));
    let code = error["code"].as_str().unwrap_or_else(|| panic!("error without a code: {text}"));
    assert!(CODES.contains(&code), "unknown code {code}: {text}");
    let message = error["message"].as_str().unwrap_or_else(|| panic!("no message: {text}"));
    assert!(!message.is_empty(), "empty message: {text}");
    None
}

/// Reads fuzz bytes as a stream of small decisions.
pub struct Bytes<'a>(pub &'a [u8]);

impl Bytes<'_> {
    pub fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }

    #[allow(dead_code)] // chat_events only
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// A number: mostly plausible windows and counts, sometimes odd ones.
    pub fn number(&mut self) -> f64 {
        match self.byte() % 12 {
            0 => f64::NAN,
            1 => f64::INFINITY,
            2 => -1.0,
            3 => 0.0,
            4 => 1e21,
            5 => 9_007_199_254_740_993.0,
            6 => 5e-324,
            7 => f64::from(self.byte()) * 1_000.0,
            _ => f64::from(u16::from_le_bytes([self.byte(), self.byte()])) * 10.0,
        }
    }

    /// Up to `max` bytes as a string (lossy UTF-8).
    pub fn text(&mut self, max: usize) -> String {
        let n = (self.byte() as usize).min(max).min(self.0.len());
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        String::from_utf8_lossy(head).into_owned()
    }
}

/// Whether a JSON value is what JS reads as a non-negative whole number
/// (`JSON.parse` reads `5` and `5.0` alike).
pub fn is_count(value: &Value) -> bool {
    value.as_f64().is_some_and(|n| n.is_finite() && n >= 0.0 && n.fract() == 0.0)
}
