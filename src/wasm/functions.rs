//! The stateless functions of the JS API.

use std::cell::RefCell;
use std::collections::BTreeSet;

use wasm_bindgen::prelude::*;

use super::convert::{content, contents, json, json_strict, number, to_js};
use crate::context_report::context_report;
use crate::estimate::{self, EstimateOptions};
use crate::ladder::{self, Thresholds};
use crate::settings;
use crate::tips::{self, TipContext};

#[wasm_bindgen]
extern "C" {
    /// `EstimateOptions` from JS (optional arguments need a named type).
    #[wasm_bindgen(typescript_type = "EstimateOptions")]
    pub type EstimateOptionsJs;
    /// A parsed settings file from JS.
    #[wasm_bindgen(typescript_type = "SettingsFile")]
    pub type SettingsFileJs;
}

fn estimate_options(value: Option<EstimateOptionsJs>) -> Result<EstimateOptions, JsValue> {
    let value: JsValue = value.map_or(JsValue::UNDEFINED, Into::into);
    if let Some(options) = plain_estimate_options(&value) {
        return Ok(options);
    }
    let value = json_strict(value, "options")?;
    Ok(EstimateOptions::from_json(&value, "options")?)
}

/// The options of the common call, `{ estimator: "calibrated", tokenizer:
/// "o200k" }`: a plain object of known fields with valid values. `None` for
/// anything else (an unknown or inherited field, a wrong type, a bad value,
/// not an object), which the strict reader then reads or rejects with its
/// message; for what this accepts, the two agree.
///
/// Why: through the strict reader, which copies every key and value into
/// Rust strings, the options cost about 4 µs a call, as much as scanning a
/// few hundred characters, on every `estimateTextTokens`. This compares
/// them with JS strings made once instead.
fn plain_estimate_options(value: &JsValue) -> Option<EstimateOptions> {
    use crate::calibrated::TokenizerFamily;
    use estimate::Estimator;

    struct Names {
        estimator: JsValue,
        tokenizer: JsValue,
        image: JsValue,
        estimators: [JsValue; 3],
        tokenizers: [JsValue; 5],
    }
    thread_local! {
        static NAMES: Names = Names {
            estimator: JsValue::from_str("estimator"),
            tokenizer: JsValue::from_str("tokenizer"),
            image: JsValue::from_str("imageTokenEstimate"),
            estimators: Estimator::ALL.map(|e| JsValue::from_str(e.name())),
            tokenizers: TokenizerFamily::ALL.map(|t| JsValue::from_str(t.name())),
        };
    }
    if !value.is_object() || value.is_function() || js_sys::Array::is_array(value) {
        return None;
    }
    let object: &js_sys::Object = value.unchecked_ref();
    NAMES.with(|names| {
        let mut options = EstimateOptions::default();
        let mut found = 0;
        // A field the strict reader would see: own and not undefined.
        let field = |key: &JsValue| -> Option<Option<JsValue>> {
            let item = js_sys::Reflect::get(value, key).ok()?;
            if item.is_undefined() {
                return Some(None);
            }
            js_sys::Object::has_own(object, key).then_some(Some(item))
        };
        if let Some(item) = field(&names.estimator)? {
            let k = names.estimators.iter().position(|n| *n == item)?;
            options.estimator = Estimator::ALL[k];
            found += 1;
        }
        if let Some(item) = field(&names.tokenizer)? {
            let k = names.tokenizers.iter().position(|n| *n == item)?;
            options.tokenizer = TokenizerFamily::ALL[k];
            found += 1;
        }
        if let Some(item) = field(&names.image)? {
            options.image_token_estimate = item.as_f64().filter(|n| n.is_finite() && *n >= 1.0)?;
            found += 1;
        }
        // No other own field (an unknown one is an error, or undefined).
        (js_sys::Object::keys(object).length() == found).then_some(options)
    })
}

/// The three-tier ladder for a context window of `window` tokens.
///
/// @example
/// ```ts
/// computeThresholds(200_000);
/// // { window: 200000, effectiveWindow: 180000, warn: 147000, auto: 167000, hard: 177000,
/// //   warnRule: "abs", autoRule: "abs", hardRule: "abs" }
/// ```
#[wasm_bindgen(js_name = computeThresholds, unchecked_return_type = "Thresholds")]
pub fn compute_thresholds(
    #[wasm_bindgen(unchecked_param_type = "number")] window: JsValue,
) -> Result<JsValue, JsValue> {
    to_js(&ladder::compute_thresholds(number(&window, "window")?)?)
}

/// The tier a prompt of `tokens` tokens is in (`hard` is checked first).
///
/// @example
/// ```ts
/// currentTier(150_000, computeThresholds(200_000)); // "warn"
/// ```
#[wasm_bindgen(js_name = currentTier, unchecked_return_type = "Tier")]
pub fn current_tier(
    #[wasm_bindgen(unchecked_param_type = "number")] tokens: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Thresholds")] thresholds: JsValue,
) -> Result<JsValue, JsValue> {
    let tokens = crate::error::check_count("tokens", number(&tokens, "tokens")?)?;
    let thresholds = Thresholds::from_json(&json_strict(thresholds, "thresholds")?, "thresholds")?;
    Ok(JsValue::from_str(
        ladder::current_tier(tokens, &thresholds).as_str(),
    ))
}

/// Estimated tokens of a list of messages, rounded up once.
///
/// @example
/// ```ts
/// estimateContentTokens([{ role: "user", parts: [{ text: "hello world" }] }]); // 3
/// ```
#[wasm_bindgen(js_name = estimateContentTokens)]
pub fn estimate_content_tokens(
    #[wasm_bindgen(js_name = contents, unchecked_param_type = "Content[]")] contents_value: JsValue,
    options: Option<EstimateOptionsJs>,
) -> Result<f64, JsValue> {
    let options = estimate_options(options)?;
    let contents = contents(contents_value, "contents")?;
    Ok(estimate::estimate_content_tokens(&contents, &options) as f64)
}

/// Estimated tokens of one text, rounded up: the text estimator alone, no
/// message overhead.
///
/// @example
/// ```ts
/// estimateTextTokens("hello world"); // 3 (the spec's rule: 11 characters ÷ 4)
/// estimateTextTokens("你好，世界", { estimator: "calibrated", tokenizer: "o200k" });
/// ```
#[wasm_bindgen(js_name = estimateTextTokens)]
pub fn estimate_text_tokens(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    options: Option<EstimateOptionsJs>,
) -> Result<f64, JsValue> {
    let options = estimate_options(options)?;
    let text = text.as_string().ok_or_else(|| {
        super::error::invalid_argument(format!(
            "text must be a string, got {}",
            super::convert::js_type(&text)
        ))
    })?;
    Ok(estimate::estimate_text_tokens(&text, &options) as f64)
}

/// Estimated size of the prompt about to be sent: `lastPromptTokenCount` plus
/// the new message, or the whole history plus the message when the count is 0.
///
/// @example
/// ```ts
/// estimatePromptTokens(history, { role: "user", parts: [{ text: "hello world" }] }, 50_000); // 50003
/// ```
#[wasm_bindgen(js_name = estimatePromptTokens)]
pub fn estimate_prompt_tokens(
    #[wasm_bindgen(unchecked_param_type = "Content[]")] history: JsValue,
    #[wasm_bindgen(js_name = userMessage, unchecked_param_type = "Content")] user_message: JsValue,
    #[wasm_bindgen(js_name = lastPromptTokenCount, unchecked_param_type = "number")]
    last_prompt_token_count: JsValue,
    options: Option<EstimateOptionsJs>,
) -> Result<f64, JsValue> {
    let options = estimate_options(options)?;
    let last = crate::error::check_count(
        "lastPromptTokenCount",
        number(&last_prompt_token_count, "lastPromptTokenCount")?,
    )?;
    let user_message = content(user_message, "userMessage")?;
    // The anchor path never looks at the history: do not even convert it.
    let history = if last > 0.0 {
        Vec::new()
    } else {
        contents(history, "history")?
    };
    Ok(estimate::estimate_prompt_tokens(&history, &user_message, last as u64, &options) as f64)
}

/// The context tip to show after a response, or `undefined`.
///
/// @example
/// ```ts
/// selectTip({ lastPromptTokenCount: 150_000, contextWindowSize: 200_000 })?.id; // "context-warn"
/// ```
#[wasm_bindgen(js_name = selectTip, unchecked_return_type = "Tip | undefined")]
pub fn select_tip(
    #[wasm_bindgen(unchecked_param_type = "TipContext")] context: JsValue,
) -> Result<JsValue, JsValue> {
    let context = TipContext::from_json(&json_strict(context, "context")?, "context")?;
    match tips::select_tip(&context)? {
        Some(tip) => to_js(&tip),
        None => Ok(JsValue::UNDEFINED),
    }
}

/// The `/context` data for a prompt of `tokens` tokens in a window: the
/// ladder, the tier, percent used, tokens left before `auto`, and whether a
/// footer indicator should show.
///
/// @example
/// ```ts
/// contextReport(150_000, 200_000).tokensUntilAuto; // 17000
/// ```
#[wasm_bindgen(js_name = contextReport, unchecked_return_type = "ContextReport")]
pub fn context_report_data(
    #[wasm_bindgen(unchecked_param_type = "number")] tokens: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] window: JsValue,
) -> Result<JsValue, JsValue> {
    to_js(&context_report(
        number(&tokens, "tokens")?,
        number(&window, "window")?,
    )?)
}

/// The `/context` block as text.
///
/// @example
/// ```ts
/// formatContextReport(150_000, 200_000);
/// // "Compaction thresholds\n  Effective window:   180,000  (window − 20,000 reserve)\n ..."
/// ```
#[wasm_bindgen(js_name = formatContextReport)]
pub fn format_context_report(
    #[wasm_bindgen(unchecked_param_type = "number")] tokens: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] window: JsValue,
) -> Result<String, JsValue> {
    Ok(context_report(number(&tokens, "tokens")?, number(&window, "window")?)?.to_text())
}

thread_local! {
    static WARNED: RefCell<BTreeSet<String>> = const { RefCell::new(BTreeSet::new()) };
}

/// Loads settings from a parsed settings object. Each distinct warning goes
/// to `console.warn` once per page (or process), and all are returned.
///
/// @example
/// ```ts
/// loadSettings({ chatCompression: { contextPercentageThreshold: 0.5 } }).warnings.length; // 1
/// ```
#[wasm_bindgen(js_name = loadSettings, unchecked_return_type = "LoadedSettings")]
pub fn load_settings(settings: Option<SettingsFileJs>) -> Result<JsValue, JsValue> {
    let value = match settings.map(JsValue::from) {
        Some(value) if !value.is_undefined() => json(value, "settings")?,
        _ => serde_json::Value::Null,
    };
    let loaded = settings::load_settings(&value)?;
    for warning in &loaded.warnings {
        warn_once(warning);
    }
    to_js(&loaded)
}

/// Prints `message` with `console.warn` the first time it is seen.
pub(crate) fn warn_once(message: &str) {
    let first = WARNED.with(|seen| seen.borrow_mut().insert(message.to_string()));
    if first {
        web_sys_warn(message);
    }
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = warn)]
    fn web_sys_warn(message: &str);
}
