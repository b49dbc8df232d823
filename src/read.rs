//! The input layer: everything the library reads from outside goes
//! through here, and each field's rule is written here once.
//!
//! * [`parse_json`] turns JSON text into a value, tolerating lone-surrogate
//!   escapes and refusing nesting past [`MAX_DEPTH`] with the path;
//! * the [`Rule`] constants hold each number rule (a token count, a window,
//!   `imageTokenEstimate`, a percent, …) with the words its errors use, for
//!   options, settings, saved states, tips and the JSON API alike;
//! * [`Fields`] reads an object field by field, with errors that name the
//!   field, say what it held ([`describe`]) and what was expected.
//!
//! Derived readers (serde's) say neither which field was wrong nor in words
//! a JS developer expects, and in the wasm module they brought core's float
//! printer along. Only [`crate::error`] and [`mod@crate::json`]
//! are below this module.

use crate::prelude::*;

use crate::json::Quoted;

use crate::json::{Map, Value};

use crate::error::{Error, ErrorCode, show_number};

/// The number a non-finite marker stands for. In option-like inputs the JS
/// layer writes NaN and ±Infinity, which JSON cannot hold, as
/// `{"$nonFinite": "NaN"}` (or `"Infinity"`, `"-Infinity"`), so that the
/// reader can say which field held one instead of seeing `null`.
pub fn non_finite(value: &Value) -> Option<f64> {
    let Value::Object(map) = value else {
        return None;
    };
    if map.len() != 1 {
        return None;
    }
    match map.get("$nonFinite")?.as_str()? {
        "NaN" => Some(f64::NAN),
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

/// Describes a JSON value's type for error messages ("a string", "null", …).
pub fn describe(value: &Value) -> String {
    if let Some(n) = non_finite(value) {
        return show_number(n);
    }
    // A function or a Symbol, which the JS layer writes as
    // `{"$unwritable": "function"}` (or "Symbol") in option-like inputs.
    if let Value::Object(map) = value
        && map.len() == 1
        && let Some(Value::String(kind)) = map.get("$unwritable")
    {
        return String::from("a ") + kind;
    }
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        // Not `{n}`: that would link core's float printer.
        Value::Number(n) => format!("the number {}", show_number(*n)),
        Value::String(s) if s.chars().count() > 40 => "a string".into(),
        Value::String(s) => format!("the string {s}", s = Quoted(s)),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// `items` joined with `sep`, as `[..].join(sep)`: two small copies in the
/// wasm (`&str` and `String` items) instead of std's per slice type, and no
/// `dyn Iterator`, whose vtable links `nth`, `count` and the rest for every
/// iterator passed (size, docs/performance.md).
pub(crate) fn join<S: AsRef<str>>(items: &[S], sep: &str) -> String {
    let mut out = String::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        out.push_str(item.as_ref());
    }
    out
}

/// The largest count this library holds: 2^53 − 1
/// (`Number.MAX_SAFE_INTEGER`), the largest whole number a JS number holds
/// exactly.
pub const MAX_COUNT: u64 = (1 << 53) - 1;

/// A rule for a number from outside: what it must be, in the words its
/// error uses, and the test.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    /// What the number must be ("a finite number >= 1").
    pub expected: &'static str,
    /// Whether `n` satisfies the rule.
    pub ok: fn(f64) -> bool,
    /// The error code when it does not.
    pub code: ErrorCode,
}

/// A token count passed as a number: finite, ≥ 0.
pub const TOKEN_COUNT: Rule = Rule {
    expected: "a finite number of tokens >= 0",
    ok: |n| n.is_finite() && n >= 0.0,
    code: ErrorCode::InvalidArgument,
};

/// A context window for the stateless ladder: finite, ≥ 0 (the spec's table
/// has a row for 0).
pub const WINDOW: Rule = Rule {
    expected: "a finite number of tokens >= 0",
    ok: |n| n.is_finite() && n >= 0.0,
    code: ErrorCode::InvalidWindow,
};

/// A chat's context window: finite, ≥ 1. A window of 0 would put every
/// threshold at 0 and compact on every send; it is almost always a host that
/// does not know its model's window.
pub const CHAT_WINDOW: Rule = Rule {
    expected: "a finite number of tokens >= 1",
    ok: |n| n.is_finite() && n >= 1.0,
    code: ErrorCode::InvalidWindow,
};

/// `imageTokenEstimate`: tokens per image or document, finite, ≥ 1.
pub const IMAGE_TOKEN_ESTIMATE: Rule = Rule {
    expected: "a finite number >= 1",
    ok: |n| n.is_finite() && n >= 1.0,
    code: ErrorCode::InvalidArgument,
};

/// `excludeContextWindowPercent`: a percent of the window, 0 to 100.
pub const PERCENT: Rule = Rule {
    expected: "a number from 0 to 100",
    ok: |n| (0.0..=100.0).contains(&n),
    code: ErrorCode::InvalidArgument,
};

/// A small count held as `u32` (`excludeMessages`, `consecutiveFailures`,
/// a state's version): a whole number from 0 to 2^32 − 1.
pub const SMALL_COUNT: Rule = Rule {
    expected: "an integer >= 0",
    ok: |n| n.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&n),
    code: ErrorCode::InvalidArgument,
};

/// A count or id held as `u64`: a whole number from 0 to [`MAX_COUNT`].
pub const COUNT: Rule = Rule {
    expected: "an integer >= 0",
    ok: |n| n.fract() == 0.0 && (0.0..=MAX_COUNT as f64).contains(&n),
    code: ErrorCode::InvalidArgument,
};

/// `maxOutputTokens`: the model's output limit, a whole number of tokens
/// from 1 to [`MAX_COUNT`].
pub const MAX_OUTPUT_TOKENS: Rule = Rule {
    expected: "a whole number of tokens >= 1",
    ok: |n| n.fract() == 0.0 && (1.0..=MAX_COUNT as f64).contains(&n),
    code: ErrorCode::InvalidArgument,
};

/// A token budget passed as a number (`slim_message`'s budget): finite, ≥ 0.
pub const TOKEN_BUDGET: Rule = TOKEN_COUNT;

impl Rule {
    /// The same rule, reported with another code (`INVALID_SETTINGS` in a
    /// settings file, `INVALID_STATE` in a saved state).
    pub const fn with_code(self, code: ErrorCode) -> Rule {
        Rule { code, ..self }
    }

    /// Checks a number passed as is; `name` names it in the error.
    pub fn check(&self, name: &str, n: f64) -> Result<f64, Error> {
        if (self.ok)(n) {
            Ok(n)
        } else {
            Err(Error::new(
                self.code,
                format!("{name} must be {}, got {}", self.expected, show_number(n)),
            ))
        }
    }

    /// Reads a JSON value that must be a number under this rule.
    pub fn read(&self, name: &str, value: &Value) -> Result<f64, Error> {
        match value.as_f64() {
            Some(n) if (self.ok)(n) => Ok(n),
            _ => Err(Error::new(
                self.code,
                format!("{name} must be {}, got {}", self.expected, describe(value)),
            )),
        }
    }
}

/// Checks that a token count from outside is a finite number ≥ 0.
pub fn check_count(name: &str, value: f64) -> Result<f64, Error> {
    TOKEN_COUNT.check(name, value)
}

/// An object's fields, with the path and error code to report against.
pub struct Fields<'a> {
    map: Option<&'a Map>,
    path: &'a str,
    code: ErrorCode,
}

impl<'a> Fields<'a> {
    /// The fields of `value`, which must be an object (`null` reads as an
    /// empty one).
    pub fn of(value: &'a Value, path: &'a str, code: ErrorCode) -> Result<Fields<'a>, Error> {
        match value {
            Value::Object(map) if non_finite(value).is_none() => Ok(Fields {
                map: Some(map),
                path,
                code,
            }),
            Value::Null => Ok(Fields {
                map: None,
                path,
                code,
            }),
            other => Err(Error::new(
                code,
                format!("{path} must be an object, got {}", describe(other)),
            )),
        }
    }

    /// Fails on a field not in `known`, listing the known ones (typos
    /// would otherwise be ignored silently).
    pub fn only(&self, known: &[&str]) -> Result<(), Error> {
        let unknown = self
            .map
            .and_then(|map| map.keys().find(|k| !known.contains(&k.as_str())));
        match unknown {
            Some(key) => Err(self.error(format!(
                "{}: unknown field {key}; expected one of {}",
                self.path,
                join(known, ", "),
                key = Quoted(key)
            ))),
            None => Ok(()),
        }
    }

    /// The path reported in errors (`options`, `saved state.options`).
    pub fn path(&self) -> &'a str {
        self.path
    }

    /// The error code reported for this object's fields.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// The field names present.
    pub fn keys(&self) -> impl Iterator<Item = &'a str> {
        self.map
            .into_iter()
            .flat_map(|map| map.keys().map(String::as_str))
    }

    /// A field; `null` counts as absent.
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.map
            .and_then(|map| map.get(key))
            .filter(|v| !v.is_null())
    }

    /// A number field that must satisfy `ok`, described by `expected`.
    pub fn number(
        &self,
        key: &str,
        expected: &str,
        ok: impl Fn(f64) -> bool,
    ) -> Result<Option<f64>, Error> {
        match self.get(key) {
            None => Ok(None),
            Some(value) => match value.as_f64() {
                Some(n) if ok(n) => Ok(Some(n)),
                _ => Err(self.bad(key, value, expected)),
            },
        }
    }

    /// A number field under `rule`, reported with this object's code.
    pub fn rule(&self, key: &str, rule: &Rule) -> Result<Option<f64>, Error> {
        match self.get(key) {
            None => Ok(None),
            Some(value) => rule
                .with_code(self.code)
                .read(&format!("{}.{key}", self.path), value)
                .map(Some),
        }
    }

    /// A `u32` field ([`SMALL_COUNT`]).
    pub fn small_count(&self, key: &str) -> Result<Option<u32>, Error> {
        Ok(self.rule(key, &SMALL_COUNT)?.map(|n| n as u32))
    }

    /// A `u64` field up to [`MAX_COUNT`] ([`COUNT`]).
    pub fn count(&self, key: &str) -> Result<Option<u64>, Error> {
        Ok(self.rule(key, &COUNT)?.map(|n| n as u64))
    }

    /// A boolean field.
    pub fn boolean(&self, key: &str) -> Result<Option<bool>, Error> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(self.bad(key, other, "a boolean")),
        }
    }

    /// A string field.
    pub fn string(&self, key: &str) -> Result<Option<&'a str>, Error> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(self.bad(key, other, "a string")),
        }
    }

    /// A string field naming one of `choices` (`name` gives each one's name).
    pub fn choice<T: Copy>(
        &self,
        key: &str,
        choices: &[T],
        name: impl Fn(T) -> &'static str,
    ) -> Result<Option<T>, Error> {
        let names: Vec<&'static str> = choices.iter().map(|c| name(*c)).collect();
        Ok(self
            .choice_index(key, &names)?
            .and_then(|i| choices.get(i).copied()))
    }

    /// [`Fields::choice`] by name, not generic: the module holds it once.
    fn choice_index(&self, key: &str, names: &[&'static str]) -> Result<Option<usize>, Error> {
        let Some(text) = self.string(key)? else {
            return Ok(None);
        };
        match names.iter().position(|n| *n == text) {
            Some(i) => Ok(Some(i)),
            None => Err(self.error(format!(
                "{}.{key} must be one of {names}, got {text}",
                self.path,
                names = join(names, ", "),
                text = Quoted(text),
            ))),
        }
    }

    /// A required field.
    pub fn required<T>(&self, key: &str, found: Option<T>) -> Result<T, Error> {
        found.ok_or_else(|| self.error(format!("{}.{key} is missing", self.path)))
    }

    /// An error about field `key`.
    pub fn bad(&self, key: &str, value: &Value, expected: &str) -> Error {
        self.error(format!(
            "{}.{key} must be {expected}, got {}",
            self.path,
            describe(value)
        ))
    }

    fn error(&self, message: String) -> Error {
        Error::new(self.code, message)
    }
}

/// How deep arrays and objects may nest in JSON text from outside. Real
/// messages and options stay far below it; the limit keeps a hostile
/// 10 000-deep value from exhausting the (1 MiB, in wasm) stack, and the
/// error names the path.
pub const MAX_DEPTH: usize = 100;

/// Parses JSON text from outside into a value, with two tolerances the JS
/// layer relies on:
///
/// * a lone-surrogate escape (`"\ud800"` without its low half, or a lone
///   `"\udc00"`), which ES2019 `JSON.stringify` writes for a JS string
///   holding one, reads as U+FFFD (what the JS string's one code unit is
///   counted as), never as an error;
/// * nesting deeper than [`MAX_DEPTH`] is an error with `code` that names
///   the path of the too-deep value (`history[3].parts[0]...`).
///
/// Any other malformed text is an error with `code` naming `name`.
pub fn parse_json(text: &str, name: &str, code: ErrorCode) -> Result<Value, Error> {
    // The reader reads lone surrogates as U+FFFD itself and stops past
    // MAX_DEPTH; on an error (rare) the depth is looked at first, so that
    // too deep a text is reported as such even when it is malformed too.
    crate::json::from_str_nested(text, MAX_DEPTH).map_err(|e| {
        if max_depth(text.as_bytes()) > MAX_DEPTH {
            Error::new(
                code,
                format!(
                    "{name}{}: nested more than {MAX_DEPTH} levels",
                    too_deep_path(text.as_bytes())
                ),
            )
        } else {
            Error::new(code, format!("{name} is not valid JSON text: {e}"))
        }
    })
}

/// How deep the text's brackets nest, strings skipped.
fn max_depth(bytes: &[u8]) -> usize {
    let mut max = 0;
    let mut depth = 0usize;
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        match (in_string, bytes[i]) {
            (true, b'"') => in_string = false,
            // An escape is at least two bytes; the second is never a quote
            // that ends the string.
            (true, b'\\') => i += 1,
            (false, b'"') => in_string = true,
            (false, b'[' | b'{') => {
                depth += 1;
                max = max.max(depth);
            }
            (false, b']' | b'}') => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    max
}

/// The path to the first value nested deeper than [`MAX_DEPTH`]: its first
/// few steps, then `...`.
fn too_deep_path(bytes: &[u8]) -> String {
    /// Where the scan is inside one open array or object.
    enum Frame {
        Array(usize),
        Object(Option<String>),
    }
    const SHOWN: usize = 4;
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                let end = i.min(bytes.len());
                if let Some(Frame::Object(key @ None)) = stack.last_mut() {
                    // Between two quotes (or the end) of a text that came
                    // as a `str`: always UTF-8, so nothing is lost here.
                    let text = bytes.get(start..end).unwrap_or_default();
                    *key = Some(core::str::from_utf8(text).unwrap_or_default().to_string());
                }
            }
            b'[' | b'{' => {
                if stack.len() == MAX_DEPTH {
                    let mut path = String::new();
                    for frame in stack.iter().take(SHOWN) {
                        match frame {
                            Frame::Array(index) => path.push_str(&format!("[{index}]")),
                            Frame::Object(Some(key)) => {
                                path.push('.');
                                path.push_str(key);
                            }
                            Frame::Object(None) => {}
                        }
                    }
                    path.push_str("...");
                    return path;
                }
                stack.push(if bytes[i] == b'[' {
                    Frame::Array(0)
                } else {
                    Frame::Object(None)
                });
            }
            b']' | b'}' => {
                stack.pop();
            }
            b',' => match stack.last_mut() {
                Some(Frame::Array(index)) => *index += 1,
                Some(Frame::Object(key)) => *key = None,
                None => {}
            },
            _ => {}
        }
        i += 1;
    }
    String::new()
}
