#!/usr/bin/env python3
"""Python baseline for `make bench`: hunk divergence of multi-hunk Defects4J bugs.

An efficient, honest re-implementation of what `hunkgen build` computes for the
`hunk4j` profile (docs/ARCHITECTURE.md §4), using the usual Python tools, so that
benches/annotate_d4j.rs can time hunkgen against it and cross-check D_lex:

* Defects4J metadata from framework/projects (active-bugs.csv, modified_classes,
  patches/<id>.src.patch — REVERSED patches: fixed -> buggy);
* counting rules of recipes/hunk4j.yaml: `.java` files only, skip hunks of files the
  fix creates, skip hunks whose only change (fix direction) deletes `import` lines;
* each fixed file read with one `git cat-file --batch` process per repository, the
  Defects4J patch applied in memory (exactly, no fuzz) to get the buggy file;
* javalang (PyPI) parses the buggy file; its node tree gives the diameter in one O(N)
  height pass; each hunk is anchored at the smallest node covering its changed-line
  span (ties: first in pre-order; the root if none); dist via depths and LCA;
* D_lex = 1 - NLTK sentence_bleu (method4) of nltk.word_tokenize tokens
  (reference = hunk i, candidate = hunk j); D_file, gamma, Div as the `hunk4j` profile.

Documented differences from hunkgen (they affect D_ast only, never D_lex):
javalang nodes carry only a start position (and many carry none). A node's start line is
the smallest line of its own position and its subtree's; its end line is the LARGEST
LINE OF ITS DESCENDANTS (so a method ends at its last statement, not its closing brace);
a subtree without any position has no span and never anchors. The root spans the whole
file. javalang's node model is also not JavaParser's, so distances and diameters differ.

Usage:
    baseline_annotate.py --projects DIR --repo Lang=/path --repo Jsoup=/path \
        --punkt-dir target/punkt_tab/english -o out.json
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import warnings


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--projects", required=True, help="Defects4J framework/projects directory")
    p.add_argument(
        "--repo", action="append", default=[], metavar="NAME=PATH", help="project git repository"
    )
    p.add_argument("--punkt-dir", help="punkt_tab/english directory (from `make deps`)")
    p.add_argument("-o", "--output", required=True, help="JSON output file")
    return p.parse_args(argv)


# ---------------------------------------------------------------- NLTK offline set-up


def setup_nltk(punkt_dir, tmp):
    """Point NLTK at `punkt_dir` as tokenizers/punkt_tab/english under a private data root."""
    if punkt_dir:
        link_parent = os.path.join(tmp, "tokenizers", "punkt_tab")
        os.makedirs(link_parent, exist_ok=True)
        os.symlink(os.path.abspath(punkt_dir), os.path.join(link_parent, "english"))
    import nltk

    nltk.data.path.insert(0, tmp)
    return nltk


# ---------------------------------------------------------------- Defects4J metadata

# How Defects4J revisions map onto the upstream repositories (Defects4J README; the same
# settings benches/annotate_d4j.rs puts in its recipe): Math's hashes were rewritten,
# old Time bugs keep their sources under `JodaTime/`.
REVISION_MAPS = {"Math": ("d4j-math-upstream-map.csv", "d4j.revision.id.fixed", "upstream.fixed")}
PATH_PREFIXES = {"Time": ["JodaTime"]}


def read_revision_map(projects_dir, project):
    if project not in REVISION_MAPS:
        return {}
    name, src, dst = REVISION_MAPS[project]
    path = os.path.join(projects_dir, "..", "..", "upstream-maps", name)
    with open(path, encoding="utf-8") as f:
        header = f.readline().strip().split(",")
        a, b = header.index(src), header.index(dst)
        return {c[a]: c[b] for c in (l.strip().split(",") for l in f) if len(c) > max(a, b)}


def read_active_bugs(project_dir):
    """(bug id, fixed revision) rows of active-bugs.csv, in file order."""
    rows = []
    with open(os.path.join(project_dir, "active-bugs.csv"), encoding="utf-8") as f:
        header = f.readline().strip().split(",")
        at_id, at_fixed = header.index("bug.id"), header.index("revision.id.fixed")
        for line in f:
            cols = line.rstrip("\n").split(",")
            if len(cols) > max(at_id, at_fixed):
                rows.append((cols[at_id], cols[at_fixed]))
    return rows


def read_modified_classes(project_dir, bug_id):
    path = os.path.join(project_dir, "modified_classes", f"{bug_id}.src")
    try:
        with open(path, encoding="utf-8") as f:
            return [l.strip() for l in f if l.strip()]
    except FileNotFoundError:
        return []


class Hunk:
    """One `@@` hunk of the reversed Defects4J patch (old side = fixed, new side = buggy)."""

    __slots__ = ("fixed_start", "fixed_lines", "buggy_start", "buggy_lines", "lines")

    def __init__(self, fs, fl, bs, bl):
        self.fixed_start, self.fixed_lines = fs, fl
        self.buggy_start, self.buggy_lines = bs, bl
        self.lines = []  # (kind, bytes) with kind in b" -+", terminator stripped


class FilePatch:
    __slots__ = ("fixed_path", "buggy_path", "hunks", "seen_header")

    def __init__(self):
        self.fixed_path = self.buggy_path = None
        self.seen_header = False
        self.hunks = []

    @property
    def path(self):
        return self.buggy_path or self.fixed_path


def _header_path(rest):
    rest = rest.split(b"\t")[0].strip()
    if rest == b"/dev/null":
        return None
    text = rest.decode("utf-8", "replace")
    return text[2:] if text[:2] in ("a/", "b/") else text


def _range(spec):
    start, _, count = spec.partition(b",")
    return int(start), int(count) if count else 1


def parse_patch(data):
    """Files and hunks of a unified diff (bytes); lines keep their bytes, minus terminator."""
    files = []
    cur = None
    hunk = None
    remaining = [0, 0]
    for raw in data.split(b"\n"):
        if hunk is not None and (remaining[0] > 0 or remaining[1] > 0):
            kind = raw[:1] or b" "
            if kind in (b" ", b"-", b"+"):
                hunk.lines.append((kind, raw[1:]))
                if kind != b"+":
                    remaining[0] -= 1
                if kind != b"-":
                    remaining[1] -= 1
                continue
        if raw.startswith(b"\\"):
            continue  # "\ No newline at end of file"
        if raw.startswith(b"diff --git "):
            cur = FilePatch()
            files.append(cur)
            hunk = None
        elif raw.startswith(b"--- "):
            if cur is None or cur.hunks or cur.seen_header:
                cur = FilePatch()
                files.append(cur)
            cur.seen_header = True
            cur.fixed_path = _header_path(raw[4:])
            hunk = None
        elif raw.startswith(b"+++ ") and cur is not None and not cur.hunks:
            cur.buggy_path = _header_path(raw[4:])
        elif raw.startswith(b"@@ ") and cur is not None:
            parts = raw.split(b" ")
            fs, fl = _range(parts[1][1:])
            bs, bl = _range(parts[2][1:])
            hunk = Hunk(fs, fl, bs, bl)
            cur.hunks.append(hunk)
            remaining = [fl, bl]
    return files


# ---------------------------------------------------------------- counting rules


def created_by_fix(fp, h):
    # Fix direction: the buggy side does not exist.
    return fp.buggy_path is None or (h.buggy_start == 0 and h.buggy_lines == 0)


def import_only_deletion(h):
    # Fix direction deletes = reversed `+`; fix direction adds = reversed `-`.
    removed_any = False
    for kind, text in h.lines:
        if kind == b"-":
            return False
        if kind == b"+":
            if not text.decode("utf-8", "replace").lstrip().startswith("import "):
                return False
            removed_any = True
    return removed_any


def counted(fp, h):
    return (
        fp.path is not None
        and fp.path.endswith(".java")
        and not created_by_fix(fp, h)
        and not import_only_deletion(h)
    )


def buggy_span(h):
    """Changed-line span in the buggy file (ARCHITECTURE §4 "Hunk span"); end = start-1 for inserts."""
    counter = h.buggy_start + (1 if h.buggy_lines == 0 else 0)
    start = None
    end_counter = counter
    for kind, _ in h.lines:
        on_buggy = kind != b"-"
        changed = kind != b" "
        if changed and start is None:
            start = counter
        if on_buggy:
            counter += 1
        if changed:
            end_counter = counter
    if start is None:
        start = counter
    return start, max(end_counter - 1, start - 1)


def hunk_text(h):
    """Fix-direction added lines (reversed `-`), then deleted lines (reversed `+`)."""
    added = [t.decode("utf-8", "replace") for k, t in h.lines if k == b"-"]
    deleted = [t.decode("utf-8", "replace") for k, t in h.lines if k == b"+"]
    return "\n".join(added + deleted)


# ---------------------------------------------------------------- files from git


class CatFile:
    """One `git cat-file --batch` process per repository."""

    def __init__(self, repo):
        self.proc = subprocess.Popen(
            ["git", "--git-dir", repo, "cat-file", "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )

    def read_any(self, rev, path, prefixes):
        """`path` at `rev`, else under each prefix directory in turn."""
        try:
            return self.read(rev, path)
        except LookupError:
            for p in prefixes:
                try:
                    return self.read(rev, f"{p}/{path}")
                except LookupError:
                    pass
            raise

    def read(self, rev, path):
        self.proc.stdin.write(f"{rev}:{path}\n".encode())
        self.proc.stdin.flush()
        header = self.proc.stdout.readline()
        parts = header.split()
        if len(parts) != 3:
            raise LookupError(f"{rev}:{path}: {header.decode(errors='replace').strip()}")
        size = int(parts[2])
        data = self.proc.stdout.read(size)
        self.proc.stdout.read(1)
        return data

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def apply_reversed(fixed, fp):
    """The buggy file: the reversed patch applied exactly to the fixed file (bytes)."""
    src = fixed.split(b"\n")
    out = []
    pos = 0
    for n, h in enumerate(fp.hunks, 1):
        start = h.fixed_start if h.fixed_lines == 0 else h.fixed_start - 1
        if start < pos or start > len(src):
            raise ValueError(f"{fp.path}: hunk {n} starts at line {h.fixed_start}, out of order")
        out.extend(src[pos:start])
        pos = start
        for kind, text in h.lines:
            if kind == b"+":
                out.append(text)
                continue
            if pos >= len(src) or src[pos] != text:
                raise ValueError(f"{fp.path}: hunk {n}: line {pos + 1} differs from the patch")
            if kind == b" ":
                out.append(text)
            pos += 1
    out.extend(src[pos:])
    return b"\n".join(out)


# ---------------------------------------------------------------- javalang tree


class Tree:
    """Pre-order arrays of a javalang tree: parent, depth, start and end line."""

    def __init__(self, text):
        import javalang

        cu = javalang.parse.parse(text)
        Node = javalang.ast.Node
        parent, depth, own = [], [], []
        stack = [(cu, -1, 0)]
        while stack:
            node, par, d = stack.pop()
            idx = len(parent)
            parent.append(par)
            depth.append(d)
            pos = getattr(node, "position", None)
            own.append(pos.line if pos else None)
            kids = []
            todo = list(node.children)
            while todo:
                c = todo.pop(0)
                if isinstance(c, Node):
                    kids.append(c)
                elif isinstance(c, (list, tuple)):
                    todo[0:0] = list(c)
            for c in reversed(kids):
                stack.append((c, idx, d + 1))
        n = len(parent)
        start = list(own)
        end = list(own)
        height = [0] * n
        best1 = [0] * n  # tallest child height + 1
        diameter = 0
        for i in range(n - 1, -1, -1):  # children come after parents in pre-order
            # i's subtree is complete: fold it into the parent.
            h = best1[i]
            height[i] = h
            p = parent[i]
            if p >= 0:
                if start[i] is not None:
                    if start[p] is None or start[i] < start[p]:
                        start[p] = start[i]
                    if end[p] is None or end[i] > end[p]:
                        end[p] = end[i]
                # Longest path through p: its two tallest children, met one at a time.
                cand = h + 1
                if cand + best1[p] > diameter:
                    diameter = cand + best1[p]
                if cand > best1[p]:
                    best1[p] = cand
        start[0] = 1
        end[0] = max(end[0] or 1, text.count("\n") + 1)
        self.parent, self.depth, self.start, self.end = parent, depth, start, end
        self.diameter = diameter

    def covering(self, span):
        s0, e0 = span
        best, best_w = 0, None
        for i, (s, e) in enumerate(zip(self.start, self.end)):
            if s is not None and s <= s0 and e >= e0:
                w = e - s
                if best_w is None or w < best_w:
                    best, best_w = i, w
        return best

    def distance(self, a, b):
        depth, parent = self.depth, self.parent
        d = 0
        while depth[a] > depth[b]:
            a, d = parent[a], d + 1
        while depth[b] > depth[a]:
            b, d = parent[b], d + 1
        while a != b:
            a, b, d = parent[a], parent[b], d + 2
        return d


# ---------------------------------------------------------------- divergence


def d_file(a, b):
    if a == b:
        return 0.0
    x, y = a.split("/"), b.split("/")
    matched = 0
    for p, q in zip(x, y):
        if p != q:
            break
        matched += 1
    lcp = max(matched - 1, 0)  # the released code's count starts at -1
    return 1.0 - lcp / max(len(x), len(y))


def d_ast(dist, diameter):
    if diameter == 0:
        return 0.0
    return min(max(math.log1p(dist) / math.log1p(diameter), 0.0), 1.0)


def annotation_order(files, modified_classes):
    """Counted hunks in hunkgen's order: modified_classes rank, file position, buggy line."""

    def rank(path):
        stem = path[:-5] if path.endswith(".java") else path
        for k, c in enumerate(modified_classes):
            rel = c.replace(".", "/")
            if stem == rel or stem.endswith("/" + rel):
                return k
        return sys.maxsize

    keyed = []
    idx = 0
    for fpos, fp in enumerate(files):
        for h in fp.hunks:
            if counted(fp, h):
                keyed.append(((rank(fp.path), fpos, h.buggy_start, idx), fp, h))
            idx += 1
    keyed.sort(key=lambda t: t[0])
    return [(fp, h) for _, fp, h in keyed]


def main(argv):
    args = parse_args(argv)
    t0 = time.perf_counter()
    tmp = tempfile.mkdtemp(prefix="nltk_data_")
    nltk = setup_nltk(args.punkt_dir, tmp)
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    import javalang  # noqa: F401  (import time belongs to the pipeline)

    smooth = SmoothingFunction().method4
    warnings.filterwarnings("ignore")
    phases = {"import": time.perf_counter() - t0, "git": 0.0, "parse": 0.0, "anchor": 0.0, "pairs": 0.0}
    repos = dict(r.split("=", 1) for r in args.repo)
    bugs, errors = [], []
    for project in sorted(repos):
        pdir = os.path.join(args.projects, project)
        cat = CatFile(repos[project])
        rev_map = read_revision_map(args.projects, project)
        prefixes = PATH_PREFIXES.get(project, [])
        for bug_id, fixed_rev in read_active_bugs(pdir):
            fixed_rev = rev_map.get(fixed_rev, fixed_rev)
            with open(os.path.join(pdir, "patches", f"{bug_id}.src.patch"), "rb") as f:
                files = parse_patch(f.read())
            order = annotation_order(files, read_modified_classes(pdir, bug_id))
            n = len(order)
            if n < 2:
                continue
            name = f"{project}_{bug_id}"
            # Buggy trees, one per file.
            t = time.perf_counter()
            trees = {}
            for fp, _ in order:
                if id(fp) in trees:
                    continue
                try:
                    fixed = cat.read_any(fixed_rev, fp.fixed_path or fp.path, prefixes)
                    t_git = time.perf_counter()
                    phases["git"] += t_git - t
                    buggy = apply_reversed(fixed, fp)
                    trees[id(fp)] = Tree(buggy.decode("utf-8", "replace"))
                    phases["parse"] += time.perf_counter() - t_git
                except Exception as e:  # noqa: BLE001  (reported per file, bug kept)
                    trees[id(fp)] = None
                    errors.append(f"{name}: {fp.path}: {type(e).__name__}: {e}".strip())
                t = time.perf_counter()
            t = time.perf_counter()
            anchors = []
            for fp, h in order:
                tree = trees[id(fp)]
                anchors.append(tree.covering(buggy_span(h)) if tree else None)
            t_anchor = time.perf_counter()
            phases["anchor"] += t_anchor - t
            t = t_anchor
            tokens = [nltk.word_tokenize(hunk_text(h)) for _, h in order]
            pairs = []
            for i in range(n):
                for j in range(i + 1, n):
                    bleu = sentence_bleu([tokens[i]], tokens[j], smoothing_function=smooth)
                    fi, fj = order[i][0], order[j][0]
                    dl = 1.0 - bleu
                    pair = {"i": i, "j": j, "d_lex": dl}
                    if fi is fj:
                        tree = trees[id(fi)]
                        if tree is None:
                            da, dist, diam = None, None, None
                        else:
                            dist = tree.distance(anchors[i], anchors[j])
                            diam = tree.diameter
                            da = d_ast(dist, diam)
                        df, gamma = 0.0, 0.0
                    else:
                        da, df, gamma, dist, diam = 1.0, d_file(fi.path, fj.path), 2.0, None, None
                    pair.update({"d_ast": da, "d_file": df, "gamma": gamma})
                    pair["div"] = None if da is None else dl * (da + gamma * df) / (1 + gamma)
                    pair["dist"], pair["diameter"] = dist, diam
                    pairs.append(pair)
            phases["pairs"] += time.perf_counter() - t
            divs = [p["div"] for p in pairs]
            value = None
            if all(d is not None for d in divs):
                value = math.log(n) * sum(divs) / len(divs)
            bugs.append(
                {
                    "id": name,
                    "n": n,
                    "files": [fp.path for fp, _ in order],
                    "texts": [hunk_text(h) for _, h in order],
                    "divergence": value,
                    "pairs": pairs,
                }
            )
        cat.close()
    phases["total"] = time.perf_counter() - t0
    out = {
        "tool": "scripts/baseline_annotate.py",
        "counts": {
            "bugs": len(bugs),
            "hunks": sum(b["n"] for b in bugs),
            "pairs": sum(len(b["pairs"]) for b in bugs),
        },
        "seconds": phases,
        "errors": errors,
        "bugs": bugs,
    }
    with open(args.output, "w", encoding="utf-8") as f:
        json.dump(out, f)
    c = out["counts"]
    print(
        f"baseline: {c['bugs']} bugs, {c['hunks']} hunks, {c['pairs']} pairs, "
        f"{len(errors)} file errors in {phases['total']:.2f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
