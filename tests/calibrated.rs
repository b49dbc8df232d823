//! The calibrated estimator: its counts, its output on fixed inputs, and the
//! properties the wasm boundary relies on.
//!
//! The pinned estimates come from the generated table: after
//! `scripts/fit-estimator` changes the table, update them from the failure
//! message (and check `scripts/fidelity --cv 5` first).
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests assert on data they built

use compaction_core::TextEstimator;
use compaction_core::calibrated::{
    CalibratedEstimator, EstimateVariant, FEATURE_NAMES, SPREAD_TOKENS, TextFeatures,
    TokenizerFamily, scan,
};
use compaction_core::json;
use compaction_core::{Map, Value};

fn count(f: &TextFeatures, name: &str) -> u32 {
    let i = FEATURE_NAMES
        .iter()
        .position(|n| *n == name)
        .unwrap_or_else(|| panic!("no count named {name}"));
    f.counts[i]
}

fn obj(v: Value) -> Map {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

fn all_estimators() -> impl Iterator<Item = CalibratedEstimator> {
    TokenizerFamily::ALL.into_iter().flat_map(|f| {
        [EstimateVariant::Calibrated, EstimateVariant::Conservative]
            .map(|v| CalibratedEstimator::new(f, v))
    })
}

#[test]
fn scanner_counts_classes_and_shapes() {
    let text = "parseJSON(x) == 42\n\n    fooBar 😀👍🏽 🇫🇷 Привет ä";
    let f = scan(text);
    let expected = [
        ("latin_letters", 16), // parseJSON, x, fooBar
        ("words", 5),          // parseJSON, x, fooBar, Привет, ä
        ("case_humps", 2),     // eJ, oB
        ("upper_letters", 6),  // J S O N B П
        ("caps_letters", 0),   // JSON is inside a camelCase word
        ("vowels", 6),
        ("consonant_clusters", 0),
        ("rare_bigrams", 1), // "ej", rare in English
        ("latin_ext_letters", 1),
        ("cyrillic_letters", 6),
        ("script_words", 1),     // Привет
        ("long_word_excess", 1), // parseJSON has 9 letters
        ("digits", 2),
        ("digit_runs", 1),
        ("digit_triples", 1),
        ("space_before_digit", 1),
        ("newlines", 2),
        ("blank_lines", 1),
        ("indent_runs", 1),
        ("indent_chars", 4),
        ("ascii_punct", 4),       // ( ) = =
        ("punct_runs", 2),        // ")" and "=="
        ("punct_before_word", 1), // "(" glued to x
        ("emoji", 2),
        ("flags", 2), // one flag is two regional indicators
        ("emoji_parts", 1),
        ("utf8_bytes", text.len() as u32),
        ("pair_cuts", 8), // tier 1: pa, rs, so; 2: ba; 3: ej
    ];
    for (name, n) in expected {
        assert_eq!(count(&f, name), n, "{name}");
    }
    let listed: u32 = expected.iter().map(|(_, n)| n).sum();
    assert_eq!(
        f.counts.iter().sum::<u32>(),
        listed,
        "no other count is set"
    );
}

#[test]
fn scanner_tells_russian_letters_from_other_cyrillic_and_latin_1_from_extended_a() {
    // Ukrainian і and Ї are outside Russian's alphabet; ą and š are Latin
    // Extended-A (both small letters: odd code points here), ä Latin-1.
    let f = scan("Привіт ąšuolas ä Їжак Ёж");
    assert_eq!(count(&f, "cyrillic_letters"), 10); // П р и в т ж а к Ё ж
    assert_eq!(count(&f, "cyrillic_ext_letters"), 2); // і Ї
    assert_eq!(count(&f, "script_words"), 3); // Привіт, Їжак, Ёж
    assert_eq!(count(&f, "latin_ext_a_letters"), 2); // ą š
    assert_eq!(count(&f, "latin_ext_letters"), 1); // ä
    assert_eq!(count(&f, "latin_letters"), 5); // uolas
    assert_eq!(count(&f, "upper_letters"), 3); // П Ї Ё
    assert_eq!(count(&f, "words"), 5);
}

#[test]
fn scanner_counts_the_latin_letters_of_a_vietnamese_line_apart() {
    // The first line is Vietnamese from ơ on (U+01A1), its Latin-1 letters
    // before it too (ô ó ê); the second has ậ (U+1EAD) and đ; the third is
    // Croatian and Romanian (đ, ă and é alone do not make it Vietnamese).
    let f = scan("không có tên ơ à\nđã cập\nĐorđe țară é");
    assert_eq!(count(&f, "vietnamese_line_letters"), 7); // ô ó ê ơ à; đ ã (ậ is its own)
    assert_eq!(count(&f, "vietnamese_letters"), 1); // ậ
    assert_eq!(count(&f, "latin_ext_a_letters"), 4); // Đ đ ț ă
    assert_eq!(count(&f, "latin_ext_letters"), 1); // é
    // A line separator ends a Vietnamese line too.
    let g = scan("ơ é\u{2028}é");
    assert_eq!(count(&g, "vietnamese_line_letters"), 2);
    assert_eq!(count(&g, "latin_ext_letters"), 1);
}

#[test]
fn scanner_tells_the_arabic_alphabet_from_the_letters_of_persian_and_urdu() {
    // ک (U+06A9) and ی (U+06CC) are Persian's (Arabic writes ك and ي),
    // ٹ and ے Urdu's; ا ب ت م are Arabic's own.
    let f = scan("کتاب ابتم ٹے");
    assert_eq!(count(&f, "arabic_letters"), 7); // ت ا ب of کتاب; ا ب ت م
    assert_eq!(count(&f, "arabic_ext_letters"), 3); // ک ٹ ے
    assert_eq!(count(&f, "script_words"), 3);
}

#[test]
fn scanner_finds_encoded_data() {
    let b64 = scan("data: SGVsbG8gd29ybGQhIFRoaXMgaXMgYmFzZTY0Lg==");
    assert_eq!(count(&b64, "base64_chars"), 40);
    let sha = scan("commit 3f2a9c1b7e4d and CONSTANT_VALUE");
    assert_eq!(count(&sha, "hex_chars"), 12);
    assert_eq!(count(&sha, "caps_letters"), 13);
    assert_eq!(count(&sha, "base64_chars"), 0);
}

#[test]
fn long_runs_of_one_character_leave_the_other_counts() {
    // Rule characters: 3 ordinary, then one piece per full piece of 64.
    let rule = scan(&"=".repeat(3 + 2 * 64 + 5));
    assert_eq!(count(&rule, "ascii_punct"), 3);
    assert_eq!(count(&rule, "punct_runs"), 1);
    assert_eq!(count(&rule, "repeat_pieces"), 2);
    assert_eq!(count(&rule, "words"), 0);
    // Letters: 8 ordinary (a word of 8, no long-word excess), then one piece
    // per full piece of 8.
    let letters = scan(&"x".repeat(8 + 3 * 8 + 7));
    assert_eq!(count(&letters, "latin_letters"), 8);
    assert_eq!(count(&letters, "words"), 1);
    assert_eq!(count(&letters, "repeat_pieces"), 3);
    assert_eq!(count(&letters, "long_word_excess"), 0);
    assert_eq!(count(&letters, "consonant_clusters"), 6);
    // The run goes on as it was: a word after the rule still has its mark
    // glued to it, and a capital after a long run of small letters is a hump.
    let glued = scan(&format!("{}name", "-".repeat(100)));
    assert_eq!(count(&glued, "punct_before_word"), 1);
    assert_eq!(count(&glued, "punct_runs"), 0);
    assert_eq!(
        count(&scan(&format!("{}Y", "z".repeat(50))), "case_humps"),
        1
    );
    // Digits and spaces are not cut by repeats: they have run counts of
    // their own (digit triples, indentation).
    let digits = scan(&"0".repeat(30));
    assert_eq!(count(&digits, "digits"), 30);
    assert_eq!(count(&digits, "digit_triples"), 10);
    assert_eq!(count(&scan(&" ".repeat(30)), "indent_chars"), 30);
    // Only one character repeated: a run that alternates is ordinary text.
    assert_eq!(count(&scan(&"-=".repeat(50)), "ascii_punct"), 100);
}

/// Inputs that defeat a per-character price, with their real token counts.
/// The counts came from gpt-tokenizer 4.0.0 (`countTokens`, o200k_base and
/// cl100k_base, which agree on all five).
fn degenerate_inputs() -> [(&'static str, String, f64); 5] {
    [
        ("x × 10000", "x".repeat(10_000), 1250.0),
        ("= × 10000", "=".repeat(10_000), 156.0),
        ("an 80-dash rule line", format!("{}\n", "-".repeat(80)), 2.0),
        ("ABCDEFGHIJ × 100", "ABCDEFGHIJ".repeat(100), 200.0),
        ("hello world × 1000", "hello world ".repeat(1000), 2001.0),
    ]
}

#[test]
fn degenerate_inputs_are_estimated_within_a_sane_factor() {
    for family in [TokenizerFamily::O200k, TokenizerFamily::Cl100k] {
        let cal = CalibratedEstimator::new(family, EstimateVariant::Calibrated);
        let cons = CalibratedEstimator::new(family, EstimateVariant::Conservative);
        for (name, text, real) in degenerate_inputs() {
            // One 1,000-letter capital word of letter pairs English
            // rarely has (`bc`, `cd`, `fg`, `ij`) reaches 2.4× since issue
            // 23's counts; the other inputs stay within 2×.
            let most = if name.starts_with("ABCDEFGHIJ") {
                3.0
            } else {
                2.0
            };
            let c = cal.text(&text) / real;
            assert!(
                (0.5..=most).contains(&c),
                "{family:?} calibrated, {name}: {c:.2}×"
            );
            // Conservative leans high by design: its margin is a few
            // tokens on a short text (the 2-token rule line is answered
            // 5, 2.5×) and reaches 3.2× on the capital word above.
            let k = cons.text(&text) / real;
            assert!(
                (0.5..=most + 1.0).contains(&k),
                "{family:?} conservative, {name}: {k:.2}×"
            );
        }
    }
    // A separator line is a couple of tokens for every family, not one per
    // dash (80). `universal`'s conservative margin covers seven
    // vocabularies, so on a short text it is several tokens (7.7 here).
    let rule = format!("{}\n", "-".repeat(80));
    for f in TokenizerFamily::ALL {
        for v in [EstimateVariant::Calibrated, EstimateVariant::Conservative] {
            let est = CalibratedEstimator::new(f, v);
            let most = if f == TokenizerFamily::Universal && v == EstimateVariant::Conservative {
                10.0
            } else {
                6.0
            };
            assert!(est.text(&rule) < most, "{est:?}: {}", est.text(&rule));
        }
    }
}

#[test]
fn empty_input_is_zero_tokens() {
    for est in all_estimators() {
        assert_eq!(est.text(""), 0.0);
        assert_eq!(est.unknown_json(""), 0.0);
    }
    assert_eq!(scan(""), TextFeatures::default());
}

#[test]
fn pinned_estimates_on_fixed_inputs() {
    let o200k = CalibratedEstimator::new(TokenizerFamily::O200k, EstimateVariant::Calibrated);
    let o200k_cons =
        CalibratedEstimator::new(TokenizerFamily::O200k, EstimateVariant::Conservative);
    let universal =
        CalibratedEstimator::new(TokenizerFamily::Universal, EstimateVariant::Calibrated);
    assert_eq!(o200k.text("Hello, world!"), 3.7267571296542883);
    assert_eq!(o200k_cons.text("Hello, world!"), 5.68170496980727);
    assert_eq!(o200k.text("你好，世界！这是一个测试。"), 9.07644271850586);
    assert_eq!(
        universal.text("fn main() { println!(\"{}\", 42); }"),
        11.592644862830639
    );
    let call = obj(json!({"name": "read_file", "args": {"file_path": "src/lib.rs"}}));
    assert_eq!(o200k.function_call(&call), 11.371232762932777);
    assert_eq!(o200k.per_message(), 4.23696);
}

#[test]
fn estimate_is_the_weighted_sum_of_the_counts() {
    let text = "Der schnelle braune Fuchs 🦊 springt über den faulen Hund: 3.14159";
    for family in TokenizerFamily::ALL {
        let f = scan(text);
        let w = family.weights();
        let cal = CalibratedEstimator::new(family, EstimateVariant::Calibrated);
        let cons = CalibratedEstimator::new(family, EstimateVariant::Conservative);
        // (This text is far from the bound of its bytes.)
        assert!(cons.text(text) < text.len() as f64 / 2.0);
        assert_eq!(cal.text(text), f.dot(&w.text));
        // Conservative: the calibrated sum plus the root of the spread's
        // sum, which grows with the estimate (SPREAD_TOKENS).
        let margin = (f.dot(&w.conservative_text) * (SPREAD_TOKENS + f.dot(&w.text))).sqrt();
        let k = cons.text(text);
        assert!(
            (k - (f.dot(&w.text) + margin)).abs() < 1e-9,
            "{family:?}: {k} vs {} + {margin}",
            f.dot(&w.text)
        );
    }
}

#[test]
fn same_count_whether_the_text_came_as_utf16_or_utf8() {
    // What JavaScript holds: UTF-16 code units, with surrogate pairs for
    // 😀 and 𠀋 (a CJK character outside the BMP).
    let literal = "naïve 😀 𠀋 café — 中文 カタカナ 한국어";
    let units: Vec<u16> = literal.encode_utf16().collect();
    let from_utf16 = String::from_utf16(&units).expect("valid UTF-16");
    let from_utf8 = String::from_utf8(literal.as_bytes().to_vec()).expect("valid UTF-8");
    assert_eq!(scan(&from_utf16), scan(&from_utf8));
    for est in all_estimators() {
        assert_eq!(est.text(&from_utf16), est.text(literal));
    }
    // One astral character is one character, not two units or four bytes.
    let one = scan("𠀋");
    assert_eq!(count(&one, "han"), 1);
    // A lone surrogate reaches Rust as U+FFFD (wasm-bindgen converts it):
    // counted as one symbol, no panic.
    let lossy = String::from_utf16_lossy(&[0x61, 0xD800, 0x62]);
    assert_eq!(count(&scan(&lossy), "bmp_symbols"), 1);
}

#[test]
fn denser_scripts_and_data_cost_more_tokens_per_character() {
    let english = "The quick brown fox jumps over the lazy dog, and then it rests in the warm sun.";
    let chinese = "敏捷的棕色狐狸跳过了那只懒狗，然后在温暖的阳光下休息。这是一个常见的测试句子。";
    let base64 =
        "VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZywgYW5kIHRoZW4gaXQgcmVzdHM=";
    let per_char = |est: &CalibratedEstimator, t: &str| est.text(t) / t.chars().count() as f64;
    for est in all_estimators() {
        let en = per_char(&est, english);
        assert!(
            per_char(&est, chinese) > 2.0 * en,
            "{est:?}: Chinese vs English"
        );
        assert!(
            per_char(&est, base64) > 1.5 * en,
            "{est:?}: base64 vs English"
        );
    }
}

#[test]
fn conservative_is_never_below_calibrated() {
    for family in TokenizerFamily::ALL {
        let cal = CalibratedEstimator::new(family, EstimateVariant::Calibrated);
        let cons = CalibratedEstimator::new(family, EstimateVariant::Conservative);
        for t in [
            "Hello, world!",
            "{\"a\": [1, 2, 3]}",
            "日本語のテキストです。",
        ] {
            assert!(cons.text(t) >= cal.text(t), "{family:?} {t}");
        }
    }
}

#[test]
fn conservative_keeps_its_bounds_on_random_text() {
    // Between the calibrated estimate and the byte bound (for byte-level
    // families), and finite, on strings drawn from every script's classes
    // and from runs of one character, short and long.
    let pool: Vec<char> = "aZ9 \n\t.,;{}\"'=-_éüşểΩжԱქאعहবதกខ가中カ😀🇫🇷\u{301}\u{200c}"
        .chars()
        .collect();
    let mut bits: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move || {
        bits ^= bits << 13;
        bits ^= bits >> 7;
        bits ^= bits << 17;
        bits
    };
    for i in 0..3_000 {
        let len = if i % 100 == 0 {
            5_000
        } else {
            (next() % 120) as usize
        };
        let text: String = if i % 7 == 0 {
            let c = pool[(next() % pool.len() as u64) as usize];
            core::iter::repeat_n(c, len).collect()
        } else {
            (0..len)
                .map(|_| pool[(next() % pool.len() as u64) as usize])
                .collect()
        };
        for family in TokenizerFamily::ALL {
            let cal = CalibratedEstimator::new(family, EstimateVariant::Calibrated).text(&text);
            let cons = CalibratedEstimator::new(family, EstimateVariant::Conservative).text(&text);
            assert!(cons.is_finite() && cons >= cal, "{family:?} {text:?}");
            if family.weights().bytes_bound {
                assert!(cons <= text.len() as f64, "{family:?} {text:?}");
            }
        }
    }
}

#[test]
fn conservative_margin_follows_the_estimates_uncertainty() {
    // A short text gets a margin of tokens, a long regular one a few
    // percent: the relative margin shrinks as the text grows, and every
    // script's text gets one (the spread of each count has a floor).
    let sentence = "The build failed because the configuration file was missing. ";
    let texts = [
        "Bonjour à tous, ceci est un test.",
        "Привет, мир! Это проверка.",
        "Καλημέρα κόσμε, αυτό είναι δοκιμή.",
        "مرحبا بالعالم، هذا اختبار.",
        "नमस्ते दुनिया, यह एक परीक्षण है।",
        "தமிழ் ஒரு சோதனை",
        "สวัสดีชาวโลก นี่คือการทดสอบ",
        "안녕하세요 세계, 이것은 테스트입니다.",
        "你好，世界。这是一个测试。",
        "Xin chào thế giới, đây là một bài kiểm tra.",
        "%s (lớp trong %s)",
        "Obr. %s",
    ];
    for family in TokenizerFamily::ALL {
        let cal = CalibratedEstimator::new(family, EstimateVariant::Calibrated);
        let cons = CalibratedEstimator::new(family, EstimateVariant::Conservative);
        for t in texts {
            let (c, k) = (cal.text(t), cons.text(t));
            let room = if family.weights().bytes_bound {
                t.len() as f64 - c
            } else {
                f64::INFINITY
            };
            assert!(
                k - c >= 0.5_f64.min(room),
                "{family:?} {t}: {k:.2} over {c:.2}"
            );
        }
        let relative = |n: usize| {
            let t = sentence.repeat(n);
            cons.text(&t) / cal.text(&t)
        };
        let (one, ten, hundred) = (relative(1), relative(10), relative(100));
        // At 100 sentences the margin is 16–25% per family (qwen 1.25) and
        // 29% on `universal`, which covers seven tokenizers' spread at once.
        let most = if family == TokenizerFamily::Universal {
            1.35
        } else {
            1.3
        };
        assert!(
            one > ten && ten > hundred && hundred < most,
            "{family:?}: {one:.3} {ten:.3} {hundred:.3}"
        );
    }
}

#[test]
fn function_parts_count_what_the_provider_sends() {
    let est = CalibratedEstimator::new(TokenizerFamily::Qwen, EstimateVariant::Calibrated);
    let output = "total 8\ndrwxr-xr-x 2 root root 4096 Nov 30 14:37 scripts\n";
    // The output string is sent as is, not as a JSON-escaped string in a wrapper.
    let with_output = obj(json!({"name": "run_shell_command", "response": {"output": output}}));
    let per_response = est.function_response(&obj(json!({"name": "x"})));
    assert_eq!(
        est.function_response(&with_output),
        est.text(output) + per_response
    );
    // Any other shape is sent as its JSON.
    let other = json!({"error": "not found", "code": 2});
    let with_other = obj(json!({"name": "read_file", "response": other}));
    assert_eq!(
        est.function_response(&with_other),
        est.text(&other.to_string()) + per_response
    );
    // A call is its name plus its arguments' JSON; a bigger argument costs more.
    let small = obj(json!({"name": "grep", "args": {"pattern": "x"}}));
    let big = obj(json!({"name": "grep", "args": {"pattern": "x".repeat(200)}}));
    assert!(est.function_call(&big) > est.function_call(&small));
    // Nothing from outside makes it panic: odd shapes count what is there.
    assert!(est.function_call(&obj(json!({"name": 3, "args": null}))) >= 0.0);
    assert!(est.function_response(&obj(json!({"response": [1, 2]}))) > 0.0);
}

#[test]
fn family_names_round_trip() {
    for f in TokenizerFamily::ALL {
        assert_eq!(TokenizerFamily::from_name(f.name()), Some(f));
    }
    assert_eq!(TokenizerFamily::from_name("gpt2"), None);
}

#[test]
fn no_weight_is_negative_and_bytes_are_never_weighted() {
    let bytes = FEATURE_NAMES
        .iter()
        .position(|n| *n == "utf8_bytes")
        .unwrap();
    for family in TokenizerFamily::ALL {
        let w = family.weights();
        for (i, (&a, &b)) in w.text.iter().zip(&w.conservative_text).enumerate() {
            assert!(a >= 0.0 && b >= 0.0, "{family:?} {}", FEATURE_NAMES[i]);
        }
        assert_eq!((w.text[bytes], w.conservative_text[bytes]), (0.0, 0.0));
        assert!(w.per_message >= 0.0 && w.per_call >= 0.0 && w.per_response >= 0.0);
    }
}

#[test]
fn byte_level_families_never_estimate_more_tokens_than_bytes() {
    // Texts where a per-character price runs away: one character of a
    // costly script repeated, combining marks stacked, short words.
    let texts = [
        "ஆ".repeat(500),
        "e\u{301}\u{302}\u{303}".repeat(200),
        "ẫ".repeat(300),
        "a".to_string(),
        "Ω".to_string(),
        "ก ข ค ง".repeat(50),
        "ქ".repeat(100),
        "\u{200c}".repeat(100),
    ];
    for family in TokenizerFamily::ALL {
        if !family.weights().bytes_bound {
            continue;
        }
        for variant in [EstimateVariant::Calibrated, EstimateVariant::Conservative] {
            let est = CalibratedEstimator::new(family, variant);
            for t in &texts {
                assert!(
                    est.text(t) <= t.len() as f64,
                    "{family:?} {variant:?} {:?}: {} > {} bytes",
                    t.chars().take(8).collect::<String>(),
                    est.text(t),
                    t.len()
                );
            }
        }
    }
    // Claude's published tokenizer normalizes first, so it has no such bound.
    assert!(!TokenizerFamily::Claude.weights().bytes_bound);
}

#[test]
fn the_issues_examples_are_no_longer_many_times_over() {
    // Issue 23: real o200k counts (gpt-tokenizer 4.0.0) and the estimates
    // of the table before per-script classes: 69, 30 and 41.
    let o200k = CalibratedEstimator::new(TokenizerFamily::O200k, EstimateVariant::Calibrated);
    for (text, real) in [
        ("Καλημέρα κόσμε", 6.0),
        ("Café crème brûlée, s'il vous plaît.", 11.0),
        ("Zażółć gęślą jaźń", 11.0),
    ] {
        let r = o200k.text(text).ceil() / real;
        assert!((0.7..=1.5).contains(&r), "{text}: {r:.2}×");
    }
}

#[test]
fn a_model_id_names_its_tokenizer_family() {
    use TokenizerFamily as T;
    for (model, family) in [
        ("gpt-4o", T::O200k),
        ("gpt-4o-mini-2024-07-18", T::O200k),
        ("openai/gpt-4.1", T::O200k),
        ("gpt-5-mini", T::O200k),
        ("o1", T::O200k),
        ("o3-mini", T::O200k),
        ("o4-mini-high", T::O200k),
        ("gpt-4-turbo", T::Cl100k),
        ("gpt-4", T::Cl100k),
        ("gpt-3.5-turbo", T::Cl100k),
        ("claude-sonnet-4-5", T::Claude),
        ("anthropic/claude-3-5-haiku-latest", T::Claude),
        ("gemini-2.5-pro", T::Gemini),
        ("models/gemini-2.0-flash", T::Gemini),
        ("gemma-3-27b-it", T::Gemini),
        ("qwen3-235b-a22b", T::Qwen),
        ("Qwen/Qwen2.5-72B-Instruct", T::Qwen),
        ("meta-llama/Llama-3.1-8B-Instruct", T::Llama3),
        ("llama3.2", T::Llama3),
        ("deepseek-chat", T::Deepseek),
        ("deepseek-ai/DeepSeek-R1", T::Deepseek),
        ("mistral-large-latest", T::Universal),
        ("o", T::Universal),
        ("o10x", T::Universal),
        ("", T::Universal),
    ] {
        assert_eq!(T::for_model(model), family, "{model}");
    }
}

#[test]
fn the_chat_options_take_the_family_from_the_model_unless_a_tokenizer_is_given() {
    use compaction_core::CompactorConfig;
    let read = |v: Value| {
        CompactorConfig::from_json(&v)
            .unwrap()
            .config
            .options
            .estimate
            .tokenizer
    };
    assert_eq!(read(json!({ "model": "gpt-4o" })), TokenizerFamily::O200k);
    assert_eq!(
        read(json!({ "model": "gemini-2.5-flash" })),
        TokenizerFamily::Gemini
    );
    assert_eq!(
        read(json!({ "model": "gpt-4o", "tokenizer": "claude" })),
        TokenizerFamily::Claude
    );
    assert_eq!(read(json!({ "window": 1000 })), TokenizerFamily::Universal);
    assert_eq!(
        read(json!({ "model": "some-new-model", "window": 1000 })),
        TokenizerFamily::Universal
    );
}
