"""Compare two builds of one recipe made by independent executions (each ran its golden
tests itself, with a cache of its own): the same dataset but for what two executions
measure.

Usage: same_build.py ONE OTHER   (exit 1 naming the first differences)

Compared byte for byte: every file but the card's `built_at`, the card's checksum of
instances.jsonl and `validation.seconds` in instances.jsonl (measured times), the test
logs under logs/ (times and working-copy paths; the same log files must exist), and git's
index and pack files (not reproducible between any two builds; the caller compares the
state repositories' objects).
"""

import json
import os
import sys


def files(root):
    out = {}
    for d, _, names in os.walk(root):
        for n in names:
            p = os.path.join(d, n)
            rel = os.path.relpath(p, root)
            if (n == "index" and ".git" in rel.split(os.sep)) or n.startswith("pack-"):
                continue
            if os.path.islink(p):
                out[rel] = b"-> " + os.readlink(p).encode()
                continue
            with open(p, "rb") as f:
                data = f.read()
            if rel.startswith("logs" + os.sep):
                data = b"(a test log)"
            elif rel == "instances.jsonl":
                rows = []
                for line in data.decode().splitlines():
                    row = json.loads(line)
                    (row.get("validation") or {}).pop("seconds", None)
                    rows.append(json.dumps(row, sort_keys=True))
                data = "\n".join(rows).encode()
            elif rel == "dataset.yaml":
                lines = data.decode().splitlines()
                kept = []
                for i, line in enumerate(lines):
                    if line.startswith("built_at:"):
                        continue
                    if i > 0 and lines[i - 1] == "- - instances.jsonl":
                        line = "  (its checksum)"
                    kept.append(line)
                data = "\n".join(kept).encode()
            out[rel] = data
    return out


def main():
    one, other = files(sys.argv[1]), files(sys.argv[2])
    problems = [f"only in {sys.argv[1]}: {n}" for n in sorted(one.keys() - other.keys())]
    problems += [f"only in {sys.argv[2]}: {n}" for n in sorted(other.keys() - one.keys())]
    problems += [f"{n} differs" for n in sorted(one.keys() & other.keys()) if one[n] != other[n]]
    for p in problems[:20]:
        print(f"slurm check: {p}", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
