#!/usr/bin/env python3
"""cross_build.py LAGRANGEC SPECS_DIR EXAMPLE SPEC [EXAMPLE SPEC ...] [--readme docs/embedding.md]

Cross-builds the generated C of every spec in SPECS_DIR, in double and in
float, and each embedding example EXAMPLE on the model of its SPEC (linked
with newlib's libc and libm; a SPEC outside SPECS_DIR gets a row of its
own), for a Cortex-M4F with arm-none-eabi-gcc.
Prints, per model and precision, the code size (arm-none-eabi-size's text)
and the worst stack use of the generated functions: the deepest call chain
of their frames (-fcallgraph-info=su; libm's own frames not counted), beside
the estimate `generate` writes as NAME_STACK_ESTIMATE. Exit 0 when all
build and no model takes more stack than its estimate; 1 otherwise; 77 (meson's skip) when the toolchain or newlib is
missing, saying which. With --readme FILE, the table replaces the one
between FILE's cross-build markers.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

TARGET = ["-mcpu=cortex-m4", "-mfpu=fpv4-sp-d16", "-mfloat-abi=hard"]
STRICT = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-O2"]
PRECISION_FLAGS = {"double": ["-Wconversion"], "float": ["-Wconversion", "-Wdouble-promotion"]}
BEGIN = ("<!-- cross-build table: python3 tests/embed/cross_build.py build/gen/lagrangec specs "
         "tests/embed/control_loop.c specs/cart_pendulum.toml "
         "tests/embed/computed_torque.c tests/embed/specs/two_link_arm.toml --readme docs/embedding.md -->")
END = "<!-- end of the cross-build table -->"


# ccache (where a developer's PATH puts it first) answers a hit with the
# object alone, without -fcallgraph-info's .ci file: every compile runs.
ENV = dict(os.environ, CCACHE_DISABLE="1")


def run(args, cwd):
    r = subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=ENV)
    if r.returncode != 0:
        sys.stderr.write(f"failed: {' '.join(args)}\n{r.stdout}{r.stderr}")
        sys.exit(1)
    return r.stdout


def text_size(size_tool, path, cwd):
    """The text segment's bytes, from arm-none-eabi-size's Berkeley table."""
    return int(run([size_tool, path], cwd).splitlines()[1].split()[0])


def worst_chain(ci_path):
    """The largest sum of frames along a call chain of the file's functions."""
    frame, calls = {}, {}
    for line in open(ci_path, encoding="utf-8"):
        node = re.match(r'node: \{ title: "([^"]+)" label: "[^"]*\\n(\d+) bytes', line)
        if node:
            frame[node.group(1)] = int(node.group(2))
        edge = re.match(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"', line)
        if edge:
            calls.setdefault(edge.group(1), set()).add(edge.group(2))
    memo = {}

    def chain(name, seen=()):
        if name not in frame or name in seen:  # libm, or recursion (none is generated)
            return 0
        if name not in memo:
            memo[name] = frame[name] + max((chain(c, seen + (name,)) for c in calls.get(name, ())), default=0)
        return memo[name]

    return max((chain(f) for f in frame), default=0)


def stack_estimate(header):
    m = re.search(r"#define \w+_STACK_ESTIMATE (\d+)", open(header, encoding="utf-8").read())
    return int(m.group(1))


def main():
    args = sys.argv[1:]
    readme = None
    if "--readme" in args:
        i = args.index("--readme")
        readme = args[i + 1]
        del args[i:i + 2]
    if len(args) < 4 or len(args) % 2:
        sys.stderr.write(__doc__)
        return 2
    lagrangec, specs_dir = (os.path.abspath(a) for a in args[:2])
    examples = [(os.path.abspath(args[i]), os.path.abspath(args[i + 1])) for i in range(2, len(args), 2)]
    gcc, size_tool = shutil.which("arm-none-eabi-gcc"), shutil.which("arm-none-eabi-size")
    if not gcc or not size_tool:
        print("skipped: arm-none-eabi-gcc is not installed (apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi)")
        return 77
    libc = subprocess.run([gcc] + TARGET + ["-print-file-name=libc.a"], capture_output=True, text=True).stdout.strip()
    if not os.path.isabs(libc):
        print("skipped: newlib for arm-none-eabi is not installed (apt-get install libnewlib-arm-none-eabi)")
        return 77
    version = run([gcc, "-dumpversion"], ".").strip()
    specs = sorted(os.path.splitext(f)[0] for f in os.listdir(specs_dir) if f.endswith(".toml"))
    spec_paths = [os.path.join(specs_dir, s + ".toml") for s in specs]
    for _, spec in examples:  # an example's model from outside SPECS_DIR is built and measured as theirs are
        name = os.path.splitext(os.path.basename(spec))[0]
        if name in specs and not os.path.samefile(spec, spec_paths[specs.index(name)]):
            sys.stderr.write(f"{spec}: a model named {name} is in {specs_dir} already\n")
            return 2
        if name not in specs:
            specs.append(name)
            spec_paths.append(spec)
    rows = {name: {} for name in specs}
    with tempfile.TemporaryDirectory(prefix="lagrangec-cross-") as tmp:
        for precision, flags in PRECISION_FLAGS.items():
            out = os.path.join(tmp, precision)
            run([lagrangec, "generate"] + spec_paths + ["-o", out, "--real", precision], tmp)
            for name in specs:
                run([gcc] + TARGET + STRICT + flags + ["-fstack-usage", "-fcallgraph-info=su", "-c", name + ".c",
                     "-o", name + ".o"], out)
                rows[name][precision] = (text_size(size_tool, name + ".o", out), worst_chain(os.path.join(out, name + ".ci")),
                                         stack_estimate(os.path.join(out, name + ".h")))
            for example, spec in examples:
                source = os.path.basename(example)
                elf = os.path.join(out, os.path.splitext(source)[0] + ".elf")
                model = os.path.splitext(os.path.basename(spec))[0] + ".c"
                run([gcc] + TARGET + STRICT + flags + ["-I", out, example, model,
                     "--specs=nosys.specs", "-lm", "-o", elf], out)
                rows.setdefault(f"{source} on {model} (linked, newlib)", {})[precision] = (
                    text_size(size_tool, elf, out), None, None)

    lines = [f"Cortex-M4F, arm-none-eabi-gcc {version}, `{' '.join(TARGET + STRICT)} -Wconversion` (and "
             "`-Wdouble-promotion` for float):",
             "code size (text bytes of NAME.c's object) and stack: the deepest call chain of the generated functions",
             "(`-fcallgraph-info=su` frames, libm's not counted) / generate's estimate, NAME_STACK_ESTIMATE.", "",
             "| model | double: code | double: stack / estimate | float: code | float: stack / estimate |",
             "|---|---:|---:|---:|---:|"]
    for name, r in rows.items():
        cells = []
        for precision in PRECISION_FLAGS:
            code, stack, estimate = r[precision]
            cells += [str(code), "" if stack is None else f"{stack} / {estimate}"]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    table = "\n".join(lines) + "\n"
    print(table, end="")
    under = [f"{name} ({precision}: {r[precision][1]} > {r[precision][2]})" for name, r in rows.items()
             for precision in PRECISION_FLAGS if r[precision][1] is not None and r[precision][1] > r[precision][2]]
    if under:
        sys.stderr.write("stack above generate's estimate: " + ", ".join(under) + "\n")
        return 1
    if readme:
        text = open(readme, encoding="utf-8").read()
        start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
        tmp_path = f"{readme}.{os.getpid()}.tmp"
        with open(tmp_path, "w", encoding="utf-8") as f:
            f.write(text[:start] + "\n" + table + text[end:])
        os.replace(tmp_path, readme)
    return 0


if __name__ == "__main__":
    sys.exit(main())
