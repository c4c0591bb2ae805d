#!/usr/bin/env python3
"""The SWE-bench Verified sample issue #32's target is measured on, fixed before the
`swebench` environment kind was written.

Rows: SWE-bench Verified as the official repository committed it (SWE-bench/SWE-bench,
data/SWE-bench_Verified/test.parquet at 52b72b35d5b4…; the file left the tree in a later
commit, so it is read from history). Nothing fetched is committed here.

Sample: per repository, the rows whose spec's interpreter (swebench 4.1.0's
MAP_REPO_VERSION_TO_SPECS) is installed on the machine, ordered by
sha256("hunkgen-issue-32:" + instance_id), the first PER_REPO of them. Repositories whose
history cannot be brought to the measuring machine are left out (UNOBTAINABLE: their
snapshots exceed the 500 MiB a fetch may bring there).

Usage (the python needs pyarrow and swebench 4.1.0, e.g. target/venv-swebench4 after
`pip install pyarrow`):
  git clone --mirror https://github.com/SWE-bench/SWE-bench swe.git   # or hunkgen's fetch
  python3 benches/swebench-verified/sample.py --git-dir swe.git --out rows.jsonl > sample.txt
"""
import argparse
import hashlib
import io
import json
import shutil
import subprocess
import sys
from collections import defaultdict

COMMIT = "52b72b35d5b416fa50afe338ba60d59de07c7879"
PATH = "data/SWE-bench_Verified/test.parquet"
SHA256 = "9cf3c8d406a3878dffdec80e1933b2601d00fd5868aabbe6f268c0a29484f21a"
SEED = "hunkgen-issue-32:"
PER_REPO = 9
UNOBTAINABLE = {
    "django/django": "snapshot 637 MB",
    "matplotlib/matplotlib": "snapshot 873 MB",
    "scikit-learn/scikit-learn": "snapshot 788 MB",
}


def installed(version):
    """Whether an interpreter `version` (3.9) is on the machine (PATH or pyenv)."""
    if shutil.which(f"python{version}"):
        return True
    out = subprocess.run(["pyenv", "root"], capture_output=True, text=True)
    if out.returncode == 0:
        import glob
        import os

        return bool(glob.glob(os.path.join(out.stdout.strip(), "versions", f"{version}.*")))
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--git-dir", required=True)
    ap.add_argument("--out", help="write the sampled rows (JSON Lines) here")
    a = ap.parse_args()
    blob = subprocess.run(
        ["git", "--git-dir", a.git_dir, "cat-file", "-p", f"{COMMIT}:{PATH}"],
        capture_output=True, check=True,
    ).stdout
    if hashlib.sha256(blob).hexdigest() != SHA256:
        sys.exit(f"{PATH}@{COMMIT[:12]}: not the file this sample was drawn from")
    import pyarrow.parquet as pq
    from swebench.harness.constants import MAP_REPO_VERSION_TO_SPECS as SPECS

    rows = pq.read_table(io.BytesIO(blob)).to_pylist()
    by_repo = defaultdict(list)
    left_out = defaultdict(list)
    for r in rows:
        py = SPECS.get(r["repo"], {}).get(r["version"], {}).get("python")
        if r["repo"] in UNOBTAINABLE:
            left_out[r["repo"]].append((r["instance_id"], UNOBTAINABLE[r["repo"]]))
        elif py and installed(py):
            by_repo[r["repo"]].append(r)
        else:
            left_out[r["repo"]].append((r["instance_id"], f"python {py}"))
    chosen = []
    for repo in sorted(by_repo):
        ranked = sorted(by_repo[repo], key=lambda r: hashlib.sha256((SEED + r["instance_id"]).encode()).hexdigest())
        chosen += ranked[:PER_REPO]
    for r in chosen:
        print(r["instance_id"])
    for repo, ids in sorted(left_out.items()):
        print(f"# not eligible ({repo}): {len(ids)} rows, e.g. {ids[0][0]} ({ids[0][1]})", file=sys.stderr)
    print(f"# {len(chosen)} rows over {len(by_repo)} repositories", file=sys.stderr)
    if a.out:
        with open(a.out, "w") as f:
            for r in chosen:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
