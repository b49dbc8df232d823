//! Every object the crate writes for the JS API, held to the TypeScript type
//! `src/wasm/types.d.ts` declares for it, natively (issue 20; the
//! samples of `tests/js/shapes.test.mjs`, which holds the built package's
//! values to the declarations under `tsc --strict`, plus the LangChain and
//! Responses formats, which that test leaves out).
//!
//! A small parser reads the file's `interface` and `type` declarations —
//! the constructs it uses: members with `?`, index signatures, unions,
//! intersections, arrays, tuples, string / number / boolean literals,
//! `Record<string, T>`, generics with defaults, function types — and fails
//! on anything else, so a construct it does not know cannot make it check
//! nothing. Each written value is then checked against its type: every key
//! written is declared (no excess), every required key is written, and
//! every value has the declared JSON type, recursively.
//!
//! What the JS layer changes between the core and the host is a table
//! ([`JS_LAYER`]): `done` results lose `head` and `pinned` and gain
//! `history` and `replaced` (api.js `result()`); `save()` adds the replay
//! fields, all optional.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test: failing loudly is the point

mod common;
use common::{create, ok};

use compaction_core::Value;
use compaction_core::json;
use compaction_core::json_api::{self, Chats};
use std::collections::BTreeMap;

// ---- the parser ------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Str(String),
    Num(f64),
    Punct(&'static str),
}

fn tokenize(text: &str) -> Vec<Tok> {
    const PUNCTS: [&str; 17] = [
        "=>", "{", "}", "[", "]", "(", ")", "<", ">", "|", "&", ";", ":", ",", "?", "=", ".",
    ];
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    'outer: while i < bytes.len() {
        let rest = &text[i..];
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            i += rest.find("*/").expect("an unclosed comment") + 2;
        } else if c == b'"' {
            let end = rest[1..].find('"').expect("an unclosed string") + 1;
            assert!(
                !rest[1..end].contains('\\'),
                "escapes in a string literal: {}",
                &rest[..=end]
            );
            out.push(Tok::Str(rest[1..end].to_string()));
            i += end + 1;
        } else if c.is_ascii_digit() {
            let len = rest
                .find(|ch: char| !(ch.is_ascii_digit() || ch == '_' || ch == '.'))
                .unwrap_or(rest.len());
            out.push(Tok::Num(rest[..len].replace('_', "").parse().unwrap()));
            i += len;
        } else if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            let len = rest
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_' || ch == '$'))
                .unwrap_or(rest.len());
            out.push(Tok::Ident(rest[..len].to_string()));
            i += len;
        } else {
            for p in PUNCTS {
                if rest.starts_with(p) {
                    out.push(Tok::Punct(p));
                    i += p.len();
                    continue 'outer;
                }
            }
            panic!(
                "types.d.ts: a character the parser does not know: {:?}",
                &rest[..rest.len().min(40)]
            );
        }
    }
    out
}

/// A TypeScript type, as far as types.d.ts uses them.
#[derive(Clone, Debug)]
enum Ty {
    Number,
    String,
    Boolean,
    Null,
    Undefined,
    /// `unknown`, and function types (never written as JSON).
    Unknown,
    /// `object`: any object or array.
    Object,
    Str(String),
    Num(f64),
    Bool(bool),
    Array(Box<Ty>),
    Tuple(Vec<Ty>),
    Record(Box<Ty>),
    Shape(Shape),
    Union(Vec<Ty>),
    Intersection(Vec<Ty>),
    Named(String, Vec<Ty>),
}

#[derive(Clone, Debug, Default)]
struct Shape {
    members: Vec<(String, bool, Ty)>,
    index: Option<Box<Ty>>,
}

#[derive(Clone, Debug)]
struct Decl {
    params: Vec<(String, Option<Ty>)>,
    extends: Vec<Ty>,
    ty: Ty,
}

struct Parser {
    toks: Vec<Tok>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }
    fn fail(&self, what: &str) -> ! {
        let near: Vec<String> = self.toks
            [self.at.saturating_sub(3)..(self.at + 6).min(self.toks.len())]
            .iter()
            .map(|t| match t {
                Tok::Ident(s) => s.clone(),
                Tok::Str(s) => format!("{s:?}"),
                Tok::Num(n) => n.to_string(),
                Tok::Punct(p) => p.to_string(),
            })
            .collect();
        panic!("types.d.ts: {what}, near `{}`", near.join(" "));
    }
    fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(q)) if *q == p)
    }
    fn eat(&mut self, p: &str) -> bool {
        let yes = self.is(p);
        if yes {
            self.at += 1;
        }
        yes
    }
    fn expect(&mut self, p: &str) {
        if !self.eat(p) {
            self.fail(&format!("expected `{p}`"));
        }
    }
    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(s)) if s == w)
    }
    fn ident(&mut self) -> String {
        match self.peek() {
            Some(Tok::Ident(s)) => {
                let s = s.clone();
                self.at += 1;
                s
            }
            _ => self.fail("expected a name"),
        }
    }

    fn file(&mut self) -> BTreeMap<String, Decl> {
        let mut decls = BTreeMap::new();
        while self.peek().is_some() {
            if self.is_word("export") {
                self.at += 1;
            }
            let kind = self.ident();
            let name = self.ident();
            let params = self.params();
            let decl = match kind.as_str() {
                "interface" => {
                    let mut extends = Vec::new();
                    if self.is_word("extends") {
                        self.at += 1;
                        extends.push(self.ty());
                        while self.eat(",") {
                            extends.push(self.ty());
                        }
                    }
                    let ty = Ty::Shape(self.shape());
                    Decl {
                        params,
                        extends,
                        ty,
                    }
                }
                "type" => {
                    self.expect("=");
                    let ty = self.ty();
                    self.expect(";");
                    Decl {
                        params,
                        extends: Vec::new(),
                        ty,
                    }
                }
                _ => self.fail(&format!(
                    "a declaration that is not an interface or a type: `{kind}`"
                )),
            };
            assert!(
                decls.insert(name.clone(), decl).is_none(),
                "{name} declared twice"
            );
        }
        decls
    }

    fn params(&mut self) -> Vec<(String, Option<Ty>)> {
        let mut params = Vec::new();
        if self.eat("<") {
            loop {
                let name = self.ident();
                if self.is_word("extends") {
                    self.at += 1;
                    self.ty(); // the bound: what may be passed, not checked here
                }
                let default = self.eat("=").then(|| self.ty());
                params.push((name, default));
                if !self.eat(",") {
                    break;
                }
            }
            self.expect(">");
        }
        params
    }

    fn shape(&mut self) -> Shape {
        self.expect("{");
        let mut shape = Shape::default();
        while !self.eat("}") {
            if self.eat("[") {
                self.ident();
                self.expect(":");
                if !self.is_word("string") {
                    self.fail("an index signature whose key is not a string");
                }
                self.at += 1;
                self.expect("]");
                self.expect(":");
                shape.index = Some(Box::new(self.ty()));
            } else {
                let name = match self.peek() {
                    Some(Tok::Ident(s) | Tok::Str(s)) => s.clone(),
                    _ => self.fail("expected a member name"),
                };
                self.at += 1;
                if self.is("(") || self.is("<") {
                    self.fail("a method in an object type");
                }
                let optional = self.eat("?");
                self.expect(":");
                let ty = self.ty();
                shape.members.push((name, optional, ty));
            }
            if !self.eat(";") && !self.eat(",") && !self.is("}") {
                self.fail("expected `;`, `,` or `}` after a member");
            }
        }
        shape
    }

    fn ty(&mut self) -> Ty {
        self.eat("|");
        let mut alts = vec![self.intersection()];
        while self.eat("|") {
            alts.push(self.intersection());
        }
        if alts.len() == 1 {
            alts.pop().unwrap()
        } else {
            Ty::Union(alts)
        }
    }

    fn intersection(&mut self) -> Ty {
        let mut parts = vec![self.postfix()];
        while self.eat("&") {
            parts.push(self.postfix());
        }
        if parts.len() == 1 {
            parts.pop().unwrap()
        } else {
            Ty::Intersection(parts)
        }
    }

    fn postfix(&mut self) -> Ty {
        let mut ty = self.primary();
        while self.is("[") && matches!(self.toks.get(self.at + 1), Some(Tok::Punct("]"))) {
            self.at += 2;
            ty = Ty::Array(Box::new(ty));
        }
        ty
    }

    fn primary(&mut self) -> Ty {
        match self.peek().cloned() {
            Some(Tok::Str(s)) => {
                self.at += 1;
                Ty::Str(s)
            }
            Some(Tok::Num(n)) => {
                self.at += 1;
                Ty::Num(n)
            }
            Some(Tok::Punct("{")) => Ty::Shape(self.shape()),
            Some(Tok::Punct("[")) => {
                self.at += 1;
                let mut items = Vec::new();
                while !self.eat("]") {
                    items.push(self.ty());
                    if !self.eat(",") && !self.is("]") {
                        self.fail("expected `,` or `]` in a tuple");
                    }
                }
                Ty::Tuple(items)
            }
            Some(Tok::Punct("(")) => {
                // A function type `(a: T, …) => R`, or a parenthesized type.
                let function = matches!(self.toks.get(self.at + 1), Some(Tok::Punct(")")))
                    || (matches!(self.toks.get(self.at + 1), Some(Tok::Ident(_)))
                        && matches!(self.toks.get(self.at + 2), Some(Tok::Punct(":" | "?"))));
                self.at += 1;
                if function {
                    while !self.eat(")") {
                        self.ident();
                        self.eat("?");
                        self.expect(":");
                        self.ty();
                        if !self.eat(",") && !self.is(")") {
                            self.fail("expected `,` or `)` in a parameter list");
                        }
                    }
                    self.expect("=>");
                    self.ty();
                    Ty::Unknown
                } else {
                    let ty = self.ty();
                    self.expect(")");
                    ty
                }
            }
            Some(Tok::Ident(word)) => {
                self.at += 1;
                match word.as_str() {
                    "number" => Ty::Number,
                    "string" => Ty::String,
                    "boolean" => Ty::Boolean,
                    "null" => Ty::Null,
                    "undefined" => Ty::Undefined,
                    "unknown" => Ty::Unknown,
                    "object" => Ty::Object,
                    "true" => Ty::Bool(true),
                    "false" => Ty::Bool(false),
                    "typeof" | "keyof" | "infer" | "readonly" | "any" | "never" => {
                        self.at -= 1;
                        self.fail(&format!("`{word}`, which the checker does not know"))
                    }
                    _ => {
                        if self.is(".") {
                            self.fail("a qualified name");
                        }
                        let mut args = Vec::new();
                        if self.eat("<") {
                            loop {
                                args.push(self.ty());
                                if !self.eat(",") {
                                    break;
                                }
                            }
                            self.expect(">");
                        }
                        if word == "Record" {
                            assert!(
                                matches!(args.as_slice(), [Ty::String, _]),
                                "types.d.ts: a Record whose key is not `string`"
                            );
                            Ty::Record(Box::new(args.pop().unwrap()))
                        } else {
                            Ty::Named(word, args)
                        }
                    }
                }
            }
            _ => self.fail("expected a type"),
        }
    }
}

// ---- the checker -----------------------------------------------------------

struct Types {
    decls: BTreeMap<String, Decl>,
}

/// Names types.d.ts uses that are declared elsewhere, and what a JSON
/// value of them is. Values of the others (`Error`, `AbortSignal`,
/// `Promise`) are never written by the crate.
fn external(name: &str) -> Option<Ty> {
    match name {
        // api.d.ts: `export enum CompressionStatus { COMPRESSED = 1, … }`.
        "CompressionStatus" => Some(Ty::Union(compression_statuses())),
        _ => None,
    }
}

fn compression_statuses() -> Vec<Ty> {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/wasm/js/api.d.ts"))
            .unwrap();
    let body = text
        .split("export enum CompressionStatus {")
        .nth(1)
        .expect("api.d.ts declares CompressionStatus")
        .split('}')
        .next()
        .unwrap();
    let toks = tokenize(body);
    let values: Vec<Ty> = toks
        .windows(2)
        .filter_map(|w| match w {
            [Tok::Punct("="), Tok::Num(n)] => Some(Ty::Num(*n)),
            _ => None,
        })
        .collect();
    assert!(values.len() >= 8, "CompressionStatus: {values:?}");
    values
}

impl Types {
    fn load() -> Types {
        let text =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/wasm/types.d.ts"))
                .unwrap();
        let decls = Parser {
            toks: tokenize(&text),
            at: 0,
        }
        .file();
        assert!(decls.len() > 40, "only {} declarations read", decls.len());
        Types { decls }
    }

    /// `name<args>` with its parameters replaced.
    fn resolve(&self, name: &str, args: &[Ty], env: &BTreeMap<String, Ty>) -> Ty {
        if let Some(ty) = env.get(name) {
            return ty.clone();
        }
        if let Some(ty) = external(name) {
            return ty;
        }
        let decl = self
            .decls
            .get(name)
            .unwrap_or_else(|| panic!("`{name}` is not declared in types.d.ts"));
        let mut inner = BTreeMap::new();
        for (i, (param, default)) in decl.params.iter().enumerate() {
            let arg = args
                .get(i)
                .map(|a| self.subst(a, env))
                .or_else(|| default.clone())
                .unwrap_or_else(|| panic!("{name}: no argument for {param}"));
            inner.insert(param.clone(), arg);
        }
        let ty = self.subst(&decl.ty, &inner);
        if decl.extends.is_empty() {
            ty
        } else {
            let mut parts: Vec<Ty> = decl.extends.iter().map(|e| self.subst(e, &inner)).collect();
            parts.push(ty);
            Ty::Intersection(parts)
        }
    }

    /// `ty` with the type parameters in `env` replaced.
    fn subst(&self, ty: &Ty, env: &BTreeMap<String, Ty>) -> Ty {
        let all = |tys: &[Ty]| tys.iter().map(|t| self.subst(t, env)).collect();
        match ty {
            Ty::Named(name, args) if args.is_empty() && env.contains_key(name) => env[name].clone(),
            Ty::Named(name, args) => Ty::Named(name.clone(), all(args)),
            Ty::Array(t) => Ty::Array(Box::new(self.subst(t, env))),
            Ty::Record(t) => Ty::Record(Box::new(self.subst(t, env))),
            Ty::Tuple(ts) => Ty::Tuple(all(ts)),
            Ty::Union(ts) => Ty::Union(all(ts)),
            Ty::Intersection(ts) => Ty::Intersection(all(ts)),
            Ty::Shape(s) => Ty::Shape(Shape {
                members: s
                    .members
                    .iter()
                    .map(|(n, o, t)| (n.clone(), *o, self.subst(t, env)))
                    .collect(),
                index: s.index.as_ref().map(|t| Box::new(self.subst(t, env))),
            }),
            other => other.clone(),
        }
    }

    /// The object shape of `ty` when it is one (an interface, a literal,
    /// an intersection of them), members merged.
    fn shape_of(&self, ty: &Ty) -> Option<Shape> {
        match ty {
            Ty::Shape(s) => Some(s.clone()),
            Ty::Named(name, args) => self.shape_of(&self.resolve(name, args, &BTreeMap::new())),
            Ty::Intersection(parts) => {
                let mut merged = Shape::default();
                for part in parts {
                    let s = self.shape_of(part)?;
                    for (name, optional, ty) in s.members {
                        match merged.members.iter_mut().find(|(n, _, _)| *n == name) {
                            // `A & { k: T }`: k must be both; required if either says so.
                            Some(m) => {
                                m.1 = m.1 && optional;
                                m.2 = Ty::Intersection(vec![m.2.clone(), ty]);
                            }
                            None => merged.members.push((name, optional, ty)),
                        }
                    }
                    if s.index.is_some() {
                        merged.index = s.index;
                    }
                }
                Some(merged)
            }
            _ => None,
        }
    }

    /// Why `value` is not a `ty`, or `None` when it is one.
    fn check(&self, value: &Value, ty: &Ty, path: &str) -> Option<String> {
        let wrong = |what: &str| Some(format!("{path}: expected {what}, got {value}"));
        match (ty, value) {
            (Ty::Unknown, _) => None,
            (Ty::Number, Value::Number(_)) | (Ty::String, Value::String(_)) => None,
            (Ty::Boolean, Value::Bool(_)) | (Ty::Null, Value::Null) => None,
            (Ty::Object, Value::Object(_) | Value::Array(_)) => None,
            (Ty::Str(s), Value::String(v)) if s == v => None,
            (Ty::Num(n), Value::Number(v)) if n == v => None,
            (Ty::Bool(b), Value::Bool(v)) if b == v => None,
            (Ty::Array(item), Value::Array(items)) => items
                .iter()
                .enumerate()
                .find_map(|(i, v)| self.check(v, item, &format!("{path}[{i}]"))),
            (Ty::Tuple(tys), Value::Array(items)) if tys.len() == items.len() => items
                .iter()
                .zip(tys)
                .enumerate()
                .find_map(|(i, (v, t))| self.check(v, t, &format!("{path}[{i}]"))),
            (Ty::Record(item), Value::Object(map)) => map
                .iter()
                .find_map(|(k, v)| self.check(v, item, &format!("{path}.{k}"))),
            (Ty::Union(alts), _) => {
                let errors: Vec<String> = alts
                    .iter()
                    .map_while(|t| self.check(value, t, path))
                    .collect();
                if errors.len() < alts.len() {
                    None
                } else {
                    Some(format!(
                        "{path}: matches none of the union: {}",
                        errors.join(" / ")
                    ))
                }
            }
            (Ty::Named(name, args), _) => {
                self.check(value, &self.resolve(name, args, &BTreeMap::new()), path)
            }
            (Ty::Intersection(parts), _) if self.shape_of(ty).is_none() => {
                // `string & {}`: a string; `{}` alone holds any value but null / undefined.
                parts.iter().find_map(|p| match p {
                    Ty::Shape(s) if s.members.is_empty() && s.index.is_none() => {
                        matches!(value, Value::Null).then(|| format!("{path}: null for `{{}}`"))
                    }
                    _ => self.check(value, p, path),
                })
            }
            (Ty::Shape(_) | Ty::Intersection(_), Value::Object(map)) => {
                let shape = self.shape_of(ty).unwrap();
                for (key, v) in map {
                    let at = format!("{path}.{key}");
                    match shape.members.iter().find(|(n, _, _)| n == key) {
                        Some((_, _, t)) => {
                            if let Some(e) = self.check(v, t, &at) {
                                return Some(e);
                            }
                        }
                        None => match &shape.index {
                            Some(t) => {
                                if let Some(e) = self.check(v, t, &at) {
                                    return Some(e);
                                }
                            }
                            None => return Some(format!("{at}: written, but not declared")),
                        },
                    }
                }
                shape
                    .members
                    .iter()
                    .find(|(n, optional, _)| !optional && !map.contains_key(n))
                    .map(|(n, _, _)| format!("{path}.{n}: declared required, but not written"))
            }
            (Ty::Shape(_) | Ty::Intersection(_), _) => wrong("an object"),
            (Ty::Undefined, _) => wrong("undefined (never written)"),
            _ => wrong(&format!("{ty:?}")),
        }
    }
}

// ---- what the JS layer changes ---------------------------------------------

/// Per declared type: the keys the core writes that the JS layer removes,
/// and those it adds, with their JSON value, before the host sees the
/// object (api.js).
const JS_LAYER: &[(&str, &[&str], &[&str])] = &[
    // result(): `head` and `pinned` make `history` and `replaced`.
    (
        "CompactionResult",
        &["head", "pinned"],
        &["history", "replaced"],
    ),
];

/// `value` as the host gets it, for the type named `ty`.
fn as_host_gets_it(ty: &str, mut value: Value) -> Value {
    let base = ty.split('<').next().unwrap();
    if let Some((_, removed, added)) = JS_LAYER.iter().find(|(t, _, _)| *t == base) {
        let Value::Object(map) = &mut value else {
            panic!("{ty}: not an object: {value}");
        };
        for key in *removed {
            if let Some(v) = map.remove(key) {
                assert!(
                    v.is_array(),
                    "{ty}.{key}: the JS layer reads an array, got {v}"
                );
            }
        }
        for key in *added {
            assert!(
                map.get(key).is_none(),
                "{ty}.{key}: written by the core and by the JS layer"
            );
            // api.js builds these from the host's own messages.
            map.insert(key.to_string(), Value::Array(Vec::new()));
        }
    }
    value
}

// ---- the samples (tests/js/shapes.test.mjs's) ------------------------------

const SUMMARY: &str = "## Task status\n- going on\n## Files\n- src/f0.rs\n## Next steps\n- more";

fn turn(format: &str, i: usize, size: usize) -> Vec<Value> {
    let question = format!("question {i} {}", "x ".repeat(size));
    let output = "y ".repeat(size);
    let answer = format!("answer {i}");
    let path = format!("src/f{i}.rs");
    let id = format!("c{i}");
    match format {
        "gemini" => vec![
            json!({ "role": "user", "parts": [{ "text": question }] }),
            json!({ "role": "model", "parts": [{ "functionCall": { "id": id, "name": "read_file", "args": { "path": path } } }] }),
            json!({ "role": "user", "parts": [{ "functionResponse": { "id": id, "name": "read_file", "response": { "output": output } } }] }),
            json!({ "role": "model", "parts": [{ "text": answer }] }),
        ],
        "openai" => vec![
            json!({ "role": "user", "content": question }),
            json!({ "role": "assistant", "content": null, "tool_calls": [{ "id": id, "type": "function", "function": { "name": "read_file", "arguments": (json!({ "path": path }).to_string()) } }] }),
            json!({ "role": "tool", "tool_call_id": id, "content": output }),
            json!({ "role": "assistant", "content": answer }),
        ],
        "anthropic" => vec![
            json!({ "role": "user", "content": question }),
            json!({ "role": "assistant", "content": [{ "type": "tool_use", "id": id, "name": "read_file", "input": { "path": path } }] }),
            json!({ "role": "user", "content": [{ "type": "tool_result", "tool_use_id": id, "content": output }] }),
            json!({ "role": "assistant", "content": answer }),
        ],
        "ai-sdk" => vec![
            json!({ "role": "user", "content": question }),
            json!({ "role": "assistant", "content": [{ "type": "tool-call", "toolCallId": id, "toolName": "read_file", "input": { "path": path } }] }),
            json!({ "role": "tool", "content": [{ "type": "tool-result", "toolCallId": id, "toolName": "read_file", "output": { "type": "text", "value": output } }] }),
            json!({ "role": "assistant", "content": answer }),
        ],
        "langchain" => vec![
            lc("HumanMessage", json!({ "content": question })),
            lc(
                "AIMessage",
                json!({ "content": "", "tool_calls": [{ "id": id, "name": "read_file", "args": { "path": path }, "type": "tool_call" }] }),
            ),
            lc(
                "ToolMessage",
                json!({ "content": output, "tool_call_id": id, "name": "read_file" }),
            ),
            lc("AIMessage", json!({ "content": answer, "tool_calls": [] })),
        ],
        "openai-responses" => vec![
            json!({ "role": "user", "content": question }),
            json!({ "type": "function_call", "call_id": id, "name": "read_file", "arguments": (json!({ "path": path }).to_string()) }),
            json!({ "type": "function_call_output", "call_id": id, "output": output }),
            json!({ "type": "message", "role": "assistant", "status": "completed", "content": [{ "type": "output_text", "text": answer }] }),
        ],
        _ => unreachable!(),
    }
}

/// A LangChain message instance as JSON.stringify writes it.
fn lc(class: &str, mut kwargs: Value) -> Value {
    kwargs["additional_kwargs"] = json!({});
    kwargs["response_metadata"] = json!({});
    json!({ "lc": 1, "type": "constructor", "id": ["langchain_core", "messages", class], "kwargs": kwargs })
}

fn user(format: &str, text: &str) -> String {
    match format {
        "gemini" => json!({ "role": "user", "parts": [{ "text": text }] }),
        "langchain" => lc("HumanMessage", json!({ "content": text })),
        _ => json!({ "role": "user", "content": text }),
    }
    .to_string()
}

/// Runs a step to its `done` result, answering every `summarize` step
/// with `answer` and collecting the requests.
fn run(
    chats: &mut Chats,
    handle: u32,
    mut step: Value,
    answer: &Value,
    requests: &mut Vec<Value>,
) -> Value {
    while let Some(summarize) = step.get("summarize") {
        requests.push(summarize["request"].clone());
        let id = summarize["id"].as_f64().unwrap();
        step = ok(chats.answer(handle, id, &answer.to_string()));
    }
    step.get("done")
        .unwrap_or_else(|| panic!("expected a result, got {step}"))
        .clone()
}

/// `[declared type, value]` for every object the samples produce.
fn samples() -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = Vec::new();
    let mut add = |ty: &str, value: Value| out.push((ty.to_string(), value));

    add("Thresholds", ok(json_api::compute_thresholds(200_000.0)));
    add("Thresholds", ok(json_api::compute_thresholds(10_000.0)));
    add(
        "ContextReport",
        ok(json_api::context_report(150_000.0, 200_000.0)),
    );
    add("LadderConstants", ok(json_api::ladder_constants()));
    add("ModelLimits", ok(json_api::model_limits("gpt-4o")));
    add("ModelLimits", ok(json_api::model_limits("no-such-model")));
    add(
        "LoadedSettings",
        ok(json_api::load_settings(
            r#"{"chatCompression":{"contextPercentageThreshold":0.5,"imageTokenEstimate":900}}"#,
        )),
    );
    let thresholds = ok(json_api::compute_thresholds(200_000.0));
    let mut tips = 0;
    for tokens in [150_000, 170_000, 180_000] {
        let context = json!({ "lastPromptTokenCount": tokens, "contextWindowSize": 200_000, "thresholds": (thresholds.clone()) });
        let tip = ok(json_api::select_tip(&context.to_string()));
        if !tip.is_null() {
            tips += 1;
            add("Tip", tip);
        }
    }
    assert!(tips > 0, "no tip selected");

    let usage = r#"{"prompt_tokens":25000,"completion_tokens":10,"total_tokens":25010}"#;
    let answer = json!({ "text": SUMMARY, "finishReason": "stop", "usage": { "prompt_tokens": 9_000, "completion_tokens": 100, "total_tokens": 9_100 } });
    // shapes.test.mjs's four formats, and the two it leaves out.
    for format in [
        "gemini",
        "openai",
        "anthropic",
        "ai-sdk",
        "langchain",
        "openai-responses",
    ] {
        let m = if format == "gemini" {
            "Content"
        } else {
            "object"
        };
        let result = format!("CompactionResult<{m}>");
        let options = [
            json!({ "window": 32_000, "format": format }),
            json!({ "window": 32_000, "format": format, "model": "gpt-4o", "estimator": "conservative", "tokenizer": "o200k", "excludeMessages": 3, "clearToolOutputs": true, "systemPrompt": "s", "extraInstructions": "e", "ledger": { "enabled": true, "commandTools": ["run_shell"], "userWordsBudget": 500 } }),
        ];
        for o in options {
            let mut chats = Chats::new();
            let handle = create(&mut chats, &o.to_string());
            add("SavedState", ok(chats.save(handle)));
            add("UsageUpdate", ok(chats.report_usage(handle, usage)));
            add("ContextReport", ok(chats.usage(handle)));
            let history: Vec<Value> = (0..12).flat_map(|i| turn(format, i, 400)).collect();
            let history = Value::Array(history).to_string();
            let next = user(format, "next");
            let mut requests = Vec::new();
            let step = ok(chats.before_send(handle, &history, &next));
            let done = run(&mut chats, handle, step, &answer, &mut requests);
            assert_eq!(
                done["status"], 1,
                "{format}: the run must compress, got {done}"
            );
            add(&result, done);
            for r in requests {
                add("SummaryRequest", r);
            }
            let saved = ok(chats.save(handle));
            add("SavedState", saved.clone());
            let restored = ok(chats.restore(&saved.to_string()))["handle"]
                .as_u64()
                .unwrap() as u32;
            add("SavedState", ok(chats.save(restored)));
            // A failed run, a NOOP, a truncated summary, a manual run.
            ok(chats.report_usage(handle, usage));
            let step = ok(chats.before_send(handle, &history, &next));
            let failed = match step["summarize"]["id"].as_f64() {
                Some(id) => ok(chats.fail(handle, id, "down")),
                None => step,
            };
            add(&result, failed["done"].clone());
            let step = ok(chats.before_send(handle, "[]", &user(format, "hi")));
            add(
                &result,
                run(&mut chats, handle, step, &json!(SUMMARY), &mut Vec::new()),
            );
            let step = ok(chats.compact(handle, &history, ""));
            let cut = json!({ "text": "cut", "finishReason": "length" });
            add(
                &result,
                run(&mut chats, handle, step, &cut, &mut Vec::new()),
            );
            let step = ok(chats.compact(handle, &history, "files"));
            add(
                &result,
                run(&mut chats, handle, step, &json!(SUMMARY), &mut Vec::new()),
            );
            // An aborted run, an empty summary, an inflating one, a message too large.
            let step = ok(chats.compact(handle, &history, ""));
            if let Some(id) = step["summarize"]["id"].as_f64() {
                add(&result, ok(chats.abort(handle, id))["done"].clone());
            }
            let step = ok(chats.compact(handle, &history, ""));
            add(
                &result,
                run(&mut chats, handle, step, &json!(""), &mut Vec::new()),
            );
            let step = ok(chats.compact(handle, &history, ""));
            let long = json!("word ".repeat(40_000));
            add(
                &result,
                run(&mut chats, handle, step, &long, &mut Vec::new()),
            );
            let huge = user(format, &"big ".repeat(40_000));
            let step = ok(chats.before_send(handle, &history, &huge));
            add(
                &result,
                run(&mut chats, handle, step, &json!(SUMMARY), &mut Vec::new()),
            );
        }
    }
    out
}

#[test]
fn every_object_the_crate_writes_matches_its_declared_type() {
    let types = Types::load();
    let samples = samples();
    assert!(samples.len() > 40, "{} values checked", samples.len());
    let requests = samples
        .iter()
        .filter(|(t, _)| t == "SummaryRequest")
        .count();
    assert!(requests >= 4, "{requests} summary requests checked");
    // Every status a run ends with, and a NOOP's overBy.
    let mut names: Vec<&str> = samples
        .iter()
        .filter(|(t, _)| t.starts_with("CompactionResult"))
        .filter_map(|(_, v)| v["statusName"].as_str())
        .collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(
        names,
        [
            "ABORTED",
            "COMPRESSED",
            "EMPTY_SUMMARY",
            "INFLATED",
            "NOOP",
            "OUTPUT_TRUNCATED",
            "SUMMARIZER_FAILED"
        ],
        "statuses checked"
    );
    assert!(
        samples.iter().any(|(_, v)| v.get("overBy").is_some()),
        "no messageTooLarge result checked"
    );
    let mut errors = Vec::new();
    for (ty, value) in samples {
        let host = as_host_gets_it(&ty, value);
        let declared = Parser {
            toks: tokenize(&ty),
            at: 0,
        }
        .ty();
        if let Some(e) = types.check(&host, &declared, &ty) {
            errors.push(e);
        }
    }
    assert!(
        errors.is_empty(),
        "{} values do not match types.d.ts:\n{}",
        errors.len(),
        errors.join("\n")
    );
}

#[test]
fn every_declaration_is_read_and_a_drifted_one_fails() {
    let types = Types::load();
    // Every declaration resolves: no name left undeclared.
    for (name, decl) in &types.decls {
        let args: Vec<Ty> = decl.params.iter().map(|_| Ty::Object).collect();
        let ty = types.resolve(name, &args, &BTreeMap::new());
        fn names(ty: &Ty, out: &mut Vec<(String, Vec<Ty>)>) {
            match ty {
                Ty::Named(n, a) => out.push((n.clone(), a.clone())),
                Ty::Array(t) | Ty::Record(t) => names(t, out),
                Ty::Tuple(ts) | Ty::Union(ts) | Ty::Intersection(ts) => {
                    ts.iter().for_each(|t| names(t, out))
                }
                Ty::Shape(s) => {
                    s.members.iter().for_each(|(_, _, t)| names(t, out));
                    if let Some(t) = &s.index {
                        names(t, out);
                    }
                }
                _ => {}
            }
        }
        let mut used = Vec::new();
        names(&ty, &mut used);
        for (n, _) in used {
            assert!(
                types.decls.contains_key(&n)
                    || external(&n).is_some()
                    || ["Error", "AbortSignal", "Promise"].contains(&n.as_str()),
                "{name} uses `{n}`, declared nowhere the checker reads"
            );
        }
    }
    // The checker rejects what it should: an excess key, a missing one, a wrong type.
    let thresholds = ok(json_api::compute_thresholds(200_000.0));
    let ty = Ty::Named("Thresholds".into(), Vec::new());
    assert_eq!(types.check(&thresholds, &ty, "t"), None);
    let mut extra = thresholds.clone();
    extra
        .as_object_mut()
        .unwrap()
        .insert("extra".into(), json!(1));
    assert!(
        types
            .check(&extra, &ty, "t")
            .unwrap()
            .contains("t.extra: written, but not declared")
    );
    let mut missing = thresholds.clone();
    missing.as_object_mut().unwrap().remove("warn");
    assert!(
        types
            .check(&missing, &ty, "t")
            .unwrap()
            .contains("t.warn: declared required")
    );
    let mut wrong = thresholds;
    wrong
        .as_object_mut()
        .unwrap()
        .insert("warnRule".into(), json!("half"));
    assert!(
        types
            .check(&wrong, &ty, "t")
            .unwrap()
            .contains("t.warnRule")
    );
}

#[test]
#[should_panic(expected = "a declaration that is not an interface or a type")]
fn an_unknown_construct_fails_loudly() {
    Parser {
        toks: tokenize("export declare function f(): void;"),
        at: 0,
    }
    .file();
}

/// The shapes that come back (a saved state and its options) write the
/// keys their readers accept, in the declared order: a state written with
/// every option set reads back, and its keys are the readers' lists.
#[test]
fn the_read_back_shapes_write_the_keys_their_readers_accept() {
    use compaction_core::ledger::LedgerOptions;
    use compaction_core::{CompactionOptions, ErrorCode, SavedState, ToJson};
    let full = json!({
        "imageTokenEstimate": 900, "estimator": "calibrated", "tokenizer": "o200k",
        "excludeMessages": 3, "excludeContextWindowPercent": 5,
        "systemPrompt": "s", "extraInstructions": "e",
        "ledger": {
            "enabled": true, "created": ["a"], "written": ["b"], "edited": ["c"], "moved": ["d"],
            "deleted": ["e"], "commandTools": ["f"], "patchTools": ["g"], "pathArguments": ["h"],
            "sourceArguments": ["i"], "destinationArguments": ["j"], "userWordsBudget": 500
        },
        "maxOutputTokens": 4000, "clearToolOutputs": true, "overheadTokens": 300,
        "fallback": "ledger", "format": "openai"
    });
    let options =
        CompactionOptions::from_json(&full, "options", ErrorCode::InvalidArgument).unwrap();
    let written = options.to_json();
    assert_eq!(written, full, "every option written back as read");
    let keys = |v: &Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
    assert_eq!(keys(&written), CompactionOptions::FIELDS);
    assert_eq!(keys(&written["ledger"]), LedgerOptions::FIELDS);
    let mut chats = Chats::new();
    let mut chat_options = full.clone();
    chat_options
        .as_object_mut()
        .unwrap()
        .insert("window".into(), json!(64_000));
    let handle = create(&mut chats, &chat_options.to_string());
    let saved = ok(chats.save(handle));
    assert_eq!(keys(&saved), SavedState::FIELDS);
    assert_eq!(saved["options"], full);
}
