"""hunkgen's bridge to the official `swebench` package (issue #32).

hunkgen never re-types SWE-bench's per-repository knowledge: this helper runs inside a
Python that has the official package installed and answers with what the package's own
code says. It reads one JSON request from stdin and writes one JSON answer to stdout.

  {"op": "specs", "rows": [ROW, ...], "git_dir": "/path/to/repo.git" or null}
      For each SWE-bench row (repo, version, instance_id, base_commit, test_patch,
      environment_setup_commit): the spec of (repo, version) from
      MAP_REPO_VERSION_TO_SPECS, its hash, the test directives and the full test
      command (get_test_directives), the repository's log parser (MAP_REPO_TO_PARSER),
      the requirements or environment.yml the package would install (read by the
      package's own functions, with its downloads from raw.githubusercontent.com
      answered from `git_dir` instead: no network) or, where the package carries the
      harness's export of the row's environment, that export ("kind": "export"),
      and the package's own environment,
      repository and evaluation scripts, for the record. A row whose step fails gets
      "error": "<step>: <message>" and the fields known before it.

  {"op": "parse", "rows": [{"repo", "version", "instance_id", "log"}, ...]}
      Each log read by the repository's official parser: {test id: status}. A log with
      the harness's test-output markers is read by the package's own get_logs_eval (the
      part between the markers, the whole log when that part has no result).

Both take "extra": {"specs": {repo: {version: spec}}, "parsers": {repo: parser name}}:
specs for repositories or versions the package does not carry (SWE-Gym, SWE-rebench
and tests name their own), added to the package's tables before anything is asked, and
which of the package's parsers reads each such repository.

The package must be a release that still carries the spec tables (swebench 2.x-4.x;
5.x moved them into the dataset rows).
"""

import hashlib
import json
import subprocess
import sys
import traceback
import types


def git_show(git_dir, commit, path):
    """The file at commit:path in the local repository, or None."""
    if not git_dir:
        return None
    out = subprocess.run(
        ["git", "--git-dir", git_dir, "show", f"{commit}:{path}"],
        capture_output=True,
    )
    if out.returncode != 0:
        return None
    return out.stdout.decode("utf-8", "replace")


class LocalResponse:
    """The part of requests.Response the package's download helpers read."""

    def __init__(self, text):
        self.status_code = 200 if text is not None else 404
        self.text = text or ""


def offline_get(git_dir, raw_root):
    """requests.get answering raw.githubusercontent.com/<owner>/<repo>/<commit>/<path>
    from the local repository, and refusing every other address."""

    def get(url, *args, **kwargs):
        url = str(url)
        if not url.startswith(raw_root):
            return LocalResponse(None)
        rest = url[len(raw_root):].lstrip("/").split("/")
        if len(rest) < 4:
            return LocalResponse(None)
        commit, path = rest[2], "/".join(rest[3:])
        import posixpath

        return LocalResponse(git_show(git_dir, commit, posixpath.normpath(path)))

    return get


def cached_environment(row):
    """The package's own per-instance environment export for the row, or None."""
    try:
        from swebench.harness.utils import load_cached_environment_yml
    except ImportError:  # a release without the exports
        return None
    if not row.get("instance_id"):
        return None
    return load_cached_environment_yml(row["instance_id"])


def spec_hash(spec):
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()


def add_extra(request):
    """The request's own specs and parser choices, added to the package's tables."""
    extra = request.get("extra") or {}
    if not extra:
        return
    from swebench.harness import constants as C
    from swebench.harness.log_parsers import MAP_REPO_TO_PARSER

    by_name = {f.__name__: f for f in MAP_REPO_TO_PARSER.values()}
    for repo, versions in (extra.get("specs") or {}).items():
        C.MAP_REPO_VERSION_TO_SPECS.setdefault(repo, {}).update(versions)
    for repo, name in (extra.get("parsers") or {}).items():
        if name not in by_name:
            raise SystemExit(f"extra parser {name!r} for {repo}: the package has no such parser")
        MAP_REPO_TO_PARSER[repo] = by_name[name]


def specs(request):
    from swebench.harness import constants as C
    from swebench.harness.log_parsers import MAP_REPO_TO_PARSER
    from swebench.harness.test_spec import python as P

    add_extra(request)

    P.requests = types.SimpleNamespace(get=offline_get(request.get("git_dir"), C.SWE_BENCH_URL_RAW))
    # The package caches downloads per (repo, commit); a request reads one repository.
    for name in ("get_requirements_by_commit", "get_environment_yml_by_commit"):
        f = getattr(P, name, None)
        if f is not None and hasattr(f, "cache_clear"):
            f.cache_clear()
    from importlib.metadata import version as package_version

    package = package_version("swebench")
    answers = []
    for row in request["rows"]:
        repo, version = row["repo"], str(row["version"])
        a = {
            "instance_id": row.get("instance_id"),
            "repo": repo,
            "version": version,
            "package": package,
        }
        step = "spec"
        try:
            spec = C.MAP_REPO_VERSION_TO_SPECS[repo][version]
            a["spec"] = spec
            a["spec_hash"] = spec_hash(spec)
            a["python"] = spec.get("python")
            a["pip_packages"] = list(spec.get("pip_packages", []))
            a["pre_install"] = list(spec.get("pre_install", []))
            a["install"] = spec.get("install")
            a["repo_install"] = C.MAP_REPO_TO_INSTALL.get(repo)
            a["eval_commands"] = list(spec.get("eval_commands", []))
            a["test_cmd"] = spec["test_cmd"]
            step = "parser"
            a["parser"] = MAP_REPO_TO_PARSER[repo].__name__
            step = "test directives"
            a["test_directives"] = P.get_test_directives(row)
            a["test_command"] = " ".join([spec["test_cmd"], *a["test_directives"]])
            step = "packages"
            packages = spec.get("packages", "")
            if packages == "requirements.txt":
                a["packages"] = {"kind": "requirements.txt", "text": P.get_requirements(row)}
            elif packages == "environment.yml":
                a["packages"] = {
                    "kind": "environment.yml",
                    "text": P.get_environment_yml(row, "testbed"),
                }
            elif packages:
                a["packages"] = {"kind": "conda", "text": packages}
            else:
                a["packages"] = {"kind": "none", "text": ""}
            # The harness's own export of this row's environment, where the package
            # carries one (installed from the official repository, not from PyPI): the
            # package builds the environment from it instead of the spec's packages
            # and pip_packages (make_env_script_list_py).
            cached = cached_environment(row)
            if cached:
                a["packages"] = {"kind": "export", "text": cached}
                a["pip_packages"] = []
                a["export"] = "the swebench package"
        except Exception as e:  # every failure is this row's, with its step
            msg = str(e) or type(e).__name__
            if isinstance(e, KeyError):
                msg = f"no {msg} in the package's tables"
            a["error"] = f"{step}: {msg}".replace("\n", " ")
            a["trace"] = traceback.format_exc(limit=3)
        if "error" not in a:
            # The package's own scripts, for the record only: a spec that lacks what
            # they read still runs.
            try:
                a["env_script"] = P.make_env_script_list_py(row, spec, "testbed")
                a["repo_script"] = P.make_repo_script_list_py(
                    spec, repo, "/testbed", row["base_commit"], "testbed"
                )
                a["eval_script"] = P.make_eval_script_list_py(
                    row, spec, "testbed", "/testbed", row["base_commit"], row["test_patch"]
                )
            except Exception as e:
                a["scripts_error"] = f"{type(e).__name__}: {e}"
        answers.append(a)
    return answers


def parse(request):
    import os
    import tempfile

    from swebench.harness.constants import START_TEST_OUTPUT
    from swebench.harness.grading import get_logs_eval
    from swebench.harness.log_parsers import MAP_REPO_TO_PARSER

    add_extra(request)
    answers = []
    for row in request["rows"]:
        try:
            parser = MAP_REPO_TO_PARSER[row["repo"]]
            spec = types.SimpleNamespace(**row)
            if START_TEST_OUTPUT not in row["log"]:
                answers.append({"statuses": parser(row["log"], spec)})
                continue
            # A harness-shaped log: graded by the package's own reader.
            fd, path = tempfile.mkstemp(suffix=".log")
            try:
                with os.fdopen(fd, "w") as f:
                    f.write(row["log"])
                statuses, found = get_logs_eval(spec, path)
            finally:
                os.unlink(path)
            if found:
                answers.append({"statuses": statuses})
            else:
                answers.append({"error": "parse: the harness reads no test output in this log"})
        except Exception as e:
            answers.append({"error": f"parse: {e}".replace("\n", " ")})
    return answers


def main():
    request = json.load(sys.stdin)
    op = request.get("op")
    if op == "version":
        from importlib.metadata import version

        answer = {"swebench": version("swebench")}
    elif op == "specs":
        answer = specs(request)
    elif op == "parse":
        answer = parse(request)
    else:
        print(f"unknown op {op!r}", file=sys.stderr)
        sys.exit(2)
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
