#!/usr/bin/env python3
"""Defects4J as the oracle of `maven: auto` (issue #31).

For the lowest-numbered Defects4J bugs of each project whose upstream fixed revision has
a root pom.xml, build the upstream buggy and fixed revisions with `env: maven: auto` (the
projects' own poms, never Defects4J's build files) and compare the proven FAIL_TO_PASS
with Defects4J's `trigger_tests`.

Per project, a history of two commits per bug is written with git plumbing only (no
checkout): `Import P_N` holds the buggy revision's tree, `Fix P_N` the fixed revision's,
each with its upstream commit's date (the JDK is chosen by the commit's era). Objects
stay in the Defects4J project repository (an `alternates` file), so nothing is copied.
`hunkgen build` then mines the `Fix` commits (at least one code hunk, no commit rules)
and validates each with one `maven: auto` suite. A bug "builds" when its runs ran: it is
kept, or rejected as `no_fail_to_pass` / `pass_to_fail` (the tests ran and disagree);
any other rejection is listed with its reason and is not counted either way.

Usage:
  benches/maven-d4j/agree.py --d4j-home DIR --out DIR [--first 10] [--projects Lang,Cli]
      [--hunkgen target/release/hunkgen] [--jobs 2] [--table-only]

Writes DIR/<project>/ (the history, the recipe, the dataset) and prints the agreement
table in Markdown; DIR/agreement.json holds every bug's row.
"""

import argparse
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

# Defects4J project -> its repository under <d4j-home>/project_repos.
REPOS = {
    "Lang": "commons-lang.git",
    "Jsoup": "jsoup.git",
    "Gson": "gson.git",
    "JacksonCore": "jackson-core.git",
    "Codec": "commons-codec.git",
    "Csv": "commons-csv.git",
    "Compress": "commons-compress.git",
    "Cli": "commons-cli.git",
}

# The reasons under which a bug's tests ran: counted for agreement.
RAN = {"no_fail_to_pass", "pass_to_fail"}


def git(repo, *args, env=None, text=True):
    out = subprocess.run(
        ["git", "--git-dir", str(repo), *args],
        check=True,
        capture_output=True,
        text=text,
        env=env,
    )
    return out.stdout.strip() if text else out.stdout


def has_pom(repo, rev):
    r = subprocess.run(
        ["git", "--git-dir", str(repo), "cat-file", "-e", f"{rev}:pom.xml"],
        capture_output=True,
    )
    return r.returncode == 0


def bugs(home, project, first):
    """The first `first` active bugs (by number) whose fixed revision has a root pom."""
    repo = home / "project_repos" / REPOS[project]
    rows = []
    with open(home / "framework" / "projects" / project / "active-bugs.csv") as f:
        for row in csv.DictReader(f):
            rows.append((int(row["bug.id"]), row["revision.id.buggy"], row["revision.id.fixed"]))
    rows.sort()
    chosen, skipped = [], []
    for n, buggy, fixed in rows:
        if len(chosen) == first:
            break
        if has_pom(repo, fixed):
            chosen.append((n, buggy, fixed))
        else:
            skipped.append(n)
    return repo, chosen, skipped


def triggers(home, project, n):
    path = home / "framework" / "projects" / project / "trigger_tests" / str(n)
    return sorted(
        {l[4:].strip() for l in path.read_text(errors="replace").splitlines() if l.startswith("--- ")}
    )


def write_history(upstream, chosen, project, dest):
    """A bare repository whose objects are upstream's: Import/Fix commit pairs."""
    if dest.exists():
        made = json.loads((dest / "hunkgen-bugs.json").read_text())
        if sorted(made) == sorted(str(n) for n, _, _ in chosen):
            return made
        subprocess.run(["rm", "-rf", str(dest)], check=True)
    tmp = dest.with_name(dest.name + ".tmp")
    subprocess.run(["rm", "-rf", str(tmp)], check=True)
    subprocess.run(["git", "init", "-q", "--bare", str(tmp)], check=True)
    (tmp / "objects" / "info" / "alternates").write_text(str(upstream.resolve() / "objects") + "\n")
    parent = None
    commits = {}
    for n, buggy, fixed in chosen:
        for kind, rev in (("Import", buggy), ("Fix", fixed)):
            date = git(upstream, "show", "-s", "--format=%cI", rev)
            env = dict(
                os.environ,
                GIT_AUTHOR_NAME="d4j",
                GIT_AUTHOR_EMAIL="d4j@localhost",
                GIT_COMMITTER_NAME="d4j",
                GIT_COMMITTER_EMAIL="d4j@localhost",
                GIT_AUTHOR_DATE=date,
                GIT_COMMITTER_DATE=date,
            )
            args = ["commit-tree", f"{rev}^{{tree}}", "-m", f"{kind} {project}_{n} ({rev})"]
            if parent:
                args += ["-p", parent]
            parent = git(tmp, *args, env=env)
            if kind == "Fix":
                commits[str(n)] = parent
    git(tmp, "update-ref", "refs/heads/main", parent)
    git(tmp, "symbolic-ref", "HEAD", "refs/heads/main")
    (tmp / "hunkgen-bugs.json").write_text(json.dumps(commits, indent=1))
    tmp.rename(dest)
    return commits


RECIPE = """\
# Defects4J {project}: buggy -> fixed upstream revisions as commit pairs
# (benches/maven-d4j/agree.py); validated with maven: auto from the projects' own poms.
name: d4j-{lower}
source:
  git:
    repo: {repo}
    name: d4j-{lower}
    message_regex: '^Fix {project}_\\d+ '
    reject_reverts: false
    reject_duplicates: false
    reject_closing_keyword_only: false
    reject_changelog_non_fixes: false
{variant_source}files:
  code_extensions: [java]
select:
  min_code_hunks: 1
validate:
  reruns: 1
  timeout: 1800
  network_for_setup: true
  necessary_hunks: false
{variant_validate}  suites:
    - name: maven
      env:
        maven: auto
      report: junit
"""


def build(hunkgen, recipe, out, workers, log):
    cmd = [hunkgen, "build", str(recipe), "-o", str(out), "--force"]
    if workers:
        cmd += ["--jobs", str(workers)]
    with open(log, "w") as f:
        return subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT).returncode


def rows(path):
    if not path.exists():
        return []
    return [json.loads(l) for l in path.read_text().splitlines() if l.strip()]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--d4j-home", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--first", type=int, default=10)
    ap.add_argument("--from", dest="start", type=int, default=1,
                    help="build from this rank on (1-based) among the first N; 3 leaves out the pilot bugs")
    ap.add_argument("--projects", default=",".join(REPOS))
    ap.add_argument("--hunkgen", default="target/release/hunkgen")
    ap.add_argument("--jobs", dest="workers", type=int, default=0)
    ap.add_argument("--variant", choices=["touched", "full"], default="touched",
                    help="touched (default, SWE-bench's scope): the test classes the buggy-to-fixed "
                         "diff changes; full: every commit, with or without a test change, runs "
                         "the whole suite (a named variant for fixes whose trigger test is "
                         "already in the buggy tree)")
    ap.add_argument("--table-only", action="store_true", help="read the datasets, build nothing")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    results = []
    for project in [p for p in a.projects.split(",") if p]:
        if project not in REPOS:
            sys.exit(f"agree.py: --projects: unknown project {project!r} (known: {', '.join(REPOS)})")
        upstream, chosen, skipped = bugs(a.d4j_home, project, a.first)
        chosen = chosen[a.start - 1:]
        if not chosen:
            print(f"== {project}: no bug at rank {a.start} or later among the first {a.first}")
            continue
        pdir = a.out / project
        pdir.mkdir(exist_ok=True)
        commits = write_history(upstream, chosen, project, pdir / "history.git")
        recipe = pdir / "recipe.yaml"
        full = a.variant == "full"
        recipe.write_text(RECIPE.format(
            project=project, lower=project.lower(), repo=(pdir / "history.git").resolve(),
            variant_source="    require_tests: false\n" if full else "",
            variant_validate="  scope: full\n" if full else ""))
        data = pdir / "dataset"
        if not a.table_only:
            print(f"== {project}: {len(chosen)} bugs ({', '.join(str(n) for n, _, _ in chosen)}); "
                  f"skipped without a root pom: {skipped or 'none'}", file=sys.stderr, flush=True)
            rc = build(a.hunkgen, recipe, data, a.workers, pdir / "build.log")
            print(f"   build exit {rc}; log {pdir / 'build.log'}", file=sys.stderr, flush=True)
        kept = {r["instance_id"]: r for r in rows(data / "instances.jsonl")}
        rejected = {r["id"]: r for r in rows(data / "rejected.jsonl")}
        for n, buggy, fixed in chosen:
            sha = commits[str(n)]
            iid = f"d4j-{project.lower()}-{sha[:12]}"
            want = triggers(a.d4j_home, project, n)
            row = {"project": project, "bug": n, "buggy": buggy, "fixed": fixed, "trigger_tests": want}
            if iid in kept:
                got = sorted(kept[iid]["FAIL_TO_PASS"])
                row.update(status="agrees" if got == want else "disagrees", fail_to_pass=got,
                           jdk=kept[iid].get("validation", {}).get("maven", {}).get("jdk"))
            elif iid in rejected:
                r = rejected[iid]
                row.update(status="disagrees" if r["reason"] in RAN else "not built",
                           reason=r["reason"], detail=r["detail"][:400])
            else:
                row.update(status="not built", reason="not mined", detail="no instance and no rejection row")
            results.append(row)
    tmp = a.out / "agreement.json.tmp"
    tmp.write_text(json.dumps(results, indent=1))
    tmp.rename(a.out / "agreement.json")
    print("| project | bugs | built | FAIL_TO_PASS = trigger_tests | disagree | not built (reason) |")
    print("|---|---|---|---|---|---|")
    for project in dict.fromkeys(r["project"] for r in results):
        rs = [r for r in results if r["project"] == project]
        built = [r for r in rs if r["status"] != "not built"]
        agree = [r for r in built if r["status"] == "agrees"]
        dis = [f"{project}_{r['bug']}" for r in built if r["status"] == "disagrees"]
        nb = [f"{project}_{r['bug']} ({r['reason']})" for r in rs if r["status"] == "not built"]
        print(f"| {project} | {len(rs)} | {len(built)} | {len(agree)} | {', '.join(dis) or '—'} | {', '.join(nb) or '—'} |")
    built = [r for r in results if r["status"] != "not built"]
    agree = [r for r in built if r["status"] == "agrees"]
    share = f"{100 * len(agree) / len(built):.0f}%" if built else "n/a"
    print(f"| **all** | {len(results)} | {len(built)} | {len(agree)} ({share}) | | |")


if __name__ == "__main__":
    main()
