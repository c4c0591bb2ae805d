"""Reads a `hunkgen export --format swebench` file with the official swebench package.

For each file given (.jsonl or .json), the package's own loader
(`swebench.harness.utils.load_swebench_dataset`) reads it; every row must have exactly
the fields of `swebench.types.SWEbenchInstance`, in that order, all strings. Then each
row gets its per-instance test specification from `swebench.harness.utils.make_test_spec`,
and the package's grading functions grade the spec's test lists twice: every test
passing must be RESOLVED_FULL, every FAIL_TO_PASS test failing RESOLVED_NO.

SWE-bench 5 keys its harness on four more columns that its task repositories supply
(`image`, `eval_script`, `log_parser`, `eval_type`), not on the dataset's twelve fields;
the demo project has no task repository, so this script registers them here, per
instance, the way a task repository would: the image name the package derives
(`swebench.task.checks.expected_image`), an eval script bracketed by the package's
markers, the pytest or Maven log parser by the test patch's language, pass-and-fail
grading. Nothing in the package is edited.

Prints one JSON object per file: {"file", "ids", "specs", "full", "no", "f2p", "p2p"}.
Run with the venv `make deps` creates (target/venv-swebench).
"""

import json
import sys

from swebench.harness.constants import (
    END_TEST_OUTPUT,
    START_TEST_OUTPUT,
    EvalType,
    ResolvedStatus,
    TestStatus,
)
from swebench.harness.grading import get_eval_tests_report, get_resolution_status
from swebench.harness.log_parsers import PARSER_REGISTRY
from swebench.harness.utils import load_swebench_dataset, make_test_spec
from swebench.task.checks import expected_image
from swebench.types import SWEbenchInstance

FIELDS = list(SWEbenchInstance.__annotations__)


def harness_columns(row):
    """What a SWE-bench task repository would add to the row for the harness."""
    tests = json.loads(row["FAIL_TO_PASS"]) + json.loads(row["PASS_TO_PASS"])
    python = any(
        l.startswith("+++ ") and l.endswith(".py") for l in row["test_patch"].splitlines()
    )
    parser = "parse_log_pytest" if python else "parse_log_maven"
    run = "python -m pytest -rA " if python else "mvn test -Dtest="
    script = "\n".join(
        [
            "#!/bin/bash",
            "set -uxo pipefail",
            "cd /testbed",
            f"git checkout {row['base_commit']}",
            "git apply -v - <<'EOF_114329324912'\n" + row["test_patch"] + "EOF_114329324912",
            f": '{START_TEST_OUTPUT}'",
            f"echo '{START_TEST_OUTPUT}'",
            run + " ".join(json.dumps(t) for t in tests),
            f"echo '{END_TEST_OUTPUT}'",
            f"git checkout {row['base_commit']}",
        ]
    )
    return {
        "image": expected_image(row["instance_id"]),
        "eval_script": script,
        "log_parser": parser,
        "eval_type": EvalType.PASS_AND_FAIL.value,
    }


def check(path):
    rows = load_swebench_dataset(path)
    out = {"file": path, "ids": [], "specs": 0, "full": 0, "no": 0, "f2p": 0, "p2p": 0}
    for row in rows:
        keys = list(row.keys())
        if keys != FIELDS:
            raise SystemExit(f"{path}: {row.get('instance_id')}: fields {keys}, expected {FIELDS}")
        bad = [k for k in FIELDS if not isinstance(row[k], str)]
        if bad:
            raise SystemExit(f"{path}: {row['instance_id']}: not strings: {bad}")
        spec = make_test_spec({**row, **harness_columns(row)})
        if spec.instance_id != row["instance_id"] or spec.repo != row["repo"]:
            raise SystemExit(f"{path}: {row['instance_id']}: spec names another instance")
        if spec.version != row["version"] or spec.log_parser not in PARSER_REGISTRY:
            raise SystemExit(f"{path}: {row['instance_id']}: spec version or parser wrong")
        if not all(isinstance(t, str) for t in spec.FAIL_TO_PASS + spec.PASS_TO_PASS):
            raise SystemExit(f"{path}: {row['instance_id']}: test lists are not string lists")
        if START_TEST_OUTPUT not in spec.eval_script:
            raise SystemExit(f"{path}: {row['instance_id']}: eval script lost its markers")
        gold = {"FAIL_TO_PASS": spec.FAIL_TO_PASS, "PASS_TO_PASS": spec.PASS_TO_PASS}
        passing = {t: TestStatus.PASSED.value for t in spec.FAIL_TO_PASS + spec.PASS_TO_PASS}
        failing = {**passing, **{t: TestStatus.FAILED.value for t in spec.FAIL_TO_PASS}}
        eval_type = EvalType(spec.eval_type)
        full = get_resolution_status(get_eval_tests_report(passing, gold, eval_type=eval_type))
        no = get_resolution_status(get_eval_tests_report(failing, gold, eval_type=eval_type))
        out["ids"].append(spec.instance_id)
        out["specs"] += 1
        out["full"] += full == ResolvedStatus.FULL.value
        out["no"] += no == ResolvedStatus.NO.value
        out["f2p"] += len(spec.FAIL_TO_PASS)
        out["p2p"] += len(spec.PASS_TO_PASS)
    return out


def main():
    for path in sys.argv[1:]:
        print(json.dumps(check(path)))


if __name__ == "__main__":
    main()
