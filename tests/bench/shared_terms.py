"""shared_terms.py — how many temporaries of a generated model's derivative blocks recompute a value the
rhs side (NAME_kkt_entries) already computed.

    python3 tests/bench/shared_terms.py generated/bicycle.c [more.c ...]

Each `const REAL NAME = EXPR;` of a function is parsed and put in a canonical form that does not depend on
how the block printed it: temporaries and the sums built from other sums (w + m5 for m3 + m4 + m5) are
expanded, sums and products flattened and sorted, numbers collected. A temporary of
NAME_residual_derivatives or NAME_residual_parameter_derivatives *recomputes* when its canonical form is
that of a temporary of NAME_kkt_entries; one loaded from the rhs's work (`= terms[...]`, `= in_terms[...]`)
is *read*, not recomputed. Loads of the state, parameters and inputs are symbols. Prints, per derivative
block: temporaries, recomputed (of them sin/cos, and those whose definition in kkt_entries is one
operation by count_ops.py's rule), read.
"""
import re
import sys

import count_ops

TOKEN = re.compile(r"\s*(?:(?P<num>(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?[fF]?)|(?P<id>[A-Za-z_]\w*(\[[^\]]*\])?)|(?P<op>[-+*/(),]))")

_keys = {}


def intern(key):
    return _keys.setdefault(key, len(_keys))


def function_body(source, name):
    start = re.search(r"\b" + re.escape(name) + r"\([^;{]*\)\s*\{", source, re.S)
    if not start:
        return None
    depth, i = 1, start.end()
    while depth:
        depth += {"{": 1, "}": -1}.get(source[i], 0)
        i += 1
    return source[start.end():i - 1]


def tokens(text):
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ValueError(f"cannot read {text[pos:pos + 20]!r}")
        out.append((m.lastgroup, m.group(m.lastgroup)))
        pos = m.end()
    return out


# Linear forms: (constant, ((term key, coefficient), ...)) sorted; a term key is an interned int.
def linear(const, terms):
    items = tuple(sorted((k, c) for k, c in terms.items() if c != 0))
    return (const, items)


def number_form(v):
    return (v, ())


def term_of(form):
    """The form as one term key and coefficient (a sum of several terms is one opaque key)."""
    const, items = form
    if const == 0 and len(items) == 1:
        return items[0]
    return intern(("sum", const, items)), 1.0


def add(a, b, sign):
    terms = dict(a[1])
    for k, c in b[1]:
        terms[k] = terms.get(k, 0) + sign * c
    return linear(a[0] + sign * b[0], terms)


def factors_of(key):
    node = _reverse.get(key)
    if node and node[0] == "mul":
        return dict(node[1])
    return {key: 1}


_reverse = {}


def product_key(factors):
    items = tuple(sorted((k, e) for k, e in factors.items() if e != 0))
    if len(items) == 1 and items[0][1] == 1:
        return items[0][0]
    key = intern(("mul", items))
    _reverse[key] = ("mul", items)
    return key


def multiply(a, b, exponent):
    if not b[1] and exponent == -1:
        return linear(a[0] / b[0], {k: c / b[0] for k, c in a[1]})
    if not b[1]:
        return linear(a[0] * b[0], {k: c * b[0] for k, c in a[1]})
    if not a[1] and exponent == 1:
        return multiply(b, a, 1)
    if not a[1]:  # number / form
        bk, bc = term_of(b)
        return linear(0, {product_key({bk: -1}): a[0] / bc})
    if exponent == 1 and len(b[1]) > 1 and b[0] == 0 and len(a[1]) == 1 and a[0] == 0:
        pass
    ak, ac = term_of(a)
    bk, bc = term_of(b)
    f = factors_of(ak)
    for k, e in factors_of(bk).items():
        f[k] = f.get(k, 0) + exponent * e
    return linear(0, {product_key(f): ac * (bc if exponent == 1 else 1 / bc)})


class Parser:
    def __init__(self, toks, env):
        self.t, self.i, self.env = toks, 0, env

    def peek(self):
        return self.t[self.i][1] if self.i < len(self.t) else None

    def take(self):
        self.i += 1
        return self.t[self.i - 1]

    def expr(self):
        sign = 1
        if self.peek() == "-":
            self.take()
            sign = -1
        form = self.product()
        if sign < 0:
            form = add(number_form(0), form, -1)
        while self.peek() in ("+", "-"):
            op = self.take()[1]
            form = add(form, self.product(), 1 if op == "+" else -1)
        return form

    def product(self):
        form = self.atom()
        while self.peek() in ("*", "/"):
            op = self.take()[1]
            form = multiply(form, self.atom(), 1 if op == "*" else -1)
        return form

    def atom(self):
        kind, text = self.take()
        if kind == "num":
            return number_form(float(text.rstrip("fF")))
        if text == "(":
            form = self.expr()
            assert self.take()[1] == ")"
            return form
        if text == "-":
            return add(number_form(0), self.atom(), -1)
        if kind == "id" and self.peek() == "(":
            self.take()
            args = []
            while True:
                args.append(self.expr())
                if self.take()[1] == ")":
                    break
            name = text.rstrip("f") if text.rstrip("f") in ("sin", "cos", "sqrt", "pow", "exp", "log", "fabs", "tan",
                                                            "atan2", "asin", "acos", "atan") else text
            key = intern(("call", name, tuple(intern(("arg",) + a[1:] + (a[0],)) for a in args)))
            _reverse[key] = ("call", name)
            return linear(0, {key: 1.0})
        if text in self.env:
            return self.env[text]
        return linear(0, {intern(("sym", text)): 1.0})


def temporaries(source, function, shared=None):
    """(name, canonical form, how) of each temporary of `function`: how is 'computed', 'read' (from the
    rhs's work) or 'symbol' (a load of the state, parameters or inputs)."""
    body = function_body(source, function)
    if body is None:
        return None
    env, out = {}, []
    for m in re.finditer(r"const \w+ (\w+) = ([^;]*);", body):
        name, text = m.group(1), m.group(2).strip()
        if re.fullmatch(r"(in_|out_)?terms\[[^\]]*\]", text):
            env[name] = shared[name]
            out.append((name, env[name], "read", text))
            continue
        if re.fullmatch(r"(state|param|input)\[\d+\]", text):
            env[name] = linear(0, {intern(("sym", text)): 1.0})
            out.append((name, env[name], "symbol", text))
            continue
        form = Parser(tokens(text), env).expr()
        env[name] = form
        out.append((name, form, "computed", text))
    return out


def is_trig(form):
    const, items = form
    if const != 0 or len(items) != 1 or items[0][1] != 1:
        return False
    node = _reverse.get(items[0][0])
    return bool(node) and node[0] == "call" and node[1] in ("sin", "cos")


def report(path):
    source = open(path).read()
    name = re.search(r"^(?:static )?void (\w+)_kkt_entries\(", source, re.M)
    if not name:
        print(f"{path}: no kkt_entries")
        return
    model = name.group(1)
    kkt = temporaries(source, f"{model}_kkt_entries")
    by_name = {n: f for n, f, how, _ in kkt}
    # canonical form -> operations of its definition in kkt_entries (count_ops.py's rule)
    computed = {f: count_ops.count(text) for _, f, how, text in kkt if how == "computed"}
    print(f"{path}: {model}_kkt_entries computes {len(computed)} temporaries; {len(source.splitlines())} lines")
    for block in ("residual_derivatives", "residual_parameter_derivatives"):
        temps = temporaries(source, f"{model}_{block}", by_name)
        if temps is None:
            print(f"  {model}_{block}: none")
            continue
        own = [(n, f) for n, f, how, _ in temps if how == "computed"]
        again = [(n, f) for n, f in own if f in computed]
        read = sum(1 for _, _, how, _ in temps if how == "read")
        trig = sum(1 for _, f in again if is_trig(f))
        single = sum(1 for _, f in again if computed[f] == 1)
        print(f"  {model}_{block}: {len(own)} temporaries computed, {len(again)} of them recompute one of "
              f"kkt_entries ({trig} sin/cos, {single} of one operation), {read} read from the rhs's work")


if __name__ == "__main__":
    for p in sys.argv[1:]:
        report(p)
