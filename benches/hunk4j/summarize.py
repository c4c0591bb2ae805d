#!/usr/bin/env python3
"""The per-project table of a HUNK4J measurement made by measure.sh.

    python3 benches/hunk4j/summarize.py OUT [OUT ...] [--states-out STATES_OUT]

Per project: bugs run (a bug the repository snapshot cannot check out is listed as
not run, never a failure), buggy and fixed versions that compile, bugs validated with
FAIL_TO_PASS equal to Defects4J's trigger_tests, every other bug with its reason, the
states written (Novel, Partial, Resolved; Best and Worst) with every missing one named,
the gold baseline's Novel bugs resolved and the empty baseline's bugs resolved per
state (when measure.sh ran with EVAL=1), and the wall times of the project's build and
evaluations (from OUT/walls.tsv). Several OUT directories (measurements made apart)
give one table. Then the projected wall time of all 372 HUNK4J bugs: each project's
measured seconds per bug (build and both evaluations) times its HUNK4J bug count, the
mean of the measured projects for a project not measured. Reads only what hunkgen
wrote. STATES_OUT: read the states from STATES_OUT/ds/<project> instead (states written
by a second build of the same bugs, after validation alone).
"""
import argparse
import json
from collections import Counter
from pathlib import Path


def rows(path):
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def not_runnable_here(ds, row):
    """Why this machine cannot run the bug at all (never a failure of the bug), or None:
    a repository snapshot without the revision's large files, or a build tool Defects4J
    downloads from a site this machine cannot reach (Mockito's Gradle distribution)."""
    if snapshot_cannot_check_out(ds, row):
        return ("the repository snapshot lacks files this revision needs (4 MiB and more); "
                "Defects4J cannot check it out")
    if row["reason"] == "infrastructure" and "Gradle distribution is not installed" in row["detail"]:
        return ("Defects4J's Gradle distribution (init.sh downloads it from services.gradle.org, "
                "which this machine cannot reach) is not installed")
    return None


def snapshot_cannot_check_out(ds, row):
    """Whether Defects4J's checkout of the bug failed because the repository (a snapshot
    without its files of 4 MiB and more) lacks objects the revision needs: not run,
    never a failure of the bug."""
    if row["reason"] != "infrastructure" or "checkout" not in row["detail"]:
        return False
    for log in (ds / "logs" / row["id"]).glob("checkout-*.log"):
        text = log.read_text(errors="replace")
        if "unable to read sha1 file" in text or "missing blob" in text:
            return True
    return False


# HUNK4J's bugs per project (the paper's Table II): what the projection multiplies.
HUNK4J_BUGS = {
    "Chart": 10, "Cli": 17, "Closure": 82, "Codec": 7, "Collections": 1, "Compress": 18,
    "Csv": 4, "Gson": 7, "JacksonCore": 12, "JacksonDatabind": 55, "JacksonXml": 3,
    "Jsoup": 37, "JxPath": 14, "Lang": 25, "Math": 50, "Mockito": 20, "Time": 10,
}


def read_walls(out):
    walls = {}
    for name in ("walls.tsv.part", "walls.tsv"):
        p = out / name
        if p.exists():
            for line in p.read_text().splitlines():
                project, rc, secs = line.split("\t")
                walls[project] = int(secs)
    return walls


def main(outs, states_out=None):
    states_ds = Path(states_out) / "ds" if states_out else None
    header = ("project", "bugs run", "buggy compiles", "fixed compiles",
              "validated, F2P = trigger_tests", "other outcomes",
              "states N/P/R written (gated)", "gold resolves (Novel)",
              "empty resolves (Novel · Partial · Resolved)",
              "build s", "s/bug", "eval s")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    total = Counter()
    named = []
    named_missing = []
    not_run = []
    per_bug = {}
    for out in map(Path, outs):
        walls = read_walls(out)
        for ds in sorted(p for p in (out / "ds").iterdir() if not p.name.startswith(".")):
            project = ds.name  # a build under way leaves a hidden sibling, skipped above
            kept = rows(ds / "instances.jsonl")
            rejected = [r for r in rows(ds / "rejected.jsonl") if r.get("stage") == "validate"]
            why_not = [(r, not_runnable_here(ds, r)) for r in rejected]
            not_run += [(r["id"], why) for r, why in why_not if why]
            rejected = [r for r, why in why_not if not why]
            run = len(kept) + len(rejected)
            agree = sum(1 for r in kept
                        if (r.get("validation") or {}).get("d4j_agrees") is True)
            reasons = Counter(r["reason"] for r in rejected)
            buggy_bad = sum(1 for r in rejected if r["reason"] == "compile_error"
                            and f"{r['id'].replace('_', '-')}b " in r["detail"])
            fixed_bad = sum(1 for r in rejected if r["reason"] == "compile_error"
                            and f"{r['id'].replace('_', '-')}f " in r["detail"])
            infra = reasons.get("infrastructure", 0)
            wall = walls.get(project)
            other = ", ".join(f"{k} {v}" for k, v in sorted(reasons.items())) or "–"
            if states_ds is not None and (states_ds / project / "instances.jsonl").is_file():
                states, missing = states_of(rows(states_ds / project / "instances.jsonl"))
            else:
                states, missing = states_of(kept)
            named_missing += missing
            gold = baseline(ds, "gold", ("novel",))
            empty = baseline(ds, "empty", ("novel", "partial", "resolved"))
            evals = [walls[k] for k in (f"{project}:gold", f"{project}:empty") if k in walls]
            if wall and run:
                per_bug[project] = (wall + sum(evals)) / run
            print(f"| {project} | {run} | {run - buggy_bad - infra} | "
                  f"{run - fixed_bad - infra} | {agree} | {other} | {states} | {gold} | "
                  f"{empty} | {wall if wall is not None else '–'} | "
                  f"{(wall / run) if wall and run else 0:.0f} | "
                  f"{sum(evals) if evals else '–'} |")
            total.update(run=run, agree=agree, wall=wall or 0, eval=sum(evals))
            named += [(r["id"], r["reason"], r["detail"][:160]) for r in rejected]
    print()
    pct = 100.0 * total["agree"] / total["run"] if total["run"] else 0.0
    print(f"bugs run {total['run']}, validated with FAIL_TO_PASS = trigger_tests "
          f"{total['agree']} ({pct:.1f}%, target >= 95%), build wall {total['wall']} s, "
          f"evaluation wall {total['eval']} s")
    if per_bug:
        projection(per_bug)
    if not_run:
        print(f"\nnot run ({len(not_run)}), never counted as failures:")
        for bug, why in sorted(not_run):
            print(f"- {bug}: {why}")
    if named:
        print("\nevery other bug, with its reason:")
        for bug, reason, detail in sorted(named):
            print(f"- {bug}: {reason}: {detail}")
    if named_missing:
        print("\nstates not written, with the reason:")
        for bug, state, reason in sorted(named_missing):
            print(f"- {bug} {state}: {reason[:160]}")


def projection(per_bug):
    """All 372 HUNK4J bugs at the measured seconds per bug (build, gold and empty) of
    each project; a project without a measurement at the measured projects' mean."""
    mean = sum(per_bug.values()) / len(per_bug)
    secs = 0.0
    guessed = []
    for project, bugs in HUNK4J_BUGS.items():
        if project in per_bug:
            secs += bugs * per_bug[project]
        else:
            secs += bugs * mean
            guessed.append(f"{project} ({bugs})")
    n = sum(HUNK4J_BUGS.values())
    print(f"projected wall time of all {n} HUNK4J bugs (build with states, gold, empty; "
          f"this machine's settings): {secs / 3600:.1f} h"
          + (f"; at the mean {mean:.0f} s/bug for {', '.join(guessed)}" if guessed else ""))


def states_of(kept):
    """'N/P/R (gated)' counts of bugs with each state kind written (both scenarios), and
    every missing state with its reason; '–' when the build wrote no states."""
    if not any(r.get("states") for r in kept):
        return "–", []
    counts = Counter()
    missing = []
    for r in kept:
        st = r.get("states") or {}
        written = st.get("written") or []
        for kind in ("novel", "partial", "resolved"):
            if any(w.startswith(kind + "-") for w in written):
                counts[kind] += 1
        bug = r.get("instance_id") or r.get("id", "?")
        for m in st.get("missing") or []:
            if isinstance(m, dict):
                missing.append((bug, m.get("state", "?"), m.get("reason", "")))
            else:
                # "<state>: <reason>", the reason naming the bug again
                state, _, reason = str(m).partition(": ")
                missing.append((bug, state, reason.removeprefix(f"{bug}: ")))
    return f"{counts['novel']}/{counts['partial']}/{counts['resolved']} of {len(kept)}", missing


def baseline(ds, name, states):
    """'resolved/scored' of a baseline's predictions per state (joined by ' · '), '–'
    when not evaluated."""
    results = ds / "evaluations" / f"baseline-{name}" / "results.jsonl"
    if not results.exists():
        return "–"
    scored = rows(results)
    parts = []
    for state in states:
        of = [r for r in scored if r.get("state", "novel") == state]
        parts.append(f"{sum(1 for r in of if r.get('resolved') is True)}/{len(of)}")
    return " · ".join(parts)


if __name__ == "__main__":
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("out", nargs="+", help="measure.sh output directories")
    cli.add_argument("--states-out", help="read the states from STATES_OUT/ds/<project> "
                     "where it has that project (a later build of the same bugs)")
    args = cli.parse_args()
    main(args.out, args.states_out)
