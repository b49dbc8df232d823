//! JSON text (RFC 8259) read into a [`Value`], with one tolerance: a lone
//! surrogate escape (`"\ud800"` without its low half, or a lone
//! `"\udc00"`), which ES2019 `JSON.stringify` writes for a JS string
//! holding one, reads as U+FFFD.
//!
//! Nesting deeper than [`RECURSION_LIMIT`] is an error, never a stack
//! overflow. Errors say what was wrong and where (`expected value at line 1
//! column 7`).

use crate::prelude::*;

use core::fmt;

use super::number::parse_decimal;
use super::value::{Map, Value};

/// How deep arrays and objects may nest in [`from_str`] (serde_json's
/// limit, which this reader replaced). The input layer reads with a lower
/// one ([`crate::MAX_DEPTH`]) and names the path of a too-deep value.
pub const RECURSION_LIMIT: usize = 128;

/// Why JSON text could not be read, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    what: &'static str,
    line: usize,
    column: usize,
}

impl ParseError {
    /// What was wrong (`"expected value"`).
    pub fn what(&self) -> &'static str {
        self.what
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = String::from(self.what);
        text.push_str(" at line ");
        super::number::write_u64(&mut text, self.line as u64);
        text.push_str(" column ");
        super::number::write_u64(&mut text, self.column as u64);
        f.write_str(&text)
    }
}

impl core::error::Error for ParseError {}

impl core::str::FromStr for Value {
    type Err = ParseError;

    /// JSON text read as `JSON.parse` reads it.
    fn from_str(text: &str) -> Result<Value, ParseError> {
        from_str(text)
    }
}

/// Reads JSON text into a value.
///
/// ```
/// use compaction_core::Value;
/// let v: Value = r#"{"a": [1, "\ud800x"]}"#.parse().unwrap();
/// assert_eq!(v["a"][1], "\u{fffd}x");
/// assert!("[1,]".parse::<Value>().is_err());
/// ```
pub fn from_str(text: &str) -> Result<Value, ParseError> {
    from_str_nested(text, RECURSION_LIMIT)
}

/// Reads JSON text nested at most `limit` deep.
pub fn from_str_nested(text: &str, limit: usize) -> Result<Value, ParseError> {
    let mut parser = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        depth: 0,
        limit,
        digits: Vec::new(),
    };
    let value = parser.value()?;
    parser.skip_whitespace();
    if parser.pos < parser.bytes.len() {
        return Err(parser.error("trailing characters"));
    }
    Ok(value)
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
    limit: usize,
    /// A number's digits, reused from number to number.
    digits: Vec<u8>,
}

impl Parser<'_> {
    #[cold]
    fn error(&self, what: &'static str) -> ParseError {
        let upto = &self.bytes[..self.pos.min(self.bytes.len())];
        let line = 1 + upto.iter().filter(|&&b| b == b'\n').count();
        let line_start = upto.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        // Columns count characters, not bytes, the one at fault included.
        let column = upto[line_start..]
            .iter()
            .filter(|&&b| b & 0xC0 != 0x80)
            .count()
            + usize::from(self.pos < self.bytes.len());
        ParseError { what, line, column }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    /// The next non-blank byte, consumed.
    fn next_token(&mut self) -> Option<u8> {
        self.skip_whitespace();
        let b = self.peek()?;
        self.pos += 1;
        Some(b)
    }

    fn value(&mut self) -> Result<Value, ParseError> {
        self.skip_whitespace();
        let Some(b) = self.peek() else {
            return Err(self.error("EOF while parsing a value"));
        };
        match b {
            b'"' => {
                self.pos += 1;
                Ok(Value::String(self.string()?))
            }
            b'-' | b'0'..=b'9' => self.number().map(Value::Number),
            b'[' | b'{' => {
                self.depth += 1;
                if self.depth > self.limit {
                    return Err(self.error("recursion limit exceeded"));
                }
                self.pos += 1;
                let value = if b == b'[' {
                    self.array()
                } else {
                    self.object()
                };
                self.depth -= 1;
                value
            }
            b't' => self.word(b"true", Value::Bool(true)),
            b'f' => self.word(b"false", Value::Bool(false)),
            b'n' => self.word(b"null", Value::Null),
            _ => Err(self.error("expected value")),
        }
    }

    fn word(&mut self, word: &[u8], value: Value) -> Result<Value, ParseError> {
        for &expected in word {
            match self.peek() {
                Some(b) if b == expected => self.pos += 1,
                Some(_) => return Err(self.error("expected ident")),
                None => return Err(self.error("EOF while parsing a value")),
            }
        }
        Ok(value)
    }

    fn array(&mut self) -> Result<Value, ParseError> {
        let mut items = Vec::new();
        self.skip_whitespace();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Value::Array(items));
        }
        loop {
            items.push(self.value()?);
            match self.next_token() {
                Some(b',') => {}
                Some(b']') => return Ok(Value::Array(items)),
                Some(_) => {
                    self.pos -= 1;
                    return Err(self.error("expected `,` or `]`"));
                }
                None => return Err(self.error("EOF while parsing a list")),
            }
            self.skip_whitespace();
            if self.peek() == Some(b']') {
                return Err(self.error("trailing comma"));
            }
        }
    }

    fn object(&mut self) -> Result<Value, ParseError> {
        let mut entries: Vec<(String, Value)> = Vec::new();
        match self.next_token() {
            Some(b'}') => return Ok(Value::Object(Map::new())),
            Some(b'"') => {}
            Some(_) => {
                self.pos -= 1;
                return Err(self.error("key must be a string"));
            }
            None => return Err(self.error("EOF while parsing an object")),
        }
        loop {
            let key = self.string()?;
            match self.next_token() {
                Some(b':') => {}
                Some(_) => {
                    self.pos -= 1;
                    return Err(self.error("expected `:`"));
                }
                None => return Err(self.error("EOF while parsing an object")),
            }
            let value = self.value()?;
            entries.push((key, value));
            match self.next_token() {
                Some(b',') => {}
                Some(b'}') => return Ok(Value::Object(dedupe(entries))),
                Some(_) => {
                    self.pos -= 1;
                    return Err(self.error("expected `,` or `}`"));
                }
                None => return Err(self.error("EOF while parsing an object")),
            }
            match self.next_token() {
                Some(b'"') => {}
                Some(b'}') => {
                    self.pos -= 1;
                    return Err(self.error("trailing comma"));
                }
                Some(_) => {
                    self.pos -= 1;
                    return Err(self.error("key must be a string"));
                }
                None => return Err(self.error("EOF while parsing a value")),
            }
        }
    }

    /// A string's contents, after its opening quote.
    fn string(&mut self) -> Result<String, ParseError> {
        let mut out = String::new();
        loop {
            let start = self.pos;
            let rest = &self.bytes[start..];
            self.pos += rest
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                .unwrap_or(rest.len());
            // The stops are ASCII bytes: char boundaries of the text.
            out.push_str(self.text.get(start..self.pos).unwrap_or_default());
            match self.peek() {
                None => return Err(self.error("EOF while parsing a string")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    self.escape(&mut out)?;
                }
                Some(_) => {
                    return Err(self.error(
                        "control character (\\u0000-\\u001F) found while parsing a string",
                    ));
                }
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), ParseError> {
        let Some(b) = self.peek() else {
            return Err(self.error("EOF while parsing a string"));
        };
        self.pos += 1;
        let c = match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let unit = self.hex4()?;
                if (0xD800..0xDC00).contains(&unit)
                    && self.bytes.get(self.pos..self.pos + 2) == Some(b"\\u")
                {
                    let at = self.pos;
                    self.pos += 2;
                    let low = self.hex4()?;
                    if (0xDC00..0xE000).contains(&low) {
                        let c = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                        char::from_u32(c).unwrap_or('\u{fffd}')
                    } else {
                        // A lone high half; the next escape is read anew.
                        self.pos = at;
                        '\u{fffd}'
                    }
                } else {
                    // A lone surrogate reads as U+FFFD.
                    char::from_u32(unit).unwrap_or('\u{fffd}')
                }
            }
            _ => {
                self.pos -= 1;
                return Err(self.error("invalid escape"));
            }
        };
        out.push(c);
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let mut unit = 0;
        for _ in 0..4 {
            let Some(b) = self.peek() else {
                return Err(self.error("EOF while parsing a string"));
            };
            let Some(digit) = char::from(b).to_digit(16) else {
                return Err(self.error("invalid escape"));
            };
            unit = unit * 16 + digit;
            self.pos += 1;
        }
        Ok(unit)
    }

    fn number(&mut self) -> Result<f64, ParseError> {
        let negative = self.peek() == Some(b'-');
        if negative {
            self.pos += 1;
        }
        self.digits.clear();
        // The integer part: 0, or digits not starting with 0.
        match self.peek() {
            Some(b'0') => {
                self.pos += 1;
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(self.error("invalid number"));
                }
                self.digits.push(b'0');
            }
            Some(b'1'..=b'9') => self.take_digits(),
            _ => return Err(self.error("invalid number")),
        }
        let mut exp10: i64 = 0;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            let before = self.digits.len();
            self.take_digits();
            if self.digits.len() == before {
                return Err(self.error("invalid number"));
            }
            exp10 -= (self.digits.len() - before) as i64;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            let negative_exp = match self.peek() {
                Some(b'-') => {
                    self.pos += 1;
                    true
                }
                Some(b'+') => {
                    self.pos += 1;
                    false
                }
                _ => false,
            };
            let start = self.pos;
            let mut exp: i64 = 0;
            while let Some(d @ b'0'..=b'9') = self.peek() {
                // Saturates far beyond any double's range.
                exp = (exp * 10 + i64::from(d - b'0')).min(1_000_000_000);
                self.pos += 1;
            }
            if self.pos == start {
                return Err(self.error("invalid number"));
            }
            exp10 += if negative_exp { -exp } else { exp };
        }
        let Some(value) = self
            .fast_number(exp10)
            .or_else(|| parse_decimal(&self.digits, exp10))
        else {
            return Err(self.error("number out of range"));
        };
        if value.is_infinite() {
            return Err(self.error("number out of range"));
        }
        Ok(if negative { -value } else { value })
    }

    fn take_digits(&mut self) {
        while let Some(d @ b'0'..=b'9') = self.peek() {
            self.digits.push(d);
            self.pos += 1;
        }
    }

    /// Integers and short decimals, exactly, without the general reader.
    fn fast_number(&self, exp10: i64) -> Option<f64> {
        if self.digits.len() > 15 || !(-22..=0).contains(&exp10) {
            return None;
        }
        let mantissa = self
            .digits
            .iter()
            .fold(0u64, |n, &d| n * 10 + u64::from(d - b'0')) as f64;
        Some(if exp10 == 0 {
            mantissa
        } else {
            mantissa / super::number::pow10(exp10.unsigned_abs() as usize)
        })
    }
}

/// The object's entries with each key once: its first place, its last
/// value (as `JSON.parse`). Duplicates are rare (`JSON.stringify` never
/// writes one), and the check is cheap: pairwise for a small object, a
/// hash map of first places (linear) for a large one.
fn dedupe(entries: Vec<(String, Value)>) -> Map {
    if entries.len() <= 8 {
        let duplicate = entries
            .iter()
            .enumerate()
            .any(|(i, (k, _))| entries[..i].iter().any(|(other, _)| other == k));
        if !duplicate {
            return Map::from_entries(entries);
        }
        let mut map = Map::new();
        map.extend(entries);
        return map;
    }
    // Each entry's place is the first entry with its key. Found by sorting
    // the entries' numbers by key, then number: O(n log n) comparisons
    // whatever the keys, where a hash table could be made quadratic by
    // keys chosen to collide (a tool's JSON output comes from anywhere).
    let mut order: Vec<usize> = (0..entries.len()).collect();
    crate::sort::heapsort_by(&mut order, &|&a, &b| {
        (entries[a].0.as_str(), a) < (entries[b].0.as_str(), b)
    });
    let mut places: Vec<usize> = vec![0; entries.len()];
    let mut run_first = 0;
    for (n, &i) in order.iter().enumerate() {
        if n == 0 || entries[order[n - 1]].0 != entries[i].0 {
            run_first = i;
        }
        places[i] = run_first;
    }
    if places.iter().enumerate().all(|(i, &p)| p == i) {
        return Map::from_entries(entries);
    }
    let mut slots: Vec<Option<(String, Value)>> = Vec::new();
    slots.resize_with(entries.len(), || None);
    // A later value overwrites an earlier one in the key's first place.
    for (entry, place) in entries.into_iter().zip(places) {
        slots[place] = Some(entry);
    }
    Map::from_entries(slots.into_iter().flatten().collect())
}
