// The shipped JS holds no syntax newer than the oldest engines that load the
// wasm (docs/performance.md, "Which engines load it": Chrome / Android WebView 75,
// Firefox 79, Safari / iOS 15, Node 12.5): scripts/build lowers it with
// esbuild's --target. Walks each built file's syntax tree (TypeScript's
// parser, reading JS) for what those engines lack.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const ts = require("typescript");
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

// What each lacks, and the first version of each engine with it.
const NEWER = {
  [ts.SyntaxKind.PrivateIdentifier]: "a private class member (#x: Chrome 84 with methods, Safari 15)",
  [ts.SyntaxKind.QuestionDotToken]: "optional chaining ?. (Chrome 80, Firefox 74)",
  [ts.SyntaxKind.QuestionQuestionToken]: "nullish coalescing ?? (Chrome 80, Firefox 72)",
  [ts.SyntaxKind.QuestionQuestionEqualsToken]: "logical assignment ??= (Chrome 85)",
  [ts.SyntaxKind.BarBarEqualsToken]: "logical assignment ||= (Chrome 85)",
  [ts.SyntaxKind.AmpersandAmpersandEqualsToken]: "logical assignment &&= (Chrome 85)",
  [ts.SyntaxKind.ClassStaticBlockDeclaration]: "a class static block (Chrome 94)",
};

function newerSyntax(file) {
  const text = readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const found = [];
  const visit = (node) => {
    if (NEWER[node.kind]) {
      const { line, character } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push(`${line + 1}:${character + 1} ${NEWER[node.kind]}`);
    }
    // Operator tokens are children of their expressions, not visited by
    // forEachChild: read them off the expression.
    if (ts.isBinaryExpression(node) && NEWER[node.operatorToken.kind]) {
      found.push(`${NEWER[node.operatorToken.kind]}`);
    }
    if (node.questionDotToken) found.push(NEWER[ts.SyntaxKind.QuestionDotToken]);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test("the check finds what it looks for", () => {
  const probe = join(root, "target", "js-syntax-probe.js");
  require("node:fs").writeFileSync(
    probe,
    "class A { #x = 1; static { } m(o) { o.a ??= 1; return o?.b ?? this.#x; } }\n",
  );
  const found = newerSyntax(probe).join("\n");
  for (const what of ["private class member", "?.", "??", "??=", "static block"]) {
    assert.ok(found.includes(what), `${what} not found in:\n${found}`);
  }
});

for (const built of [
  "pkg/web/compaction_core.js",
  "pkg/inline/compaction_core.iife.js",
  "pkg/inline/compaction_core.js",
  "pkg/node/compaction_core.js",
  "pkg/bundler/compaction_core.js",
  "pkg/summarizers/index.js",
  "pkg/summarizers/index.cjs",
]) {
  test(`${built} holds no syntax newer than Chrome 75, Firefox 79, Safari 15`, () => {
    assert.deepEqual(newerSyntax(join(root, built)), []);
  });
}
