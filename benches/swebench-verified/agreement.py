"""The agreement table of a `validate.sh` build: per repository, rows validated with
lists equal to the published ones, rows that disagree, and every other row with its
rejection reason. Usage: agreement.py DATASET_DIR ROWS.jsonl"""
import collections
import json
import sys

dataset, rows_path = sys.argv[1], sys.argv[2]
repo_of = {}
for line in open(rows_path):
    r = json.loads(line)
    repo_of[r["instance_id"]] = r["repo"]
table = collections.defaultdict(collections.Counter)
reasons = collections.defaultdict(collections.Counter)
seconds = {}
for line in open(f"{dataset}/instances.jsonl"):
    i = json.loads(line)
    v = i.get("validation") or {}
    table[repo_of.get(i["instance_id"], "?")]["agree" if v.get("published_agrees") else "other"] += 1
    s = v.get("seconds") or {}
    seconds[i["instance_id"]] = sum(s.values())
for line in open(f"{dataset}/rejected.jsonl"):
    r = json.loads(line)
    repo = repo_of.get(r["id"], "?")
    key = "disagree" if r["reason"] == "published_disagrees" else "rejected"
    table[repo][key] += 1
    if key == "rejected":
        reasons[repo][r["reason"]] += 1
print("| repository | rows | agree | disagree | other (reason) |")
print("|---|---|---|---|---|")
total = collections.Counter()
for repo in sorted(table):
    t = table[repo]
    n = sum(t.values())
    total.update(t)
    other = ", ".join(f"{k} {v}" for k, v in sorted(reasons[repo].items()))
    print(f"| {repo} | {n} | {t['agree']} | {t['disagree']} | {other} |")
n = sum(total.values())
print(f"| all | {n} | {total['agree']} ({100 * total['agree'] / max(n, 1):.0f}%) | {total['disagree']} | {total['rejected']} |")
if seconds:
    xs = sorted(seconds.values())
    print(f"\ntest seconds per validated row: median {xs[len(xs) // 2]:.1f}, max {xs[-1]:.1f}")
