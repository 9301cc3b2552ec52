#!/usr/bin/env python3
"""renamed_spec.py SPEC OUT NAME: SPEC with its top-level `name = "..."` line
set to NAME, so that a variant of a model (float, vakonomic) gets its own
prefix and links into one program beside the model of specs/."""
import re
import sys

spec, out, name = sys.argv[1:4]
if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
    sys.exit(f"renamed_spec.py: {name!r} is not a C identifier")
text = open(spec, encoding="utf-8").read()
renamed, count = re.subn(r'^name\s*=\s*"[^"]*"', f'name = "{name}"', text, flags=re.M)
if count != 1:
    sys.exit(f"renamed_spec.py: {spec} has {count} name lines, not one")
with open(out, "w", encoding="utf-8") as f:
    f.write(renamed)
