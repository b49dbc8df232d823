//! Writing the ledger's section: [`Ledger::render`] lists what the summary
//! leaves out, carries what it holds, and shrinks to a token budget;
//! [`section_budget`] is the budget a compaction gives it.

use crate::prelude::*;

use crate::json::Value;

use crate::content::Content;
use crate::estimate::{EstimateOptions, estimate_text_tokens, message_tokens};
use crate::str_search;

use super::{FileEntry, LEDGER_FENCE, LEDGER_HEADING, Ledger, names_path};

/// Introduces the carried lines (`= …`): what the summary already holds,
/// kept for the next compaction.
const CARRIED: &str = "already in the summary (kept for the next compaction):";

const HEADER: &str = "Recorded by the library from the replaced messages, not written by the \
model: files changed (last operation) and the user's own words (newest first) that the summary \
above leaves out.";

impl Ledger {
    /// The section that follows `summary` in the summary message, or `""`
    /// when the ledger is empty (or there is no room). It starts with a blank
    /// line, so the summary message's text is `summary + section`.
    ///
    /// It lists the files the summary does not name and the user's words it
    /// does not contain. What the summary already holds is carried too, on
    /// lines marked `=` under "already in the summary", so that the next
    /// compaction still has it when the next summary drops it.
    ///
    /// Its estimated size (this ledger's estimator, rounded up) never
    /// exceeds `budget_tokens`. To fit, it drops first the carried lines
    /// (the summary has them now), then the oldest of the user's words, then
    /// the oldest files, and says how many words and files it left out; when
    /// even the heading does not fit, it is empty.
    ///
    /// The section is a heading, one line saying the library (not the
    /// model) recorded it, and a fenced `compaction-ledger` block: one
    /// `- path (operation)` line per file and one `- "words"` line per
    /// message (a JSON string, so no message can break the block), which
    /// [`Ledger::from_messages`] reads back at the next compaction.
    pub fn render(&self, summary: &str, budget_tokens: f64) -> String {
        if self.is_empty() {
            return String::new();
        }
        let budget = if budget_tokens.is_nan() {
            0.0
        } else {
            budget_tokens.floor()
        };
        let file_line = |f: &FileEntry| format!("{} ({})", f.path, f.last_operation.describe());
        let word_line = |w: &String| Value::String(w.clone()).to_string();
        let (named, files): (Vec<&FileEntry>, Vec<&FileEntry>) = self
            .files
            .iter()
            .partition(|f| names_path(summary, &f.path));
        let (held, words): (Vec<&String>, Vec<&String>) = self
            .user_words
            .iter()
            .partition(|w| str_search::contains(summary, w.trim()));
        let mut groups = Groups {
            files: files.into_iter().map(file_line).collect(),
            words: words.into_iter().map(word_line).collect(),
            carried_files: named.into_iter().map(file_line).collect(),
            carried_words: held.into_iter().map(word_line).collect(),
            kept: [0; 4],
        };
        groups.kept = [
            groups.files.len(),
            groups.words.len(),
            groups.carried_files.len(),
            groups.carried_words.len(),
        ];
        let line_cost = |line: &String| text_tokens(&format!("- {line}\n"), &self.estimate);
        loop {
            let section = groups.build();
            let tokens = estimate_text_tokens(&section, &self.estimate) as f64;
            if tokens <= budget {
                return section;
            }
            // Drop about as many lines as the excess, in the order the doc
            // says; the loop re-measures the result.
            let mut excess = tokens - budget;
            while excess > 0.0 {
                match groups.drop_next() {
                    Some(line) => excess -= line_cost(&line),
                    None => return String::new(),
                }
            }
        }
    }
}

/// `title`, then each line with its `mark`; nothing for no lines.
fn group(out: &mut String, title: &str, mark: &str, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    out.push_str(title);
    out.push('\n');
    for line in lines {
        out.push_str(mark);
        out.push_str(line);
        out.push('\n');
    }
}

/// The rendered lines by group, and how many of each are kept: files and
/// carried files drop from the front (oldest first), words and carried
/// words from the back (they are newest first).
struct Groups {
    files: Vec<String>,
    words: Vec<String>,
    carried_files: Vec<String>,
    carried_words: Vec<String>,
    /// Kept counts of files, words, carried files, carried words.
    kept: [usize; 4],
}

impl Groups {
    /// Drops the next line in the shrinking order and returns it.
    fn drop_next(&mut self) -> Option<String> {
        let [files, words, carried_files, carried_words] = &mut self.kept;
        if *carried_words > 0 {
            *carried_words -= 1;
            Some(self.carried_words[*carried_words].clone())
        } else if *carried_files > 0 {
            *carried_files -= 1;
            Some(self.carried_files[self.carried_files.len() - 1 - *carried_files].clone())
        } else if *words > 0 {
            *words -= 1;
            Some(self.words[*words].clone())
        } else if *files > 0 {
            *files -= 1;
            Some(self.files[self.files.len() - 1 - *files].clone())
        } else {
            None
        }
    }

    fn build(&self) -> String {
        let [files, words, carried_files, carried_words] = self.kept;
        let mut out = format!("\n\n{LEDGER_HEADING}\n{HEADER}\n{LEDGER_FENCE}\n");
        group(
            &mut out,
            "files:",
            "- ",
            &self.files[self.files.len() - files..],
        );
        group(&mut out, "user's words:", "- ", &self.words[..words]);
        let carried_from = self.carried_files.len() - carried_files;
        let carried = [
            &self.carried_files[carried_from..],
            &self.carried_words[..carried_words],
        ]
        .concat();
        group(&mut out, CARRIED, "= ", &carried);
        let dropped_files = self.files.len() - files;
        let dropped_words = self.words.len() - words;
        if dropped_files + dropped_words > 0 {
            out.push_str(&format!(
                "left out for room: {dropped_words} older messages, {dropped_files} oldest files\n"
            ));
        }
        out.push_str("```");
        out
    }
}

/// The tokens the ledger section may take in a compaction: what keeps the
/// new prompt below `auto` (the tier starts *at* `auto`) and no larger than
/// the original, so the ledger never causes an AUTO tier or an INFLATED
/// outcome. `new_tokens_without` is the new prompt's size with the model's
/// summary alone; a NaN anywhere gives 0.
///
/// ```
/// use compaction_core::ledger::section_budget;
/// assert_eq!(section_budget(100_000.0, 120_000.0, 30_000.4), 69_998.0);
/// assert_eq!(section_budget(100_000.0, 40_000.0, 39_990.0), 10.0); // never above the original
/// assert_eq!(section_budget(100_000.0, 120_000.0, 100_000.0), 0.0);
/// ```
pub fn section_budget(auto: f64, original_tokens: f64, new_tokens_without: f64) -> f64 {
    let ceiling = (auto.ceil() - 1.0).min(original_tokens.floor());
    let budget = ceiling - new_tokens_without.ceil();
    if budget > 0.0 { budget } else { 0.0 }
}

/// Unrounded tokens of a text under `estimate`: per-piece costs that add
/// up, where [`estimate_text_tokens`] rounds each piece up.
fn text_tokens(text: &str, estimate: &EstimateOptions) -> f64 {
    let with = message_tokens(&Content::text("user", text), estimate);
    let without = message_tokens(
        &Content {
            role: "user".into(),
            parts: Vec::new(),
        },
        estimate,
    );
    with - without
}
