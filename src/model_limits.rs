//! Context windows and output limits of current model families, so that a
//! host can say `{ model: "gpt-4o" }` instead of knowing the numbers.
//!
//! The table is small and dated: [`TABLE_DATE`]. Its numbers are the ones
//! the providers publish on their model pages (OpenAI's model docs,
//! Anthropic's "Models overview", Google's Gemini API model pages, and the
//! model cards of Qwen, DeepSeek, Meta Llama and Mistral), as the author knew
//! them on that date; no page could be fetched while writing it, so treat it
//! as "as published, checked [`TABLE_DATE`]". Where a family publishes no
//! output limit (open-weight models, whose limit is the host's), the entry
//! has none and the library's own cap applies (20 000, or what the window
//! leaves).
//!
//! A model id matches an entry by its name, whatever wraps it: a provider
//! prefix (`anthropic/claude-sonnet-4`, `models/gemini-2.5-flash`,
//! `us.anthropic.claude-3-5-sonnet-20240620-v1:0`), a date or version suffix
//! (`gpt-4o-2024-08-06`, `claude-sonnet-4-20250514`), dots or dashes in
//! versions (`claude-3.5-sonnet`, `claude-3-5-sonnet`), any case. The most
//! specific entry wins (`gpt-4o-mini` before `gpt-4o`). An unknown id gets
//! [`FALLBACK_WINDOW`] (131 072, the reference's default) and a warning.

use crate::prelude::*;

use crate::str_search;

use crate::json::Quoted;

use crate::json::json_object;

/// The date the table was checked against the providers' published pages.
pub const TABLE_DATE: &str = "2026-12-01";

/// The window an unknown model gets: the reference's default.
pub const FALLBACK_WINDOW: u64 = 131_072;

/// One family of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelFamily {
    /// The family's name as it appears in model ids, dots written as
    /// dashes (`gpt-4-1`, `claude-3-5-sonnet`, `gemini-2-5-flash`).
    pub pattern: &'static str,
    /// Who publishes it.
    pub provider: &'static str,
    /// The context window, in tokens.
    pub window: u64,
    /// The output limit, in tokens, when the provider publishes one.
    pub max_output_tokens: Option<u64>,
}

const fn family(
    pattern: &'static str,
    provider: &'static str,
    window: u64,
    max_output_tokens: Option<u64>,
) -> ModelFamily {
    ModelFamily {
        pattern,
        provider,
        window,
        max_output_tokens,
    }
}

/// The table, most specific first (an id takes the first entry it matches).
pub const MODEL_FAMILIES: &[ModelFamily] = &[
    // OpenAI
    family("gpt-5-chat", "OpenAI", 128_000, Some(16_384)),
    family("gpt-5", "OpenAI", 400_000, Some(128_000)),
    family("gpt-4-1", "OpenAI", 1_047_576, Some(32_768)),
    family("gpt-4o-2024-05-13", "OpenAI", 128_000, Some(4_096)),
    family("gpt-4o-mini", "OpenAI", 128_000, Some(16_384)),
    family("chatgpt-4o", "OpenAI", 128_000, Some(16_384)),
    family("gpt-4o", "OpenAI", 128_000, Some(16_384)),
    family("gpt-4-turbo", "OpenAI", 128_000, Some(4_096)),
    family("gpt-4-32k", "OpenAI", 32_768, Some(4_096)),
    family("gpt-4", "OpenAI", 8_192, Some(8_192)),
    family("gpt-3-5-turbo", "OpenAI", 16_385, Some(4_096)),
    family("gpt-oss", "OpenAI", 131_072, None),
    family("o1-mini", "OpenAI", 128_000, Some(65_536)),
    family("o1-preview", "OpenAI", 128_000, Some(32_768)),
    family("o1", "OpenAI", 200_000, Some(100_000)),
    family("o3-mini", "OpenAI", 200_000, Some(100_000)),
    family("o3", "OpenAI", 200_000, Some(100_000)),
    family("o4-mini", "OpenAI", 200_000, Some(100_000)),
    // Anthropic (the standard window; 1M is a beta header away for some)
    family("claude-opus-4-5", "Anthropic", 200_000, Some(64_000)),
    family("claude-opus-4-1", "Anthropic", 200_000, Some(32_000)),
    family("claude-opus-4", "Anthropic", 200_000, Some(32_000)),
    family("claude-4-opus", "Anthropic", 200_000, Some(32_000)),
    family("claude-sonnet-4-5", "Anthropic", 200_000, Some(64_000)),
    family("claude-sonnet-4", "Anthropic", 200_000, Some(64_000)),
    family("claude-4-sonnet", "Anthropic", 200_000, Some(64_000)),
    family("claude-haiku-4-5", "Anthropic", 200_000, Some(64_000)),
    family("claude-3-7-sonnet", "Anthropic", 200_000, Some(64_000)),
    family("claude-3-5-sonnet", "Anthropic", 200_000, Some(8_192)),
    family("claude-3-5-haiku", "Anthropic", 200_000, Some(8_192)),
    family("claude-3-opus", "Anthropic", 200_000, Some(4_096)),
    family("claude-3-haiku", "Anthropic", 200_000, Some(4_096)),
    // Google Gemini
    family("gemini-3-pro", "Google", 1_048_576, Some(65_536)),
    family("gemini-2-5-pro", "Google", 1_048_576, Some(65_536)),
    family("gemini-2-5-flash", "Google", 1_048_576, Some(65_536)),
    family("gemini-2-0-flash", "Google", 1_048_576, Some(8_192)),
    family("gemini-1-5-pro", "Google", 2_097_152, Some(8_192)),
    family("gemini-1-5-flash", "Google", 1_048_576, Some(8_192)),
    // Qwen (Alibaba Cloud Model Studio)
    family("qwen3-coder", "Qwen", 262_144, Some(65_536)),
    family("qwen3", "Qwen", 131_072, Some(16_384)),
    family("qwen2-5", "Qwen", 131_072, Some(8_192)),
    family("qwq", "Qwen", 131_072, Some(16_384)),
    family("qwen-max", "Qwen", 32_768, Some(8_192)),
    family("qwen-plus", "Qwen", 131_072, Some(8_192)),
    family("qwen-turbo", "Qwen", 1_000_000, Some(8_192)),
    // DeepSeek (API)
    family("deepseek-reasoner", "DeepSeek", 128_000, Some(64_000)),
    family("deepseek-r1", "DeepSeek", 128_000, Some(64_000)),
    family("deepseek-chat", "DeepSeek", 128_000, Some(8_192)),
    family("deepseek-v3", "DeepSeek", 128_000, Some(8_192)),
    // Meta Llama (open weights: the output limit is the host's)
    family("llama-4-maverick", "Meta", 1_048_576, None),
    family("llama-4-scout", "Meta", 10_485_760, None),
    family("llama-3-3", "Meta", 131_072, None),
    family("llama-3-2", "Meta", 131_072, None),
    family("llama-3-1", "Meta", 131_072, None),
    family("llama3-3", "Meta", 131_072, None),
    family("llama3-2", "Meta", 131_072, None),
    family("llama3-1", "Meta", 131_072, None),
    // Mistral
    family("codestral", "Mistral", 256_000, None),
    family("mistral-large", "Mistral", 131_072, None),
    family("mistral-medium", "Mistral", 131_072, None),
    family("mistral-small", "Mistral", 131_072, None),
    family("mistral-nemo", "Mistral", 131_072, None),
    family("ministral", "Mistral", 131_072, None),
    family("pixtral-large", "Mistral", 131_072, None),
    family("devstral", "Mistral", 131_072, None),
    family("mixtral-8x22b", "Mistral", 65_536, None),
    family("mixtral-8x7b", "Mistral", 32_768, None),
];

/// What [`model_limits`] found for an id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelLimits {
    /// The context window, in tokens ([`FALLBACK_WINDOW`] when unknown).
    pub window: u64,
    /// The output limit, when the table has one.
    pub max_output_tokens: Option<u64>,
    /// Whether the id matched an entry of the table.
    pub known: bool,
    /// The entry's pattern (`gpt-4o`), when known.
    pub family: Option<&'static str>,
    /// For an unknown id: what was assumed, and how to say better.
    pub warning: Option<String>,
}

json_object! {
    ModelLimits {
        window: "window",
        max_output_tokens: "maxOutputTokens",
        known: "known",
        family?: "family",
        warning?: "warning",
    }
}

/// The limits of model `id` (see the module docs for how ids match).
///
/// ```
/// use compaction_core::model_limits::model_limits;
/// let l = model_limits("anthropic/claude-sonnet-4-20250514");
/// assert_eq!((l.window, l.max_output_tokens, l.known), (200_000, Some(64_000), true));
/// assert_eq!(model_limits("models/gemini-2.5-flash").window, 1_048_576);
/// let unknown = model_limits("my-finetune");
/// assert_eq!((unknown.window, unknown.known), (131_072, false));
/// assert!(unknown.warning.unwrap().contains("my-finetune"));
/// ```
pub fn model_limits(id: &str) -> ModelLimits {
    match find(id) {
        Some(f) => ModelLimits {
            window: f.window,
            max_output_tokens: f.max_output_tokens,
            known: true,
            family: Some(f.pattern),
            warning: None,
        },
        None => ModelLimits {
            window: FALLBACK_WINDOW,
            max_output_tokens: None,
            known: false,
            family: None,
            warning: Some(format!(
                "compaction-core: the model {id} is not in the model table (checked \
                 {TABLE_DATE}); assuming a window of {FALLBACK_WINDOW} tokens. Pass window (and \
                 maxOutputTokens) for this model.",
                id = Quoted(id)
            )),
        },
    }
}

/// The first entry whose pattern appears in the normalized id at a name
/// boundary: at the start or after a separator, and followed by the end, a
/// separator or a version/date suffix.
fn find(id: &str) -> Option<&'static ModelFamily> {
    let id = normalize(id);
    MODEL_FAMILIES
        .iter()
        .find(|f| matches_at_boundary(&id, f.pattern))
}

/// Lowercase; dots, underscores, colons and slashes as dashes, so that
/// `claude-3.5-sonnet`, `models/gemini-2.5-flash` and
/// `us.anthropic.claude-3-5-sonnet-v1:0` read alike.
fn normalize(id: &str) -> String {
    id.trim()
        .chars()
        .map(|c| match c {
            '.' | '_' | ':' | '/' | ' ' | '@' => '-',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

fn matches_at_boundary(id: &str, pattern: &str) -> bool {
    let mut from = 0;
    while let Some(at) = str_search::find(id.get(from..).unwrap_or_default(), pattern) {
        let start = from + at;
        let end = start + pattern.len();
        let before_ok = start == 0 || id.as_bytes()[start - 1] == b'-';
        let after_ok = end == id.len() || id.as_bytes()[end] == b'-';
        if before_ok && after_ok {
            return true;
        }
        from = start + 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_matches_itself_first_or_a_more_specific_entry_before_it() {
        for (i, f) in MODEL_FAMILIES.iter().enumerate() {
            let first = MODEL_FAMILIES
                .iter()
                .position(|g| matches_at_boundary(f.pattern, g.pattern));
            assert_eq!(first, Some(i), "{} is shadowed", f.pattern);
        }
    }
}
