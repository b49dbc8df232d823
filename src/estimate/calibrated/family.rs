//! The tokenizer families the weights imitate, their names, and their row
//! of the weight table.

use crate::prelude::*;

use super::features::FamilyWeights;
#[cfg(not(feature = "refit"))]
use super::weights::WEIGHTS;

/// Built with `--features refit` (by `scripts/fit-estimator`), the crate
/// does not read the generated table, so it compiles while the counts change
/// and the table is stale.
#[cfg(feature = "refit")]
const WEIGHTS: [FamilyWeights; TokenizerFamily::ALL.len()] =
    [FamilyWeights::ZERO; TokenizerFamily::ALL.len()];

/// Which tokenizer the counts should imitate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TokenizerFamily {
    /// One set of weights fitted on all seven tokenizers at once, for hosts
    /// that do not say which model they call.
    #[default]
    Universal,
    /// OpenAI `o200k_base` (GPT-4o, GPT-4.1, GPT-5, o-series).
    O200k,
    /// OpenAI `cl100k_base` (GPT-4, GPT-3.5).
    Cl100k,
    /// Anthropic Claude (fitted on the published legacy tokenizer).
    Claude,
    /// Qwen2 / 2.5 / 3 BPE.
    Qwen,
    /// Google's Gemini and Gemma SentencePiece vocabulary (262k pieces).
    Gemini,
    /// Meta Llama 3 (3, 3.1, 3.2, 3.3: 128k BPE).
    Llama3,
    /// DeepSeek V3 / R1 BPE.
    Deepseek,
}

impl crate::json::ToJson for TokenizerFamily {
    fn write_json(&self, out: &mut String) {
        crate::json::write_str(out, self.name());
    }
}

impl TokenizerFamily {
    /// Every family, in the order of the weight table.
    pub const ALL: [TokenizerFamily; 8] = [
        TokenizerFamily::Universal,
        TokenizerFamily::O200k,
        TokenizerFamily::Cl100k,
        TokenizerFamily::Claude,
        TokenizerFamily::Qwen,
        TokenizerFamily::Gemini,
        TokenizerFamily::Llama3,
        TokenizerFamily::Deepseek,
    ];

    /// The name used in settings and in the corpus: `universal`, `o200k`,
    /// `cl100k`, `claude`, `qwen`, `gemini`, `llama3`, `deepseek`.
    pub const fn name(self) -> &'static str {
        match self {
            TokenizerFamily::Universal => "universal",
            TokenizerFamily::O200k => "o200k",
            TokenizerFamily::Cl100k => "cl100k",
            TokenizerFamily::Claude => "claude",
            TokenizerFamily::Qwen => "qwen",
            TokenizerFamily::Gemini => "gemini",
            TokenizerFamily::Llama3 => "llama3",
            TokenizerFamily::Deepseek => "deepseek",
        }
    }

    /// The family with this [`name`](Self::name), if any.
    pub fn from_name(name: &str) -> Option<TokenizerFamily> {
        TokenizerFamily::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The fitted weights of this family.
    #[doc(hidden)]
    pub const fn weights(self) -> &'static FamilyWeights {
        &WEIGHTS[self as usize]
    }
}

impl TokenizerFamily {
    /// The family of a model id (`"gpt-4o"`, `"claude-sonnet-4-5"`,
    /// `"models/gemini-2.5-pro"`, `"meta-llama/Llama-3.1-8B-Instruct"`, …):
    /// GPT-4o, 4.1, 4.5, 5 and the o-series → `o200k`; GPT-4 and 3.5 →
    /// `cl100k`; Claude → `claude`; Gemini and Gemma → `gemini`; Qwen and
    /// QwQ → `qwen`; Llama 3 → `llama3`; DeepSeek → `deepseek`; anything
    /// else → `universal`. Case and a provider prefix (`openai/`, `models/`)
    /// do not matter.
    ///
    /// ```
    /// use compaction_core::calibrated::TokenizerFamily;
    /// assert_eq!(TokenizerFamily::for_model("gpt-4o-mini"), TokenizerFamily::O200k);
    /// assert_eq!(TokenizerFamily::for_model("gpt-4-turbo"), TokenizerFamily::Cl100k);
    /// assert_eq!(TokenizerFamily::for_model("o3-mini"), TokenizerFamily::O200k);
    /// assert_eq!(TokenizerFamily::for_model("mistral-large"), TokenizerFamily::Universal);
    /// ```
    pub fn for_model(id: &str) -> TokenizerFamily {
        // Bytes and the crate's own search, not `str::contains` and
        // `rsplit`: std's searcher costs kilobytes of the web build.
        let id = id.to_ascii_lowercase();
        let id = id.as_bytes();
        // Provider prefixes ("openai/gpt-4o", "models/gemini-2.5-pro",
        // "meta-llama/llama-3.1-8b"): the name is the last segment, but the
        // prefix may name the family ("deepseek-ai/…", "qwen/…").
        let name = match id.iter().rposition(|&b| b == b'/' || b == b':') {
            Some(i) => id.get(i + 1..).unwrap_or_default(),
            None => id,
        };
        let has =
            |s: &str| core::str::from_utf8(id).is_ok_and(|id| crate::str_search::contains(id, s));
        let starts = |s: &str| name.starts_with(s.as_bytes());
        // The o-series: "o1", "o3-mini", "o4-mini-high".
        let o_series = matches!(name, [b'o', d, rest @ ..]
            if d.is_ascii_digit() && rest.first().is_none_or(|b| !b.is_ascii_digit()));
        if o_series
            || starts("gpt-4o")
            || starts("chatgpt-4o")
            || starts("gpt-4.1")
            || starts("gpt-4.5")
            || starts("gpt-5")
            || starts("gpt-oss")
        {
            TokenizerFamily::O200k
        } else if starts("gpt-4") || starts("gpt-3.5") || starts("gpt-35") {
            TokenizerFamily::Cl100k
        } else if has("claude") {
            TokenizerFamily::Claude
        } else if has("gemini") || has("gemma") {
            TokenizerFamily::Gemini
        } else if has("qwen") || has("qwq") {
            TokenizerFamily::Qwen
        } else if has("deepseek") {
            TokenizerFamily::Deepseek
        } else if has("llama-3") || has("llama3") || has("llama-v3") {
            TokenizerFamily::Llama3
        } else {
            TokenizerFamily::Universal
        }
    }
}
