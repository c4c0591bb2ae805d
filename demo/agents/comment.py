#!/usr/bin/env python3
"""A scripted agent for testing the `hunkgen run` harness: it changes nothing but a
comment (one line appended to the first Python or Java source file), so its patch is an
abstention by the FixedBench rule. Writes a normalized trajectory.

usage: comment.py TRAJECTORY_FILE   (run in the working directory)
"""
import json
import os
import sys


def main():
    steps = [{"kind": "search", "files": [], "command": "find . -name '*.py'",
              "exit_code": 0, "tokens_in": 150, "tokens_out": 10, "elapsed_ms": 1}]
    target = None
    for root, dirs, files in sorted(os.walk(".")):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for name in sorted(files):
            if name.endswith((".py", ".java")) and "test" not in name.lower():
                target = os.path.relpath(os.path.join(root, name), ".")
                break
        if target:
            break
    if target:
        mark = "#" if target.endswith(".py") else "//"
        steps.append({"kind": "read", "files": [target], "command": "cat " + target,
                      "exit_code": 0, "tokens_in": 500, "tokens_out": 10, "elapsed_ms": 2})
        with open(target, "a", encoding="utf-8") as f:
            f.write("%s Reviewed: nothing to change here.\n" % mark)
        steps.append({"kind": "edit", "files": [target], "command": "append a comment",
                      "exit_code": 0, "tokens_in": 300, "tokens_out": 20, "elapsed_ms": 3})
    with open(sys.argv[1], "w", encoding="utf-8") as f:
        for s in steps:
            f.write(json.dumps(s) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
