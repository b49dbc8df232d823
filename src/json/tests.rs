//! The JSON module against Rust's own float reader and printer (natively,
//! in tests only) and against what `JSON.parse` / `JSON.stringify` do.

#![allow(clippy::unwrap_used)]

use crate::prelude::*;

use super::parse::RECURSION_LIMIT;
use super::*;

/// A xorshift generator: reproducible random bits.
struct Bits(u64);

impl Bits {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// What JavaScript's `String(x)` writes, from Rust's shortest round-trip
/// digits (`{:e}`), rearranged into JavaScript's notation.
fn js_string(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap();
    let exp: i64 = exp.parse().unwrap();
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let k = digits.len() as i64;
    let n = exp + 1;
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let rest = if k > 1 {
            format!(".{}", &digits[1..])
        } else {
            String::new()
        };
        let sign = if n - 1 < 0 { '-' } else { '+' };
        format!("{}{rest}e{sign}{}", &digits[..1], (n - 1).abs())
    };
    if x < 0.0 { format!("-{body}") } else { body }
}

fn random_double(bits: &mut Bits) -> f64 {
    loop {
        let x = f64::from_bits(bits.next());
        if x.is_finite() {
            return x;
        }
    }
}

#[test]
fn numbers_are_written_as_javascript_writes_them() {
    for (x, text) in [
        (0.0, "0"),
        (-0.0, "0"),
        (1.0, "1"),
        (-5.0, "-5"),
        (0.1, "0.1"),
        (0.5, "0.5"),
        (1.5e-7, "1.5e-7"),
        (0.000001, "0.000001"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (123456789012345680000.0, "123456789012345680000"),
        (2f64.powi(60), "1152921504606847000"),
        (9007199254740993.0, "9007199254740992"),
        (f64::MAX, "1.7976931348623157e+308"),
        (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
        (5e-324, "5e-324"),
        (0.1 + 0.2, "0.30000000000000004"),
        (1234.5678, "1234.5678"),
    ] {
        assert_eq!(number_to_string(x), text, "{x:e}");
        assert_eq!(js_string(x), text, "the test's own reference, {x:e}");
    }
    assert_eq!(number_to_string(f64::NAN), "NaN");
    assert_eq!(number_to_string(f64::NEG_INFINITY), "-Infinity");
    assert_eq!(to_string(&f64::NAN), "null");
    // In JSON, negative zero keeps its sign (a saved window of -0 restores
    // as -0).
    assert_eq!(to_string(&-0.0), "-0");
    let back = from_str("-0").unwrap().as_f64().unwrap();
    assert!(back == 0.0 && back.is_sign_negative());
}

#[test]
fn random_doubles_round_trip_bit_exactly_in_the_shortest_form() {
    let mut bits = Bits(0x9E37_79B9_7F4A_7C15);
    for i in 0..6_000 {
        let x = match i % 4 {
            // Any bit pattern: every exponent, subnormals included.
            0 => random_double(&mut bits),
            // Values a chat holds: counts, percents, ratios.
            1 => (bits.next() % 10_000_000) as f64 / 100.0,
            2 => (bits.next() >> 11) as f64 / (1u64 << 53) as f64,
            _ => f64::from_bits(bits.next() % 0x0010_0000_0000_0000), // subnormal
        };
        let text = number_to_string(x);
        let rust = js_string(x);
        if text != rust {
            // A tie between the two closest candidates: V8 takes the even
            // one (as ECMAScript recommends), Rust's printer the upper one.
            let last = |s: &str| s.split('e').next().unwrap().bytes().next_back().unwrap() - b'0';
            assert!(
                text.len() == rust.len()
                    && last(&text).is_multiple_of(2)
                    && last(&rust) == last(&text) + 1,
                "{x:e}: {text} vs {rust}"
            );
            assert_eq!(rust.parse::<f64>().unwrap(), x, "{rust}");
        }
        let back = from_str(&text).unwrap().as_f64().unwrap();
        let expected = if x == 0.0 { 0 } else { x.to_bits() };
        assert_eq!(back.to_bits(), expected, "{text}");
    }
}

#[test]
fn numbers_are_read_as_rust_reads_them() {
    let mut bits = Bits(0xD1B5_4A32_D192_ED03);
    let mut texts: Vec<String> = [
        "0",
        "-0",
        "1e400",
        "1e-400",
        "2.4703282292062327e-324",
        "2.4703282292062328e-324",
        "4.9406564584124654e-324",
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "9007199254740993",
        "9007199254740992.5",
        "0.1",
        "123456789012345678901234567890",
        "2.2250738585072011e-308",
        "2.2250738585072012e-308",
        "7.2057594037927933e16",
        "1e23",
        "8.9255e-313",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for _ in 0..2_000 {
        let x = random_double(&mut bits);
        // Rust's 17-digit form (not the shortest): the exact reader's path.
        texts.push(format!("{x:.16e}"));
        let digits = bits.next() % 25;
        let mantissa: String = core::iter::once(char::from(b'1' + (bits.next() % 9) as u8))
            .chain((0..digits).map(|_| char::from(b'0' + (bits.next() % 10) as u8)))
            .collect();
        let exp = (bits.next() % 700) as i64 - 350;
        texts.push(format!("{mantissa}e{exp}"));
    }
    // A halfway case with many digits: 2^-1075 · 3, just above and below.
    let long_half = format!("1.{}e-5", "0".repeat(800));
    texts.push(long_half);
    for text in &texts {
        let rust: f64 = text.parse().unwrap();
        match from_str(text) {
            Ok(value) => assert_eq!(value.as_f64().unwrap().to_bits(), rust.to_bits(), "{text}"),
            Err(e) => {
                assert!(rust.is_infinite(), "{text}: {e}");
                assert_eq!(e.what(), "number out of range");
            }
        }
    }
}

#[test]
fn strings_are_escaped_as_json_stringify_escapes_them() {
    let text = "q\"b\\s/\u{8}\u{c}\n\r\t\u{0}\u{1f}\u{7f}é😀\u{2028}";
    assert_eq!(
        to_string(text),
        r#""q\"b\\s/\b\f\n\r\t\u0000\u001f"#.to_string() + "\u{7f}é😀\u{2028}\""
    );
    assert_eq!(from_str(&to_string(text)).unwrap(), text);
}

#[test]
fn escapes_and_surrogates_are_read() {
    let v = from_str(
        r#"["\u00e9\uD83D\uDE00\/", "\ud800", "\udc00x", "\ud800\ud800\udc00", "\ud800\u0041"]"#,
    )
    .unwrap();
    assert_eq!(v[0], "é😀/");
    assert_eq!(v[1], "\u{fffd}");
    assert_eq!(v[2], "\u{fffd}x");
    assert_eq!(v[3], "\u{fffd}\u{10000}");
    assert_eq!(v[4], "\u{fffd}A");
}

#[test]
fn objects_keep_their_order_and_the_last_of_a_repeated_key() {
    let v = from_str(r#"{"z": 1, "a": 2, "z": 3}"#).unwrap();
    assert_eq!(to_string(&v), r#"{"z":3,"a":2}"#);
    let many: String = (0..20).map(|i| format!("\"k{}\":{i},", i % 10)).collect();
    let v = from_str(&format!("{{{}\"end\":true}}", many)).unwrap();
    assert_eq!(v.as_object().unwrap().len(), 11);
    assert_eq!(v["k3"], 13);
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    let expected: Vec<String> = (0..10)
        .map(|i| format!("k{i}"))
        .chain(["end".into()])
        .collect();
    assert_eq!(keys, expected);
    // A large object, every key twice: each keeps its first place and its
    // last value (the reader sorts the keys, in O(n log n) whatever they
    // are, to find repeats).
    let n = 50_000;
    let text: String = (0..2 * n)
        .map(|i| format!("\"key{}\":{i},", i % n))
        .collect();
    let v = from_str(&format!("{{{}\"end\":0}}", text)).unwrap();
    let map = v.as_object().unwrap();
    assert_eq!(map.len(), n + 1);
    assert_eq!(map.keys().nth(12_345).unwrap(), "key12345");
    assert_eq!(v["key12345"], 12_345 + n as u64);
    // Equality is a map's: order does not matter.
    assert_eq!(json!({ "a": 1, "b": 2 }), json!({ "b": 2, "a": 1 }));
    assert_ne!(json!({ "a": 1 }), json!({ "a": 1, "b": 2 }));
}

#[test]
fn values_round_trip_through_text() {
    let text = r#"{"s":"x","n":-1.25e-7,"b":[true,false,null],"o":{"":{}},"e":[]}"#;
    let v = from_str(text).unwrap();
    assert_eq!(
        to_string(&v),
        r#"{"s":"x","n":-1.25e-7,"b":[true,false,null],"o":{"":{}},"e":[]}"#
    );
    assert_eq!(from_str(" \n\t[ 1 , 2 ]\r\n").unwrap(), json!([1, 2]));
}

#[test]
fn malformed_text_is_a_typed_error_with_its_place() {
    for (text, what) in [
        ("", "EOF while parsing a value"),
        ("[1,]", "trailing comma"),
        ("{\"a\":1,}", "trailing comma"),
        ("[1 2]", "expected `,` or `]`"),
        ("{\"a\" 1}", "expected `:`"),
        ("{1:2}", "key must be a string"),
        ("01", "invalid number"),
        ("1.", "invalid number"),
        ("1e", "invalid number"),
        ("-", "invalid number"),
        ("+1", "expected value"),
        ("\"a", "EOF while parsing a string"),
        (
            "\"\u{1}\"",
            "control character (\\u0000-\\u001F) found while parsing a string",
        ),
        ("\"\\x\"", "invalid escape"),
        ("\"\\u12G4\"", "invalid escape"),
        ("tru", "EOF while parsing a value"),
        ("nul1", "expected ident"),
        ("[1] x", "trailing characters"),
        ("NaN", "expected value"),
        ("1e999", "number out of range"),
    ] {
        let err = from_str(text).unwrap_err();
        assert_eq!(err.what(), what, "{text:?}");
    }
    assert_eq!(
        from_str("[\n  1,\n  x]").unwrap_err().to_string(),
        "expected value at line 3 column 3"
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let ok = format!(
        "{}{}",
        "[".repeat(RECURSION_LIMIT),
        "]".repeat(RECURSION_LIMIT)
    );
    assert!(from_str(&ok).is_ok());
    let deep = "[".repeat(RECURSION_LIMIT + 1);
    assert_eq!(
        from_str(&deep).unwrap_err().what(),
        "recursion limit exceeded"
    );
    let hostile = "{\"a\":".repeat(100_000);
    assert_eq!(
        from_str(&hostile).unwrap_err().what(),
        "recursion limit exceeded"
    );
}

#[test]
fn the_macro_builds_what_the_text_says() {
    let x = 2;
    let name = String::from("k");
    let v = json!({
        "a": [1, [x, null], { "b": null }],
        (name.as_str()): x + 1,
        "none": Option::<u32>::None,
        "t": true,
    });
    assert_eq!(
        to_string(&v),
        r#"{"a":[1,[2,null],{"b":null}],"k":3,"none":null,"t":true}"#
    );
    assert_eq!(json!(null), Value::Null);
    assert_eq!(json!([]), Value::Array(Vec::new()));
    assert_eq!(json!("s"), "s");
    // JSON holds no NaN or infinity: built from one, a value is null.
    assert_eq!(json!([f64::NAN, f64::INFINITY]), json!([null, null]));
}

#[test]
fn values_index_like_serde_json() {
    let mut v = json!({ "a": [10, { "b": "c" }] });
    assert_eq!(v["a"][1]["b"], "c");
    assert!(v["missing"]["deeper"].is_null());
    assert_eq!(v.pointer("/a/1/b"), Some(&json!("c")));
    assert_eq!(
        v.get("a").and_then(|a| a.get(0)).and_then(Value::as_u64),
        Some(10)
    );
    v["a"][0] = json!(11);
    v["new"]["x"] = json!(true);
    assert_eq!(to_string(&v), r#"{"a":[11,{"b":"c"}],"new":{"x":true}}"#);
    assert_eq!(
        v.as_object_mut().unwrap().remove("a").map(|a| a[0].clone()),
        Some(json!(11))
    );
}
