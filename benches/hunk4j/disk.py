#!/usr/bin/env python3
"""Disk taken by a HUNK4J measurement's states against a reference, per project.

    python3 benches/hunk4j/disk.py REPOS_FILE OUT [OUT ...]

For each project with states in OUT/ds/<project>/states: what they take on disk (every
block counted once, however many hard links share it), and the reference the target
compares with: one plain work tree per state written (its files without `.git`) plus one
copy of the project's history (the disk the repository named in REPOS_FILE takes).
Target: states <= 1.5 x reference.
"""
import os
import sys
from pathlib import Path


def usage(root, skip_git=False, seen=None):
    """Bytes of blocks under root, each inode once; without .git directories if asked."""
    seen = set() if seen is None else seen
    total = 0
    for d, dirs, files in os.walk(root):
        if skip_git and ".git" in dirs:
            dirs.remove(".git")
        for name in files + [x for x in dirs if os.path.islink(os.path.join(d, x))]:
            try:
                st = os.lstat(os.path.join(d, name))
            except OSError:
                continue
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
            total += st.st_blocks * 512
    return total


def main(repos_file, outs):
    repos = {}
    for line in Path(repos_file).read_text().splitlines():
        if ":" in line and not line.lstrip().startswith("#"):
            name, path = line.split(":", 1)
            repos[name.strip()] = Path(path.strip())
    mb = 1024 * 1024
    print("| project | states written | states MB | work trees MB | history MB | "
          "reference MB | ratio (target <= 1.5) |")
    print("|---|---|---|---|---|---|---|")
    for out in map(Path, outs):
        for ds in sorted(p for p in (out / "ds").iterdir() if not p.name.startswith(".")):
            states = ds / "states"
            if not states.is_dir():
                continue
            trees = [s / "repo" for inst in states.iterdir() if not inst.name.startswith(".")
                     for s in inst.iterdir() if (s / "repo").is_dir()]
            if not trees:
                continue
            actual = usage(states)
            worktrees = sum(usage(t, skip_git=True) for t in trees)
            repo = repos.get(ds.name)
            history = usage(repo) if repo and repo.exists() else 0
            reference = worktrees + history
            print(f"| {ds.name} | {len(trees)} | {actual / mb:.0f} | {worktrees / mb:.0f} | "
                  f"{history / mb:.0f} | {reference / mb:.0f} | {actual / reference:.2f}x |")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    main(sys.argv[1], sys.argv[2:])
