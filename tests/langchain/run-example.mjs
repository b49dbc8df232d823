// Runs a documentation example (docs/guides/langchain.md, docs/guides/openai.md)
// as a user would: the file is compiled with `tsc --strict` in a temporary
// project whose node_modules holds the folder's real packages and
// compaction-core (pkg/), then run by Node with OPENAI_BASE_URL pointing at
// the loopback window mock. Returns the program's output and the mock's state.
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { startWindowMock } from "../js/mock-window.mjs";

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** `file` (relative to the repository) compiled and run with `folder`'s packages against a mock with `agent` as its script. */
export async function runExample(file, folder, agent) {
  const dir = mkdtempSync(path.join(tmpdir(), "compaction-example-"));
  const mock = await startWindowMock({ window: 32_000, agent, lifetimeMs: 240_000 });
  try {
    const modules = path.join(dir, "node_modules");
    mkdirSync(modules);
    const from = path.join(root, folder, "node_modules");
    for (const name of readdirSync(from)) {
      if (name.startsWith(".")) continue;
      if (name.startsWith("@")) {
        mkdirSync(path.join(modules, name));
        for (const inner of readdirSync(path.join(from, name))) symlinkSync(path.join(from, name, inner), path.join(modules, name, inner));
      } else symlinkSync(path.join(from, name), path.join(modules, name));
    }
    symlinkSync(path.join(root, "pkg"), path.join(modules, "compaction-core"));
    cpSync(path.join(root, file), path.join(dir, "example.ts"));
    writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module" }));
    writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({
      compilerOptions: { strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", skipLibCheck: true, preserveSymlinks: true, outDir: "out" },
      files: ["example.ts"],
    }));
    await run(path.join(root, "tests/node_modules/.bin/tsc"), ["-p", dir], { cwd: dir }).catch((error) => {
      throw new Error(`${file} does not compile with tsc --strict:\n${error.stdout}${error.stderr}`);
    });
    const { stdout } = await run(process.execPath, [path.join(dir, "out/example.js")], {
      cwd: dir,
      env: { ...process.env, OPENAI_BASE_URL: mock.baseURL, OPENAI_API_KEY: "test-key-not-a-secret" },
      timeout: 180_000,
    });
    return { stdout, state: mock.state };
  } finally {
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The examples' model: after the user one read_file call (two when parallel calls are allowed), then a short answer. */
export function exampleAgent({ api, body, n }) {
  const last = api === "chat" ? body.messages.at(-1) : typeof body.input === "string" ? { role: "user" } : body.input.at(-1);
  if (last.role === "user" && body.tools?.length) {
    const call = (p) => ({ name: "read_file", arguments: JSON.stringify({ path: `src/${p}${n}.rs` }) });
    return { toolCalls: body.parallel_tool_calls === false ? [call("mod")] : [call("mod"), call("lib")] };
  }
  return { text: `Read (${n}): the module's helpers.` };
}
