#!/usr/bin/env python3
"""The per-project table of a HUNK4J measurement made by measure.sh.

    python3 benches/hunk4j/summarize.py OUT

Per project: bugs run, buggy and fixed versions that compile, bugs validated with
FAIL_TO_PASS equal to Defects4J's trigger_tests, every other bug with its reason, and the
wall time of the project's build (from OUT/walls.tsv). Reads only what hunkgen wrote.
"""
import json
import sys
from collections import Counter
from pathlib import Path


def rows(path):
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def main(out):
    out = Path(out)
    walls = {}
    for name in ("walls.tsv", "walls.tsv.part"):
        p = out / name
        if p.exists():
            for line in p.read_text().splitlines():
                project, rc, secs = line.split("\t")
                walls[project] = int(secs)
    header = ("project", "bugs run", "buggy compiles", "fixed compiles",
              "validated, F2P = trigger_tests", "other outcomes", "wall s", "s/bug")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    total = Counter()
    named = []
    for ds in sorted(p for p in (out / "ds").iterdir() if not p.name.startswith(".")):
        project = ds.name  # a build under way leaves a hidden sibling, skipped above
        kept = rows(ds / "instances.jsonl")
        rejected = [r for r in rows(ds / "rejected.jsonl") if r.get("stage") == "validate"]
        run = len(kept) + len(rejected)
        agree = sum(1 for r in kept if (r.get("validation") or {}).get("d4j_agrees") is True)
        reasons = Counter(r["reason"] for r in rejected)
        buggy_bad = sum(1 for r in rejected if r["reason"] == "compile_error"
                        and f"{r['id'].replace('_', '-')}b " in r["detail"])
        fixed_bad = sum(1 for r in rejected if r["reason"] == "compile_error"
                        and f"{r['id'].replace('_', '-')}f " in r["detail"])
        infra = reasons.get("infrastructure", 0)
        wall = walls.get(project)
        other = ", ".join(f"{k} {v}" for k, v in sorted(reasons.items())) or "–"
        print(f"| {project} | {run} | {run - buggy_bad - infra} | {run - fixed_bad - infra} | "
              f"{agree} | {other} | {wall if wall is not None else '–'} | "
              f"{(wall / run) if wall and run else 0:.0f} |")
        total.update(run=run, agree=agree, wall=wall or 0)
        named += [(r["id"], r["reason"], r["detail"][:160]) for r in rejected]
    print()
    pct = 100.0 * total["agree"] / total["run"] if total["run"] else 0.0
    print(f"bugs run {total['run']}, validated with FAIL_TO_PASS = trigger_tests "
          f"{total['agree']} ({pct:.1f}%, target >= 95%), wall {total['wall']} s")
    if named:
        print("\nevery other bug, with its reason:")
        for bug, reason, detail in sorted(named):
            print(f"- {bug}: {reason}: {detail}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
