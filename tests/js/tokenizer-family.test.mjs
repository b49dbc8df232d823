// The model names the tokenizer family (issue 23): a chat made with
// `model: "gpt-4o"` estimates with, and saves, the o200k weights; an explicit
// `tokenizer` wins; the three families added with the multilingual corpus
// are accepted everywhere a family is.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const cc = require("../../pkg/node/compaction_core.js");

test("save() of a chat made with a model shows that model's tokenizer family", () => {
  for (const [model, family] of [
    ["gpt-4o", "o200k"], ["gpt-4.1-mini", "o200k"], ["o3", "o200k"], ["gpt-4-turbo", "cl100k"],
    ["claude-sonnet-4-5", "claude"], ["gemini-2.5-pro", "gemini"], ["gemma-3-12b-it", "gemini"],
    ["qwen3-32b", "qwen"], ["meta-llama/Llama-3.3-70B-Instruct", "llama3"], ["deepseek-reasoner", "deepseek"],
    ["some-model-nobody-knows", "universal"],
  ]) {
    const chat = new cc.ChatCompactor({ model, window: 100_000 });
    try {
      assert.equal(chat.save().options.tokenizer, family, model);
    } finally {
      chat.free();
    }
  }
  const chat = new cc.ChatCompactor({ model: "gpt-4o", tokenizer: "claude" });
  try {
    assert.equal(chat.save().options.tokenizer, "claude");
  } finally {
    chat.free();
  }
});

test("the new families estimate, and a wrong family name is a typed error", () => {
  const text = "Καλημέρα κόσμε — Zażółć gęślą jaźń — 안녕하세요";
  for (const tokenizer of ["gemini", "llama3", "deepseek"]) {
    for (const estimator of ["calibrated", "conservative"]) {
      const n = cc.estimateTextTokens(text, { estimator, tokenizer });
      assert.ok(Number.isInteger(n) && n > 5 && n <= Buffer.byteLength(text), `${tokenizer} ${estimator}: ${n}`);
    }
  }
  assert.throws(() => cc.estimateTextTokens(text, { estimator: "calibrated", tokenizer: "llama2" }),
    (e) => e.code === "INVALID_ARGUMENT" && /deepseek/.test(e.message));
});
