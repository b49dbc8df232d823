// The built package as the JS tests load it, with one check added to every
// compaction run of every test that imports it: each request handed to a
// `summarize` callback asks for at most the model's limit —
// `config.maxOutputTokens` is a whole number from 1 to the smallest of
// 20 000 and the chat's `maxOutputTokens` (docs/behaviour.md, "Every send fits": "every summary request
// ever made, in every test, has maxOutputTokens ≤ the model's limit").
//
// The check wraps `beforeSend` and `compact` rather than each test's
// callbacks, so no test can forget it. A request over the limit does not
// throw inside the callback (the library would turn that into a
// SUMMARIZER_FAILED result a test might expect anyway): it is recorded, and
// the run's promise rejects with an AssertionError once it settles.
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
/** The Node build of the package (`scripts/build` makes it). */
export const cc = require("../../pkg/node/compaction_core.js");

const { ChatCompactor, ladderConstants } = cc;
const CAP = ladderConstants().compactMaxOutputTokens;

/** The most a summary request of `chat` may ask for: 20 000, or the model's limit when lower. */
export function outputLimit(chat) {
  let limit;
  try {
    limit = chat.save().options.maxOutputTokens;
  } catch {
    // A chat freed by the test: only the library's own cap applies.
  }
  return typeof limit === "number" ? Math.min(CAP, limit) : CAP;
}

/** The problem with `request`'s output cap for `chat`, or null. */
function capProblem(chat, request) {
  const limit = outputLimit(chat);
  let cap;
  try {
    cap = request.config.maxOutputTokens;
  } catch (error) {
    return `the request has no config.maxOutputTokens: ${error}`;
  }
  if (!Number.isInteger(cap) || cap < 1 || cap > limit) {
    return `a summary request asked for maxOutputTokens ${cap}, the model's limit is ${limit}`;
  }
  return null;
}

for (const method of ["beforeSend", "compact"]) {
  const original = ChatCompactor.prototype[method];
  // The summarize argument is the third of beforeSend and the second of compact.
  const at = method === "beforeSend" ? 2 : 1;
  const checked = function (...args) {
    const chat = this;
    const summarize = args[at];
    const problems = [];
    if (typeof summarize === "function") {
      args[at] = function summarizeChecked(...callArgs) {
        const problem = capProblem(chat, callArgs[0]);
        if (problem !== null) problems.push(problem);
        return summarize.apply(this, callArgs);
      };
    }
    const settle = () => assert.deepEqual(problems, [], "every summary request within the model's limit");
    return original.apply(this, args).then(
      (result) => {
        settle();
        return result;
      },
      (error) => {
        settle();
        throw error;
      },
    );
  };
  // Keep what the original declares (name, arity), as a test may read them.
  Object.defineProperty(checked, "name", { value: original.name });
  Object.defineProperty(checked, "length", { value: original.length });
  ChatCompactor.prototype[method] = checked;
}
