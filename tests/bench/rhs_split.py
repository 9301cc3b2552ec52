"""rhs_split.py — where one generated rhs spends its instructions, for the chains in Cartesian coordinates (issue
13, item 4): NAME_kkt_entries' parts (the loads and zeroing, M, f = Q - k, J, the stabilised right-hand sides r)
against the KKT factorisation and solve, from callgrind's cost per source line of the generated C; and what the
Baumgarte terms of r cost, as the instructions saved when the same C is compiled without them.

Alone: /usr/bin/python3 -B tests/bench/bench.py BUILD_DIR --only cartesian
"""
import os
import re
import sys

import chain_specs
import measure
import rod_chain

HERE = os.path.dirname(os.path.abspath(__file__))
CC = os.environ.get("CC", "cc")
CFLAGS = ["-std=c11", "-O2", "-g"]  # -g gives callgrind the source lines; gcc's code is the same without it
CALLS = 20
GRID, QUICK_GRID = (2, 5, 10, 20, 50), (2, 5)
PARTS = ("loads and zeroing", "M", "f", "J", "r", "factor", "solve", "dense loops", "rhs")
COMMANDS = ["LD_BIND_NOW=1 valgrind --tool=callgrind --dump-instr=yes --toggle-collect=bench_call RHS_HARNESS calls 20",
            "callgrind_annotate --auto=no PROFILE NAME.c    # Ir per line of the generated C, calls into libm included"]

# The comments that open each part of NAME_kkt_entries (gen/emit/emit_c.cpp prints them).
SECTION_COMMENTS = (("/* mass matrix", "M"), ("/* f = Q - k", "f"), ("/* constraint Jacobian", "J"),
                    ("/* stabilised right-hand side", "r"))
BAUMGARTE = ("baumgarte_alpha", "baumgarte_beta")


def parts_by_line(source, name):
    """{line number: part} for every line of the generated functions the rhs runs."""
    parts, function, section = {}, None, None
    for number, line in enumerate(source.splitlines(), 1):
        start = re.match(r"(?:static\s+)?(?:int|void)\s+(\w+)\(", line)
        if start:
            function, section = start.group(1), "loads and zeroing"
        if function is None:
            continue
        if function == f"{name}_kkt_entries":
            for comment, part in SECTION_COMMENTS:
                if line.strip().startswith(comment):
                    section = part
            parts[number] = section
        elif function in (f"{name}_zero", f"{name}_kkt_terms"):  # kkt_terms: zeroing, then kkt_entries
            parts[number] = "loads and zeroing"
        elif function in (f"{name}_factor_kkt", f"{name}_solve_kkt", f"{name}_rhs"):
            parts[number] = function[len(name) + 1:].replace("_kkt", "")
        elif function in (f"{name}_cholesky", f"{name}_cholesky_solve"):
            parts[number] = "dense loops"  # the dense-loop solve's helpers, called by the factor and the solve
        if line == "}":
            function = None
    return parts


def cost_by_line(profile, source_path):
    """{line: instructions} from callgrind_annotate's listing of source_path: each line's own instructions
    plus those of the calls it makes outside that file (libm's sqrt, libc's memset for a zeroing loop); a
    call within the file is counted in the callee's own lines."""
    text = measure.output(["callgrind_annotate", "--auto=no", "--show-percs=no", profile, source_path])
    costs, line, inside = {}, None, False
    for row in text.splitlines():
        if row.startswith("-- User-annotated source:"):
            inside = row.split(":", 1)[1].strip() == source_path
            continue
        if not inside:
            continue
        if row.startswith("-- line "):
            line = int(re.match(r"-- line (\d+)", row).group(1))
            continue
        call = re.match(r"\s*([\d,]+)\s+=> (.*?):", row)
        if call:
            if call.group(2) != source_path:
                costs[line - 1] = costs.get(line - 1, 0) + int(call.group(1).replace(",", ""))
            continue
        own = re.match(r"\s*([\d,]+|\.)\s", row)
        if own and line is not None:
            if own.group(1) != ".":
                costs[line] = costs.get(line, 0) + int(own.group(1).replace(",", ""))
            line += 1
    return costs


# Dropping the Baumgarte terms: a small parser for the generated expressions
# (numbers, names, subscripts, calls, unary minus, + - * /), which removes
# every term of a sum that involves baumgarte_alpha or baumgarte_beta, or a
# temporary made only of such terms, and prints the rest fully parenthesised.

TOKEN = re.compile(r"\s*(?:(\d+\.?\d*(?:[eE][-+]?\d+)?)|([A-Za-z_]\w*)|(.))")


def tokens(text):
    return [m.group(m.lastindex) for m in TOKEN.finditer(text) if m.lastindex]


class Expression:
    """expr := term (('+'|'-') term)*; term := unary (('*'|'/') unary)*; unary := '-' unary | primary;
    primary := number | name | name '[' expr ']' | name '(' expr (',' expr)* ')' | '(' expr ')'.
    Nodes: ('sum', [(sign, node)]), ('product', [(op, node)]), ('neg', node), ('leaf', text, names)."""

    def __init__(self, text):
        self.toks, self.i = tokens(text), 0

    def parse(self):
        node = self.sum()
        if self.i != len(self.toks):
            raise ValueError(f"unexpected {self.toks[self.i]!r}")
        return node

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, tok=None):
        t = self.toks[self.i]
        if tok is not None and t != tok:
            raise ValueError(f"expected {tok!r}, got {t!r}")
        self.i += 1
        return t

    def sum(self):
        terms = [("+", self.product())]
        while self.peek() in ("+", "-"):
            terms.append((self.take(), self.product()))
        return terms[0][1] if len(terms) == 1 else ("sum", terms)

    def product(self):
        factors = [("*", self.unary())]
        while self.peek() in ("*", "/"):
            factors.append((self.take(), self.unary()))
        return factors[0][1] if len(factors) == 1 else ("product", factors)

    def unary(self):
        if self.peek() == "-":
            self.take()
            return ("neg", self.unary())
        return self.primary()

    def primary(self):
        t = self.take()
        if t == "(":
            node = self.sum()
            self.take(")")
            return node
        if self.peek() in ("[", "("):
            close = {"[": "]", "(": ")"}[self.take()]
            args = [self.sum()]
            while self.peek() == ",":
                self.take()
                args.append(self.sum())
            self.take(close)
            opening = "[" if close == "]" else "("
            text = f"{t}{opening}{', '.join(show(a) for a in args)}{close}"
            return ("leaf", text, set().union(*(names(a) for a in args)) | {t})
        return ("leaf", t, {t})


def names(node):
    if node[0] == "leaf":
        return node[2]
    if node[0] == "neg":
        return names(node[1])
    return set().union(*(names(n) for _, n in node[1]))


def show(node):
    if node[0] == "leaf":
        return node[1]
    if node[0] == "neg":
        return f"(-{show(node[1])})"
    text = show(node[1][0][1])
    if node[1][0][0] == "-":
        text = f"(-{text})"
    for op, n in node[1][1:]:
        text = f"({text} {op} {show(n)})"
    return text


def without(node, dropped):
    """node with every sum term that mentions a name in `dropped` removed; None if nothing remains."""
    kind = node[0]
    if kind == "leaf":
        return None if node[2] & dropped else node
    if kind == "neg":
        inner = without(node[1], dropped)
        return None if inner is None else ("neg", inner)
    if kind == "product":
        if names(node) & dropped:
            # A product keeps its Baumgarte factor only through a sum inside it: trim that sum.
            factors = [(op, without(n, dropped)) for op, n in node[1]]
            return None if any(n is None for _, n in factors) else ("product", factors)
        return node
    terms = [(sign, without(n, dropped)) for sign, n in node[1]]
    terms = [(sign, n) for sign, n in terms if n is not None]
    return None if not terms else ("sum", terms) if len(terms) > 1 else (
        terms[0][1] if terms[0][0] == "+" else ("neg", terms[0][1]))


def baumgarte_free(source, name):
    """The generated C with the Baumgarte terms of NAME_kkt_entries removed (temporaries made only of them too)."""
    out, inside, dropped = [], False, set(BAUMGARTE)
    for line in source.splitlines():
        if line.startswith(f"static void {name}_kkt_entries("):
            inside = True
        elif inside and line == "}":
            inside = False
        m = re.match(r"(\s*)(const double (\w+)|out_\w+\[\d+\]) = (.*);$", line) if inside else None
        if m and names_in(m.group(4)) & dropped:
            kept = without(Expression(m.group(4)).parse(), dropped)
            if kept is None and m.group(3):
                dropped.add(m.group(3))
                continue
            line = f"{m.group(1)}{m.group(2)} = {show(kept) if kept else '0.0'};"
        out.append(line)
    return "\n".join(out) + "\n"


def names_in(text):
    return set(re.findall(r"[A-Za-z_]\w*", text))


def build(name, source_path, header_dir, exe):
    measure.output([CC] + CFLAGS + [f"-I{HERE}", f"-I{header_dir}", "-include", f"{name}.h",
                                    f"-DMODEL={name}", f"-DUMODEL={name.upper()}", f"{HERE}/lagrangec_adapter.c",
                                    source_path, f"{HERE}/bench_rhs.c", "-lm", "-o", exe])


def case(lagrangec, work, label, name, spec):
    out = os.path.join(work, name)
    os.makedirs(out, exist_ok=True)
    measure.output([lagrangec, "generate", "--no-jacobian", spec, "-o", out])
    source_path = os.path.join(out, f"{name}.c")
    with open(source_path) as f:
        source = f.read()
    exe, profile = os.path.join(out, "rhs"), os.path.join(out, "rhs.callgrind")
    build(name, source_path, out, exe)
    total = measure.callgrind_ir([exe, "calls", str(CALLS)], "bench_call", out=profile, instructions=True)
    lines = parts_by_line(source, name)
    split = dict.fromkeys(PARTS, 0)
    for line, ir in cost_by_line(profile, source_path).items():
        if line in lines:
            split[lines[line]] += ir
    # The same C without the Baumgarte terms, beside it under the same file name (its #include is the same).
    free_dir = os.path.join(out, "baumgarte_free")
    os.makedirs(free_dir, exist_ok=True)
    free_path = os.path.join(free_dir, f"{name}.c")
    with open(free_path, "w") as f:
        f.write(baumgarte_free(source, name))
    free_exe = os.path.join(free_dir, "rhs")
    build(name, free_path, out, free_exe)
    free_total = measure.callgrind_ir([free_exe, "calls", str(CALLS)], "bench_call")
    row = {"label": label, "name": name, "total": total / CALLS,
           "parts": {k: v / CALLS for k, v in split.items()}, "baumgarte": (total - free_total) / CALLS}
    row["elsewhere"] = row["total"] - sum(row["parts"].values())
    print(f"rhs split {name}: {row['total']:.0f} Ir, kkt_terms {sum(row['parts'][p] for p in PARTS[:5]):.0f}, "
          f"factor and solve {sum(row['parts'][p] for p in PARTS[5:8]):.0f}, Baumgarte {row['baumgarte']:.0f}, "
          f"other {row['elsewhere']:.0f}", file=sys.stderr, flush=True)
    return row


def section(ctx, res):
    work = os.path.join(ctx["work"], "rhs_split")
    os.makedirs(work, exist_ok=True)
    rows = []
    for n in QUICK_GRID if ctx["quick"] else GRID:
        name, spec = rod_chain.write(work, "cartesian", n)
        rows.append(case(ctx["lagrangec"], work, f"rods, {n} links", name, spec))
    name, spec = chain_specs.write(work, "cartesian", 10)
    rows.append(case(ctx["lagrangec"], work, "point masses (SymPy's chain), 10 links", name, spec))
    return rows


def report(res):
    rows = res.get("cartesian")
    if not rows:
        return []
    out = ["\n## Where a Cartesian chain's rhs goes\n",
           "One `NAME_rhs` of the chains in Cartesian coordinates (issue 13, item 4): the rod chains of the MuJoCo "
           "comparison, and SymPy's point-mass chain (diagonal M). `cc -std=c11 -O2 -g`, instructions per call "
           "from callgrind per source line of the generated C (`callgrind_annotate`), each line's calls into "
           "libm and libc (sqrt; memset for a zeroing loop) counted with it, summed by the part the line "
           "belongs to: in `NAME_kkt_entries` the loads of state and parameters (and the zeroing of M and J, "
           "in `NAME_kkt_terms`, only before a dense-loop solve: the straight-line one reads nothing else), M "
           "(lower triangle), f = Q − k, J, and r (the stabilised constraint right-hand sides: −c − αφ' − βφ); "
           "then the factorisations of M and J M⁻¹ Jᵀ (`NAME_factor_kkt`), the solves (`NAME_solve_kkt`), "
           "*dense loops*: the Cholesky helpers both call when the generated solve is the dense-loop one instead "
           "of straight-line code (the rod chains from 20 links: their M is banded, not diagonal, and the "
           "fill-in passes the straight-line limit), and `NAME_rhs`'s own lines (q' copied, the calls). "
           "*Baumgarte*: the instructions saved when the same C is compiled with the α and β terms of r removed "
           "(`rhs_split.baumgarte_free`), part of r. *other*: the harness's call.\n",
           "| chain | rhs Ir | loads, zeroing | M | f | J | r | of r: Baumgarte | factor | solve | dense loops "
           "| rhs | other | kkt_terms share | factor + solve share |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        p, total = r["parts"], r["total"]
        kkt = sum(p[k] for k in PARTS[:5])
        solve = p["factor"] + p["solve"] + p["dense loops"]
        out.append(f"| {r['label']} | {total:.0f} | " + " | ".join(f"{p[k]:.0f}" for k in PARTS[:5])
                   + f" | {r['baumgarte']:.0f} | " + " | ".join(f"{p[k]:.0f}" for k in PARTS[5:])
                   + f" | {r['elsewhere']:.0f} | {100 * kkt / total:.0f}% | {100 * solve / total:.0f}% |")
    return out
