// The scripted agent session the simulator plays: user requests, the model's
// tool calls, tool results of realistic sizes, the model's answers. Generated
// from a seeded PRNG, so every run of the page plays the same session.
//
// The script is a queue of exchanges, one per model request:
// { send, reply } — `send` is the message the host is about to send (a user
// request or a tool result), `reply` the model's answer to it (a tool call or
// the final text of the task). The same session is written in any of the
// library's four message formats (message-formats.js): the same words, the
// same tool calls, each call and its result sharing an id.
import { appendText, isTypedRequest, writer } from "./message-formats.js";

/** Agent CLIs cut long tool output; so does this script. */
export const TOOL_OUTPUT_LIMIT = 12_000;

const TASKS = [
  { ask: "Add a --json flag to the `export` command so that it prints machine-readable output. Keep the text output as the default.",
    files: ["src/cli/export.rs", "src/cli/mod.rs", "src/model/record.rs"], edit: ["src/cli/export.rs"], create: "tests/export_json.rs", test: "cargo test export" },
  { ask: "The export tests fail on Windows paths (backslashes in the expected output). Find out why and fix it without touching the snapshots.",
    files: ["tests/export.rs", "src/paths.rs", "src/cli/export.rs"], edit: ["src/paths.rs"], test: "cargo test --test export" },
  { ask: "Split configuration loading from validation in src/config.rs. The public API must not change; validation errors should name the key.",
    files: ["src/config.rs", "src/lib.rs", "src/error.rs"], edit: ["src/config.rs", "src/lib.rs"], create: "src/config/validate.rs", test: "cargo test config" },
  { ask: "Add retries with exponential backoff to the HTTP client: at most 5 attempts, full jitter, and never retry a 4xx other than 429.",
    files: ["src/net/client.rs", "src/net/mod.rs", "Cargo.toml"], edit: ["src/net/client.rs", "Cargo.toml"], create: "src/net/retry.rs", test: "cargo test net::" },
  { ask: "Indexing the big fixture takes 40 s. Profile the indexer and make it faster; I want it under 10 s without new dependencies.",
    files: ["src/index/walker.rs", "src/index/mod.rs", "benches/index.rs", "src/index/hash.rs"], edit: ["src/index/walker.rs", "src/index/hash.rs"], test: "cargo bench --bench index -- --quick" },
  { ask: "Write the documentation of the plugin API in docs/plugins.md, with one complete example plugin that compiles.",
    files: ["src/plugin/api.rs", "src/plugin/registry.rs", "README.md"], edit: ["README.md"], create: "docs/plugins.md", test: "cargo test --doc plugin" },
  { ask: "Replace the hand-written argument parsing in src/cli/mod.rs with clap's derive API. Same flags, same help text.",
    files: ["src/cli/mod.rs", "src/main.rs", "Cargo.toml", "src/cli/args.rs"], edit: ["src/cli/mod.rs", "src/main.rs", "Cargo.toml"], test: "cargo test cli" },
  { ask: "Add a `--since <date>` filter to export. Dates are local time unless they carry an offset; add tests for two time zones.",
    files: ["src/cli/export.rs", "src/model/record.rs", "src/time.rs"], edit: ["src/cli/export.rs", "src/time.rs"], create: "tests/export_since.rs", test: "cargo test since" },
];

const FOLLOW_UPS = [
  "Also handle the edge cases we skipped last time.",
  "Same area again: tighten the error messages and add a regression test.",
  "Please review your earlier change there for anything we missed.",
];

/** Small fast seeded PRNG (mulberry32). */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const IDENTS = ["record", "config", "entry", "path", "writer", "options", "index", "buffer", "client", "request",
  "response", "attempt", "delay", "filter", "since", "registry", "plugin", "walker", "hash", "cursor", "line", "field"];
const TYPES = ["Record", "Config", "Entry", "PathBuf", "Writer", "Options", "Index", "Client", "Request", "Response",
  "Duration", "Filter", "Registry", "Plugin", "Walker", "Error"];
const METHODS = ["parse", "validate", "write_all", "flush", "insert", "get", "iter", "map", "push", "join", "send", "retry", "visit"];
const COMMENTS = ["Keep the order stable: the snapshots depend on it.", "The caller owns the buffer.",
  "Windows paths arrive with backslashes here.", "Retries only make sense for idempotent requests.",
  "This runs once per file, keep it cheap.", "Validation is separate so that errors can name the key."];

function makeCode(rand, lines) {
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const out = [];
  let depth = 0;
  for (let i = 0; i < lines; i++) {
    const pad = "    ".repeat(depth);
    const r = rand();
    if (depth === 0) {
      const name = `${pick(IDENTS)}_${pick(METHODS)}`;
      out.push(r < 0.2 ? `use crate::${pick(IDENTS)}::${pick(TYPES)};`
        : r < 0.35 ? `/// ${pick(COMMENTS)}`
        : `pub fn ${name}(${pick(IDENTS)}: &${pick(TYPES)}) -> Result<${pick(TYPES)}, Error> {`);
      if (out.at(-1).endsWith("{")) depth = 1;
    } else if (r < 0.12 && depth > 1) {
      depth -= 1;
      out.push(`${"    ".repeat(depth)}}`);
    } else if (r < 0.2) {
      out.push(`${pad}for ${pick(IDENTS)} in ${pick(IDENTS)}.${pick(METHODS)}() {`);
      depth += 1;
    } else if (r < 0.3) {
      out.push(`${pad}if ${pick(IDENTS)}.is_empty() {`);
      depth += 1;
    } else if (r < 0.4) {
      out.push(`${pad}// ${pick(COMMENTS)}`);
    } else if (r < 0.47 && depth === 1) {
      out.push(`${pad}Ok(${pick(IDENTS)})`, "}", "");
      depth = 0;
    } else {
      out.push(`${pad}let ${pick(IDENTS)} = ${pick(IDENTS)}.${pick(METHODS)}(&${pick(IDENTS)})?;`);
    }
  }
  while (depth > 0) out.push(`${"    ".repeat(--depth)}}`);
  return out.join("\n");
}

function cap(text) {
  if (text.length <= TOOL_OUTPUT_LIMIT) return text;
  const cut = text.slice(0, TOOL_OUTPUT_LIMIT);
  return `${cut.slice(0, cut.lastIndexOf("\n"))}\n[... output truncated at ${TOOL_OUTPUT_LIMIT} characters]`;
}

function dirOf(path) {
  const i = path.lastIndexOf("/");
  return i < 0 ? "." : path.slice(0, i);
}

function toolOutput(rand, name, args) {
  const n = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
  switch (name) {
    case "list_directory": {
      const entries = [];
      for (let i = 0, count = n(10, 36); i < count; i++) {
        entries.push(rand() < 0.25 ? `[DIR] ${IDENTS[n(0, IDENTS.length - 1)]}` : `${IDENTS[n(0, IDENTS.length - 1)]}_${i}.rs`);
      }
      return `Directory listing for ${args.path}:\n${entries.join("\n")}`;
    }
    case "read_file":
      return cap(makeCode(rand, n(50, 330)));
    case "search_file_content": {
      const lines = [];
      for (let i = 0, count = n(4, 45); i < count; i++) {
        lines.push(`src/${IDENTS[n(0, IDENTS.length - 1)]}.rs:${n(1, 900)}: ${makeCode(rand, 1)}`);
      }
      return cap(`Found ${lines.length} matches for pattern "${args.pattern}":\n${lines.join("\n")}`);
    }
    case "run_shell_command": {
      const tests = n(12, 160);
      const failing = rand() < 0.35 ? n(1, 3) : 0;
      const lines = [`$ ${args.command}`, "   Compiling app v0.4.2 (/work/app)", `    Finished test profile in ${n(2, 40)}.${n(0, 9)}s`, "", `running ${tests} tests`];
      for (let i = 0; i < tests; i++) lines.push(`test ${IDENTS[i % IDENTS.length]}::tests::${METHODS[i % METHODS.length]}_${i} ... ${i < failing ? "FAILED" : "ok"}`);
      if (failing) {
        lines.push("", "failures:", "", `---- ${IDENTS[0]}::tests::${METHODS[0]}_0 stdout ----`,
          `thread '${IDENTS[0]}::tests::${METHODS[0]}_0' panicked at src/${IDENTS[0]}.rs:${n(10, 400)}:9:`,
          "assertion `left == right` failed", `  left: "${IDENTS[n(0, 9)]}\\\\${IDENTS[n(0, 9)]}"`, `  right: "${IDENTS[n(0, 9)]}/${IDENTS[n(0, 9)]}"`);
      }
      lines.push("", `test result: ${failing ? "FAILED" : "ok"}. ${tests - failing} passed; ${failing} failed; 0 ignored`);
      return cap(lines.join("\n"));
    }
    case "replace":
      return `Successfully modified file: ${args.file_path} (1 replacements).`;
    case "write_file":
      return `Successfully created and wrote to new file: ${args.file_path}.`;
    default:
      return "ok";
  }
}

/** The tool calls of one task, in order. */
function plan(rand, task, round) {
  const calls = [["list_directory", { path: dirOf(task.files[0]) }]];
  for (const file of task.files) calls.push(["read_file", { file_path: file }]);
  calls.push(["search_file_content", { pattern: `fn ${IDENTS[(round * 7 + task.files.length) % IDENTS.length]}_` }]);
  for (const file of task.edit) {
    calls.push(["replace", { file_path: file, old_string: makeCode(rand, 4 + Math.floor(rand() * 12)), new_string: makeCode(rand, 6 + Math.floor(rand() * 20)) }]);
  }
  if (task.create) calls.push(["write_file", { file_path: task.create, content: makeCode(rand, 20 + Math.floor(rand() * 60)) }]);
  calls.push(["run_shell_command", { command: task.test }]);
  if (rand() < 0.5) {
    calls.push(["replace", { file_path: task.edit[0], old_string: makeCode(rand, 3), new_string: makeCode(rand, 5) }]);
    calls.push(["run_shell_command", { command: task.test }]);
  }
  return calls;
}

const INTROS = ["I'll start by looking at the layout of", "Let me look at", "First I'll read", "Looking at"];

function taskExchanges(rand, index, write) {
  const task = TASKS[index % TASKS.length];
  const round = Math.floor(index / TASKS.length);
  const ask = round === 0 ? task.ask : `${task.ask} ${FOLLOW_UPS[(round - 1) % FOLLOW_UPS.length]}`;
  const calls = plan(rand, task, round);
  const exchanges = [];
  let send = write.user(ask);
  calls.forEach(([name, args], i) => {
    const id = `call_${index + 1}_${i + 1}`;
    const intro = i === 0 ? `${INTROS[index % INTROS.length]} ${args.path ?? args.file_path}.` : null;
    const reply = write.call(intro, name, args, id);
    exchanges.push({ task: index + 1, send, reply });
    send = write.result(name, toolOutput(rand, name, args), id);
  });
  const touched = [...new Set([...task.edit, ...(task.create ? [task.create] : [])])];
  const answer = [
    `Done. ${ask.split(".")[0]}: the change is in ${touched.map((f) => `\`${f}\``).join(", ")}.`,
    `I ran \`${task.test}\` and everything passes now.`,
    rand() < 0.5 ? "One thing to decide: the old behaviour is kept behind the default, so nothing changes for existing users." : "I did not touch the public API.",
    "Next, I'd suggest adding this case to the changelog.",
  ].join(" ");
  exchanges.push({ task: index + 1, send, reply: write.answer(answer) });
  return exchanges;
}

/** The agent's system prompt: a message of its own in the formats that keep it in the messages (OpenAI, AI SDK). */
export const SYSTEM_PROMPT = "You are a coding agent working in the repository at /work/app. Use the tools to list, read, search, "
  + "edit and test; keep each change small; run the tests before you say a task is done, and say which files you changed.";

/**
 * A new run of the scripted session in `format` (default "gemini");
 * `peek` the next exchange, `advance` once it was sent. `system` is the
 * system message the history starts with, or null where the format passes
 * the system prompt beside the messages.
 */
export function createScript(seed = 7, format = "gemini") {
  const write = writer(format);
  const rand = prng(seed);
  const queue = [];
  let tasks = 0;
  return {
    format,
    system: write.system(SYSTEM_PROMPT),
    peek() {
      if (queue.length === 0) queue.push(...taskExchanges(rand, tasks++, write));
      return queue[0];
    },
    advance() {
      queue.shift();
    },
  };
}

/**
 * An earlier session to resume: the script's exchanges, sent and answered,
 * one after the other (its tasks come round again with follow-ups) until
 * `cost` of the messages reaches `target` tokens, after the script's system
 * message where it has one. `start` is what a prompt costs before any
 * message. Leaves `script` at the next exchange to send.
 */
export function replayHistory(script, cost, target, start = 0) {
  const history = script.system ? [script.system] : [];
  let total = history.reduce((n, m) => n + cost(m), start);
  while (total < target) {
    const { send, reply } = script.peek();
    script.advance();
    history.push(send, reply);
    total += cost(send) + cost(reply);
  }
  return { history, tokens: total };
}

/** Whether `message` is a request the user types (not a tool result): where a paste can go. */
export function isUserRequest(message, format = "gemini") {
  return isTypedRequest(message, format);
}

/**
 * A CI log of about `chars` characters, as a user pastes it whole: varied
 * lines (estimators count one repeated letter unlike text), deterministic.
 */
export function pastedLog(chars) {
  let text = "Here is the whole CI log of the failing export job, can you find why it fails?\n";
  for (let i = 0; text.length < chars; i++) {
    const at = `${String(9 + Math.floor(i / 3600) % 15).padStart(2, "0")}:${String(Math.floor(i / 60) % 60).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}`;
    text += `2026-11-30T${at}Z job=export step=${i % 17} worker=${(i * 31) % 8} `
      + `status=${i % 97 === 0 ? "FAILED" : "ok"} elapsed_ms=${(i * 7919) % 10007} file=src/${IDENTS[i % IDENTS.length]}.rs\n`;
  }
  return text.slice(0, chars);
}

/** The user's request with a pasted text after it, as a second part (in the request's format). */
export function withPaste(message, text, format = "gemini") {
  return appendText(message, text, format);
}
