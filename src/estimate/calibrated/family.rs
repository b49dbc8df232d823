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
    /// One set of weights fitted on all four families at once, for hosts
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
}

impl crate::json::ToJson for TokenizerFamily {
    fn write_json(&self, out: &mut String) {
        crate::json::write_str(out, self.name());
    }
}

impl TokenizerFamily {
    /// Every family, in the order of the weight table.
    pub const ALL: [TokenizerFamily; 5] = [
        TokenizerFamily::Universal,
        TokenizerFamily::O200k,
        TokenizerFamily::Cl100k,
        TokenizerFamily::Claude,
        TokenizerFamily::Qwen,
    ];

    /// The name used in settings and in the corpus: `universal`, `o200k`,
    /// `cl100k`, `claude`, `qwen`.
    pub const fn name(self) -> &'static str {
        match self {
            TokenizerFamily::Universal => "universal",
            TokenizerFamily::O200k => "o200k",
            TokenizerFamily::Cl100k => "cl100k",
            TokenizerFamily::Claude => "claude",
            TokenizerFamily::Qwen => "qwen",
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
