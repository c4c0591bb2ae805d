#!/usr/bin/env python3
"""One row per built dataset: #21's table (candidates, confirmed, each rejection kind,
environments, precision with its CSV).

    python3 benches/zero-config/table.py DATASET_DIR... [--precision DIR=CSV ...]

Every figure is read from the dataset `hunkgen build` wrote (`dataset.yaml`'s funnel,
`instances.jsonl`, `rejected.jsonl`) and from the labelled CSV named for it, scored as
`scripts/label_sample.py score` does: all three labels `y`, on every labelled row and
on the rows with at least two necessary hunks. Candidates are the multi-hunk commits the
commits that reached validation (confirmed + rejected by validation), the share
#21's target is measured on; what the commit rules removed before is a column of its
own. Needs PyYAML.
"""

import argparse
import collections
import csv
import json
import os
import sys

import yaml

LABELS = ("real_fix", "multi_hunk_in_code", "split_right")

# Validation rejections by the maintainer's question (`RejectReason::yield_class`).
KINDS = [
    ("not a fix", {"no_fail_to_pass"}),
    ("new API", {"new_api_only"}),
    ("broken fix", {"pass_to_fail"}),
    ("test infra", {"infrastructure", "no_test_suite", "compile_error"}),
    ("environment", {"environment", "unsupported_python"}),
    ("timeout", {"timeout"}),
    ("few necessary", {"few_necessary_hunks"}),
]


def jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def precision(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if all((r.get(k) or "").strip() for k in LABELS)]

    def good(rows):
        return sum(all(r[k].strip().lower() == "y" for k in LABELS) for r in rows)

    two = [r for r in rows if (r.get("necessary_hunks") or "0").strip().isdigit()
           and int(r["necessary_hunks"]) >= 2]
    return f"{good(rows)}/{len(rows)}", f"{good(two)}/{len(two)}"


def history(card):
    """`owner/repo` of the recipe's forge address, when it names one."""
    try:
        git = (yaml.safe_load(card.get("recipe") or "") or {})["source"]["git"]
        url = git.get("url") or ""
    except (KeyError, TypeError, yaml.YAMLError):
        return None
    parts = url.rstrip("/").removesuffix(".git").split("/")
    return "/".join(parts[-2:]) if url.startswith("http") and len(parts) >= 5 else None


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("datasets", nargs="+")
    p.add_argument("--precision", action="append", default=[], metavar="DIR=CSV",
                   help="the labelled CSV of a dataset directory")
    args = p.parse_args()
    labelled = {}
    for item in args.precision:
        d, _, path = item.partition("=")
        if not path:
            sys.exit(f"--precision {item}: expected DIR=CSV")
        labelled[os.path.normpath(d)] = path
    head = (["history", "walked", "commit rules", "candidates", "confirmed"]
            + [k for k, _ in KINDS]
            + ["env + infra", "environments", "precise", "precise, ≥ 2 necessary", "CSV"])
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    total = collections.Counter()
    for d in args.datasets:
        card_path = os.path.join(d, "dataset.yaml")
        try:
            with open(card_path, encoding="utf-8") as f:
                card = yaml.safe_load(f)
            inst = jsonl(os.path.join(d, "instances.jsonl"))
            rej = jsonl(os.path.join(d, "rejected.jsonl"))
        except (OSError, ValueError, yaml.YAMLError) as e:
            sys.exit(f"{d}: not a built dataset ({e})")
        funnel = card["counts"]["funnel"]
        repo = history(card) or (inst[0]["repo"] if inst else card.get("name", d))
        by = collections.Counter(r["reason"] for r in rej if r["stage"] != "mine")
        mined = sum(1 for r in rej if r["stage"] == "mine")
        kinds = [sum(by[r] for r in reasons) for _, reasons in KINDS]
        infra, env = kinds[3], kinds[4]
        envs = {e for i in inst for e in (i.get("validation") or {}).get("environments", [])}
        cand = len(inst) + sum(by.values())
        csv_path = labelled.get(os.path.normpath(d))
        prec = precision(csv_path) if csv_path else ("–", "–")
        row = ([repo, f"{funnel['walked']:,}", mined, cand, len(inst)] + kinds
               + [f"{infra + env}/{cand}", len(envs), prec[0], prec[1],
                  f"`{csv_path}`" if csv_path else "–"])
        print("| " + " | ".join(str(c) for c in row) + " |")
        total.update(walked=funnel["walked"], cand=cand, inst=len(inst), envs=len(envs),
                     bad=infra + env)
    if len(args.datasets) > 1:
        share = total["bad"] / total["cand"] if total["cand"] else 0
        print(f"\n{len(args.datasets)} histories: {total['walked']:,} commits walked, "
              f"{total['cand']} candidates, {total['inst']} confirmed, "
              f"{total['envs']} environments; environment + test infrastructure "
              f"{total['bad']}/{total['cand']} = {share:.1%}")


if __name__ == "__main__":
    main()
