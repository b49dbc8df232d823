"""Builds the Debian part of the multilingual dev corpus's texts (appended to
tests/corpus/multilingual-dev.jsonl before counting) from the translations
shipped in pinned Debian 12 packages (DEBIAN_PINS below). Deterministic: the
same .deb files give the same samples, byte for byte. Usage
(scripts/make-multilingual-corpus runs it; needs dpkg-deb):
    python make_debian_corpus.py DEB_DIR OUT.jsonl

Three kinds of source, each a kind of text the estimator meets:
- `mo`: the gettext catalogs (usr/share/locale/*/LC_MESSAGES/*.mo) of
  command-line tools and libraries: their --help texts, error and UI
  messages. A .mo file is sorted by its English msgid, so "consecutive
  messages" are neighbours in that order.
- `debconf`: the translated installer questions of DEBIAN/templates
  (`Description-xx.UTF-8`, `Choices-xx.UTF-8`), rendered as a dialog shows
  them: the question, its explanation (paragraphs) and its choices.
- `man`: the translated manual pages of the manpages-xx packages (roff
  markup turned into plain text laid out as `man` shows it: headings,
  indented paragraphs, option lists).

Units and split: every sample comes from one unit, the program it documents:
the .mo domain (coreutils, tar, gtk30, ...), the package of a debconf template
file, or the name of a manual page (ls, tar, ...). A unit is wholly `fit` or
wholly `holdout`, by a seeded hash of its name (`split_of`): about 60% of units
are fitted, and holdout text always comes from programs never fitted. A man
page and the .mo domain of the same name (grep, sed, tar, ...) share a split.

Selection: per language, units are taken in a seeded order (sorted, then by
hash), a fixed number per source kind, and from each a fixed number of short
messages (5 to 60 characters, evenly spaced) and long samples (120 to 3,000
characters, at evenly spaced starting points, sizes cycling through
LONG_SIZES)."""
import gzip
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import textwrap

import polib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_corpus import LANGS  # noqa: E402

# Debian 12 (bookworm) packages, exact versions. `apt-get download PKG=VER`
# fetches them while the version is in the archive; snapshot.debian.org keeps
# every version afterwards.
DEBIAN_PINS = {
    "apt": "2.6.2",
    "apt-listchanges": "3.24",
    "aptitude-common": "0.8.13-5",
    "bash": "5.2.15-2+b13",
    "binutils-common": "2.40-2",
    "ca-certificates": "20250419~deb12u2",
    "console-setup": "1.221",
    "coreutils": "9.1-1",
    "cpio": "2.13+dfsg-7.1",
    "debconf": "1.5.82",
    "debconf-i18n": "1.5.82",
    "diffutils": "1:3.8-4",
    "dpkg": "1.21.23",
    "exim4-config": "4.96-15+deb12u11",
    "findutils": "4.9.0-4",
    "gettext-base": "0.21-12",
    "git": "1:2.39.5-0+deb12u3",
    "gnupg-l10n": "2.2.40-1.1+deb12u2",
    "grep": "3.8-5",
    "grub-pc": "2.06-13+deb12u2",
    "iptables-persistent": "1.0.20",
    "kexec-tools": "1:2.0.25-3+deb12u3",
    "keyboard-configuration": "1.221",
    "krb5-config": "2.7",
    "libc6": "2.36-9+deb12u14",
    "libglib2.0-data": "2.74.6-2+deb12u9",
    "libgtk-3-common": "3.24.38-2~deb12u3",
    "libpam0g": "1.5.2-6+deb12u3",
    "locales": "2.36-9+deb12u14",
    "make": "4.3-4.1",
    "man-db": "2.11.2-2",
    "mc-data": "3:4.8.29-2",
    "mdadm": "4.2-5",
    "nano": "7.2-1+deb12u1",
    "network-manager": "1.42.4-1+deb12u1",
    "openssh-server": "1:9.2p1-2+deb12u10",
    "popularity-contest": "1.76",
    "postfix": "3.7.11-0+deb12u1",
    "procps": "2:4.0.2-3",
    "psmisc": "23.6-1",
    "samba-common": "2:4.17.12+dfsg-0+deb12u4",
    "sed": "4.9-1+deb12u1",
    "slapd": "2.5.13+dfsg-5",
    "sudo": "1.9.13p3-1+deb12u4",
    "tar": "1.34+dfsg-1.2+deb12u1",
    "tasksel": "3.73",
    "tasksel-data": "3.73",
    "tzdata": "2026f-0+deb12u1",
    "ucf": "3.0043+nmu1+deb12u1",
    "unattended-upgrades": "2.9.1+nmu3",
    "util-linux-locales": "2.38.1-5+deb12u3",
    "wget": "1.21.3-1+deb12u1",
    "wireshark-common": "4.0.17-0+deb12u3",
    "xkb-data": "2.35.1-1",
    # Translated manual pages (manpages-l10n 4.18.1; Turkish: its own project).
    "manpages-cs": "4.18.1-1",
    "manpages-de": "4.18.1-1",
    "manpages-el": "4.18.1-1",
    "manpages-es": "4.18.1-1",
    "manpages-fr": "4.18.1-1",
    "manpages-id": "4.18.1-1",
    "manpages-it": "4.18.1-1",
    "manpages-nl": "4.18.1-1",
    "manpages-pl": "1:4.18.1-1",
    "manpages-pt-br": "4.18.1-1",
    "manpages-ru": "4.18.1-1",
    "manpages-sv": "4.18.1-1",
    "manpages-tr": "2.0.6-2",
    "manpages-uk": "4.18.1-1",
    "manpages-vi": "4.18.1-1",
}

# Languages Debian translates that the wheels' part lacks (more Latin
# diacritics and Cyrillic), beside make_corpus.LANGS.
MORE_LANGS = {
    "sk": ("Slovak", "latin", ["sk"]),
    "hr": ("Croatian", "latin", ["hr"]),
    "sl": ("Slovenian", "latin", ["sl"]),
    "lv": ("Latvian", "latin", ["lv"]),
    "et": ("Estonian", "latin", ["et"]),
    "da": ("Danish", "latin", ["da"]),
    "nb": ("Norwegian Bokmål", "latin", ["nb", "nb_NO"]),
    "ca": ("Catalan", "latin", ["ca"]),
    "sr": ("Serbian", "cyrillic", ["sr"]),
    "be": ("Belarusian", "cyrillic", ["be"]),
}
ALL_LANGS = {**LANGS, **MORE_LANGS}
# Debian spells some locales differently from the wheels.
EXTRA_CODES = {"pt": ["pt_BR", "pt"], "zh": ["zh_CN"], "he": ["he"], "id": ["id"]}

SEED = "compaction-core multilingual corpus 1"
# Units per language and source kind, and samples per unit.
UNITS = {"mo": 8, "debconf": 6, "man": 12}
PER_UNIT = {"mo": (2, 2), "debconf": (2, 1), "man": (1, 1)}  # (short, long)
LONG_SIZES = [120, 300, 700, 1500, 3000]


def h(*parts):
    return hashlib.sha256("\0".join((SEED,) + parts).encode()).hexdigest()


def split_of(unit, draw):
    """`fit` for about 60% of units, `holdout` for the rest: the first two hex
    digits of sha256(SEED, "split", draw, unit) below 154 (of 256) are fitted."""
    return "fit" if int(h("split", str(draw), unit)[:2], 16) < 154 else "holdout"


# The issue's languages: each must land in both splits.
ISSUE_LANGS = "el ar he fa hi bn ta th ko vi tr pl cs uk ru pt it nl sv id de fr es".split()


def balanced(rows, draw):
    """Whether a draw of splits is balanced: 55-65% of the samples fitted, and
    30-80% of each of the issue's languages' samples."""
    fit = [split_of(r["unit"], draw) == "fit" for r in rows]
    if not 0.55 <= sum(fit) / len(fit) <= 0.65:
        return False
    for lang in ISSUE_LANGS:
        mine = [f for f, r in zip(fit, rows) if r["category"] == lang]
        if mine and not 0.3 <= sum(mine) / len(mine) <= 0.8:
            return False
    return True


def deb_files(deb):
    """{path: bytes} of a .deb's data, and its DEBIAN/templates text (or None)."""
    data = subprocess.run(["dpkg-deb", "--fsys-tarfile", deb], check=True, capture_output=True).stdout
    files = {}
    with tarfile.open(fileobj=io.BytesIO(data)) as t:
        for m in t.getmembers():
            if m.isfile():
                name = m.name[2:] if m.name.startswith("./") else m.name
                if (name.startswith("usr/share/locale/") and name.endswith(".mo")) or name.startswith("usr/share/man/"):
                    files[name] = t.extractfile(m).read()
    ctrl = subprocess.run(["dpkg-deb", "--ctrl-tarfile", deb], check=True, capture_output=True).stdout
    templates = None
    with tarfile.open(fileobj=io.BytesIO(ctrl)) as t:
        for m in t.getmembers():
            if m.name in ("./templates", "templates"):
                templates = t.extractfile(m).read().decode("utf-8")
    return files, templates


# ---- gettext catalogs ----

def mo_messages(data):
    """(msgid, translation) pairs of a .mo file, in its (msgid) order."""
    mo = polib.mofile(_tmp(data))
    out = []
    for e in mo:
        text = e.msgstr or (e.msgstr_plural.get(0) if e.msgstr_plural else "") or ""
        if not e.msgid or not text.strip() or text == e.msgid:
            continue
        out.append((e.msgid, text))
    return out


_TMP = None


def _tmp(data):
    """polib reads .mo files from a path: one scratch file, rewritten."""
    global _TMP
    if _TMP is None:
        import atexit
        import tempfile
        fd, _TMP = tempfile.mkstemp(suffix=".mo")
        os.close(fd)
        atexit.register(os.remove, _TMP)
    with open(_TMP, "wb") as f:
        f.write(data)
    return _TMP


# ---- debconf templates ----

def debconf_questions(text):
    """{lang code: [rendered question]} of a templates file, in file order."""
    out = {}
    for stanza in text.split("\n\n"):
        fields, cur = {}, None
        for line in stanza.split("\n"):
            if line.startswith(" ") and cur:
                fields[cur].append(line[1:])
            elif ":" in line:
                cur, v = line.split(":", 1)
                fields[cur] = [v.strip()]
        for key, lines in fields.items():
            m = re.fullmatch(r"Description-([A-Za-z_@]+)\.UTF-8", key)
            if not m:
                continue
            code = m.group(1)
            title = lines[0].strip()
            paras, cur_p, verbatim = [], [], []
            for ln in lines[1:]:
                if ln == ".":
                    if cur_p:
                        paras.append(" ".join(cur_p))
                        cur_p = []
                elif ln.startswith(" "):  # verbatim line (two spaces in the file)
                    if cur_p:
                        paras.append(" ".join(cur_p))
                        cur_p = []
                    paras.append(ln.rstrip())
                else:
                    cur_p.append(ln.strip())
            if cur_p:
                paras.append(" ".join(cur_p))
            choices = fields.get(f"Choices-{code}.UTF-8")
            choice_list = []
            if choices:
                choice_list = [c.strip().replace("\\,", ",") for c in re.split(r"(?<!\\),", " ".join(choices)) if c.strip()]
            body = [title] + ["\n".join(textwrap.wrap(p, 76)) if not p.startswith(" ") else p for p in paras]
            if choice_list:
                body.append("\n".join(choice_list))
            out.setdefault(code, []).append(("\n\n".join(body), title, choice_list))
    return out


# ---- manual pages (roff to plain text) ----

GLYPHS = {
    "em": "—", "en": "–", "aq": "'", "dq": '"', "lq": "“", "rq": "”", "oq": "‘", "cq": "’",
    "Fo": "«", "Fc": "»", "fo": "‹", "fc": "›", "bu": "•", "co": "©", "rg": "®", "tm": "™",
    "hy": "-", "mi": "-", "pl": "+", "mu": "×", "di": "÷", "de": "°", "+-": "±", "<=": "≤",
    ">=": "≥", "!=": "≠", "->": "→", "<-": "←", "ga": "`", "aa": "´", "ti": "~", "ha": "^",
    "rs": "\\", "sl": "/", "ba": "|", "or": "|", "lB": "[", "rB": "]", "lC": "{", "rC": "}",
    "la": "⟨", "ra": "⟩", "sc": "§", "ps": "¶", "dg": "†", "eu": "€", "Eu": "€", "ss": "ß",
    "a:": "ä", "o:": "ö", "u:": "ü", "A:": "Ä", "O:": "Ö", "U:": "Ü", "e'": "é", "a`": "à",
}
STRINGS = {"lq": "“", "rq": "”", "R": "®", "Tm": "™", "Aq": "'", "dg": "†"}


def unescape(s):
    s = re.sub(r"\\\".*$", "", s)
    s = re.sub(r"\\f(\[[^\]]*\]|\(..|.)", "", s)
    s = re.sub(r"\\s[-+]?\d", "", s)
    s = re.sub(r"\\\*(\[([^\]]*)\]|\((..)|(.))", lambda m: STRINGS.get(m.group(2) or m.group(3) or m.group(4), ""), s)
    s = re.sub(r"\\\((..)", lambda m: GLYPHS.get(m.group(1), ""), s)
    s = re.sub(r"\\\[([^\]]*)\]", lambda m: GLYPHS.get(m.group(1), ""), s)
    s = re.sub(r"\\[nk](\[[^\]]*\]|\(..|.)", "", s)
    s = re.sub(r"\\[hvwl]'[^']*'", "", s)
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c != "\\" or i + 1 == len(s):
            out.append(c)
            i += 1
            continue
        n = s[i + 1]
        i += 2
        if n in "-":
            out.append("-")
        elif n in "e\\":
            out.append("\\")
        elif n in "~0 ":
            out.append(" ")
        elif n in "&,/|^%c:)":
            pass
        elif n == "'":
            out.append("´")
        elif n == "`":
            out.append("`")
        elif n == ".":
            out.append(".")
        else:
            out.append(n)
    return "".join(out)


def args_of(rest):
    out, cur, q, i = [], "", False, 0
    while i < len(rest):
        c = rest[i]
        if c == '"':
            if q and i + 1 < len(rest) and rest[i + 1] == '"':
                cur += '"'
                i += 2
                continue
            q = not q
        elif c in " \t" and not q:
            if cur:
                out.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    if cur:
        out.append(cur)
    return out


def man_blocks(src):
    """A manual page as plain-text blocks (heading, paragraph, tagged item),
    each already laid out as `man` shows it (80 columns)."""
    blocks, words, nofill, indent, tag, tag_next = [], [], False, 7, None, False
    section = ""

    def flush():
        nonlocal words, tag
        # A tagged paragraph: the tag at the indent, its text 7 further in.
        ind = indent + (7 if tag is not None else 0)
        body = ""
        if words:
            if nofill:
                body = "\n".join(" " * ind + w for w in words)
            else:
                text = " ".join(w.strip() for w in words if w.strip())
                body = textwrap.fill(text, 80, initial_indent=" " * ind, subsequent_indent=" " * ind) if text else ""
        if tag is not None:
            body = " " * indent + tag + ("\n" + body if body.strip() else "")
        if body.strip():
            blocks.append((section, body))
        words = []
        tag = None

    lines = src.split("\n")
    skip_until = None
    for raw in lines:
        if skip_until:
            if raw.strip().startswith(skip_until):
                skip_until = None
            continue
        if raw.startswith(('.\\"', "'\\\"", '\\"')):
            continue
        if raw.startswith((".", "'")) and len(raw) > 1:
            m = re.match(r"[.'][ \t]*([A-Za-z0-9]+)\s*(.*)$", raw)
            if not m:
                continue
            req, rest = m.group(1), m.group(2)
            a = [unescape(x) for x in args_of(rest)]
            if req == "de" or req == "am":
                skip_until = ".."
            elif req == "TS":
                flush()
                skip_until = ".TE"
            elif req in ("SH", "SS"):
                flush()
                section = " ".join(a)
                indent = 7
                blocks.append((section, ("" if req == "SH" else "   ") + section))
            elif req in ("PP", "P", "LP", "HP", "sp", "PD"):
                flush()
                if req != "PD":
                    indent = max(indent if req == "sp" else indent, 7)
            elif req == "TP":
                flush()
                tag_next = True
            elif req == "IP":
                flush()
                tag = a[0] if a else None
                if tag == "":
                    tag = None
            elif req == "RS":
                flush()
                indent += 7
            elif req == "RE":
                flush()
                indent = max(7, indent - 7)
            elif req in ("nf", "EX"):
                flush()
                nofill = True
            elif req in ("fi", "EE"):
                flush()
                nofill = False
            elif req == "br":
                if not nofill:
                    flush()
            elif req in ("B", "I", "SM", "SB"):
                text = " ".join(a)
                if tag_next:
                    tag, tag_next = text, False
                else:
                    words.append(text)
            elif req in ("BR", "BI", "IB", "RB", "IR", "RI"):
                text = "".join(a)
                if tag_next:
                    tag, tag_next = text, False
                else:
                    words.append(text)
            elif req in ("UR", "MT"):
                if a:
                    words.append(a[0])
            elif req in ("OP",):
                words.append("[" + " ".join(a) + "]")
            elif req in ("SY",):
                flush()
                words.append(" ".join(a))
            # Others (TH, UE, ME, YS, ft, in, ti, ad, na, hy, nh, ne, so,
            # ds, ie, if, el, ...) print nothing of their own.
            continue
        text = unescape(raw)
        if tag_next:
            tag, tag_next = text.strip(), False
            continue
        words.append(text)
    flush()
    return blocks


# ---- sampling ----

def spaced(items, n, salt):
    """n items evenly spaced through a list, from a seeded offset."""
    if not items:
        return []
    n = min(n, len(items))
    off = int(h("offset", salt)[:8], 16) % len(items)
    return [items[(off + (k * len(items)) // n) % len(items)] for k in range(n)]


ENGLISH = set("the and of is are to which for with this that not be if it in by on or an as from can will".split())


def english(text):
    """Whether a block reads as English (a paragraph a translation left
    untranslated): more than 12% of its words are common English ones."""
    words = re.findall(r"\w+", text.lower())
    return len(words) >= 4 and sum(w in ENGLISH for w in words) > 0.12 * len(words)


def clean_short(s):
    s = s.strip()
    return s if 5 <= len(s) <= 60 and "\n" not in s else None


def long_runs(pieces, sizes, salt, sep):
    """Runs of consecutive pieces reaching each size (at most 3,000
    characters), from evenly spaced starts."""
    out = []
    if not pieces:
        return out
    off = int(h("long", salt)[:8], 16) % len(pieces)
    for k, size in enumerate(sizes):
        start = (off + ((2 * k + 1) * len(pieces)) // (2 * len(sizes))) % len(pieces)
        while start < len(pieces) and pieces[start][1] is None:
            start += 1
        parts, j = [], start
        while j < len(pieces) and pieces[j][1] is not None and len(sep.join(p for _, p in parts)) < size:
            nxt = sep.join([p for _, p in parts] + [pieces[j][1]])
            if len(nxt) > 3000:
                if not parts:  # one piece too long: cut at a line (or a space)
                    cut = pieces[j][1][:3000]
                    at = cut.rfind("\n") if cut.rfind("\n") >= 120 else cut.rfind(" ")
                    parts.append((pieces[j][0], cut[:at].rstrip()))
                break
            parts.append(pieces[j])
            j += 1
        text = sep.join(p for _, p in parts)
        if len(text) >= 120:
            out.append((text, parts[0][0], parts[-1][0]))
    return out


def main():
    deb_dir, out_path = sys.argv[1], sys.argv[2]
    debs = {}
    for name in sorted(os.listdir(deb_dir)):
        if name.endswith(".deb"):
            debs[name.split("_")[0]] = name
    # units[lang][kind] = [(unit, package, label, payload)]
    units = {}
    for pkg in sorted(DEBIAN_PINS):
        if pkg not in debs:
            sys.exit(f"make_debian_corpus.py: {pkg}_{DEBIAN_PINS[pkg]} missing from {deb_dir}")
        files, templates = deb_files(os.path.join(deb_dir, debs[pkg]))
        pin = f"debian:{pkg}={DEBIAN_PINS[pkg]}"
        for lang, (_, _, codes) in ALL_LANGS.items():
            codes = EXTRA_CODES.get(lang, codes)
            # .mo catalogs: the first locale code the package has.
            for code in codes:
                mos = sorted(p for p in files if p.startswith(f"usr/share/locale/{code}/LC_MESSAGES/") and p.endswith(".mo"))
                if mos:
                    for p in mos:
                        domain = os.path.basename(p)[:-3]
                        if domain.endswith("-properties"):
                            continue  # GTK's widget property docs: for developers, not users
                        msgs = mo_messages(files[p])
                        if len(msgs) >= 10:
                            units.setdefault(lang, {}).setdefault("mo", []).append((domain, pin, p, msgs))
                    break
            if templates:
                qs = debconf_questions(templates)
                for code in codes:
                    if code in qs:
                        units.setdefault(lang, {}).setdefault("debconf", []).append((pkg, pin, f"DEBIAN/templates {code}", qs[code]))
                        break
            if pkg.startswith("manpages-"):
                for code in codes:
                    pages = sorted(p for p in files if p.startswith(f"usr/share/man/{code}/man") and p.endswith(".gz"))
                    if pages:
                        for p in pages:
                            page = os.path.basename(p)[:-3].rsplit(".", 1)[0]
                            units.setdefault(lang, {}).setdefault("man", []).append((page, pin, p, files[p]))
                        break
    rows = []
    for lang, (name, script, _) in ALL_LANGS.items():
        n_lang = 0
        for kind in ("mo", "debconf", "man"):
            cands = units.get(lang, {}).get(kind, [])
            # Seeded order; one unit per name (a domain in two packages counts once).
            seen, order = set(), []
            for u in sorted(cands, key=lambda u: (h("unit", lang, kind, u[0]), u[2])):
                if u[0] not in seen:
                    seen.add(u[0])
                    order.append(u)
            n_short, n_long = PER_UNIT[kind]
            taken = 0
            for unit, pin, path, payload in order:
                if taken == UNITS[kind]:
                    break
                salt = f"{lang}/{kind}/{unit}"
                samples = []
                if kind == "mo":
                    shorts = [(i, s) for i, (mid, s) in enumerate(payload) if clean_short(s) and "%" not in s]
                    for i, s in spaced(shorts, n_short, salt):
                        samples.append(("short", clean_short(s), f"{pin} {path} message {i}"))
                    pieces = [(i, s.strip("\n")) for i, (_, s) in enumerate(payload)]
                    sizes = [LONG_SIZES[(taken * n_long + k) % len(LONG_SIZES)] for k in range(n_long)]
                    for text, a, b in long_runs(pieces, sizes, salt, "\n"):
                        samples.append(("long", text, f"{pin} {path} messages {a}-{b}"))
                    # Mixed-script chat: an English message and its translation.
                    if taken < 2:
                        mids = [(i, m, s) for i, (m, s) in enumerate(payload) if 15 <= len(m) <= 120 and "\n" not in m and "\n" not in s]
                        if mids:
                            i, m, s = spaced(mids, 1, salt + "/mixed")[0]
                            line = (f'what does "{m}" say in {name}? it shows: {s}' if taken == 0
                                    else f"{s} — that's the {name} for “{m}”, right?")
                            samples.append(("mixed", line, f"{pin} {path} message {i}"))
                elif kind == "debconf":
                    shorts = [(i, clean_short(title)) for i, (_, title, _) in enumerate(payload) if clean_short(title)]
                    shorts += [(i, clean_short(c)) for i, (_, _, cs) in enumerate(payload) for c in cs if clean_short(c)]
                    for i, s in spaced(shorts, n_short, salt):
                        samples.append(("short", s, f"{pin} {path} question {i}"))
                    pieces = [(i, q) for i, (q, _, _) in enumerate(payload)]
                    size = LONG_SIZES[(taken + 2) % len(LONG_SIZES)]
                    for text, a, b in long_runs(pieces, [size], salt, "\n\n"):
                        samples.append(("long", text, f"{pin} {path} questions {a}-{b}"))
                else:
                    src = gzip.decompress(payload).decode("utf-8", "replace")
                    blocks = man_blocks(src)
                    if len(blocks) < 4:
                        continue
                    names = [b for sec, b in blocks if b.startswith(" ") and blocks.index((sec, b)) < 3]
                    desc = None
                    if names:
                        desc = clean_short(names[0].strip().split(" - ", 1)[-1])
                    if desc and not english(desc):
                        samples.append(("short", desc, f"{pin} {path} NAME"))
                    # Long: consecutive blocks after NAME, without the last section
                    # (manpages-l10n's translator credits) and stopping at a
                    # paragraph left in English.
                    last = blocks[-1][0]
                    pieces = [(i, None if sec == last or english(b) else b) for i, (sec, b) in enumerate(blocks)][2:]
                    size = LONG_SIZES[taken % len(LONG_SIZES)]
                    for text, a, b in long_runs(pieces, [size], salt, "\n\n"):
                        samples.append(("long", text, f"{pin} {path} blocks {a}-{b}"))
                if not samples:
                    continue
                taken += 1
                for k, (skind, text, source) in enumerate(samples):
                    uid = re.sub(r"[^A-Za-z0-9]+", "_", unit)
                    rows.append({
                        "id": f"{lang}-deb-{kind}-{uid}-{skind}-{k:02d}",
                        "category": lang,
                        "language": name,
                        "script": script,
                        "kind": skind,
                        "split": None,
                        "source": source,
                        "text": text,
                        "unit": unit,
                    })
                    n_lang += 1
    # The first draw (0, 1, ...) of unit splits that is balanced.
    draw = next(d for d in range(1000) if balanced(rows, d))
    for r in rows:
        r["split"] = split_of(r.pop("unit"), draw)
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)), "duplicate ids"
    with open(out_path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    langs = sorted({r["category"] for r in rows})
    fit = sum(r["split"] == "fit" for r in rows)
    print(f"make_debian_corpus.py: {len(rows)} samples in {len(langs)} languages ({fit} fit, split draw {draw}) -> {out_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
