"""The official SWE-bench grader as an oracle for hunkgen's tests.

Reads a JSON list of cases from stdin, each {"log": <pytest -rA output>, "FAIL_TO_PASS":
[...], "PASS_TO_PASS": [...]} (or "statuses": {test id: PASSED/FAILED/...} in place of
"log", for results read from elsewhere, such as JUnit XML; and "eval_type":
"pass_and_fail" (the default) or "fail_only"), and prints, per case, the per-test
statuses (swebench's pytest log parser's reading of the log, or the given ones) and the
resolution status its grading functions give. Run with the venv `make deps` creates
(target/venv-swebench).
"""

import json
import sys

from swebench.harness.constants import EvalType
from swebench.harness.grading import get_eval_tests_report, get_resolution_status
from swebench.harness.log_parsers.python import parse_log_pytest


def main():
    cases = json.load(sys.stdin)
    out = []
    for case in cases:
        if "statuses" in case:
            statuses = case["statuses"]
        else:
            statuses = parse_log_pytest(case["log"], None)
        gold = {"FAIL_TO_PASS": case["FAIL_TO_PASS"], "PASS_TO_PASS": case["PASS_TO_PASS"]}
        eval_type = EvalType(case.get("eval_type", EvalType.PASS_AND_FAIL.value))
        report = get_eval_tests_report(statuses, gold, eval_type=eval_type)
        out.append({"statuses": statuses, "resolution": get_resolution_status(report)})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
