"""profile_gen.py — where `lagrangec generate` spends its instructions (callgrind, inclusive), for the lead's performance work."""
import os
import re
import subprocess
import tempfile

import measure

# Library functions worth naming: GiNaC's differentiation and expansion, and
# the C++ exception machinery GiNaC's function::derivative goes through.
MARKERS = ("GiNaC::ex::diff(", "GiNaC::ex::expand(", "GiNaC::ex::subs(", "GiNaC::function::expl_derivative(",
           "__cxa_throw", "__dynamic_cast", "__strcmp")
MIN_SHARE = 0.02  # lagrangec's own functions below 2% are left out


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
