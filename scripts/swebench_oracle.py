"""The official SWE-bench grader as an oracle for hunkgen's tests.

Reads a JSON list of cases from stdin, each {"log": <pytest -rA output>, "FAIL_TO_PASS":
[...], "PASS_TO_PASS": [...]}, and prints, per case, the per-test statuses that
swebench's pytest log parser reads from the log and the resolution status its grading
functions give. Run with the venv `make deps` creates (target/venv-swebench).
"""

import json
import sys

from swebench.harness.grading import get_eval_tests_report, get_resolution_status
from swebench.harness.log_parsers.python import parse_log_pytest


def main():
    cases = json.load(sys.stdin)
    out = []
    for case in cases:
        statuses = parse_log_pytest(case["log"], None)
        gold = {"FAIL_TO_PASS": case["FAIL_TO_PASS"], "PASS_TO_PASS": case["PASS_TO_PASS"]}
        report = get_eval_tests_report(statuses, gold)
        out.append({"statuses": statuses, "resolution": get_resolution_status(report)})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
