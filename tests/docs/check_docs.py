#!/usr/bin/env python3
"""check_docs.py links ROOT | man LAGRANGEC PAGE... — the documentation's own checks.

links: every reference in the Markdown a user reads (README.md,
BENCHMARKS.md, gen/README.md, runtime/README.md, docs/**/*.md) points at
something in this repository: a Markdown link or image resolves to a file
(relative to the page), a path written in the text (docs/..., specs/...,
tests/..., gen/..., runtime/..., generated/..., .ci/...; globs allowed)
exists, and a section cited as FILE.md, "Title" (or FILE.md's "Title") is a
heading or a bold paragraph lead of that file. No file of the repository's
sources cites the design notes kept beside it, outside it (the parent
directory's shared/ folder, or the design document by name), docs/theory.md
aside: the theory is docs/theory.md.

man: each page built from a command's --help (docs/man) holds every line
of that --help, and every command `lagrangec --help` lists has a page.
Prints each failure with its file and line; exit status 1 if any."""
import glob
import os
import re
import subprocess
import sys

PAGES = ["README.md", "BENCHMARKS.md", "gen/README.md", "runtime/README.md"]
# The repository's own trees: what a path in the text may start with.
TREES = ("docs", "specs", "tests", "gen", "runtime", "generated", r"\.ci")
LINK = re.compile(r"\]\(([^)\s]+)\)")
PATH = re.compile(r"(?<![\w./$@-])((?:" + "|".join(TREES) + r")/[\w./*-]*[\w*/])")
SECTION = re.compile(r"((?:docs/|gen/|runtime/)?[\w-]+\.md)(?:'s)?,?\s+\"([^\"]+)\"")
# Written so that this file does not match itself.
OUTSIDE = re.compile(r"\.\.[/]shared|DESIGN[.]md")

failures = []


def fail(where, what):
    failures.append(f"{where}: {what}")


def words(text):
    return " ".join(text.replace("`", "").split())


def titles(path):
    text = open(path, encoding="utf-8").read()
    found = [m.group(1) for m in re.finditer(r"^#+\s+(.*)$", text, re.M)]
    found += [m.group(1) for m in re.finditer(r"\*\*([^*]+?)\*\*", text)]
    return [words(t) for t in found]


def line_of(text, at):
    return text.count("\n", 0, at) + 1


def check_page(root, page, counts):
    text = open(os.path.join(root, page), encoding="utf-8").read()
    here = os.path.dirname(page)
    for m in LINK.finditer(text):
        target = m.group(1)
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        counts["links"] += 1
        if not os.path.exists(os.path.join(root, here, target.split("#")[0])):
            fail(f"{page}:{line_of(text, m.start())}", f"link to {target}, which is not in the repository")
    for m in PATH.finditer(text):
        path = m.group(1).rstrip(".")
        counts["paths"] += 1
        if not glob.glob(os.path.join(root, path)):
            fail(f"{page}:{line_of(text, m.start())}", f"{path} is not in the repository")
    for m in SECTION.finditer(text):
        target, section = m.group(1), words(m.group(2))
        if target.startswith("NAME"):  # a model's report, NAME.md: not a file here
            continue
        counts["sections"] += 1
        where = f"{page}:{line_of(text, m.start())}"
        candidates = [os.path.join(root, target), os.path.join(root, here, target), os.path.join(root, "docs", target)]
        path = next((c for c in candidates if os.path.isfile(c)), None)
        if path is None:
            fail(where, f"{target} (cited for \"{section}\") is not in the repository")
        elif not any(section in t for t in titles(path)):
            fail(where, f"{target} has no heading or bold lead \"{section}\"")


def links(root):
    pages = list(PAGES)
    for d, _, names in os.walk(os.path.join(root, "docs")):
        pages += sorted(os.path.relpath(os.path.join(d, n), root) for n in names if n.endswith(".md"))
    counts = {"links": 0, "paths": 0, "sections": 0}
    for page in pages:
        check_page(root, page, counts)
    sources = 0
    for top in ["README.md", "BENCHMARKS.md", "meson.build", "meson_options.txt", ".ci", "docs", "gen", "runtime",
                "specs", "tests", "generated"]:
        start = os.path.join(root, top)
        files = [start] if os.path.isfile(start) else \
            [os.path.join(d, n) for d, _, names in os.walk(start) for n in names]
        for f in files:
            rel = os.path.relpath(f, root)
            if rel == os.path.join("docs", "theory.md"):
                continue
            try:
                text = open(f, encoding="utf-8").read()
            except UnicodeDecodeError:
                continue
            sources += 1
            for m in OUTSIDE.finditer(text):
                fail(f"{rel}:{line_of(text, m.start())}", f"cites {m.group(0)}, which is outside the repository")
    print(f"{len(pages)} pages: {counts['links']} links, {counts['paths']} paths, "
          f"{counts['sections']} sections checked; {sources} source files checked for references outside the repository")


def unroff(line):
    line = line[2:] if line.startswith("\\&") else line
    return line.replace("\\e", "\\")


def man(lagrangec, pages):
    by_command = {}
    for page in pages:
        name = os.path.basename(page)[:-len(".1")]
        by_command["lagrangec" if name == "lagrangec" else name[len("lagrangec-"):]] = page
    top = subprocess.run([lagrangec, "--help"], check=True, capture_output=True, text=True).stdout
    listed = re.findall(r"^  ([a-z]+) ", top.split("commands:", 1)[1], re.M)
    for command in sorted(set(listed) - set(by_command)):
        fail(f"lagrangec --help", f"lists '{command}', which has no man page in docs/man/meson.build")
    for command, page in sorted(by_command.items()):
        argv = [lagrangec, "--help"] if command == "lagrangec" else [lagrangec, command, "--help"]
        help_text = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
        body = {unroff(l).strip() for l in open(page, encoding="utf-8").read().split("\n") if not l.startswith(".")}
        missing = 0
        for n, line in enumerate(help_text.split("\n"), 1):
            want = line.replace("usage: ", "", 1).strip()
            if want and want not in body:
                fail(f"{page}", f"'{' '.join(argv[1:])}' line {n} is not on the page: {want}")
                missing += 1
        print(f"{os.path.basename(page)}: {len(help_text.splitlines())} lines of --help, {missing} missing")


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "links":
        links(sys.argv[2])
    elif len(sys.argv) >= 4 and sys.argv[1] == "man":
        man(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(__doc__)
    for f in failures:
        print(f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
