#!/usr/bin/env python3
"""A scripted agent for testing the `hunkgen run` harness (never a real agent): it applies
the instance's golden patch hunk by hunk with `git apply` and writes a trajectory in
hunkgen's normalized format (docs/trajectory-step.schema.json).

usage: oracle.py GOLDEN_PATCH TRAJECTORY_FILE   (run in the working directory)
"""
import json
import os
import subprocess
import sys
import tempfile
import time


def sections(text):
    """The patch's file sections: header lines, hunks (lists of lines), path."""
    out = []
    cur = None
    for line in text.splitlines(keepends=True):
        starts_plain = line.startswith("--- ") and (cur is None or cur["hunks"])
        if line.startswith("diff --git ") or starts_plain:
            cur = {"header": [line], "hunks": [], "path": None}
            out.append(cur)
        elif cur is None:
            continue
        elif line.startswith("@@"):
            cur["hunks"].append([line])
        elif cur["hunks"]:
            cur["hunks"][-1].append(line)
        else:
            cur["header"].append(line)
        if cur is not None and not cur["hunks"] and line.startswith(("--- ", "+++ ")):
            name = line[4:].strip().split("\t")[0]
            if name != "/dev/null" and (cur["path"] is None or line.startswith("+++ ")):
                cur["path"] = name[2:] if name[:2] in ("a/", "b/") else name
    return out


def main():
    golden, trajectory = sys.argv[1], sys.argv[2]
    start = time.monotonic()
    steps = []

    def step(kind, files, command, exit_code=None, tokens=None):
        s = {"kind": kind, "files": files, "command": command,
             "elapsed_ms": int((time.monotonic() - start) * 1000)}
        if exit_code is not None:
            s["exit_code"] = exit_code
        if tokens is not None:
            s["tokens_in"], s["tokens_out"] = tokens
        steps.append(s)

    with open(golden, encoding="utf-8") as f:
        text = f.read()
    step("search", [], "git ls-files", 0, (200, 20))
    failed = 0
    for sec in sections(text):
        path = sec["path"] or "?"
        step("read", [path], "cat " + path, 0, (400, 10))
        for n, hunk in enumerate(sec["hunks"]):
            with tempfile.NamedTemporaryFile("w", suffix=".patch", delete=False) as h:
                h.write("".join(sec["header"]) + "".join(hunk))
            r = subprocess.run(["git", "apply", "--whitespace=nowarn", h.name],
                               capture_output=True, text=True)
            os.unlink(h.name)
            if r.returncode != 0:
                failed += 1
                sys.stderr.write(r.stderr)
            added = sum(1 for l in hunk if l.startswith("+"))
            step("edit", [path], "apply hunk %d of %s" % (n + 1, path), r.returncode,
                 (300, 15 * (added + 1)))
    with open(trajectory, "w", encoding="utf-8") as f:
        for s in steps:
            f.write(json.dumps(s) + "\n")
    print("applied the golden patch: %d hunk(s) failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
