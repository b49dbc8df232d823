// Every fenced code block of README.md, checked according to the marker on
// the line just before it. A block without a marker, a marker of an unknown
// kind, or a marker without a block fails the first test, so a new snippet
// can never go unchecked. The markers (HTML comments, invisible on the
// rendered page):
//
//   <!-- snippet: page -->            HTML for a page without a bundler: served over http from a
//                                     directory whose node_modules/compaction-core is pkg/, opened in
//                                     Chromium; no console error, page error or failed request, and each
//                                     `console.log(x); // value` logs that value. Its module script is
//                                     also type-checked.
//   <!-- snippet: webview -->         HTML for a webview: opened from file:// in Chromium with
//                                     inline/compaction_core.iife.js beside it; its classic script is
//                                     type-checked (CompactionCore declared as the inline build's module).
//   <!-- snippet: bundler -->         a module a bundler app writes, and
//   <!-- snippet: vite-config -->     the vite.config.js it is built with: built together by Vite against
//                                     pkg/, run in Chromium; both type-checked.
//   <!-- snippet: node NAME -->       an ES module run in Node against pkg/ (and type-checked), with the
//                                     prelude and epilogue HARNESS[NAME] states (none if it has no entry);
//                                     anything that calls a provider calls the local mock.
//   <!-- snippet: node-lines K... --> one program per line, line i run (and type-checked) as K[i]
//                                     (`esm` → .mjs, `cjs` → .cjs); each binding it imports must exist.
//   <!-- snippet: declaration NAME -->  a TypeScript declaration printed as the package declares it:
//                                     compiled, identical to the package's type NAME, and what its
//                                     comments say held to a real value (DECLARATIONS[NAME]).
//   <!-- snippet: signatures ENTRY -->  an import line (run and type-checked), then `fn(arg, { key, opt? })`
//                                     lines: each fn's options are exactly those keys, `?` the optional ones.
//   <!-- snippet: loop FILE -->       identical to FILE, which tests/js/readme-loops.test.mjs compiles with
//                                     the SDKs' types and runs against the mock until it compacts twice.
//   <!-- snippet: formula FN -->      `name = expression   comment` lines, evaluated by JavaScript and held
//                                     to FN's results (Object.is) on the junctions and 2 000 random windows.
//   <!-- snippet: output COMMAND -->  COMMAND's output, held to the real output (OUTPUTS[COMMAND]).
//   <!-- snippet: shell NAME -->      shell commands: every command is a repository script or on PATH, and
//                                     SHELLS[NAME] runs what it claims (temporary directories only).
//   <!-- snippet: tree -->            the Layout tree: every path in it exists, and every file git tracks
//                                     under src/ and crates/*/src/ is in it.
//
// Type-checking is `tsc --strict --noEmit` over every program the snippets
// make (PROJECTS: TypeScript and JavaScript as Node resolves them, the Vite
// app as Vite does; JavaScript with checkJs), with "compaction-core"
// resolving to the built package pkg/; a snippet's own errors fail its own
// test, placed at their README line. The run is against pkg/ as it is:
// scripts/test builds it first (run scripts/build after changing src/).
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { accessSync, constants, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";

import { launch, serve } from "./browser.mjs";
import { startMock, SUMMARY_TEXT } from "./mock-providers.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const bin = path.join(root, "tests/node_modules/.bin");
const run = promisify(execFile);
const lib = createRequire(import.meta.url)(path.join(root, "pkg/node/compaction_core.js"));

// ---------------------------------------------------------------------------
// The README's blocks and their markers.

const MARKER = /^ *<!-- snippet: (.*?) -->$/;

/** Every fenced block: { line (of the opening fence, 1-based), lang, text, marker: [kind, ...args] | null }. */
function readBlocks(source) {
  const lines = source.split("\n");
  const blocks = [];
  const orphans = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)```(\S*)\s*$/.exec(lines[i]);
    if (open) {
      const indent = open[1].length;
      let end = i + 1;
      while (end < lines.length && !/^ *```\s*$/.test(lines[end])) end++;
      assert.ok(end < lines.length, `README line ${i + 1}: a fence that is never closed`);
      const body = lines.slice(i + 1, end).map((l) => l.slice(Math.min(indent, /^ */.exec(l)[0].length)));
      const marker = i > 0 ? MARKER.exec(lines[i - 1]) : null;
      blocks.push({ line: i + 1, lang: open[2], text: body.join("\n") + "\n", lines: body, marker: marker ? marker[1].split(/\s+/) : null });
      i = end;
    } else if (MARKER.test(lines[i]) && !/^ *```/.test(lines[i + 1] ?? "")) {
      orphans.push(i + 1);
    }
  }
  return { blocks, orphans };
}

const readme = readFileSync(path.join(root, "README.md"), "utf8");
const { blocks, orphans } = readBlocks(readme);
const where = (block) => `README line ${block.line} (\`\`\`${block.lang}, snippet: ${block.marker?.join(" ") ?? "none"})`;

// ---------------------------------------------------------------------------
// The harness: what a `node NAME` snippet relies on that the README leaves to
// the host, stated here. The prelude goes before the snippet and the epilogue
// after it, in the same module; neither changes a line of the snippet.

const MODEL = "gemini-2.5-flash";
const HARNESS = {
  // "A chat, end to end": the host's summarize, signal, archive, callModel and render.
  "chat-end-to-end": {
    prelude: `
import { GoogleGenAI } from "@google/genai";
import { geminiSummarizer } from "compaction-core/summarizers";
const ai = new GoogleGenAI({}); // GEMINI_API_KEY, GOOGLE_GEMINI_BASE_URL: the local mock
const summarize = geminiSummarizer(ai, { model: "${MODEL}" });
const signal = new AbortController().signal;
/** @type {unknown[][]} */
const archived = [];
/** @param {unknown[]} messages */
function archive(messages) { archived.push(messages); }
/** @type {import("compaction-core").ContextReport[]} */
const rendered = [];
/** @param {import("compaction-core").ContextReport} report */
function render(report) { rendered.push(report); }
/** The provider call: Gemini generateContent (the mock); the answer's content and usageMetadata. @param {import("@google/genai").Content[]} contents */
async function callModel(contents) {
  const r = await ai.models.generateContent({ model: "${MODEL}", contents });
  return { content: r.candidates?.[0]?.content ?? { role: "model", parts: [] }, usageMetadata: r.usageMetadata };
}
`,
    epilogue: `
// Sends long messages on a small window until the chat has compacted twice.
chat.setWindow(48_000);
/** @param {number} i */
const words = (i) => Array.from({ length: 1_200 }, (_, j) => \`w\${(i * 1_200 + j) % 997}\`).join(" ");
for (let i = 0; i < 80 && archived.length < 2; i++) await send(\`Step \${i}: \${words(i)}\`);
console.log(JSON.stringify({ compactions: archived.length, first: history[0], tiers: rendered.map((r) => r.tier), length: history.length }));
`,
    check(out, requests) {
      assert.equal(out.compactions, 2, "compacted twice, archiving what it replaced each time");
      assert.equal(out.first.role, "user");
      assert.ok(out.first.parts[0].text.includes(SUMMARY_TEXT), "the new history starts with the summary");
      assert.ok(out.tiers.includes("safe") && out.tiers.some((t) => t !== "safe"), `the usage indicator moved: ${out.tiers.join(",")}`);
      assert.ok(requests.filter((r) => r.summary).length >= 2, "two summary requests reached the provider");
      assert.ok(requests.filter((r) => !r.summary).length >= 10, "the sends reached the provider");
    },
  },
  // "A message that cannot fit": the host's chat, history, message and summarize.
  "slim-message": {
    prelude: `
import { ChatCompactor, slimMessage } from "compaction-core";
import { GoogleGenAI } from "@google/genai";
import { geminiSummarizer } from "compaction-core/summarizers";
const summarize = geminiSummarizer(new GoogleGenAI({}), { model: "${MODEL}" }); // the local mock
const chat = new ChatCompactor({ window: 128_000 });
/** @param {number} n @param {number} seed */
const words = (n, seed) => Array.from({ length: n }, (_, j) => \`w\${(seed + j) % 997}\`).join(" ");
/** About 60 000 tokens of conversation (conservative estimate). */
const history = Array.from({ length: 40 }, (_, i) => ({ role: i % 2 === 0 ? "user" : "model", parts: [{ text: words(500, i * 500) }] }));
/** A pasted log far larger than the window. */
let message = { role: "user", parts: [{ text: Array.from({ length: 25_000 }, (_, i) => \`\${i} GET /api/items/\${i * 7} 200\`).join("\\n") }] };
const pasted = message;
`,
    epilogue: `
console.log(JSON.stringify({ slimmed: message !== pasted, status: r.statusName, noopReason: r.noopReason ?? null, first: r.history[0] }));
`,
    check(out, requests) {
      assert.equal(out.slimmed, true, "the first beforeSend said messageTooLarge, and the message was slimmed");
      assert.equal(out.status, "COMPRESSED", "the second beforeSend compacted the history to make room");
      assert.ok(out.first.parts[0].text.includes(SUMMARY_TEXT), "the new history starts with the summary");
      assert.equal(requests.filter((r) => r.summary).length, 1, "one summary request, made by the second beforeSend");
    },
  },
};

// ---------------------------------------------------------------------------
// Outputs and shell blocks: what each command really prints or does.

/** Lines of a block without a leading `$ command` line. */
const outputLines = (block) => block.lines.filter((l, i) => !(i === 0 && l.startsWith("$ ")));

const OUTPUTS = {
  // scripts/demo is `scripts/setup >/dev/null; scripts/build >/dev/null; exec node scripts/serve.mjs PORT`
  // (8080 by default): setup and build print nothing, so its output is serve.mjs's. Rebuilding here
  // would take minutes; serve.mjs is run on a free port and its output compared with the port the one
  // difference, then the page it names is fetched.
  async "scripts/demo"(block) {
    assert.equal(block.lines[0], "$ scripts/demo", "the block starts with the command");
    const demo = readFileSync(path.join(root, "scripts/demo"), "utf8");
    assert.match(demo, /^scripts\/setup >\/dev\/null$/m);
    assert.match(demo, /^scripts\/build >\/dev\/null$/m);
    assert.match(demo, /^exec node scripts\/serve\.mjs "\$\{1:-\$\{PORT:-8080\}\}"$/m, "scripts/demo serves on 8080 by default");
    const child = spawn(process.execPath, [path.join(root, "scripts/serve.mjs"), "0"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    try {
      const first = await new Promise((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d) => { out += d; if (out.includes("\n")) resolve(out.split("\n")[0]); });
        child.on("exit", (code) => reject(new Error(`serve.mjs exited (${code}) before printing`)));
        setTimeout(() => reject(new Error("serve.mjs printed nothing in 10 s")), 10_000).unref();
      });
      const port = /127\.0\.0\.1:(\d+)\//.exec(first)?.[1];
      assert.ok(port, `serve.mjs printed an address: ${first}`);
      assert.deepEqual([first.replace(`127.0.0.1:${port}/`, "127.0.0.1:8080/")], outputLines(block));
      const page = await fetch(/http:\S+/.exec(first)[0]);
      assert.equal(page.status, 200, "the page it names is served");
      assert.match(await page.text(), /<html/i);
    } finally {
      child.kill();
    }
  },
  // The ladder example prints the ladder, a blank line, then the /context block: the block is its last
  // lines, and formatContextReport gives the same text in JS.
  async "cargo run --example ladder --"(block, args) {
    const { stdout } = await run("cargo", ["run", "--quiet", "--example", "ladder", "--", ...args], { cwd: root, timeout: 900_000 });
    const printed = stdout.trimEnd().split("\n");
    const expected = outputLines(block);
    assert.deepEqual(printed.slice(-expected.length), expected, `the last lines of cargo run --example ladder -- ${args.join(" ")}`);
    const [window, tokens] = args.map(Number);
    assert.equal(lib.formatContextReport(tokens, window), expected.join("\n"), `formatContextReport(${tokens}, ${window})`);
  },
};

/** The commands of a shell block: its lines without comments, and the `or:` alternatives in its comments. */
function shellCommands(block) {
  const commands = [];
  for (const line of block.lines) {
    const [code, comment = ""] = line.split(/\s+#\s*/, 2);
    if (code.trim() !== "" && !code.startsWith("#")) commands.push(code.trim());
    const or = /(?:^#\s*)?or:\s*(.*)/.exec(line.startsWith("#") ? line : comment);
    if (or) for (const alt of or[1].split(/,\s*then\s+/)) commands.push(alt.split(" → ")[0].trim());
  }
  return commands;
}

const SHELLS = {
  // Install: scripts/build writes pkg/; `npm install <repo>/pkg`; `npm pack pkg` names the tarball
  // the block names, and `npm install ./<tarball>` installs it.
  async install(block, work) {
    const commands = shellCommands(block);
    assert.deepEqual(commands, ["scripts/build", "npm install /path/to/compaction-core/pkg", "npm pack pkg", "npm install ./compaction-core-0.1.0.tgz"]);
    assert.match(block.text, /scripts\/build\s+# → pkg\//);
    assert.ok(existsSync(path.join(root, "pkg/package.json")), "scripts/build has written pkg/");
    const build = readFileSync(path.join(root, "scripts/build"), "utf8");
    assert.match(build, /\bpkg\b/, "scripts/build writes pkg/");
    const npm = (args, cwd) => run("npm", [...args, "--no-audit", "--no-fund", "--silent"], { cwd, timeout: 120_000 });
    const fromDir = path.join(work, "install-dir");
    mkdirSync(fromDir);
    writeFileSync(path.join(fromDir, "package.json"), "{}\n");
    await npm(["install", path.join(root, "pkg")], fromDir);
    const installed = JSON.parse(readFileSync(path.join(fromDir, "node_modules/compaction-core/package.json"), "utf8"));
    assert.equal(installed.name, "compaction-core");
    const fromTarball = path.join(work, "install-tarball");
    mkdirSync(fromTarball);
    writeFileSync(path.join(fromTarball, "package.json"), "{}\n");
    await npm(["pack", path.join(root, "pkg")], fromTarball);
    const tarball = /npm install \.\/(\S+)/.exec(commands[3])[1];
    assert.ok(existsSync(path.join(fromTarball, tarball)), `npm pack pkg wrote ${tarball} (found ${readdirSync(fromTarball).join(", ")})`);
    await npm(["install", `./${tarball}`], fromTarball);
    const { stdout } = await run(process.execPath, ["-e", 'console.log(require("compaction-core").computeThresholds(200000).auto)'], { cwd: fromTarball });
    assert.equal(stdout.trim(), "167000", "the installed tarball works");
  },
};

/** Every command's first word is a repository script (executable) or a command on PATH. */
function checkCommandsExist(commands) {
  for (const command of commands) {
    const word = command.split(/\s+/)[0];
    if (word.includes("/")) {
      accessSync(path.join(root, word), constants.X_OK);
    } else {
      const found = (process.env.PATH ?? "").split(path.delimiter).some((dir) => {
        try {
          accessSync(path.join(dir, word), constants.X_OK);
          return true;
        } catch {
          return false;
        }
      });
      assert.ok(found, `${word} is on PATH`);
    }
  }
}

// ---------------------------------------------------------------------------
// The programs the snippets make, written into one directory and type-checked
// by one tsc run per project (PROJECTS).

let work; // the directory
let mock;
let browser;
const programs = new Map(); // relative path → { block, offset (lines before the snippet's first line), project }
const tscErrors = []; // { file, line, message }

/**
 * Writes a file of the work directory; a program (.js, .mjs, .cjs, .mts) is type-checked by its
 * project (PROJECTS: "ts", "js" or, for the Vite app, "vite"). `offset` is how many lines precede
 * the snippet's own in it (Infinity: generated, not the snippet's text).
 */
function writeProgram(relative, text, block, offset = 0, project = /\.m?ts$/.test(relative) ? "ts" : /\.[mc]?js$/.test(relative) ? "js" : null) {
  const file = path.join(work, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  if (project) programs.set(relative, { block, offset, project });
  return file;
}

/** The module script of an HTML snippet (the body of its first <script ...> element). */
function scriptOf(block) {
  const m = /<script(?: type="module")?>\n([\s\S]*?)<\/script>/.exec(block.text);
  assert.ok(m, `${where(block)}: no inline script`);
  return { text: m[1], offset: block.text.slice(0, m.index).split("\n").length };
}

/** `fn(arg, { a, b?, c /* note *\/ })` → { fn, keys: [{ name, optional }] }. */
function parseSignature(line) {
  const m = /^(\w+)\((\w+), \{ (.*) \}\)$/.exec(line.trim());
  assert.ok(m, `not a signature: ${line}`);
  const keys = m[3].replace(/\/\*.*?\*\//g, "").split(",").map((k) => k.trim()).filter(Boolean)
    .map((k) => ({ name: k.replace(/\?$/, ""), optional: k.endsWith("?") }));
  return { fn: m[1], keys };
}

const union = (names) => (names.length ? names.map((n) => JSON.stringify(n)).join(" | ") : "never");

function prepare() {
  const setup = {
    page(block) {
      writeProgram("page/index.html", block.text, block);
      writeProgram("page/favicon.ico", "", block); // what Chromium asks every server for
      mkdirSync(path.join(work, "page/node_modules"));
      symlinkSync(path.join(root, "pkg"), path.join(work, "page/node_modules/compaction-core"), "dir");
      const { text, offset } = scriptOf(block);
      writeProgram("page/module.mjs", text, block, -offset);
    },
    webview(block) {
      writeProgram("webview/index.html", block.text, block);
      copyFileSync(path.join(root, "pkg/inline/compaction_core.iife.js"), path.join(work, "webview/compaction_core.iife.js"));
      // The iife build defines globalThis.CompactionCore: the inline build's module, declared for tsc.
      writeProgram("webview/globals.d.ts", 'declare const CompactionCore: typeof import("compaction-core/inline");\n', block, 0, null);
      const { text, offset } = scriptOf(block);
      writeProgram("webview/script.js", text, block, -offset);
    },
    bundler(block) {
      writeProgram("vite/main.js", `${block.text}\n// harness: show that the import works\ndocument.body.dataset.auto = String(new ChatCompactor({ window: 128_000 }).thresholds.auto);\n`, block, 0, "vite");
    },
    "vite-config"(block) {
      writeProgram("vite/vite.config.js", block.text, block, 0, "vite");
      writeProgram("vite/package.json", '{ "private": true, "type": "module" }\n', block);
      writeProgram("vite/public/favicon.ico", "", block); // what Chromium asks every server for
      writeProgram("vite/index.html", '<!doctype html>\n<html><body><script type="module" src="./main.js"></script></body></html>\n', block);
    },
    node(block, [name]) {
      const harness = HARNESS[name] ?? { prelude: "", epilogue: "" };
      const prelude = harness.prelude.replace(/^\n/, "");
      writeProgram(`node/${name}.mjs`, `${prelude}${block.text}${harness.epilogue}`, block, prelude.split("\n").length - 1);
    },
    "node-lines"(block, kinds) {
      const lines = block.lines.filter((l) => l.trim() !== "");
      assert.equal(lines.length, kinds.length, `${where(block)}: one kind per line`);
      lines.forEach((line, i) => {
        const names = /\{ (.*?) \}/.exec(line)[1].split(",").map((n) => n.trim());
        const ext = { esm: "mjs", cjs: "cjs" }[kinds[i]];
        assert.ok(ext, `${where(block)}: unknown kind ${kinds[i]}`);
        // The epilogue prints what each imported binding is.
        writeProgram(`node-lines/line${i}.${ext}`, `${line}\nconsole.log(JSON.stringify([${names.map((n) => `typeof ${n}`).join(", ")}]));\n`, block, -block.lines.indexOf(line));
      });
    },
    declaration(block, [name]) {
      const prelude = `import type { Content, ${name} as Declared } from "compaction-core";\n`;
      const epilogue = `// The printed interface is the package's own: identical, both ways.
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
export const same: Equal<${name}, Declared> = true;
`;
      writeProgram(`declaration/${name}.mts`, `${prelude}${block.text}${epilogue}`, block, 1);
    },
    signatures(block, [entry]) {
      const [importLine, ...lines] = block.lines.filter((l) => l.trim() !== "");
      assert.ok(importLine.startsWith("import ") && importLine.includes(`"${entry}"`), `${where(block)}: starts with an import of ${entry}`);
      const names = /\{ (.*?) \}/.exec(importLine)[1].split(",").map((n) => n.trim());
      writeProgram("signatures/import.mjs", `${importLine}\nconsole.log(JSON.stringify([${names.map((n) => `typeof ${n}`).join(", ")}]));\n`, block);
      let checks = `${importLine}\ntype Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;\n`;
      checks += "type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];\n";
      lines.forEach((line, i) => {
        const { fn, keys } = parseSignature(line);
        assert.ok(names.includes(fn), `${fn} is imported by the block's first line`);
        checks += `// ${line}\ntype Options${i} = Parameters<typeof ${fn}>[1];\n`;
        checks += `export const keys${i}: Equal<keyof Options${i}, ${union(keys.map((k) => k.name))}> = true;\n`;
        checks += `export const required${i}: Equal<RequiredKeys<Options${i}>, ${union(keys.filter((k) => !k.optional).map((k) => k.name))}> = true;\n`;
      });
      writeProgram("signatures/options.mts", checks, block, Infinity); // generated: its errors quote the line
    },
  };
  for (const block of blocks) {
    if (!block.marker) continue;
    const [kind, ...args] = block.marker;
    setup[kind]?.(block, args);
  }
  for (const name of ["compaction-core"]) {
    mkdirSync(path.join(work, "node_modules"), { recursive: true });
    symlinkSync(path.join(root, "pkg"), path.join(work, "node_modules", name), "dir");
  }
  mkdirSync(path.join(work, "node_modules/@google"));
  symlinkSync(path.join(root, "tests/node_modules/@google/genai"), path.join(work, "node_modules/@google/genai"), "dir");
  symlinkSync(path.join(root, "tests/node_modules/vite-plugin-wasm"), path.join(work, "node_modules/vite-plugin-wasm"), "dir");
  for (const [project, options] of Object.entries(PROJECTS)) {
    const files = [...programs].filter(([, p]) => p.project === project).map(([f]) => f);
    if (project === "js" && programs.has("webview/script.js")) files.push("webview/globals.d.ts");
    writeFileSync(path.join(work, `tsconfig.${project}.json`), JSON.stringify({
      compilerOptions: {
        strict: true, noEmit: true, allowJs: true, checkJs: true, target: "es2022", lib: ["es2022", "dom", "esnext.disposable"],
        types: [], skipLibCheck: true, ...options,
      },
      files,
    }, null, 2));
  }
}

/**
 * The tsc projects: every one `--strict`. TypeScript snippets as a Node host compiles them
 * (nodenext); JavaScript ones the same with checkJs, except noImplicitAny (plain JS has no
 * annotations: an unannotated parameter or `[]` is `any` by design; every other strict check
 * applies); the Vite app's files as Vite resolves them (bundler).
 */
const PROJECTS = {
  ts: { module: "nodenext", moduleResolution: "nodenext" },
  js: { module: "nodenext", moduleResolution: "nodenext", noImplicitAny: false },
  vite: { module: "esnext", moduleResolution: "bundler", noImplicitAny: false },
};

/** The work directory, the tsc run, the mock and Chromium, for the snippets' tests. */
function setUp() {
  before(async () => {
    work = mkdtempSync(path.join(tmpdir(), "readme-snippets-"));
    prepare();
    for (const project of Object.keys(PROJECTS)) {
      try {
        await run(path.join(bin, "tsc"), ["-p", `tsconfig.${project}.json`, "--pretty", "false"], { cwd: work, timeout: 300_000 });
      } catch (error) {
        if (!error.stdout) throw error;
        const before = tscErrors.length;
        for (const line of error.stdout.split("\n")) {
          const m = /^(.+?)\((\d+),(\d+)\): (error .*)$/.exec(line);
          if (m) tscErrors.push({ file: m[1], line: Number(m[2]), message: m[4] });
          else if (line.trim() && tscErrors.length > before) tscErrors.at(-1).message += `\n${line}`;
          else if (line.trim()) tscErrors.push({ file: `tsconfig.${project}.json`, line: 0, message: line });
        }
      }
    }
    mock = await startMock({ lifetimeMs: 900_000 });
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await mock?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });
}

/** Fails with the tsc errors in a block's programs, each placed at its README line when it is in the snippet. */
function assertCompiles(block) {
  const mine = tscErrors.filter((e) => programs.get(e.file)?.block === block);
  const placed = mine.map((e) => {
    const readmeLine = e.line - programs.get(e.file).offset;
    const inSnippet = readmeLine >= 1 && readmeLine <= block.lines.length;
    return `${e.file}:${e.line}${inSnippet ? ` (README line ${block.line + readmeLine})` : " (harness)"}: ${e.message}`;
  });
  assert.deepEqual(placed, [], `tsc --strict rejected ${where(block)}`);
  const unplaced = tscErrors.filter((e) => !programs.has(e.file));
  assert.deepEqual(unplaced, [], "tsc errors outside the snippets' programs");
}

const childEnv = () => ({
  PATH: process.env.PATH,
  GEMINI_API_KEY: "test-key", GOOGLE_GEMINI_BASE_URL: `${mock.url}/gemini`,
});

/** Runs a program in Node in the work directory; its stdout. */
async function runNode(relative) {
  try {
    const { stdout } = await run(process.execPath, [relative], { cwd: work, env: childEnv(), timeout: 180_000 });
    return stdout;
  } catch (error) {
    assert.fail(`node ${relative} failed:\n${error.stdout ?? ""}${error.stderr ?? error.message}`);
  }
}

/** Opens a URL in Chromium; resolves to { page, problems, logs } once `ready(page)` resolves. */
async function openPage(url, ready) {
  const page = await browser.newPage();
  const problems = [];
  const logs = [];
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console: ${m.text()}`);
    if (m.type() === "log") logs.push(m.text());
  });
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("requestfailed", (r) => problems.push(`requestfailed: ${r.url()}`));
  page.on("response", (r) => { if (r.status() >= 400) problems.push(`${r.status()}: ${r.url()}`); });
  await page.goto(url);
  await ready(page, logs);
  return { page, problems, logs };
}

/** The values a snippet promises to log: `console.log(...); // value`. */
const promisedLogs = (text) => [...text.matchAll(/console\.log\(.*\);\s*\/\/\s*(.+)$/gm)].map((m) => m[1].trim());

let viteBuild;
/** Builds the bundler snippet with the vite-config snippet (once); resolves to the dist directory. */
function buildVite() {
  viteBuild ??= run(path.join(bin, "vite"), ["build", "--logLevel", "warn"], { cwd: path.join(work, "vite"), timeout: 300_000 })
    .then(() => path.join(work, "vite/dist"), (error) => assert.fail(`vite build failed:\n${error.stdout}${error.stderr}`));
  return viteBuild;
}

const CHECKS = {
  async page(block) {
    assertCompiles(block);
    const expected = promisedLogs(block.text);
    assert.ok(expected.length > 0, "the page promises what it logs");
    const server = await serve(path.join(work, "page"));
    try {
      const { page, problems, logs } = await openPage(server.url, (_, logs) => waitFor(() => logs.length >= expected.length));
      await page.close();
      assert.deepEqual(problems, []);
      assert.deepEqual(logs, expected, "it logs what its comments say");
    } finally {
      await server.close();
    }
  },
  async webview(block) {
    assertCompiles(block);
    const { page, problems } = await openPage(pathToFileURL(path.join(work, "webview/index.html")).href, () => {});
    // The snippet's own `chat`, a ChatCompactor of the window it names.
    const seen = await page.evaluate("[chat instanceof CompactionCore.ChatCompactor, chat.window]");
    await page.close();
    assert.deepEqual(problems, []);
    assert.deepEqual(seen, [true, Number(/window: ([\d_]+)/.exec(block.text)[1].replaceAll("_", ""))]);
  },
  async bundler(block) {
    assertCompiles(block);
    const server = await serve(await buildVite());
    try {
      const { page, problems } = await openPage(server.url, (p) => p.waitForSelector("body[data-auto]", { state: "attached", timeout: 15_000 }));
      const auto = await page.getAttribute("body", "data-auto");
      await page.close();
      assert.deepEqual(problems, []);
      assert.equal(auto, "95000", "ChatCompactor from the bundler build works in Chromium");
    } finally {
      await server.close();
    }
  },
  async "vite-config"(block) {
    assertCompiles(block);
    const dist = await buildVite();
    const assets = readdirSync(path.join(dist, "assets"));
    assert.ok(assets.some((f) => f.endsWith(".wasm")), `vite-plugin-wasm emitted the .wasm (${assets.join(", ")})`);
  },
  async node(block, [name]) {
    assertCompiles(block);
    const before = mock.state.requests.length;
    const stdout = await runNode(`node/${name}.mjs`);
    assert.deepEqual(mock.state.rejected, [], "the mock rejected no request");
    const harness = HARNESS[name];
    if (harness) harness.check(JSON.parse(stdout.trim().split("\n").at(-1)), mock.state.requests.slice(before));
  },
  async "node-lines"(block, kinds) {
    assertCompiles(block);
    for (const [i, kind] of kinds.entries()) {
      const stdout = await runNode(`node-lines/line${i}.${{ esm: "mjs", cjs: "cjs" }[kind]}`);
      const types = JSON.parse(stdout.trim());
      assert.ok(types.every((t) => t === "function"), `line ${i + 1} (${kind}) imports only functions and classes that exist: ${types}`);
    }
  },
  async declaration(block, [name]) {
    assertCompiles(block);
    assert.ok(DECLARATIONS[name], `${where(block)}: no DECLARATIONS.${name}`);
    await DECLARATIONS[name](block);
  },
  async signatures(block) {
    assertCompiles(block);
    const types = JSON.parse((await runNode("signatures/import.mjs")).trim());
    assert.ok(types.every((t) => t === "function"), `every imported name exists: ${types}`);
  },
  async loop(block, [file]) {
    const printed = readFileSync(path.join(root, file), "utf8");
    assert.equal(block.text, printed, `${file} is the README's loop as printed`);
    assert.match(readFileSync(path.join(here, "readme-loops.test.mjs"), "utf8"), new RegExp(`\\["${path.basename(file, ".mts")}", "\\w+"\\]`),
      "tests/js/readme-loops.test.mjs runs it");
  },
  async formula(block, [fn]) {
    assert.equal(fn, "computeThresholds");
    // `name = expression   comment`: JavaScript evaluates each expression in order.
    const steps = block.lines.filter((l) => l.trim()).map((line) => {
      const m = /^(\w+) = (.+?)(?:\s{3,}.*)?$/.exec(line);
      assert.ok(m, `not a formula line: ${line}`);
      const js = m[2].replaceAll("×", "*").replaceAll("−", "-").replace(/(\d) (?=\d{3}\b)/g, "$1").replaceAll("max(", "Math.max(");
      return { name: m[1], js };
    });
    assert.deepEqual(steps.map((s) => s.name), ["effectiveWindow", "auto", "warn", "hard"]);
    const formula = new Function("window", `${steps.map((s) => `const ${s.name} = ${s.js};`).join("\n")}\nreturn { ${steps.map((s) => s.name).join(", ")} };`);
    let seed = 42;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const windows = [0, 1, 10_000, 20_000, 32_000, 76_666, 76_667, 110_000, 128_000, 132_500, 200_000, 1_000_000,
      ...Array.from({ length: 2_000 }, () => Math.floor(random() * 2_000_000)), ...Array.from({ length: 100 }, () => random() * 300_000)];
    for (const window of windows) {
      const f = formula(window);
      const t = lib.computeThresholds(window);
      for (const name of ["warn", "auto", "hard"]) assert.ok(Object.is(t[name], f[name]), `${name} at window ${window}: ${t[name]} vs the formula's ${f[name]}`);
      // "The effectiveWindow is reported clamped at 0" (the text after the block).
      assert.ok(Object.is(t.effectiveWindow, Math.max(0, f.effectiveWindow)), `effectiveWindow at window ${window}`);
    }
  },
  async output(block, args) {
    const command = Object.keys(OUTPUTS).find((c) => args.join(" ") === c || args.join(" ").startsWith(`${c} `));
    assert.ok(command, `${where(block)}: no check for the output of ${args.join(" ")} (add one to OUTPUTS)`);
    await OUTPUTS[command](block, args.slice(command.split(" ").length));
  },
  async shell(block, [name]) {
    const commands = shellCommands(block);
    checkCommandsExist(commands);
    assert.ok(SHELLS[name], `${where(block)}: no SHELLS.${name}`);
    await SHELLS[name](block, work);
  },
  async tree(block) {
    // Each line: indentation (2 per level), then names separated by 2+ spaces, then a comment. A name
    // ends in "/" (a directory, which the lines below it are in) or names a file; the names after the
    // first on one line are beside it (in its directory).
    const listed = new Set();
    const stack = []; // [indent, dir]
    const isName = (t) => /^[\w.-]+(\/[\w.-]+)*\/?$/.test(t) && (t.endsWith("/") || /\.\w+$/.test(t));
    for (const line of block.lines) {
      if (!line.trim()) continue;
      const indent = /^ */.exec(line)[0].length;
      const tokens = line.trim().split(/\s{2,}/);
      const names = [];
      for (const t of tokens) {
        if (!isName(t)) break;
        names.push(t);
      }
      if (names.length === 0) continue; // a comment's continuation
      while (stack.length && stack.at(-1)[0] >= indent) stack.pop();
      const parent = stack.at(-1)?.[1] ?? "";
      const first = parent + names[0];
      const beside = path.posix.dirname(first.replace(/\/$/, ""));
      for (const [i, name] of names.entries()) {
        const full = i === 0 ? first : `${beside === "." ? "" : `${beside}/`}${name}`;
        assert.ok(existsSync(path.join(root, full)), `the Layout names ${full}, which does not exist`);
        if (full.endsWith("/")) assert.ok(statSync(path.join(root, full)).isDirectory(), `${full} is a directory`);
        listed.add(full.replace(/\/$/, ""));
      }
      if (first.endsWith("/")) stack.push([indent, first]);
    }
    const { stdout } = await run("git", ["ls-files", "--", "src", "crates"], { cwd: root });
    const sources = stdout.split("\n").filter((f) => /^(src|crates\/[^/]+\/src)\//.test(f));
    assert.ok(sources.length > 0);
    const missing = sources.filter((f) => !listed.has(f));
    assert.deepEqual(missing, [], "every file under src/ and crates/*/src/ is in the Layout");
  },
};

/** What a declaration's comments say of the values, checked on real ones. */
const DECLARATIONS = {
  // A request as `summarize` receives it, from a /compact over a history with an image.
  async SummaryRequest(block) {
    const placeholder = /media → "(.+?)"/.exec(block.text)?.[1];
    assert.ok(placeholder, "the block says what media become");
    const chat = new lib.ChatCompactor({ window: 32_000 });
    const text = (i) => `${"word ".repeat(200)}${i}`;
    const history = [{ role: "user", parts: [{ text: "look at this" }, { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } }] },
      ...Array.from({ length: 7 }, (_, i) => ({ role: i % 2 === 0 ? "model" : "user", parts: [{ text: text(i) }] }))];
    let request;
    const result = await chat.compact(history, (r) => { request = structuredClone(r); return "## Task status\n- done"; });
    chat.free();
    assert.equal(result.statusName, "COMPRESSED");
    assert.deepEqual(Object.keys(request).sort(), ["config", "contents", "systemInstruction"]);
    assert.equal(typeof request.systemInstruction, "string");
    assert.deepEqual(request.contents[0], { role: "user", parts: [{ text: "look at this" }, { text: placeholder }] }, "the messages to summarize, media as the placeholder");
    assert.deepEqual(request.contents.slice(1, -1), history.slice(1, request.contents.length - 1), "then the other messages to summarize");
    const directive = request.contents.at(-1);
    assert.equal(directive.role, "user");
    assert.ok(!history.some((m) => JSON.stringify(m) === JSON.stringify(directive)), "then a directive of the library's own");
    assert.deepEqual(request.config, { maxOutputTokens: request.config.maxOutputTokens, thinkingConfig: { includeThoughts: false } });
    assert.ok(Number.isInteger(request.config.maxOutputTokens) && request.config.maxOutputTokens > 0);
  },
};

/** Polls `condition` every 20 ms, for at most 15 s. */
async function waitFor(condition) {
  for (let i = 0; i < 750; i++) {
    if (condition()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail("timed out waiting");
}

test("every fenced block of the README has a marker of a known kind, and every marker a block", () => {
  const unmarked = blocks.filter((b) => !b.marker).map(where);
  assert.deepEqual(unmarked, [], "blocks without a <!-- snippet: KIND --> line just before them");
  const unknown = blocks.filter((b) => b.marker && !CHECKS[b.marker[0]]).map(where);
  assert.deepEqual(unknown, [], "markers of an unknown kind");
  assert.deepEqual(orphans.map((l) => `README line ${l}`), [], "markers not followed by a fenced block");
  const harnessed = blocks.filter((b) => b.marker?.[0] === "node").map((b) => b.marker[1]);
  assert.deepEqual(Object.keys(HARNESS).filter((n) => !harnessed.includes(n)), [], "every harness entry has its snippet");
});

describe("each snippet, as printed", () => {
  setUp();
  for (const block of blocks) {
    if (!block.marker || !CHECKS[block.marker[0]]) continue;
    const [kind, ...args] = block.marker;
    test(`${where(block)}: ${block.lines.find((l) => l.trim())?.trim().slice(0, 60)}`, { timeout: 900_000 }, async () => {
      await CHECKS[kind](block, args);
    });
  }
});
