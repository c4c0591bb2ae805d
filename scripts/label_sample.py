#!/usr/bin/env python3
"""Measure the precision of a mined dataset by labelling a random sample by hand.

Three subcommands (Python 3.11, standard library only):

    label_sample.py sample <instances.jsonl> --n 30 --seed 10 --out sample.csv
        Draw a reproducible random sample of kept instances (ids sorted first, so the
        draw does not depend on file order) and write a CSV with empty labels:
        instance_id, real_fix, multi_hunk_in_code, split_right, note, and the
        instance's counted_hunks and necessary_hunks (hunks[].necessary: the hunks
        whose ablation makes a FAIL_TO_PASS test fail; empty when not measured).
    label_sample.py show <instances.jsonl> <instance_id> [--test-patch] [--repo DIR]
        Print what a labeller reads: the commit, its subject and message, every file
        with its role, the code patch and the counted hunks; with --repo, also the
        files of the fix commit that are in neither patch nor test_patch.
    label_sample.py score <sample.csv> [--min-necessary K]
        Print precision (share of labelled rows whose three labels are all `y`) and
        each label's `y` rate, with n; and the same among the rows with at least K
        necessary hunks (default 2: what `select.min_necessary_hunks: 2` keeps).

Labelling rubric (each label is `y` or `n`; explain every `n` in `note`):

real_fix
    y if the commit fixes a defect in behaviour: a wrong result, a crash or an
    exception where none belongs, wrong error handling. n for features, refactors,
    docs, typos, lint/formatting, performance-only changes, version bumps, test-only
    changes, build/CI.
multi_hunk_in_code
    y if at least two of the counted hunks are real changes to production source code:
    not docs, examples, setup.py, conftest.py, stubs or test helpers, and not
    comment-, whitespace-, docstring- or import-only hunks.
split_right
    y if code and test files are split correctly: no test helper counted as code, no
    production file in test_patch, no production change missing from patch.

An instance is correct when all three labels are `y`; precision is the share of
correct instances in the sample.  Read each instance with `show` and, when the
message is not enough, `git -C <repository> show <fix_commit>`.
"""

import argparse
import csv
import json
import random
import re
import signal
import subprocess
import sys

COLUMNS = ["instance_id", "real_fix", "multi_hunk_in_code", "split_right", "note",
           "counted_hunks", "necessary_hunks"]
LABELS = COLUMNS[1:4]


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def diff_files(patch):
    """Paths of a unified git diff, in order: (old path, new path) per file."""
    return [m.groups() for m in re.finditer(r"^diff --git a/(.*) b/(.*)$", patch or "", re.M)]


def hunk_counts(row):
    """(counted hunks, necessary hunks or "" when not measured) of an instance row."""
    counted = [h for h in row.get("hunks") or [] if h.get("counted")]
    measured = [h for h in counted if h.get("necessary") is not None]
    necessary = sum(1 for h in measured if h["necessary"]) if measured else ""
    return len(counted), necessary


def cmd_sample(args):
    rows = {r["instance_id"]: r for r in load(args.instances)}
    ids = sorted(rows)
    picked = sorted(random.Random(args.seed).sample(ids, min(args.n, len(ids))))
    if len(ids) < args.n:
        print(f"only {len(ids)} kept instances: taking all of them", file=sys.stderr)
    with open(args.out, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for i in picked:
            w.writerow([i, "", "", "", "", *hunk_counts(rows[i])])
    print(f"{len(picked)} of {len(ids)} instances → {args.out}")


def cmd_show(args):
    rows = [r for r in load(args.instances) if r["instance_id"] == args.id]
    if not rows:
        sys.exit(f"no instance {args.id} in {args.instances}")
    r = rows[0]
    msg = (r.get("problem_statement") or "").strip()
    subject, _, body = msg.partition("\n")
    print(f"== {r['instance_id']}  commit {r.get('fix_commit')}  {r.get('created_at', '')}")
    print(f"subject: {subject}")
    if body.strip():
        print("message:\n  " + "\n  ".join(body.strip().splitlines()))
    hunks = r.get("hunks") or []
    print("\nfiles:")
    for old, new in diff_files(r.get("patch")):
        mine = [h for h in hunks if h["file"] in (old, new)]
        counted = sum(1 for h in mine if h.get("counted"))
        skipped = sorted({h.get("skip_reason") or "?" for h in mine if not h.get("counted")})
        role = f"code, {counted} counted" if counted else "other"
        if skipped:
            role += f", {len(mine) - counted} skipped ({', '.join(skipped)})"
        name = new if old == new else f"{old} -> {new}"
        print(f"  [{role}] {name}")
    for old, new in diff_files(r.get("test_patch")):
        print(f"  [test] {new if old == new else f'{old} -> {new}'}")
    if args.repo:
        listed = {p for pair in diff_files(r.get("patch")) + diff_files(r.get("test_patch"))
                  for p in pair}
        out = subprocess.run(
            ["git", "-C", args.repo, "diff-tree", "-r", "-M", "--name-only", "--no-commit-id",
             r["base_commit"], r["fix_commit"]],
            capture_output=True, text=True, check=True).stdout
        for path in out.splitlines():
            if path not in listed:
                print(f"  [not in patch or test_patch] {path}")
    print("\ncounted hunks:")
    for h in hunks:
        if h.get("counted"):
            place = (h.get("place") or {}).get("method") or "-"
            b = h["buggy"]
            print(f"  #{h['patch_index']} {h['file']}:{b['start']},{b['lines']}"
                  f"  +{h['added']} -{h['removed']}  in {place}")
    print("\n--- patch ---")
    print(r.get("patch") or "(empty)")
    if args.test_patch:
        print("--- test_patch ---")
        print(r.get("test_patch") or "(empty)")


def cmd_score(args):
    with open(args.sample, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    done = [r for r in rows if all((r.get(k) or "").strip() for k in LABELS)]
    n = len(done)
    if n < len(rows):
        print(f"warning: {len(rows) - n} of {len(rows)} rows not fully labelled, ignored")
    if not n:
        sys.exit("no labelled rows")

    def yes(r, k):
        return r[k].strip().lower() == "y"

    def report(rows, title):
        n = len(rows)
        good = sum(all(yes(r, k) for k in LABELS) for r in rows)
        print(title)
        print(f"n = {n}")
        if not n:
            return
        print(f"precision (all three y) = {good}/{n} = {good / n:.0%}")
        for k in LABELS:
            y = sum(yes(r, k) for r in rows)
            print(f"  {k:<20} {y}/{n} = {y / n:.0%}")

    report(done, "all labelled rows")
    measured = [r for r in done if (r.get("necessary_hunks") or "").strip()]
    if measured:
        kept = [r for r in measured if int(r["necessary_hunks"]) >= args.min_necessary]
        report(kept, f"\nwith min_necessary_hunks: {args.min_necessary} "
                     f"({len(measured) - len(kept)} of {len(measured)} measured rows left out)")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sample", help="draw a random sample of kept instances")
    s.add_argument("instances")
    s.add_argument("--n", type=int, default=30)
    s.add_argument("--seed", type=int, default=10)
    s.add_argument("--out", required=True)
    s.set_defaults(func=cmd_sample)
    s = sub.add_parser("show", help="print one instance for labelling")
    s.add_argument("instances")
    s.add_argument("id")
    s.add_argument("--test-patch", action="store_true", help="print the test patch too")
    s.add_argument("--repo", help="the git repository, to list files the patches leave out")
    s.set_defaults(func=cmd_show)
    s = sub.add_parser("score", help="precision and per-label rates of a labelled CSV")
    s.add_argument("sample")
    s.add_argument("--min-necessary", type=int, default=2,
                   help="also score the rows with at least this many necessary hunks")
    s.set_defaults(func=cmd_score)
    args = p.parse_args()
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `show ... | less` may quit early
    args.func(args)


if __name__ == "__main__":
    main()
