"""count_ops.py — operations in one C function's body, by one rule applied to both sides' C.

The rule: every binary + - * /, every unary minus, and every function call
(sin, cos, sqrt, pow, ...) counts 1. Array subscripts, assignments,
declarations and casts count 0; a number's exponent sign is part of the number.
"""
import re

TOKEN = re.compile(r"""
    (?P<num>(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)
  | (?P<id>[A-Za-z_]\w*)
  | (?P<op>[-+*/])
  | (?P<open>\()
  | (?P<other>[^\s\w])
""", re.X)


def function_body(source, name):
    """The text between the braces of the definition of `name`."""
    start = re.search(r"\b" + re.escape(name) + r"\([^;{]*\)\s*\{", source, re.S)
    if not start:
        raise ValueError(f"no definition of {name}")
    depth, i = 1, start.end()
    while depth:
        depth += {"{": 1, "}": -1}.get(source[i], 0)
        i += 1
    return source[start.end():i - 1]


def count(body):
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    body = re.sub(r"\[[^\]]*\]", "", body)  # subscripts
    body = re.sub(r"\(void\)", "", body)
    ops, prev = 0, None
    for m in TOKEN.finditer(body):
        kind = m.lastgroup
        if kind == "op":
            ops += 1  # binary, or unary minus after an operator, '(' , ',' or '='
        elif kind == "open" and prev is not None and prev[0] == "id":
            ops += 1  # a call
        prev = (kind, m.group())
    return ops


def count_function(path, name):
    with open(path) as f:
        return count(function_body(f.read(), name))
