// Fingerprints of messages, for `reapply` (api.js): the last compaction is
// matched by content, never by object identity, because frameworks rebuild
// the prompt's objects at every model call.
//
// A message's fingerprint is a hash walk over the JSON value JSON.stringify
// would write — objects (keys in Object.keys order, members whose value it
// leaves out left out), arrays, strings, numbers, booleans, null, after
// `toJSON` — without writing the text: equal JSON text ⇔ equal walk. The
// walk feeds a token stream that says where every value starts and ends
// (a tag per value, the length of every string), so two different texts
// never feed the same stream. 64-bit FNV-1a over 16-bit units, in two 32-bit
// lanes: a message's fingerprint is the pair of lanes, and a prompt's
// messages are folded on as numbers; a fold is printed (16 hex digits) only
// where it is compared or saved.
//
// Long strings (tool outputs, files) come back unchanged at every step of a
// loop and in every later turn: each is hashed once and remembered, keyed by
// a sample of it (its length, its ends and a few units between) and checked
// against the whole text with === (native: free for the same string object,
// one comparison for a string parsed anew; keyed by the text itself, the
// engine would hash every new string's whole text first). The memo is
// emptied when it holds MEMO_CHARS characters, so the memory it keeps alive
// is bounded.
//
// The walk's own errors (a BigInt, a cycle) are not what the host sees: the
// caller asks JSON.stringify about the same value for its words. The walk
// runs the host's code (getters, toJSON, proxy traps), which may fingerprint
// something else meanwhile: every export leaves the lanes as it found them.

const LONG_STRING = 128;
const MEMO_CHARS = 1 << 23;
// Deeper than the core reads (MAX_DEPTH, 100): a cycle ends the walk here.
const MAX_DEPTH = 1_000;

// The tokens of the stream (16-bit units, apart from character codes by
// their place: each follows a tag or a length).
const NULL = 1;
const FALSE = 2;
const TRUE = 3;
const NUMBER = 4;
const STRING = 5;
const LONG = 6;
const ARRAY = 7;
const OBJECT = 8;
const END = 9;

let a = 0;
let b = 0;

function unit(c) {
  a = Math.imul(a ^ c, 0x01000193);
  b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
}

function word(w) {
  unit(w & 0xffff);
  unit(w >>> 16);
}

function chars(text) {
  let x = a;
  let y = b;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    x = Math.imul(x ^ c, 0x01000193);
    y = Math.imul(y ^ c, 0x01000193) ^ (y >>> 15);
  }
  a = x;
  b = y;
}

/** A string into the stream: a long one by its remembered hash, a short one as its tag, length and units. */
function string(text) {
  const n = text.length;
  if (n >= LONG_STRING) {
    longString(text);
    return;
  }
  unit(STRING);
  unit(n);
  chars(text);
}

function hex() {
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}

/** The fingerprint of a string, continued from `seed` (a fingerprint, or "" to start). */
export function fingerprint(text, seed = "") {
  const x = a;
  const y = b;
  a = 0x811c9dc5;
  b = 0x050c5d1f;
  // The seed's 16 hex digits go in first, without a concatenated copy of the text.
  chars(seed);
  chars(text);
  const print = hex();
  a = x;
  b = y;
  return print;
}

const memo = new Map();
let memoChars = 0;
const BUCKET = 4;
const EDGE = 12;

/**
 * A long string's memo key: its length, its first and last EDGE units and
 * seven units spread over it, mixed into 30 bits (a small integer: a fast
 * Map key).
 */
function sample(text) {
  const n = text.length;
  let k = Math.imul(n, 0x9e3779b1);
  for (let i = 0; i < EDGE; i++) k = Math.imul(k ^ text.charCodeAt(i), 0x01000193) ^ text.charCodeAt(n - 1 - i);
  for (let i = 1; i < 8; i++) k = Math.imul(k ^ text.charCodeAt((n * i) >> 3), 0x01000193);
  return k >>> 2;
}

/**
 * A long string: its own hash (remembered), as two words into the stream.
 * The memo is keyed by a sample of the string and checked against the
 * whole text with ===: a string parsed anew (a request landing on a
 * server) costs one native comparison, not a native hash of all its text
 * and then that comparison; the same string object costs nothing. Texts
 * whose samples agree share a bucket of BUCKET, the oldest giving way.
 */
function longString(text) {
  const key = sample(text);
  let bucket = memo.get(key);
  let pair;
  if (bucket !== undefined) {
    for (let i = 0; i < bucket.length; i += 2) {
      if (bucket[i] === text) {
        pair = bucket[i + 1];
        break;
      }
    }
  }
  if (pair === undefined) {
    const x = a;
    const y = b;
    a = 0x811c9dc5;
    b = 0x050c5d1f;
    chars(text);
    pair = [a, b];
    a = x;
    b = y;
    if (memoChars > MEMO_CHARS) {
      memo.clear();
      memoChars = 0;
      bucket = undefined;
    }
    if (bucket === undefined) memo.set(key, (bucket = []));
    if (bucket.length >= 2 * BUCKET) bucket.splice(0, 2);
    bucket.push(text, pair);
    memoChars += text.length;
  }
  unit(LONG);
  word(pair[0]);
  word(pair[1]);
}

const floats = new Float64Array(1);
const floatWords = new Uint32Array(floats.buffer);
const isRawJson = typeof JSON.isRawJSON === "function" ? JSON.isRawJSON : () => false;

/** `value` as JSON.stringify reads it: after toJSON, boxed primitives unboxed. */
function resolve(value, key) {
  if (value === null || (typeof value !== "object" && typeof value !== "bigint")) return value;
  const toJSON = value.toJSON;
  if (typeof toJSON === "function") value = toJSON.call(value, typeof key === "number" ? String(key) : key);
  if (value === null || typeof value !== "object" || Array.isArray(value) || Object.getPrototypeOf(value) === Object.prototype) return value;
  if (value instanceof Number) return Number(value);
  if (value instanceof String) return String(value);
  if (value instanceof Boolean) return value.valueOf();
  if (typeof BigInt === "function" && value instanceof BigInt) throw new TypeError("BigInt");
  if (isRawJson(value)) return JSON.parse(value.rawJSON);
  return value;
}

/** Whether JSON.stringify writes a (resolved) value: undefined, functions and Symbols it leaves out. */
function written(value) {
  const type = typeof value;
  return type !== "undefined" && type !== "function" && type !== "symbol";
}

/** Feeds one resolved, written value. */
function walk(value, depth) {
  switch (typeof value) {
    case "string":
      string(value);
      return;
    case "number":
      if (!Number.isFinite(value)) {
        unit(NULL);
      } else {
        // The JSON text of a number is the shortest that reads back as the
        // same double; -0 is written "0".
        floats[0] = value === 0 ? 0 : value;
        unit(NUMBER);
        word(floatWords[0]);
        word(floatWords[1]);
      }
      return;
    case "boolean":
      unit(value ? TRUE : FALSE);
      return;
    case "bigint":
      throw new TypeError("BigInt");
  }
  if (value === null) {
    unit(NULL);
    return;
  }
  if (depth > MAX_DEPTH) throw new RangeError(`nested deeper than ${MAX_DEPTH} levels`);
  if (Array.isArray(value)) {
    unit(ARRAY);
    const n = value.length;
    for (let i = 0; i < n; i++) {
      // Only objects and BigInts have a toJSON JSON.stringify calls.
      let item = value[i];
      if (typeof item === "object" || typeof item === "bigint") item = resolve(item, i);
      if (written(item)) walk(item, depth + 1);
      else unit(NULL);
    }
    unit(END);
    return;
  }
  unit(OBJECT);
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    let member = value[key];
    if (typeof member === "object" || typeof member === "bigint") member = resolve(member, key);
    if (!written(member)) continue;
    string(key);
    if (typeof member === "string") string(member);
    else walk(member, depth + 1);
  }
  unit(END);
}

/**
 * The fingerprint of a message's JSON value (`[lane, lane]`), or `undefined` where
 * JSON.stringify writes nothing (a function, a Symbol, a toJSON that answers
 * undefined); `undefined` itself is null, as `contentJson` reads it. Throws what the walk met (a BigInt, a cycle, a throwing getter
 * or toJSON): the caller names it.
 */
export function valueFingerprint(value) {
  const x = a;
  const y = b;
  a = 0x811c9dc5;
  b = 0x050c5d1f;
  try {
    if (value === undefined) {
      unit(NULL);
    } else {
      const resolved = resolve(value, "");
      if (!written(resolved)) return undefined;
      walk(resolved, 0);
    }
    return [a, b];
  } finally {
    a = x;
    b = y;
  }
}

/**
 * The running folds of message fingerprints from `start` (a fold's 16 hex
 * digits, or "" for none): lanes `2i` and `2i + 1` hold the fold of the
 * first `i` (for `i` ≥ 1).
 */
export function foldPrints(prints, start) {
  const x = a;
  const y = b;
  a = 0x811c9dc5;
  b = 0x050c5d1f;
  if (start !== "") {
    a = parseInt(start.slice(0, 8), 16) | 0;
    b = parseInt(start.slice(8), 16) | 0;
  }
  const lanes = new Int32Array(2 * prints.length + 2);
  for (let i = 0; i < prints.length; i++) {
    word(prints[i][0]);
    word(prints[i][1]);
    lanes[2 * i + 2] = a;
    lanes[2 * i + 3] = b;
  }
  a = x;
  b = y;
  return lanes;
}

/** The fold at `i` of `foldPrints`' lanes, as 16 hex digits. */
export function laneHex(lanes, i) {
  const x = a;
  const y = b;
  a = lanes[2 * i];
  b = lanes[2 * i + 1];
  const print = hex();
  a = x;
  b = y;
  return print;
}
