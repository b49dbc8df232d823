//! Reading plain JSON data (options, contexts, saved states) by hand, with
//! errors that name the field, say what it held and what was expected.
//!
//! serde's derived readers say neither which field was wrong nor in words a
//! JS developer expects, and in the wasm module they bring core's float
//! printer along (tens of KB). The JS layer reads everything through these.

use serde_json::{Map, Value};

use crate::error::{Error, ErrorCode, describe};

/// An object's fields, with the path and error code to report against.
pub struct Fields<'a> {
    map: Option<&'a Map<String, Value>>,
    path: &'a str,
    code: ErrorCode,
}

impl<'a> Fields<'a> {
    /// The fields of `value`, which must be an object (`null` reads as an
    /// empty one).
    pub fn of(value: &'a Value, path: &'a str, code: ErrorCode) -> Result<Fields<'a>, Error> {
        match value {
            Value::Object(map) => Ok(Fields {
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
                "{}: unknown field {key:?}; expected one of {}",
                self.path,
                known.join(", ")
            ))),
            None => Ok(()),
        }
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

    /// The largest whole number a JS number holds exactly.
    pub const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

    /// A whole number field in `0..=max`.
    pub fn whole(&self, key: &str, max: f64) -> Result<Option<f64>, Error> {
        self.number(key, "a whole number >= 0", |n| {
            n.fract() == 0.0 && (0.0..=max).contains(&n)
        })
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
        let Some(text) = self.string(key)? else {
            return Ok(None);
        };
        match choices.iter().copied().find(|c| name(*c) == text) {
            Some(choice) => Ok(Some(choice)),
            None => {
                let names: Vec<&str> = choices.iter().map(|c| name(*c)).collect();
                Err(self.error(format!(
                    "{}.{key} must be one of {}, got {text:?}",
                    self.path,
                    names.join(", ")
                )))
            }
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
