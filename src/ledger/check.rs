//! A check of the model's summary against the prompt's required sections
//! and the ledger's files, so that a host can log or retry; the ledger
//! section fills what is missing in any case.

use crate::prelude::*;

use crate::StrMap;
use crate::json::json_object;

use super::files::fold_case;
use super::{Ledger, names_path};
use crate::summary_request::DEFAULT_SUMMARY_PROMPT;

/// What a summary has of what was asked (serialized in camelCase:
/// `{ "sections": { "Files": true, … }, "missingFiles": [ … ] }`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SummaryCheck {
    /// Each required section of the prompt → whether the summary has it as
    /// a heading (`## Files`), a bold line (`**Files**`) or a label
    /// (`Files:`), case ignored.
    pub sections: StrMap<String, bool>,
    /// The ledger's paths the summary does not name, in first-seen order.
    pub missing_files: Vec<String>,
}

json_object! {
    SummaryCheck {
        sections: "sections",
        missing_files: "missingFiles",
    }
}

impl SummaryCheck {
    /// Whether the summary has every section and names every file.
    pub fn is_complete(&self) -> bool {
        self.missing_files.is_empty() && self.sections.values().all(|&has| has)
    }
}

/// The sections a prompt requires: its `## ` heading lines, in order (for
/// [`DEFAULT_SUMMARY_PROMPT`]: User intent and requirements, Task status,
/// Files, Decisions and constraints, Next steps).
///
/// ```
/// use compaction_core::{DEFAULT_SUMMARY_PROMPT, ledger::required_sections};
/// assert!(required_sections(DEFAULT_SUMMARY_PROMPT).contains(&"Files".to_string()));
/// ```
pub fn required_sections(prompt: &str) -> Vec<String> {
    prompt
        .lines()
        .filter_map(|line| line.trim().strip_prefix("## "))
        .map(|name| name.trim().to_string())
        .filter(|name| !name.is_empty())
        .collect()
}

/// [`check_with_prompt`] against [`DEFAULT_SUMMARY_PROMPT`].
pub fn check(summary: &str, ledger: &Ledger) -> SummaryCheck {
    check_with_prompt(summary, ledger, DEFAULT_SUMMARY_PROMPT)
}

/// Which of `prompt`'s required sections `summary` has, and which of the
/// ledger's files it does not name. A host prompt without `## ` headings
/// requires none.
pub fn check_with_prompt(summary: &str, ledger: &Ledger, prompt: &str) -> SummaryCheck {
    let headings: Vec<String> = summary.lines().filter_map(heading_of).collect();
    // In the prompt's order; a repeated name keeps its first place and its
    // last value.
    let mut sections = StrMap::new();
    for name in required_sections(prompt) {
        let has = headings.contains(&lowercase(&name));
        sections.insert(name, has);
    }
    SummaryCheck {
        sections,
        missing_files: ledger
            .files
            .iter()
            .filter(|f| !names_path(summary, &f.path))
            .map(|f| f.path.clone())
            .collect(),
    }
}

/// The lowercased name of a heading-like line: `## Name`, `**Name**`,
/// `Name:` (and combinations such as `### **Name:**`); `None` for others.
fn heading_of(line: &str) -> Option<String> {
    let mut text = line.trim();
    let mut marked = false;
    if text.starts_with('#') {
        text = text.trim_start_matches('#').trim();
        marked = true;
    }
    for wrap in ["**", "__"] {
        if let Some(inner) = text.strip_prefix(wrap).and_then(|t| t.strip_suffix(wrap)) {
            text = inner.trim();
            marked = true;
        }
    }
    if let Some(inner) = text.strip_suffix(':').or_else(|| text.strip_suffix('：')) {
        text = inner.trim();
        marked = true;
    }
    // A trailing colon inside bold (`**Files:**`) is common too.
    text = text.trim_end_matches([':', '：']).trim();
    (marked && !text.is_empty()).then(|| lowercase(text))
}

/// `text` with [`fold_case`] applied to every char.
fn lowercase(text: &str) -> String {
    text.chars().map(fold_case).collect()
}
