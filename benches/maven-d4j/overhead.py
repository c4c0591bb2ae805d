#!/usr/bin/env python3
"""hunkgen's validation wall time against the same Maven runs done by hand.

For a dataset `agree.py` built (or any `maven: auto` dataset whose history is at hand),
this times:

* **by hand**: for every kept instance, the three runs hunkgen makes (the base tree, the
  base with the test patch, and with the fix too), each `mvn -o test -Dtest=<classes>`
  in a tree exported and patched beforehand (untimed), against the environment hunkgen
  resolved (its local repository, settings, JDK and level flags), one after another;
* **hunkgen**: `hunkgen build <recipe> --no-cache --jobs 1` with the environments warm,
  so it runs the same Maven commands in its sandbox, plus mining, setup, parsing and
  writing the dataset.

Only the mvn processes are timed by hand; the ratio is hunkgen / hand (issue #31's
target: at most 1.2).

Usage:
  benches/maven-d4j/overhead.py --dataset DIR --recipe FILE [--hunkgen target/release/hunkgen]
      [--cache ~/.cache/hunkgen] [--out overhead.json]
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SKIP = ("-Drat.skip -Denforcer.skip -Dspotless.check.skip=true -Dcheckstyle.skip -Djacoco.skip "
        "-Danimal.sniffer.skip -Dspotbugs.skip -Djapicmp.skip -Dmaven.javadoc.skip -Dpmd.skip "
        "-Dcpd.skip -Dlicense.skip")
FLAGS = "-Dsurefire.failIfNoSpecifiedTests=false -DfailIfNoTests=false -Dmaven.test.failure.ignore=true"


def rows(path):
    return [json.loads(l) for l in Path(path).read_text().splitlines() if l.strip()]


def test_classes(instance):
    """The classes hunkgen selected: those of its tests (FAIL_TO_PASS, PASS_TO_PASS, failures)."""
    names = set(instance["FAIL_TO_PASS"]) | set(instance["PASS_TO_PASS"])
    names |= {f["test"] for f in instance.get("failures", [])}
    return sorted({n.split("::")[0] for n in names})


def export(repo, rev, dest, patches):
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "--git-dir", str(repo), "archive", rev], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    for p in patches:
        if p.strip():
            subprocess.run(["git", "apply", "--whitespace=nowarn", "-"], cwd=dest, input=p.encode(),
                           check=True, capture_output=True)


def hand(instance, repo, envs, work):
    env_dir = envs / instance["validation"]["environments"][0]
    home = (env_dir / "java_home").read_text().strip()
    args = (env_dir / "mvn.args").read_text().strip()
    lift = (env_dir / "lift").read_text().strip() if (env_dir / "lift").exists() else ""
    classes = ",".join(test_classes(instance))
    cmd = (f"mvn -o -B -q -s {env_dir}/settings.xml -gs {env_dir}/settings.xml "
           f"-t {env_dir}/toolchains.xml -Dmaven.repo.local={env_dir}/repository {SKIP} {args} "
           f"-Dtest={shlex.quote(classes)} {FLAGS} test")
    env = dict(os.environ, JAVA_HOME=home, PATH=f"{home}/bin:{os.environ['PATH']}")
    seconds = []
    base = instance["base_commit"]
    for name, patches in (("base", []), ("before", [instance["test_patch"]]),
                          ("after", [instance["test_patch"], instance["patch"]])):
        tree = work / instance["instance_id"] / name
        export(repo, base, tree, patches)
        if lift:
            for pom in tree.rglob("pom.xml"):
                subprocess.run(["sed", "-i", "-E",
                                rf"s#<(source|target)>(1\.)?[1-5]</(source|target)>#<\1>{lift}</\3>#g",
                                str(pom)], check=True)
        t = time.monotonic()
        subprocess.run(cmd, shell=True, cwd=tree, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        seconds.append(time.monotonic() - t)
    return seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", type=Path, required=True)
    ap.add_argument("--recipe", type=Path, required=True)
    ap.add_argument("--hunkgen", default="target/release/hunkgen")
    ap.add_argument("--cache", type=Path,
                    default=Path(os.environ.get("HUNKGEN_CACHE_DIR", Path.home() / ".cache/hunkgen")))
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    kept = rows(a.dataset / "instances.jsonl")
    if not kept:
        sys.exit(f"overhead.py: {a.dataset}/instances.jsonl: no kept instance to time")
    repo = Path(a.recipe.read_text().split("repo:", 1)[1].split("\n", 1)[0].strip().strip("'\""))
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        by_hand = {i["instance_id"]: hand(i, repo, a.cache / "envs", work) for i in kept}
        out = work / "rebuilt"
        t = time.monotonic()
        rc = subprocess.run([a.hunkgen, "build", str(a.recipe), "-o", str(out), "--no-cache",
                             "--jobs", "1", "-q"], stdout=subprocess.DEVNULL).returncode
        hunkgen_s = time.monotonic() - t
        again = {i["instance_id"] for i in rows(out / "instances.jsonl")} if rc == 0 else set()
    hand_s = sum(sum(v) for v in by_hand.values())
    result = {
        "instances": len(kept),
        "kept_again": len(again & set(by_hand)),
        "hand_mvn_seconds": round(hand_s, 1),
        "hunkgen_seconds": round(hunkgen_s, 1),
        "ratio": round(hunkgen_s / hand_s, 3),
        "per_instance_hand": {k: [round(x, 1) for x in v] for k, v in by_hand.items()},
    }
    print(json.dumps(result, indent=1))
    if a.out:
        a.out.write_text(json.dumps(result, indent=1))
    if rc != 0:
        sys.exit(f"overhead.py: hunkgen build exited {rc}")


if __name__ == "__main__":
    main()
