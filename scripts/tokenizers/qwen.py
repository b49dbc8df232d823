"""Counts Qwen tokens of JSON-lines texts: one {"text": ...} per input line,
one count per output line (with --pieces: a JSON list of each token's
length in UTF-8 bytes of the NFC text, for pair_boundaries.mjs). The vocabulary is the one PyPI `dashscope` ships
(dashscope/resources/qwen.tiktoken, the Qwen2/2.5/3 BPE of 151,643 ranks);
the split rule and NFC normalisation are dashscope's QwenTokenizer's. The
package is located, not imported (its __init__ pulls in its HTTP client)."""
import base64
import importlib.util
import json
import os
import sys
import unicodedata

import tiktoken

PAT_STR = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""


def main():
    spec = importlib.util.find_spec("dashscope")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("qwen.py: PyPI dashscope is not installed (scripts/tokenizers/install)")
    path = os.path.join(list(spec.submodule_search_locations)[0], "resources", "qwen.tiktoken")
    with open(path, "rb") as f:
        ranks = {base64.b64decode(t): int(r) for t, r in (l.split() for l in f.read().splitlines() if l)}
    enc = tiktoken.Encoding("qwen", pat_str=PAT_STR, mergeable_ranks=ranks, special_tokens={})
    out = sys.stdout
    pieces = "--pieces" in sys.argv[1:]
    for line in sys.stdin:
        if not line.strip():
            continue
        text = unicodedata.normalize("NFC", json.loads(line)["text"])
        # dashscope encodes in chunks of 100,000 characters (tiktoken's
        # recursion limit); so do we.
        ids = [t for i in range(0, len(text), 100_000) for t in enc.encode(text[i:i + 100_000], disallowed_special=())]
        if pieces:
            out.write(json.dumps([len(enc.decode_single_token_bytes(t)) for t in ids]) + "\n")
        else:
            out.write(f"{len(ids)}\n")


main()
