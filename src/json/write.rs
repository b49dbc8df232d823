//! Values written as compact JSON text, as `JSON.stringify` writes them:
//! the same escapes (`\"`, `\\`, `\b \f \n \r \t`, other control
//! characters as `\u00XX`, nothing else), numbers as JavaScript writes them
//! ([`super::number::write_number`]), a non-finite number as `null`, and
//! negative zero as `-0` (its sign kept).
//!
//! [`ToJson`] is how the library's types write themselves; an object is
//! written field by field with [`ObjectWriter`], so that a large result
//! (a summary request holds the whole summarized history) is written once,
//! without an intermediate value.

use crate::prelude::*;

use super::number::write_number;
use super::value::{Map, Value};

/// A type that writes itself as JSON text.
pub trait ToJson {
    /// Appends this value's JSON text to `out`.
    fn write_json(&self, out: &mut String);

    /// This value as compact JSON text, as `JSON.stringify` writes it.
    fn to_json_string(&self) -> String {
        let mut text = String::new();
        self.write_json(&mut text);
        text
    }

    /// This value as a [`Value`] (by default, its text read back).
    fn to_json(&self) -> Value {
        let mut text = String::new();
        self.write_json(&mut text);
        super::from_str(&text).unwrap_or(Value::Null)
    }
}

/// The object-safe half of [`ToJson`], implemented for every `ToJson`
/// type: what [`ObjectWriter`] takes as `&dyn WriteJson`. The vtable of a
/// `&dyn ToJson` holds `to_json` too, which linked a `to_json` into the wasm
/// for every type written as a field (size, docs/performance.md); this one holds the writer
/// alone.
pub trait WriteJson {
    /// Appends this value's JSON text to `out` ([`ToJson::write_json`]).
    fn write_to(&self, out: &mut String);
}

impl<T: ToJson + ?Sized> WriteJson for T {
    fn write_to(&self, out: &mut String) {
        self.write_json(out);
    }
}

/// Writes a JSON object field by field: `{`, then each
/// [`field`](ObjectWriter::field), then `}` at [`end`](ObjectWriter::end).
pub struct ObjectWriter<'a> {
    out: &'a mut String,
    first: bool,
}

impl<'a> ObjectWriter<'a> {
    /// Starts an object.
    pub fn new(out: &'a mut String) -> ObjectWriter<'a> {
        out.push('{');
        ObjectWriter { out, first: true }
    }

    /// Writes `"key": value`.
    pub fn field(&mut self, key: &str, value: &dyn WriteJson) -> &mut Self {
        self.key(key);
        value.write_to(self.out);
        self
    }

    /// Writes `"key": value` when there is a value; nothing for `None`.
    pub fn optional(&mut self, key: &str, value: Option<&dyn WriteJson>) -> &mut Self {
        if let Some(value) = value {
            self.field(key, value);
        }
        self
    }

    /// Writes `"key":` and hands back the text for the value, which the
    /// caller must write next.
    pub fn key(&mut self, key: &str) -> &mut String {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        write_str(self.out, key);
        self.out.push(':');
        self.out
    }

    /// Ends the object.
    pub fn end(self) {
        self.out.push('}');
    }
}

/// Appends a JSON string literal.
pub fn write_str(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(s.len() + 2);
    out.push('"');
    let mut rest = s;
    // Runs of bytes that need no escape are copied whole; every stop is an
    // ASCII byte, so the slices fall on char boundaries.
    while let Some(i) = rest
        .bytes()
        .position(|b| b == b'"' || b == b'\\' || b < 0x20)
    {
        out.push_str(rest.get(..i).unwrap_or_default());
        let b = rest.as_bytes()[i];
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            _ => {
                out.push_str("\\u00");
                out.push(char::from(HEX[usize::from(b >> 4)]));
                out.push(char::from(HEX[usize::from(b & 0xf)]));
            }
        }
        rest = rest.get(i + 1..).unwrap_or_default();
    }
    out.push_str(rest);
    out.push('"');
}

/// Appends a number as JSON: as JavaScript writes it, `null` when not
/// finite, and `-0` for negative zero (which `JSON.parse` reads back as
/// `-0`, so a saved state or a result keeps its sign bit; `JSON.stringify`
/// would write `0`).
fn write_f64(out: &mut String, n: f64) {
    if n == 0.0 && n.is_sign_negative() {
        out.push_str("-0");
    } else if n.is_finite() {
        write_number(out, n);
    } else {
        out.push_str("null");
    }
}

impl ToJson for Value {
    fn write_json(&self, out: &mut String) {
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => b.write_json(out),
            Value::Number(n) => write_f64(out, *n),
            Value::String(s) => write_str(out, s),
            Value::Array(items) => items.write_json(out),
            Value::Object(map) => map.write_json(out),
        }
    }
    fn to_json(&self) -> Value {
        self.clone()
    }
}

impl ToJson for Map {
    fn write_json(&self, out: &mut String) {
        let mut object = ObjectWriter::new(out);
        for (k, v) in self {
            object.field(k, v);
        }
        object.end();
    }
    fn to_json(&self) -> Value {
        Value::Object(self.clone())
    }
}

impl ToJson for bool {
    fn write_json(&self, out: &mut String) {
        out.push_str(if *self { "true" } else { "false" });
    }
    fn to_json(&self) -> Value {
        Value::Bool(*self)
    }
}

macro_rules! to_json_number {
    ($($t:ty),*) => {$(
        impl ToJson for $t {
            fn write_json(&self, out: &mut String) {
                write_f64(out, *self as f64);
            }
            fn to_json(&self) -> Value {
                Value::from(*self)
            }
        }
    )*};
}
to_json_number!(u8, u16, u32, u64, usize, i8, i16, i32, i64, f32, f64);

impl ToJson for str {
    fn write_json(&self, out: &mut String) {
        write_str(out, self);
    }
    fn to_json(&self) -> Value {
        Value::String(self.to_string())
    }
}

impl ToJson for String {
    fn write_json(&self, out: &mut String) {
        write_str(out, self);
    }
    fn to_json(&self) -> Value {
        Value::String(self.clone())
    }
}

impl<T: ToJson> ToJson for [T] {
    fn write_json(&self, out: &mut String) {
        out.push('[');
        for (i, item) in self.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            item.write_json(out);
        }
        out.push(']');
    }
    fn to_json(&self) -> Value {
        Value::Array(self.iter().map(ToJson::to_json).collect())
    }
}

impl<T: ToJson, const N: usize> ToJson for [T; N] {
    fn write_json(&self, out: &mut String) {
        self.as_slice().write_json(out);
    }
    fn to_json(&self) -> Value {
        self.as_slice().to_json()
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    fn write_json(&self, out: &mut String) {
        self.as_slice().write_json(out);
    }
    fn to_json(&self) -> Value {
        self.as_slice().to_json()
    }
}

impl<T: ToJson> ToJson for Option<T> {
    fn write_json(&self, out: &mut String) {
        match self {
            Some(value) => value.write_json(out),
            None => out.push_str("null"),
        }
    }
    fn to_json(&self) -> Value {
        self.as_ref().map_or(Value::Null, ToJson::to_json)
    }
}

impl<T: ToJson + ?Sized> ToJson for &T {
    fn write_json(&self, out: &mut String) {
        (**self).write_json(out);
    }
    fn to_json(&self) -> Value {
        (**self).to_json()
    }
}

impl<T: ToJson + ?Sized> ToJson for Box<T> {
    fn write_json(&self, out: &mut String) {
        (**self).write_json(out);
    }
    fn to_json(&self) -> Value {
        (**self).to_json()
    }
}

impl<K: core::borrow::Borrow<str>, T: ToJson> ToJson for crate::StrMap<K, T> {
    fn write_json(&self, out: &mut String) {
        let mut object = ObjectWriter::new(out);
        for (k, v) in self.iter() {
            object.field(k.borrow(), v);
        }
        object.end();
    }
}

/// A string as JSON writes it, quoted and escaped (`"a\"b"`): how error
/// messages quote what the host gave. (Rust's `{:?}` would do too, but it
/// links core's Unicode printability tables and escapes into the wasm, for
/// a quoting that JS users do not read as theirs; docs/performance.md.)
pub(crate) struct Quoted<'a>(pub(crate) &'a str);

impl core::fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut quoted = String::new();
        write_str(&mut quoted, self.0);
        f.write_str(&quoted)
    }
}

/// `null`: what an operation with nothing to return answers.
impl ToJson for () {
    fn write_json(&self, out: &mut String) {
        out.push_str("null");
    }
    fn to_json(&self) -> Value {
        Value::Null
    }
}
