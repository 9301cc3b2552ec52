"""profile_gen.py — where `lagrangec generate` spends its instructions (callgrind, inclusive), for the lead's performance work."""
import os
import re
import subprocess
import sys
import tempfile

import chain_specs
import measure

# Library functions worth naming: GiNaC's differentiation and expansion, and
# the C++ exception machinery GiNaC's function::derivative goes through.
MARKERS = ("GiNaC::ex::diff(", "GiNaC::ex::expand(", "GiNaC::ex::subs(", "GiNaC::function::expl_derivative(",
           "__cxa_throw", "__dynamic_cast", "__strcmp")
MIN_SHARE = 0.02  # lagrangec's own functions below 2% are left out
CASES, QUICK_CASES = [("angles", 10), ("angles", 15), ("cartesian", 50)], [("angles", 4)]
COMMANDS = ["valgrind --tool=callgrind lagrangec generate SPEC -o DIR; callgrind_annotate --inclusive=yes"]


def short(name):
    """Drops argument lists and the anonymous namespace, keeps recursion marks out."""
    name = name.replace("(anonymous namespace)::", "").replace("[abi:cxx11]", "")
    return re.sub(r"\(.*", "", name)


def run(lagrangec, spec, work):
    """[(function, share of all instructions)] in descending order, plus the total."""
    out = os.path.join(work, "profile")
    os.makedirs(out, exist_ok=True)
    with tempfile.NamedTemporaryFile(suffix=".cg", dir=work) as cg:
        measure.stderr(["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg.name}",
                        lagrangec, "generate", spec, "-o", out])
        text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", cg.name],
                              capture_output=True, text=True, check=True).stdout
    total = int(re.search(r"^([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS", text, re.M).group(1).replace(",", ""))
    rows, seen = [], set()
    for m in re.finditer(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+\S*?:(.+?) \[", text, re.M):
        ir, fn = int(m.group(1).replace(",", "")), m.group(2)
        if re.search(r"'\d+$", fn):
            continue  # a recursive activation; the outermost one holds the inclusive cost
        mine = fn.startswith("lgc::") and ir >= MIN_SHARE * total
        if (mine or any(fn.startswith(k) for k in MARKERS)) and short(fn) not in seen:
            seen.add(short(fn))
            rows.append((short(fn), ir / total))
    return {"total_ir": total, "functions": rows}


def section(ctx, res):
    profiles = {}
    for form, n in QUICK_CASES if ctx["quick"] else CASES:
        name, spec = chain_specs.write(ctx["work"], form, n)
        print(f"profile {name}", file=sys.stderr, flush=True)
        profiles[name] = run(ctx["lagrangec"], spec, ctx["work"])
    return profiles


def report(res):
    if not res.get("profile"):
        return []
    out = ["\n## Where the generator spends its time\n",
           "`valgrind --tool=callgrind lagrangec generate SPEC`, inclusive instructions as a share of the whole "
           "run: lagrangec's own functions above 2%, and the GiNaC and C++ runtime functions that matter. "
           "Recursive functions are shown at their outermost call (GiNaC's diff and expand recurse through "
           "each other, so their shares overlap).\n"]
    for name, p in res["profile"].items():
        out.append(f"**{name}** ({p['total_ir'] / 1e9:.2f} G instructions):\n")
        out.append("| function | share |")
        out.append("|---|---:|")
        out += [f"| `{fn}` | {share * 100:.1f}% |" for fn, share in p["functions"]]
        out.append("")
    return out
