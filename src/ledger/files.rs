//! Which tool calls changed which files: tool names, argument names and
//! patch headers of the usual coding agents, extendable by the host.
//!
//! Names are compared loosely — case, `_` and `-` ignored (`file_path`,
//! `filePath` and `FilePath` are one name) — and a namespaced tool name
//! (`mcp__fs__write_file`, `functions.apply_patch`) is also tried by its
//! last segment, so the defaults match most agents without configuration.

use crate::prelude::*;

use crate::str_search;

use crate::json::{Map, ObjectWriter, ToJson, Value, write_str};

/// What a tool call did to a file, as the ledger records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operation {
    /// A new file.
    Created,
    /// The whole file written (created or overwritten; tools such as
    /// `write_file` do not say which).
    Written,
    /// Part of the file changed.
    Edited,
    /// The file moved away, to this path.
    MovedTo(String),
    /// The file arrived here, from this path.
    MovedFrom(String),
    /// The file removed.
    Deleted,
}

/// `"created"`, …, or `{"movedTo": path}` / `{"movedFrom": path}`.
impl ToJson for Operation {
    fn write_json(&self, out: &mut String) {
        let (key, path) = match self {
            Operation::Created => return write_str(out, "created"),
            Operation::Written => return write_str(out, "written"),
            Operation::Edited => return write_str(out, "edited"),
            Operation::Deleted => return write_str(out, "deleted"),
            Operation::MovedTo(to) => ("movedTo", to),
            Operation::MovedFrom(from) => ("movedFrom", from),
        };
        let mut o = ObjectWriter::new(out);
        o.field(key, path);
        o.end();
    }
}

impl Operation {
    /// The words the rendered ledger uses: `created`, `written`, `edited`,
    /// `moved to x`, `moved from x`, `deleted`.
    pub fn describe(&self) -> String {
        match self {
            Operation::Created => "created".into(),
            Operation::Written => "written".into(),
            Operation::Edited => "edited".into(),
            Operation::MovedTo(to) => format!("moved to {to}"),
            Operation::MovedFrom(from) => format!("moved from {from}"),
            Operation::Deleted => "deleted".into(),
        }
    }

    /// Reads [`Operation::describe`]'s words back.
    pub fn parse(words: &str) -> Option<Operation> {
        Some(match words {
            "created" => Operation::Created,
            "written" => Operation::Written,
            "edited" => Operation::Edited,
            "deleted" => Operation::Deleted,
            _ => {
                if let Some(to) = words.strip_prefix("moved to ") {
                    Operation::MovedTo(clean_path(to)?)
                } else {
                    Operation::MovedFrom(clean_path(words.strip_prefix("moved from ")?)?)
                }
            }
        })
    }
}

/// How a recognised tool says what it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolKind {
    /// Always this operation on the paths in its path arguments.
    Creates,
    /// See [`ToolKind::Creates`].
    Writes,
    /// See [`ToolKind::Creates`].
    Edits,
    /// See [`ToolKind::Creates`].
    Deletes,
    /// Moves its source argument (or path argument) to its destination.
    Moves,
    /// Its `command` argument says the operation (`create`, `str_replace`,
    /// `insert`, `write`, `delete`, `rename`; `view` changes nothing), as
    /// Anthropic's text editor tool and its descendants do.
    ByCommand,
    /// Its arguments hold a patch: the files are in the patch's headers
    /// (`*** Update File:`, `--- a/x` / `+++ b/x`, …).
    Patch,
}

/// The tool names recognised without configuration, from the tools of
/// Gemini CLI, Claude Code, Codex, Cline/Roo, Cursor, Copilot, OpenCode,
/// OpenHands, Continue and Anthropic's text editor tool.
pub const DEFAULT_TOOLS: &[(&str, ToolKind)] = &[
    ("create_file", ToolKind::Creates),
    ("create_new_file", ToolKind::Creates),
    ("new_file", ToolKind::Creates),
    ("write_file", ToolKind::Writes),
    ("write", ToolKind::Writes),
    ("write_to_file", ToolKind::Writes),
    ("save_file", ToolKind::Writes),
    ("overwrite_file", ToolKind::Writes),
    ("edit", ToolKind::Edits),
    ("edit_file", ToolKind::Edits),
    ("multi_edit", ToolKind::Edits),
    ("replace", ToolKind::Edits),
    ("str_replace", ToolKind::Edits),
    ("replace_in_file", ToolKind::Edits),
    ("replace_string_in_file", ToolKind::Edits),
    ("search_replace", ToolKind::Edits),
    ("search_and_replace", ToolKind::Edits),
    ("find_and_replace", ToolKind::Edits),
    ("apply_diff", ToolKind::Edits),
    ("insert_content", ToolKind::Edits),
    ("insert_edit_into_file", ToolKind::Edits),
    ("edit_existing_file", ToolKind::Edits),
    ("notebook_edit", ToolKind::Edits),
    ("delete_file", ToolKind::Deletes),
    ("delete", ToolKind::Deletes),
    ("remove_file", ToolKind::Deletes),
    ("move", ToolKind::Moves),
    ("move_file", ToolKind::Moves),
    ("rename", ToolKind::Moves),
    ("rename_file", ToolKind::Moves),
    ("str_replace_based_edit_tool", ToolKind::ByCommand),
    ("str_replace_editor", ToolKind::ByCommand),
    ("text_editor", ToolKind::ByCommand),
    ("apply_patch", ToolKind::Patch),
    ("patch", ToolKind::Patch),
];

/// Arguments that name the file a tool changes.
pub const DEFAULT_PATH_ARGUMENTS: &[&str] = &[
    "path",
    "file_path",
    "filename",
    "file",
    "paths",
    "file_paths",
    "target",
    "target_file",
    "notebook_path",
    "absolute_path",
    "relative_path",
];

/// Arguments that name where a move starts (the path arguments are used
/// when none is given).
pub const DEFAULT_SOURCE_ARGUMENTS: &[&str] = &[
    "source",
    "source_path",
    "src",
    "from",
    "old_path",
    "old_file_path",
];

/// Arguments that name where a move ends.
pub const DEFAULT_DESTINATION_ARGUMENTS: &[&str] = &[
    "destination",
    "destination_path",
    "dest",
    "dst",
    "to",
    "new_path",
    "new_file_path",
    "target_path",
];

/// The longest path the ledger records (UTF-16 units); a longer "path" is
/// not a file name but some other text in a path-like argument.
const MAX_PATH_LEN: usize = 1_024;

/// Compares names loosely: case, `_`, `-` and spaces ignored.
pub(crate) fn loose(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .map(fold_case)
        .collect()
}

/// The lower case of the letters whose case a name or heading is likely to
/// change in (ASCII, Latin-1, Greek, Cyrillic); every other char as it is.
/// By arithmetic, not `char::to_lowercase`, whose table of every Unicode
/// case pair would be linked into the wasm for names and headings that are
/// almost always ASCII (docs/performance.md).
pub(crate) fn fold_case(c: char) -> char {
    let u = c as u32;
    let lower = match u {
        0x41..=0x5A | 0xC0..=0xD6 | 0xD8..=0xDE | 0x391..=0x3A1 | 0x3A3..=0x3AB | 0x410..=0x42F => {
            u + 0x20
        }
        0x400..=0x40F => u + 0x50,
        _ => u,
    };
    char::from_u32(lower).unwrap_or(c)
}

/// The last segment of a namespaced tool name, or `None` when it has none.
fn last_segment(name: &str) -> Option<&str> {
    let cut = ["__", ".", "/", ":"]
        .iter()
        .filter_map(|sep| str_search::rfind(name, sep).map(|i| i + sep.len()))
        .max()?;
    name.get(cut..).filter(|s| !s.is_empty())
}

/// A path as the ledger keeps it, or `None` for text that cannot be one
/// rendered path line: empty, with control characters, absurdly long, or
/// starting with a quote or backtick (which would read back as the user's
/// words or a fence).
pub(crate) fn clean_path(raw: &str) -> Option<String> {
    let path = raw.trim();
    let ok = !path.is_empty()
        && crate::estimate::utf16_len(path) <= MAX_PATH_LEN
        && !path.chars().any(char::is_control)
        && !path.starts_with(['`', '"']);
    ok.then(|| path.to_string())
}

/// Reads function calls with the host's names and the defaults.
pub(crate) struct Recogniser {
    tools: Vec<(String, ToolKind)>,
    path_arguments: Vec<String>,
    source_arguments: Vec<String>,
    destination_arguments: Vec<String>,
}

impl Recogniser {
    /// The host's names first (so a host may reclassify a default name),
    /// then the defaults.
    pub(crate) fn new(options: &super::LedgerOptions) -> Recogniser {
        let host = [
            (&options.created, ToolKind::Creates),
            (&options.written, ToolKind::Writes),
            (&options.edited, ToolKind::Edits),
            (&options.moved, ToolKind::Moves),
            (&options.deleted, ToolKind::Deletes),
            (&options.command_tools, ToolKind::ByCommand),
            (&options.patch_tools, ToolKind::Patch),
        ];
        let tools = host
            .iter()
            .flat_map(|(names, kind)| names.iter().map(move |n| (loose(n), *kind)))
            .chain(DEFAULT_TOOLS.iter().map(|(n, k)| (loose(n), *k)))
            .collect();
        let names = |host: &[String], defaults: &[&str]| -> Vec<String> {
            host.iter()
                .map(|n| loose(n))
                .chain(defaults.iter().map(|n| loose(n)))
                .collect()
        };
        Recogniser {
            tools,
            path_arguments: names(&options.path_arguments, DEFAULT_PATH_ARGUMENTS),
            source_arguments: names(&options.source_arguments, DEFAULT_SOURCE_ARGUMENTS),
            destination_arguments: names(
                &options.destination_arguments,
                DEFAULT_DESTINATION_ARGUMENTS,
            ),
        }
    }

    fn kind(&self, name: &str) -> Option<ToolKind> {
        let find = |n: &str| {
            let n = loose(n);
            self.tools.iter().find(|(t, _)| *t == n).map(|(_, k)| *k)
        };
        find(name).or_else(|| last_segment(name).and_then(find))
    }

    /// What `call` (`{ name, args }`) did to files.
    pub(crate) fn operations(&self, call: &Map) -> Vec<(String, Operation)> {
        let mut out = Vec::new();
        let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
        let Some(Value::Object(args)) = call.get("args").or_else(|| call.get("arguments")) else {
            return out;
        };
        let kind = self.kind(name);
        // A Codex-style patch envelope is unambiguous, so it is read in any
        // call (Codex also sends it through its shell tool); unified diff
        // headers only in a patch tool, where they cannot be file content.
        let mut texts = Vec::new();
        for value in args.values() {
            collect_strings(value, &mut texts);
        }
        for text in &texts {
            if str_search::contains(text, "*** Begin Patch") {
                envelope_patch(text, &mut out);
            } else if kind == Some(ToolKind::Patch) {
                unified_diff(text, &mut out);
            }
        }
        let Some(kind) = kind else {
            return out;
        };
        let simple = match kind {
            ToolKind::Creates => Some(Operation::Created),
            ToolKind::Writes => Some(Operation::Written),
            ToolKind::Edits => Some(Operation::Edited),
            ToolKind::Deletes => Some(Operation::Deleted),
            ToolKind::ByCommand => command_operation(args),
            ToolKind::Moves => {
                self.moves(args, &mut out);
                None
            }
            ToolKind::Patch => None,
        };
        if let Some(op) = simple {
            for path in self.paths(args, &self.path_arguments) {
                out.push((path, op.clone()));
            }
        }
        out
    }

    fn moves(&self, args: &Map, out: &mut Vec<(String, Operation)>) {
        let mut sources = self.paths(args, &self.source_arguments);
        if sources.is_empty() {
            sources = self.paths(args, &self.path_arguments);
        }
        let destination = self
            .paths(args, &self.destination_arguments)
            .into_iter()
            .next();
        for source in sources {
            match &destination {
                Some(to) => {
                    out.push((source.clone(), Operation::MovedTo(to.clone())));
                    out.push((to.clone(), Operation::MovedFrom(source)));
                }
                // A move without a destination still changed the source.
                None => out.push((source, Operation::Deleted)),
            }
        }
    }

    fn paths(&self, args: &Map, names: &[String]) -> Vec<String> {
        let mut out = Vec::new();
        for (key, value) in args {
            if !names.contains(&loose(key)) {
                continue;
            }
            let mut texts = Vec::new();
            collect_strings(value, &mut texts);
            out.extend(texts.into_iter().filter_map(clean_path));
        }
        out
    }
}

/// Strings in a value and in arrays of it (one level of nesting: a list
/// of paths, or Codex's `["apply_patch", "<patch>"]` command).
fn collect_strings<'v>(value: &'v Value, out: &mut Vec<&'v str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => out.extend(items.iter().filter_map(Value::as_str)),
        _ => {}
    }
}

fn command_operation(args: &Map) -> Option<Operation> {
    let command = args.get("command").and_then(Value::as_str)?;
    Some(match loose(command).as_str() {
        "create" => Operation::Created,
        "write" | "overwrite" => Operation::Written,
        "strreplace" | "insert" | "undoedit" | "edit" | "replace" | "append" => Operation::Edited,
        "delete" | "remove" => Operation::Deleted,
        _ => return None,
    })
}

/// `*** Add File: x`, `*** Update File: x` (with `*** Move to: y`),
/// `*** Delete File: x`: the apply_patch envelope of Codex and its kin.
fn envelope_patch(text: &str, out: &mut Vec<(String, Operation)>) {
    let mut updating: Option<String> = None;
    for line in text.lines() {
        let line = line.trim_end();
        if let Some(p) = line.strip_prefix("*** Add File:").and_then(clean_path) {
            out.push((p, Operation::Created));
            updating = None;
        } else if let Some(p) = line.strip_prefix("*** Delete File:").and_then(clean_path) {
            out.push((p, Operation::Deleted));
            updating = None;
        } else if let Some(p) = line.strip_prefix("*** Update File:").and_then(clean_path) {
            out.push((p.clone(), Operation::Edited));
            updating = Some(p);
        } else if let Some(to) = line.strip_prefix("*** Move to:").and_then(clean_path)
            && let Some(from) = updating.take()
        {
            out.push((from.clone(), Operation::MovedTo(to.clone())));
            out.push((to, Operation::MovedFrom(from)));
        }
    }
}

/// `--- a/x` / `+++ b/x` pairs (`/dev/null` on one side: created or
/// deleted), and git's `rename from` / `rename to`.
fn unified_diff(text: &str, out: &mut Vec<(String, Operation)>) {
    let mut old: Option<Option<String>> = None;
    let mut rename_from: Option<String> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("--- ") {
            old = Some(diff_path(rest));
        } else if let Some(rest) = line.strip_prefix("+++ ")
            && let Some(before) = old.take()
        {
            match (before, diff_path(rest)) {
                (None, Some(new)) => out.push((new, Operation::Created)),
                (Some(before), None) => out.push((before, Operation::Deleted)),
                (Some(_), Some(new)) => out.push((new, Operation::Edited)),
                (None, None) => {}
            }
        } else if let Some(p) = line.strip_prefix("rename from ").and_then(clean_path) {
            rename_from = Some(p);
        } else if let Some(to) = line.strip_prefix("rename to ").and_then(clean_path)
            && let Some(from) = rename_from.take()
        {
            out.push((from.clone(), Operation::MovedTo(to.clone())));
            out.push((to, Operation::MovedFrom(from)));
        }
    }
}

/// The path of a `---`/`+++` header: `None` for `/dev/null`; the `a/`,
/// `b/` prefixes and a trailing tab-separated timestamp removed.
fn diff_path(rest: &str) -> Option<String> {
    let rest = rest.split('\t').next().unwrap_or(rest).trim();
    if rest == "/dev/null" {
        return None;
    }
    let rest = rest
        .strip_prefix("a/")
        .or_else(|| rest.strip_prefix("b/"))
        .unwrap_or(rest);
    clean_path(rest)
}

#[cfg(test)]
mod fold_case_tests {
    use super::fold_case;

    #[test]
    fn folds_as_unicode_does_in_its_blocks_and_leaves_the_rest() {
        let mut folded = 0;
        for u in 0..0x530u32 {
            let Some(c) = char::from_u32(u) else { continue };
            let unicode: Vec<char> = c.to_lowercase().collect();
            let ours = fold_case(c);
            if ours != c {
                folded += 1;
                assert_eq!(unicode, [ours], "{c:?}");
            } else if (0x41..0x5B).contains(&u)
                || (0xC0..0xDF).contains(&u)
                || (0x391..0x3AC).contains(&u)
                || (0x400..0x430).contains(&u)
            {
                // Inside the blocks it claims, only chars Unicode does not
                // lower to one other char are left (×, U+03A2).
                assert_eq!(unicode, [c], "{c:?}");
            }
        }
        // 26 ASCII + 30 Latin-1 + 26 Greek (with Ϊ, Ϋ) + 48 Cyrillic.
        assert_eq!(folded, 26 + 30 + 26 + 48);
        assert_eq!(super::loose("Write_File"), "writefile");
        assert_eq!(super::loose("ÉTAT-Δ"), "étatδ");
    }
}
