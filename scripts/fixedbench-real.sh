#!/usr/bin/env bash
# FixedBench's protocol end to end on one real Python library history, as
# tests/it/fixedbench.rs runs it on the demo (weak_partials() and
# the_fixedbench_table_of_three_scripted_agents_equals_the_hand_computed_one):
#
#   1. `hunkgen init` a zero-config recipe; ask for Novel/Resolved × Best/Worst,
#      min_code_hunks 1 (FixedBench's tasks are mostly single-hunk fixes) and a
#      reproducible sample of N instances; `hunkgen build` it (ds1).
#   2. Partial as the paper builds it: a scripted weak agent runs on Novel
#      (`hunkgen run --state novel`), and a second build takes its patches
#      (`states.partial: {from: run}`), keeping those that still fail a golden test (ds2).
#   3. Three scripted agents (edits: always adds a code module; abstains: changes
#      nothing; golden: applies the golden patch hunk by hunk, demo/agents/oracle.py)
#      × Novel/Partial/Resolved × Best/Worst × FixedBench's four instructions
#      (`hunkgen run`), `hunkgen evaluate` per agent, `hunkgen report` → fixedbench.md.
#   4. Check the table against what the agents' behaviour gives by hand.
#
# The scripted agents are harness checks, not coding agents: `oracle: true` hands
# `golden` and `weak` the golden patch.
#
# usage: scripts/fixedbench-real.sh REPO HUNKGEN OUT
#   REPO     a clone of a pure-Python library with pytest tests (its HEAD is recorded)
#   HUNKGEN  the hunkgen binary
#   OUT      output directory (created; must not exist, or be empty)
# environment:
#   FB_N=8            instances sampled (select.sample.n)
#   FB_SEED=0         the sample's seed
#   FB_URL=…          the repository's forge address (source.git.url), optional
#   FB_JOBS=2         --jobs for build, run and evaluate
#   FB_ORACLE         the golden agent's script (default: demo/agents/oracle.py of the
#                     hunkgen checkout the script sits in, ../demo from scripts/)
#   HUNKGEN_UV, HUNKGEN_UV_CACHE   uv and its package cache, for `python: auto`
#   HUNKGEN_CACHE_DIR default OUT/cache (a cold cache: every test runs)
# Exit status: 0 when every cell is what the protocol says it must be, 3 when some is
# not (the table is printed either way), anything else on a failed step.
set -euo pipefail

if [ $# -ne 3 ]; then
    sed -n '2,/^set -euo/{/^set -euo/!p;}' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
REPO=$(cd "$1" && pwd)
HUNKGEN=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
OUT=$3
N=${FB_N:-8}
SEED=${FB_SEED:-0}
JOBS=${FB_JOBS:-2}
if [ -e "$OUT" ] && [ -n "$(ls -A "$OUT")" ]; then
    echo "error: $OUT exists and is not empty" >&2
    exit 1
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
export HUNKGEN_CACHE_DIR=${HUNKGEN_CACHE_DIR:-$OUT/cache}
NICE=(nice -n 10)
TIMES=$OUT/times.tsv
: >"$TIMES"

# step NAME CMD…: run CMD, log its output to OUT/logs/NAME.log, record its wall time.
mkdir -p "$OUT/logs"
step() {
    local name=$1
    shift
    local t0 t1
    t0=$(date +%s.%N)
    if ! "$@" >"$OUT/logs/$name.log" 2>&1; then
        echo "error: step $name failed; see $OUT/logs/$name.log" >&2
        tail -20 "$OUT/logs/$name.log" >&2
        exit 1
    fi
    t1=$(date +%s.%N)
    printf '%s\t%.1f\n' "$name" "$(echo "$t1 - $t0" | bc)" >>"$TIMES"
    printf '%-28s %8.1f s\n' "$name" "$(echo "$t1 - $t0" | bc)"
}
T_START=$(date +%s.%N)

HEAD=$(git -C "$REPO" rev-parse HEAD)
NAME=$(basename "$REPO")
echo "repository: $REPO at $HEAD ($(git -C "$REPO" log -1 --format=%cs HEAD))"
echo "hunkgen:    $HUNKGEN ($("$HUNKGEN" --version))"
printf 'repo\t%s\nhead\t%s\nhunkgen\t%s\n' "$REPO" "$HEAD" "$("$HUNKGEN" --version)" >"$OUT/provenance.tsv"

# ---- 1. the zero-config recipe, then Novel/Resolved, min_code_hunks 1, a sample ----
step init "$HUNKGEN" init "$REPO" -o "$OUT/recipe-init.yaml"
python3 - "$OUT" "$NAME" "$N" "$SEED" "${FB_URL:-}" <<'EOF'
import sys
out, name, n, seed, url = sys.argv[1:]
text = open(f"{out}/recipe-init.yaml", encoding="utf-8").read()
def sub(old, new):
    global text
    assert text.count(old) == 1, f"recipe-init.yaml: expected one {old!r}"
    text = text.replace(old, new)
sub(f"name: {name}\n", f"name: {name}-fixedbench\n")
sub("  min_code_hunks: 2 ", "  min_code_hunks: 1 ")
sub("select:\n", f"select:\n  sample: {{n: {n}, seed: {seed}}}\n")
if url:
    sub("    # url: https://github.com/owner/repo\n", f"    url: {url}\n")
sub("  kinds: [novel, partial, resolved]\n", "  kinds: [novel, resolved]\n")
open(f"{out}/recipe-novel.yaml", "w", encoding="utf-8").write(text)
EOF
step build-novel "${NICE[@]}" "$HUNKGEN" build "$OUT/recipe-novel.yaml" -o "$OUT/ds1" -j "$JOBS" -q

# ---- 2. Partial from a scripted weak agent's run on Novel ----
mkdir -p "$OUT/agents"
cat >"$OUT/agents/weak.py" <<'EOF'
"""A scripted weak agent (harness testing only): it applies the first hunk of the golden
patch's first Python file when the golden patch has more than one Python hunk (an
insufficient fix), never the whole fix, and always adds a module the golden patch does
not have (an edit no golden test needs), so its tree is no subset of the golden hunks."""
import subprocess, sys
golden = open(sys.argv[1], encoding="utf-8").read()
sections, cur = [], None
for line in golden.splitlines(keepends=True):
    if line.startswith("diff --git "):
        cur = {"header": [line], "hunks": [], "path": line.split(" b/")[-1].strip()}
        sections.append(cur)
    elif cur is None:
        continue
    elif line.startswith("@@"):
        cur["hunks"].append([line])
    elif cur["hunks"]:
        cur["hunks"][-1].append(line)
    else:
        cur["header"].append(line)
py = [s for s in sections if s["path"].endswith(".py")]
rc = 0
if sum(len(s["hunks"]) for s in py) > 1:
    first = py[0]
    patch = "".join(first["header"]) + "".join(first["hunks"][0])
    rc = subprocess.run(["git", "apply", "-"], input=patch, text=True).returncode
with open("weak_note.py", "w", encoding="utf-8") as f:
    f.write("# notes of a weak attempt\nATTEMPTED = True\n")
sys.exit(rc)
EOF
# demo/agents/oracle.py of the hunkgen checkout (FB_ORACLE names it elsewhere).
ORACLE=${FB_ORACLE:-$(cd "$(dirname "$0")/.." && pwd)/demo/agents/oracle.py}
cp "$ORACLE" "$OUT/agents/oracle.py"
cat >"$OUT/agents/edit.sh" <<'EOF'
printf 'TOUCHED = 1\n' > hunkgen_touch.py
EOF
cat >"$OUT/agents/agents.yaml" <<'EOF'
weak:
  command: python3 {agents_dir}/weak.py {golden_patch}
  oracle: true
  timeout: 120
edits:
  command: sh {agents_dir}/edit.sh
  timeout: 60
abstains:
  command: 'true'
  timeout: 60
golden:
  command: python3 {agents_dir}/oracle.py {golden_patch} {trajectory_file}
  trajectory: normalized
  oracle: true
  timeout: 120
EOF
AGENTS=$OUT/agents/agents.yaml
step run-weak "${NICE[@]}" "$HUNKGEN" run "$OUT/ds1" --agents "$AGENTS" --agent weak \
    --state novel -j "$JOBS" -q --out "$OUT/runs-weak"
python3 - "$OUT" <<'EOF'
import sys
out = sys.argv[1]
text = open(f"{out}/recipe-novel.yaml", encoding="utf-8").read()
old = "  kinds: [novel, resolved]\n"
assert text.count(old) == 1
text = text.replace(old, "  kinds: [novel, partial, resolved]\n"
                    f"  partial: {{from: run, run: {out}/runs-weak/weak/novel-best}}\n")
open(f"{out}/recipe-partial.yaml", "w", encoding="utf-8").write(text)
EOF
step build-partial "${NICE[@]}" "$HUNKGEN" build "$OUT/recipe-partial.yaml" -o "$OUT/ds2" -j "$JOBS" -q

# The counts of both builds and the Partial states kept and refused, with reasons.
python3 - "$OUT" <<'EOF' | tee "$OUT/counts.md"
import collections, json, re, sys
out = sys.argv[1]
def rows(p):
    try:
        return [json.loads(l) for l in open(p, encoding="utf-8") if l.strip()]
    except FileNotFoundError:
        return []
for ds in ("ds1", "ds2"):
    card = open(f"{out}/{ds}/dataset.yaml", encoding="utf-8").read()
    counts = card[card.index("\ncounts:"):card.index("\nchecksums:")]
    print(f"## {ds}: dataset.yaml counts\n```{counts}\n```")
    rej = collections.Counter(r.get("reason") for r in rows(f"{out}/{ds}/rejected.jsonl"))
    print(f"{ds} rejected by reason: {dict(sorted(rej.items()))}\n")
kept = rows(f"{out}/ds2/instances.jsonl")
print(f"## Partial states (ds2, {len(kept)} instances)")
acc = [r["instance_id"] for r in kept if "partial-best" in json.dumps(r["states"]["written"])]
print(f"accepted: {len(acc)}: {', '.join(acc)}")
for r in kept:
    for m in r["states"].get("missing") or []:
        s = json.dumps(m)
        if "partial" in s:
            print(f"refused: {r['instance_id']}: {s}")
EOF
PARTIAL_IDS=$(python3 -c '
import json, sys
ids = [r["instance_id"] for r in map(json.loads, open(sys.argv[1]))
       if "partial-best" in json.dumps(r["states"]["written"])]
print(",".join(ids))' "$OUT/ds2/instances.jsonl")
if [ -z "$PARTIAL_IDS" ]; then
    echo "error: no instance has a Partial state" >&2
    exit 1
fi

# ---- 3. three agents × states × scenarios × instructions, evaluated, reported ----
mkdir -p "$OUT/preds" "$OUT/evals"
run_grid() {
    local agent=$1 state sc instr
    local only=()
    : >"$OUT/preds/$agent.jsonl"
    for state in novel partial resolved; do
        only=()
        # Partial: the instances that have a Partial state (FixedBench: 150 of 200).
        [ "$state" = partial ] && only=(--only "$PARTIAL_IDS")
        for sc in best worst; do
            for instr in issue edit reproduce abstain-or-fix; do
                "${NICE[@]}" "$HUNKGEN" run "$OUT/ds2" --agents "$AGENTS" --agent "$agent" \
                    --state "$state" --scenario "$sc" --prompt-variant "$instr" "${only[@]}" \
                    -j "$JOBS" -q --out "$OUT/runs/$instr" || return 1
                # (`step` calls this in an `if`, where `set -e` does not apply)
                cat "$OUT/runs/$instr/$agent/$state-$sc/predictions.jsonl" \
                    >>"$OUT/preds/$agent.jsonl" || return 1
            done
        done
    done
}
for agent in edits abstains golden; do
    step "run-$agent" run_grid "$agent"
done
for agent in edits abstains golden; do
    step "evaluate-$agent" "${NICE[@]}" "$HUNKGEN" evaluate "$OUT/ds2" \
        --predictions "$OUT/preds/$agent.jsonl" -j "$JOBS" -q --output "$OUT/evals/$agent"
done
step report "$HUNKGEN" report "$OUT/ds2" --results "$OUT/evals/abstains" \
    --results "$OUT/evals/edits" --results "$OUT/evals/golden" -o "$OUT/report/index.html"

T_END=$(date +%s.%N)
printf 'total\t%.1f\n' "$(echo "$T_END - $T_START" | bc)" >>"$TIMES"
echo
cat "$OUT/report/fixedbench.md"
echo
echo "wall time per step (s):"
column -t -s $'\t' "$TIMES"

# ---- 4. every cell against what the agents do, by hand ----
set +e
python3 - "$OUT" <<'EOF'
import json, sys
out = sys.argv[1]
t = json.load(open(f"{out}/report/fixedbench.json", encoding="utf-8"))
systems = t["systems"]
def expected(system, task):
    """(abstention, resolution) as all/none; None: not determined by the agent alone."""
    return {
        ("abstains", "resolved"): ("all", "all"),
        ("abstains", "novel"): ("all", "none"),
        ("abstains", "partial"): ("all", "none"),
        ("edits", "resolved"): ("none", "all"),
        ("edits", "novel"): ("none", "none"),
        ("edits", "partial"): ("none", "none"),
        ("golden", "resolved"): ("all", "all"),
        ("golden", "novel"): ("none", "all"),
        ("golden", "partial"): ("none", "all"),
    }[(system, task)]
bad = 0
for row in t["rows"]:
    for s, system in enumerate(systems):
        cell = row["cells"][s]
        for metric, want in zip(("abstention", "resolution"), expected(system, row["task"])):
            k, n = cell[metric]["k"], cell[metric]["n"]
            if (want == "all" and k != n) or (want == "none" and k != 0) or n == 0:
                bad += 1
                print(f"CHECK FAILED: {system} {row['task']} {row['scenario']} "
                      f"{row['instruction']}: {metric} {k}/{n}, expected {want}")
for row in t.get("partial_control", []):
    for s, system in enumerate(systems):
        k, n = row["cells"][s]["k"], row["cells"][s]["n"]
        want = n if system == "golden" else 0
        if k != want:
            bad += 1
            print(f"CHECK FAILED: partial control {system} {row.get('scenario')} "
                  f"{row.get('instruction')}: {k}/{n}, expected {want}/{n}")
print("checks: every cell as the protocol says" if not bad else f"checks: {bad} cell(s) differ")
sys.exit(3 if bad else 0)
EOF
