//! The settings loader (docs/spec.md §7): defaults, nested and dotted keys, the removed setting's warning, typed errors.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests assert on data they built
use compaction_core::json;
use compaction_core::{ErrorCode, Settings, load_settings};

#[test]
fn defaults() {
    for value in [
        json!({}),
        json!(null),
        json!({ "chatCompression": {}, "compaction": null }),
    ] {
        let loaded = load_settings(&value).unwrap();
        assert_eq!(loaded.settings, Settings::default());
        assert_eq!(loaded.settings.image_token_estimate, 1_600.0);
        assert_eq!(loaded.settings.exclude_messages, 2);
        assert_eq!(loaded.settings.exclude_context_window_percent, 2.0);
        assert!(loaded.warnings.is_empty());
    }
}

#[test]
fn the_removed_threshold_warns_once_and_is_ignored() {
    let loaded =
        load_settings(&json!({ "chatCompression": { "contextPercentageThreshold": 0.5 } }))
            .unwrap();
    assert_eq!(
        loaded.warnings,
        [
            "chatCompression.contextPercentageThreshold has been removed and is now controlled by built-in \
          thresholds. The value is ignored; remove the key to silence this warning."
        ]
    );
    assert_eq!(loaded.settings, Settings::default());
    // Any value, even a nonsensical one, only warns.
    for v in [json!("70%"), json!(-3), json!(true)] {
        let loaded =
            load_settings(&json!({ "chatCompression.contextPercentageThreshold": v })).unwrap();
        assert_eq!(loaded.warnings.len(), 1);
    }
}

#[test]
fn values_are_read_nested_or_dotted() {
    let nested = load_settings(&json!({
        "chatCompression": { "imageTokenEstimate": 258 },
        "compaction": { "excludeMessages": 4, "excludeContextWindowPercent": 10.5 }
    }))
    .unwrap();
    let dotted = load_settings(&json!({
        "chatCompression.imageTokenEstimate": 258,
        "compaction.excludeMessages": 4,
        "compaction.excludeContextWindowPercent": 10.5
    }))
    .unwrap();
    let expected = Settings {
        image_token_estimate: 258.0,
        exclude_messages: 4,
        exclude_context_window_percent: 10.5,
    };
    assert_eq!(nested.settings, expected);
    assert_eq!(dotted.settings, expected);
}

#[test]
fn bad_values_are_typed_errors_that_name_the_key() {
    let cases = [
        (
            json!({ "chatCompression": { "imageTokenEstimate": 0 } }),
            "chatCompression.imageTokenEstimate must be a finite number >= 1, got the number 0",
        ),
        (
            json!({ "chatCompression": { "imageTokenEstimate": "1600" } }),
            "chatCompression.imageTokenEstimate must be a finite number >= 1, got the string \"1600\"",
        ),
        (
            json!({ "compaction": { "excludeMessages": 2.5 } }),
            "compaction.excludeMessages must be an integer >= 0",
        ),
        (
            json!({ "compaction": { "excludeMessages": -1 } }),
            "compaction.excludeMessages must be an integer >= 0",
        ),
        (
            json!({ "compaction": { "excludeContextWindowPercent": 101 } }),
            "compaction.excludeContextWindowPercent must be a number from 0 to 100",
        ),
        (json!({ "compaction": 5 }), "compaction must be an object"),
        (json!([1]), "settings must be an object"),
        (
            json!({ "compaction": { "excludeMessages": 1 }, "compaction.excludeMessages": 1 }),
            "set twice",
        ),
    ];
    for (value, expected) in cases {
        let err = load_settings(&value).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidSettings);
        assert!(
            err.message().contains(expected),
            "{:?} does not contain {expected:?}",
            err.message()
        );
    }
}

#[test]
fn there_is_no_switch_and_no_environment_override() {
    // An on/off key is not a setting of this library: it is ignored.
    let loaded = load_settings(&json!({ "chatCompression": { "enabled": false } })).unwrap();
    assert_eq!(loaded.settings, Settings::default());
    // The variable the reference implementation honoured changes nothing here.
    // SAFETY: no test in this binary reads the environment concurrently.
    unsafe { std::env::set_var("QWEN_IMAGE_TOKEN_ESTIMATE", "99") };
    assert_eq!(
        load_settings(&json!({}))
            .unwrap()
            .settings
            .image_token_estimate,
        1_600.0
    );
}

#[test]
fn settings_and_chat_options_share_each_fields_rule() {
    use compaction_core::CompactorConfig;
    // The same bad value, read as a setting and as a chat option: the same
    // words for what was expected, each with its own code.
    for (setting, option, value) in [
        (
            "chatCompression.imageTokenEstimate",
            "imageTokenEstimate",
            json!(0.5),
        ),
        ("compaction.excludeMessages", "excludeMessages", json!(-2)),
        (
            "compaction.excludeContextWindowPercent",
            "excludeContextWindowPercent",
            json!(100.5),
        ),
    ] {
        let from_settings = load_settings(&json!({ setting: value })).unwrap_err();
        let from_options =
            CompactorConfig::from_json(&json!({ "window": 1e5, option: value })).unwrap_err();
        assert_eq!(from_settings.code(), ErrorCode::InvalidSettings);
        assert_eq!(from_options.code(), ErrorCode::InvalidArgument);
        let expected = |message: &str, name: &str| {
            message
                .strip_prefix(name)
                .map(str::to_string)
                .unwrap_or_else(|| panic!("{message:?} names {name}"))
        };
        assert_eq!(
            expected(from_settings.message(), setting),
            expected(from_options.message(), &format!("options.{option}")),
        );
    }
}
