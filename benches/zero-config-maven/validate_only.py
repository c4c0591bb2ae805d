#!/usr/bin/env python3
"""Write <name>-v.yaml beside <name>.yaml: the same recipe with validate.necessary_hunks
off and no states: section, so a build stops after validation. Its rejections by reason
are the full build's (the same runs, answered from the same cache); only the ablation and
the states are left out. Used where a session measured validation verdicts without
waiting for the necessary-hunks stage (README says which rows).

    python3 benches/zero-config-maven/validate_only.py commons-vfs
    HUNKGEN_CACHE_DIR=<cache> hunkgen build benches/zero-config-maven/commons-vfs-v.yaml -o <out>/commons-vfs
    python3 benches/zero-config-maven/validate_only.py benches/zero-config-held-out-5/743fdd9/isort.yaml
"""
import pathlib
import sys

here = pathlib.Path(__file__).resolve().parent
for name in sys.argv[1:]:
    # A name of this directory's recipes, or the path of any recipe `init` wrote
    # (benches/zero-config-held-out-5/743fdd9/isort.yaml).
    recipe = pathlib.Path(name) if name.endswith(".yaml") else here / f"{name}.yaml"
    name = recipe.stem
    text = recipe.read_text()
    if "validate:\n  reruns: 2\n" not in text or "# Repository states (FixedBench)" not in text:
        sys.exit(f"{name}.yaml: not a recipe as `hunkgen init` writes it (validate: / states:)")
    text = text.replace("validate:\n  reruns: 2\n", "validate:\n  necessary_hunks: false\n  reruns: 2\n", 1)
    text = text[: text.index("# Repository states (FixedBench)")]
    # A rule on necessary hunks needs the stage this variant leaves out.
    text = text.replace("\n  min_necessary_hunks:", "\n  # min_necessary_hunks:")
    out = recipe.with_name(f"{name}-v.yaml")
    out.write_text(text)
    print(f"wrote {out}")
