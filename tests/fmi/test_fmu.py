#!/usr/bin/env python3
"""test_fmu.py — `lagrangec fmu` as an importer sees it.

  test_fmu.py LAGRANGEC IMPORTER SPECS_DIR all-specs
      every spec in SPECS_DIR exports (or is refused with a reason); each
      FMU is a zip whose modelDescription.xml keeps the standard's rules
      (validate_description) and whose library and sources are where it says;
      one FMU's sources/ rebuild into a library with $CC.
  test_fmu.py LAGRANGEC IMPORTER SPECS_DIR checks
      the importer's state-machine checks (fmu_import.c) on two FMUs.
  test_fmu.py LAGRANGEC IMPORTER SPECS_DIR trajectories
      Co-Simulation and Model Exchange (the importer's RK4 with events)
      against `lagrangec simulate` over 5 s (trajectories()); prints the table.
  test_fmu.py LAGRANGEC IMPORTER SPECS_DIR structure
      ModelStructure's dependencies where they are known exactly, units and
      descriptions from the spec; prints the dependency counts (structure()).
  test_fmu.py LAGRANGEC IMPORTER SPECS_DIR tunable
      a parameter tuned mid-run against simulate from that point (tunable()).
  test_fmu.py LAGRANGEC IMPORTER SPECS_DIR usage
      the command's mistakes: exit 2 and a message.
"""
import csv
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zipfile

LAGRANGEC, IMPORTER, SPECS, WHAT = sys.argv[1:5]
SCRATCH = tempfile.mkdtemp(prefix="fmu-test-")
ENV = dict(os.environ, LAGRANGEC_CACHE=os.path.join(SCRATCH, "cache"))
failures = []


def fail(message):
    failures.append(message)
    print("FAIL:", message)


def export(spec, *options):
    name = os.path.splitext(os.path.basename(spec))[0]
    path = os.path.join(SCRATCH, name + "".join(options).replace("-", "") + ".fmu")
    r = subprocess.run([LAGRANGEC, "fmu", spec, "-o", path, *options], capture_output=True, text=True, env=ENV)
    return r, path


def unzip(path):
    """The FMU unzipped into a directory of its own: (directory, root of its modelDescription.xml)."""
    with zipfile.ZipFile(path) as z:
        bad = z.testzip()
        if bad:
            fail(f"{path}: {bad} fails its CRC")
        target = tempfile.mkdtemp(dir=SCRATCH)
        z.extractall(target)
    return target, ET.parse(os.path.join(target, "modelDescription.xml")).getroot()


# The legal (causality, variability) pairs and the initial each allows
# (FMI 2.0, section 2.2.7's table; None: no initial attribute).
LEGAL = {
    ("parameter", "fixed"): {"exact"}, ("parameter", "tunable"): {"exact"},
    ("calculatedParameter", "fixed"): {"calculated", "approx"},
    ("calculatedParameter", "tunable"): {"calculated", "approx"},
    ("input", "discrete"): {None}, ("input", "continuous"): {None},
    ("output", "constant"): {"exact"}, ("output", "discrete"): {"calculated", "exact", "approx"},
    ("output", "continuous"): {"calculated", "exact", "approx"},
    ("local", "constant"): {"exact"}, ("local", "fixed"): {"calculated", "approx"},
    ("local", "tunable"): {"calculated", "approx"}, ("local", "discrete"): {"calculated", "exact", "approx"},
    ("local", "continuous"): {"calculated", "exact", "approx"},
    ("independent", "continuous"): {None},
}


def default_initial(causality, variability):
    """initial where the attribute is left out (the same table)."""
    if causality in ("input", "independent"):
        return None
    if causality == "parameter" or variability == "constant":
        return "exact"
    return "calculated"


def validate_description(where, directory, root, report=fail):
    """The rules of the standard's schema this test can express, each reported where broken."""
    def bad(message):
        report(f"{where}: {message}")

    if root.tag != "fmiModelDescription" or root.get("fmiVersion") != "2.0":
        bad("not an FMI 2.0 fmiModelDescription")
    for attr in ("modelName", "guid"):
        if not root.get(attr):
            bad(f"no {attr}")
    kinds = [root.find(k) for k in ("ModelExchange", "CoSimulation")]
    if not any(k is not None for k in kinds):
        bad("neither ModelExchange nor CoSimulation")
    for kind in kinds:
        if kind is None:
            continue
        ident = kind.get("modelIdentifier")
        if not ident or not (ident[0].isalpha() or ident[0] == "_") or not all(c.isalnum() or c == "_" for c in ident):
            bad(f"modelIdentifier {ident!r} is no C identifier")
        if not os.path.isfile(os.path.join(directory, "binaries", "linux64", f"{ident}.so")):
            bad(f"no binaries/linux64/{ident}.so")
        for f in kind.iter("File"):
            if not os.path.isfile(os.path.join(directory, "sources", f.get("name"))):
                bad(f"SourceFiles names {f.get('name')}, not in sources/")
    enumerations = {}
    for simple in root.iter("SimpleType"):
        items = simple.find("Enumeration")
        if items is not None:
            enumerations[simple.get("name")] = {int(item.get("value")) for item in items.findall("Item")}
    variables = root.find("ModelVariables").findall("ScalarVariable")
    n = len(variables)
    names, refs = set(), set()
    for i, v in enumerate(variables, 1):
        name, vr = v.get("name"), v.get("valueReference")
        if name in names:
            bad(f"two variables named {name}")
        names.add(name)
        kind = v[0].tag if len(v) else None
        if kind not in ("Real", "Integer", "Boolean", "String", "Enumeration"):
            bad(f"{name}: no type element ({kind})")
            continue
        base = "Integer" if kind == "Enumeration" else kind  # an Enumeration's values are Integers'
        if vr is None or not vr.isdigit():
            bad(f"{name}: valueReference {vr!r}")
        elif (base, vr) in refs:
            bad(f"{name}: valueReference {vr} taken twice (both {base})")
        refs.add((base, vr))
        causality, variability = v.get("causality", "local"), v.get("variability", "continuous")
        initial = v.get("initial")
        pair = (causality, variability)
        if pair not in LEGAL:
            bad(f"{name}: causality {causality} with variability {variability}")
            continue
        allowed = LEGAL[pair]
        if initial is not None and initial not in allowed:
            bad(f"{name}: initial {initial} with {pair}")
        real = v[0]
        if kind == "Enumeration":
            declared = real.get("declaredType")
            if declared not in enumerations:
                bad(f"{name}: declaredType {declared!r} is no Enumeration of TypeDefinitions")
            elif real.get("start") is not None and int(real.get("start")) not in enumerations[declared]:
                bad(f"{name}: start {real.get('start')} is no item of {declared}")
        effective = initial if initial is not None else default_initial(causality, variability)
        has_start = real.get("start") is not None
        needs_start = causality in ("parameter", "input") or effective in ("exact", "approx")
        if needs_start != has_start:
            bad(f"{name}: start {'missing' if needs_start else 'given'} with initial {effective}")
        if has_start:
            float(real.get("start"))
        der = real.get("derivative")
        if der is not None and kind != "Real":
            bad(f"{name}: derivative= on a {kind}")
        if der is not None:
            k = int(der)
            if not 1 <= k <= n or variables[k - 1].get("variability", "continuous") != "continuous":
                bad(f"{name}: derivative={der} is no continuous variable")
    structure = root.find("ModelStructure")
    listed = {}
    for part in ("Outputs", "Derivatives", "InitialUnknowns"):
        element = structure.find(part)
        indices = [int(u.get("index")) for u in element.findall("Unknown")] if element is not None else []
        listed[part] = indices
        if indices != sorted(set(indices)):
            bad(f"{part}' indices are not ascending and unique")
        for k in indices:
            if not 1 <= k <= n:
                bad(f"{part}: index {k} is no variable (1..{n})")
    outputs = [i for i, v in enumerate(variables, 1) if v.get("causality") == "output"]
    if listed["Outputs"] != outputs:
        bad(f"Outputs {listed['Outputs']} are not the outputs {outputs}")
    derivatives = [i for i, v in enumerate(variables, 1) if len(v) and v[0].get("derivative") is not None]
    if listed["Derivatives"] != derivatives:
        bad(f"Derivatives {listed['Derivatives']} are not the variables with a derivative {derivatives}")
    states = {int(variables[k - 1][0].get("derivative")) for k in derivatives}
    initial_unknowns = sorted(
        set(i for i in outputs if variables[i - 1].get("initial", "calculated") in ("calculated", "approx"))
        | set(derivatives)
        | set(i for i in states if variables[i - 1].get("initial") in ("calculated", "approx"))
        | set(i for i, v in enumerate(variables, 1) if v.get("causality") == "calculatedParameter"))
    if listed["InitialUnknowns"] != initial_unknowns:
        bad(f"InitialUnknowns {listed['InitialUnknowns']} are not {initial_unknowns}")
    validate_dependencies(bad, root, variables, states)
    validate_units(bad, root, variables)
    int(root.get("numberOfEventIndicators", "0"))


def validate_dependencies(bad, root, variables, states):
    """ModelStructure's dependencies (FMI 2.0, section 2.2.8): ascending indices of
    variables, in Outputs and Derivatives of states and inputs, in InitialUnknowns of
    inputs and variables whose initial is exact; dependenciesKind as long, of the
    kinds allowed there (InitialUnknowns: dependent and constant only)."""
    structure = root.find("ModelStructure")
    n = len(variables)
    inputs = {i for i, v in enumerate(variables, 1) if v.get("causality") == "input"}
    exact = {i for i, v in enumerate(variables, 1)
             if v.get("initial", default_initial(v.get("causality", "local"), v.get("variability", "continuous")))
             == "exact"}
    for part, knowns, kinds in (("Outputs", states | inputs, {"dependent", "constant", "fixed", "tunable", "discrete"}),
                                ("Derivatives", states | inputs, {"dependent", "constant", "fixed", "tunable", "discrete"}),
                                ("InitialUnknowns", inputs | exact, {"dependent", "constant"})):
        element = structure.find(part)
        for u in element.findall("Unknown") if element is not None else []:
            index, text, kind_text = u.get("index"), u.get("dependencies"), u.get("dependenciesKind")
            if text is None:
                if kind_text is not None:
                    bad(f"{part}: Unknown {index} has dependenciesKind without dependencies")
                continue
            if not all(k.isdigit() for k in text.split()):
                bad(f"{part}: Unknown {index}: dependencies {text!r} are not indices")
                continue
            deps = [int(k) for k in text.split()]
            if deps != sorted(set(deps)):
                bad(f"{part}: Unknown {index}: dependencies {deps} are not ascending and unique")
            for k in deps:
                if not 1 <= k <= n:
                    bad(f"{part}: Unknown {index}: dependency {k} is no variable (1..{n})")
                elif k not in knowns:
                    bad(f"{part}: Unknown {index}: dependency {k} ({variables[k - 1].get('name')}) is no known there")
            if kind_text is not None:
                listed_kinds = kind_text.split()
                if len(listed_kinds) != len(deps):
                    bad(f"{part}: Unknown {index}: {len(listed_kinds)} dependenciesKind for {len(deps)} dependencies")
                for kind in listed_kinds:
                    if kind not in kinds:
                        bad(f"{part}: Unknown {index}: dependenciesKind {kind} not allowed there")


def validate_units(bad, root, variables):
    """UnitDefinitions: unique names, integer base-unit exponents; each unit= one of them."""
    units = root.find("UnitDefinitions")
    names = [u.get("name") for u in units.findall("Unit")] if units is not None else []
    if units is not None and not names:
        bad("UnitDefinitions without a Unit")
    if len(names) != len(set(names)) or not all(names):
        bad(f"unit names empty or repeated: {names}")
    for u in units.findall("Unit") if units is not None else []:
        for base in u.findall("BaseUnit"):
            for attr, value in base.attrib.items():
                if attr in ("factor", "offset"):
                    float(value)
                elif attr not in ("kg", "m", "s", "A", "K", "mol", "cd", "rad") or not value.lstrip("-").isdigit():
                    bad(f"unit {u.get('name')}: BaseUnit {attr}={value!r}")
    for v in variables:
        unit = v[0].get("unit") if len(v) else None
        if unit is not None and unit not in names:
            bad(f"{v.get('name')}: unit {unit!r} is not in UnitDefinitions")


def all_specs():
    specs = sorted(f for f in os.listdir(SPECS) if f.endswith(".toml"))
    for spec in specs:
        r, path = export(os.path.join(SPECS, spec))
        if r.returncode != 0:
            # Refused: with a reason, never a crash.
            if r.returncode != 1 or "lagrangec:" not in r.stderr and "error:" not in r.stderr:
                fail(f"{spec}: exit {r.returncode} without a reason: {r.stderr}")
            print(f"{spec}: refused: {r.stderr.strip()}")
            continue
        directory, root = unzip(path)
        validate_description(spec, directory, root)
        print(f"{spec}: {os.path.getsize(path)} bytes, {len(root.find('ModelVariables'))} variables")
    # generate's options: without the Jacobian no directional derivatives; vakonomic, mu among the states.
    for options, check in ((("--no-jacobian",), lambda root: root.find("ModelExchange").get(
                               "providesDirectionalDerivative") == "false"),
                           (("--formulation", "vakonomic"), lambda root: "der(mu1)" in variables_of(root))):
        r, path = export(os.path.join(SPECS, "knife_edge.toml"), *options)
        if r.returncode != 0:
            fail(f"knife_edge {' '.join(options)}: {r.stderr}")
            continue
        directory, root = unzip(path)
        validate_description(f"knife_edge {' '.join(options)}", directory, root)
        if not check(root):
            fail(f"knife_edge {' '.join(options)}: modelDescription.xml does not show it")
    # sources/ is complete: one FMU rebuilt from it alone, as docs/commands.md says.
    r, path = export(os.path.join(SPECS, "bouncing_ball.toml"))
    directory, root = unzip(path)
    # The validator sees what it checks: a description broken three ways is refused three times.
    broken = ET.fromstring(ET.tostring(root))
    variables = broken.find("ModelVariables")
    variables[1].set("valueReference", variables[0].get("valueReference"))
    next(v for v in variables if v.get("causality") == "output").set("initial", "exact")
    ET.SubElement(broken.find("ModelStructure").find("Derivatives"), "Unknown", index=str(len(variables) + 1))
    # ... and its dependencies and units three more ways: a derivative on an output, out of order, an undefined unit.
    first_output = next(i for i, v in enumerate(variables, 1) if v.get("causality") == "output")
    derivative = broken.find("ModelStructure").find("Derivatives").find("Unknown")
    derivative.set("dependencies", f"{first_output} 1")
    derivative.set("dependenciesKind", "dependent dependent")
    variables[0][0].set("unit", "furlong")
    found = []
    validate_description("broken", directory, broken, found.append)
    for rule in ("taken twice", "start missing with initial exact", "is no variable", "is no known there",
                 "not ascending", "not in UnitDefinitions"):
        if not any(rule in message for message in found):
            fail(f"the validator missed a broken rule ({rule}): {found}")
    files = [os.path.join("sources", f.get("name")) for f in root.find("CoSimulation").iter("File")]
    cc = shlex.split(os.environ.get("CC", "cc"))
    built = subprocess.run(cc + ["-std=c11", "-shared", "-fPIC", "-Isources", *files, "-o", "rebuilt.so",
                                 "-Wl,-z,defs", "-llapacke", "-lopenblas", "-lm"],
                           cwd=directory, capture_output=True, text=True)
    if built.returncode != 0:
        fail("sources/ does not rebuild: " + built.stderr[-2000:])


def variables_of(root):
    return {v.get("name"): (int(v.get("valueReference")), v) for v in root.find("ModelVariables")}


def importer_args(directory, root):
    nx = len(root.find("ModelStructure").find("Derivatives"))
    return [directory, root.get("modelName"), root.get("guid")], nx, int(root.get("numberOfEventIndicators"))


def checks():
    for spec in ("pendulum.toml", "bouncing_ball.toml"):
        r, path = export(os.path.join(SPECS, spec))
        if r.returncode != 0:
            fail(f"{spec}: {r.stderr}")
            continue
        directory, root = unzip(path)
        args, nx, nind = importer_args(directory, root)
        variables = variables_of(root)
        parameter = next(vr for vr, v in variables.values() if v.get("causality") == "parameter")
        method = variables["solver.method"][0]
        output = next(vr for vr, v in variables.values() if v.get("causality") == "output")
        directional = root.find("ModelExchange").get("providesDirectionalDerivative") == "true"
        if directional != (spec == "pendulum.toml"):
            fail(f"{spec}: providesDirectionalDerivative is {directional}")
        r = subprocess.run([IMPORTER, "checks", *args, str(nx), str(nind), str(parameter), str(output),
                            str(len(variables)), str(int(directional)), str(method), str(variables["solver.step"][0])],
                           capture_output=True, text=True)
        print(r.stdout, r.stderr)
        if r.returncode != 0:
            fail(f"{spec}: the importer's checks failed")
    # A kind left out is refused at fmi2Instantiate, and modelDescription.xml leaves it out.
    r, path = export(os.path.join(SPECS, "pendulum.toml"), "--kind", "cs")
    directory, root = unzip(path)
    if root.find("ModelExchange") is not None or root.find("CoSimulation") is None:
        fail("--kind cs: modelDescription.xml declares " + ", ".join(c.tag for c in root))
    args, nx, nind = importer_args(directory, root)
    r = subprocess.run([IMPORTER, "run", *args, "me", "0.1", "0.01", "0.001", str(nx), str(nind), "0"],
                       capture_output=True, text=True)
    if r.returncode == 0 or "exported without that FMI kind" not in r.stderr:
        fail(f"--kind cs: a Model Exchange instance was not refused: {r.returncode} {r.stderr}")


def read_csv(text):
    rows = list(csv.reader(line for line in text.splitlines() if line and not line.startswith("#")))
    return rows[0], [[float(x) for x in row] for row in rows[1:]]


# The comparisons: the spec; states set before initialisation (simulate's
# --init: the bicycle at its operating point rolls straight on, upright,
# unless pushed); inputs set once the FMU runs (--input); Co-Simulation's
# method, its Enumeration value, and its step (--method, --dt).
COMPARED = [
    {"spec": "pendulum"}, {"spec": "knife_edge"}, {"spec": "bicycle"},
    {"spec": "bicycle", "init": {"phi'": 0.5}}, {"spec": "bouncing_ball"},
    {"spec": "sphere"},  # a contact let go, then a stop event (z = 0) at t = 1.13
    {"spec": "cart_pendulum", "inputs": {"F": 1.0}},
    {"spec": "knife_edge", "method": ("rk4", 2, 1e-3)},
    # friction: Co-Simulation only (Model Exchange cannot switch its modes)
    {"spec": "disk_link", "kinds": ("cs",)},
]
CS_BOUND, ME_BOUND = 1e-6, 1e-4
T_END, SAMPLE, ME_STEP = 5.0, 0.01, 1e-3


def simulate(name, spec, given, *tolerances):
    """simulate's samples, (header, rows), at its default tolerances or those given."""
    out = os.path.join(SCRATCH, name + "".join(tolerances) + ".csv")
    r = subprocess.run([LAGRANGEC, "simulate", spec, "--t-end", str(T_END), "--sample", str(SAMPLE), "--out", out,
                        "--quiet", *given, *tolerances], capture_output=True, text=True, env=ENV)
    if r.returncode != 0:
        fail(f"{name}: simulate: {r.stderr}")
        return None
    with open(out) as f:
        return read_csv(f.read())


def largest_error(name, rows, header, reference, shared):
    """max over the samples and the shared columns of |FMU - simulate| / max(1, |simulate|), and where."""
    if len(rows) != len(reference):
        fail(f"{name}: {len(rows)} samples, simulate wrote {len(reference)}")
        return float("inf"), ""
    worst, where = 0.0, ""
    for row, ref in zip(rows, reference):
        if abs(row[0] - ref[0]) > 1e-9:
            fail(f"{name}: sample at t = {row[0]}, simulate's at {ref[0]}")
            return float("inf"), ""
        for j, column in enumerate(shared):
            expected = ref[header.index(column)]
            e = abs(row[1 + j] - expected) / max(1.0, abs(expected))
            if e > worst:
                worst, where = e, f"{column} at t = {row[0]:g}"
    return worst, where


TIGHT = ("--rtol", "1e-12", "--atol", "1e-14")


def trajectories():
    """Co-Simulation (its tolerance simulate's default, 1e-8) against simulate as it
    runs by default; Model Exchange against simulate at rtol 1e-12, atol 1e-14, the
    accurate motion (simulate's default tolerance is itself 8e-4 off it on the
    driven cart pendulum), and Co-Simulation against that too, unbounded."""
    print("| model | CS against simulate | ME against tight simulate | CS against tight simulate | FMU size |")
    print("|---|---:|---:|---:|---:|")
    for case in COMPARED:
        name, inputs, init, method = case["spec"], case.get("inputs", {}), case.get("init", {}), case.get("method")
        spec = os.path.join(SPECS, name + ".toml")
        given = [a for k, v in inputs.items() for a in ("--input", f"{k}={v!r}")]
        given += [a for k, v in init.items() for a in ("--init", f"{k}={v!r}")]
        stepping = ["--method", method[0], "--dt", repr(method[2])] if method else []
        default, tight = simulate(name, spec, given + stepping), simulate(name, spec, given, *TIGHT)
        r, path = export(spec)
        if r.returncode != 0:
            fail(f"{name}: fmu: {r.stderr}")
            continue
        if not default or not tight:
            continue
        header = default[0]
        directory, root = unzip(path)
        args, nx, nind = importer_args(directory, root)
        variables = variables_of(root)
        # The columns simulate's CSV and the FMU share: q, q', the multipliers, forces and outputs.
        shared = [c for c in header[1:] if c in variables]
        rows = {}
        kinds = case.get("kinds", ("cs", "me"))
        if "me" not in kinds and root.find("ModelExchange") is not None:
            fail(f"{name}: declares Model Exchange, which it cannot run")
        for kind in kinds:
            solver = [f"enum:{variables['solver.method'][0]}={method[1]}",
                      f"param:{variables['solver.step'][0]}={method[2]!r}"] if method and kind == "cs" else []
            solver += [f"param:{variables[k][0]}={v!r}" for k, v in init.items()]
            r = subprocess.run([IMPORTER, "run", *args, kind, str(T_END), str(SAMPLE), str(ME_STEP), str(nx),
                                str(nind)] + solver + [f"set:{variables[k][0]}={v!r}" for k, v in inputs.items()]
                               + [str(variables[c][0]) for c in shared], capture_output=True, text=True)
            if r.returncode != 0:
                fail(f"{name} {kind}: the importer failed: {r.stderr[-2000:]}")
                continue
            rows[kind] = [[float(x) for x in line.split(",")] for line in r.stdout.splitlines()]
        if len(rows) < len(kinds):
            continue
        cs, cs_where = largest_error(name + " cs", rows["cs"], header, default[1], shared)
        me, me_where = largest_error(name + " me", rows["me"], header, tight[1], shared) if "me" in rows else (None, "")
        cs_tight, _ = largest_error(name + " cs", rows["cs"], header, tight[1], shared)
        label = name + "".join(f", {k} = {v:g}" for k, v in {**init, **inputs}.items())
        label += f", CS by {method[0]} at {method[2]:g}" if method else ""
        print(f"| {label} | {cs:.2g} | {'-' if me is None else f'{me:.2g}'} | {cs_tight:.2g} | {os.path.getsize(path)} |")
        if not cs <= CS_BOUND:
            fail(f"{label}: Co-Simulation off simulate by {cs:.3g} ({cs_where}), past {CS_BOUND:g}")
        if me is not None and not me <= ME_BOUND:
            fail(f"{label}: Model Exchange off simulate by {me:.3g} ({me_where}), past {ME_BOUND:g}")
    print(f"(errors: max over the samples every {SAMPLE} s to {T_END} s and the shared columns of "
          f"|FMU - simulate| / max(1, |simulate|); ME by RK4 at h = {ME_STEP})")


def dependencies_of(root, part):
    """{name of the unknown: [(name of the known, kind)...]} of a ModelStructure part."""
    variables = root.find("ModelVariables").findall("ScalarVariable")
    out = {}
    for u in root.find("ModelStructure").find(part).findall("Unknown"):
        deps = [variables[int(k) - 1].get("name") for k in u.get("dependencies").split()]
        out[variables[int(u.get("index")) - 1].get("name")] = list(zip(deps, u.get("dependenciesKind").split()))
    return out


TWO_OSCILLATORS = """name = "two_oscillators"
coordinates = ["x", "y"]
kinetic = "m*(x'^2 + y'^2)/2"
potential = "k*(x^2 + y^2)/2"
[parameters]
m = 1.0
k = 4.0
c = 0.1
[inputs]
u = 0.0
w = 0.0
[forces]
x = "u - c*x'"
y = "w"
[outputs]
spring_x = "k*x"
[units]
x = "m"
y = "m"
m = "kg"
k = "N/m"
c = "N.s/m"
u = "N"
w = "N"
spring_x = "N"
[descriptions]
x = "the first mass's position <a & b>"
u = "force on \\"x\\""
"""


def structure():
    """The dependencies modelDescription.xml declares: exact where the structure shows
    them (a position's derivative its velocity's; a decoupled model's accelerations
    none of the other part's states and inputs), never short of what the FMU shows
    (each state and input perturbed through the importer moves only derivatives and
    outputs that list it), and printed for the pendulum and the bicycle; the units and descriptions of [units] and [descriptions], escaped; the
    counts of dependencies against "all" (what was implicit before)."""
    spec = os.path.join(SCRATCH, "two_oscillators.toml")
    with open(spec, "w") as f:
        f.write(TWO_OSCILLATORS)
    r, path = export(spec)
    if r.returncode != 0:
        fail(f"two_oscillators: {r.stderr}")
        return
    directory, root = unzip(path)
    validate_description("two_oscillators", directory, root)
    derivatives, outputs = dependencies_of(root, "Derivatives"), dependencies_of(root, "Outputs")
    expected = {
        "der(x)": [("x'", "constant")], "der(y)": [("y'", "constant")],
        "der(x')": [("x", "dependent"), ("x'", "dependent"), ("u", "dependent")],
        "der(y')": [("y", "dependent"), ("w", "dependent")],
    }
    for name, deps in expected.items():
        if derivatives.get(name) != deps:
            fail(f"two_oscillators: {name} depends on {derivatives.get(name)}, expected {deps}")
    if outputs.get("spring_x") != [("x", "dependent")]:
        fail(f"two_oscillators: spring_x depends on {outputs.get('spring_x')}, expected [('x', 'dependent')]")
    initial = dependencies_of(root, "InitialUnknowns")
    wanted = [("x", "dependent"), ("x'", "dependent"), ("m", "dependent"), ("k", "dependent"), ("c", "dependent"),
              ("u", "dependent")]
    if initial.get("der(x')") != wanted:
        fail(f"two_oscillators: der(x') initially depends on {initial.get('der(x)')}, expected {wanted}")
    variables = variables_of(root)
    units = {u.get("name"): u.find("BaseUnit") for u in root.find("UnitDefinitions").findall("Unit")}
    for name, unit in (("x", "m"), ("x'", "m/s"), ("der(x)", "m/s"), ("der(x')", "m/s2"), ("k", "N/m"),
                       ("c", "N.s/m"), ("u", "N"), ("spring_x", "N"), ("lambda", None)):
        got = variables[name][1][0].get("unit") if name in variables else None
        if name in variables and got != unit:
            fail(f"two_oscillators: {name}'s unit is {got!r}, expected {unit!r}")
    for unit, base in (("m/s2", {"m": "1", "s": "-2"}), ("N/m", {"kg": "1", "s": "-2"}),
                       ("N.s/m", {"kg": "1", "s": "-1"})):
        if unit not in units or units[unit] is None or dict(units[unit].attrib) != base:
            fail(f"two_oscillators: unit {unit}'s BaseUnit is "
                 f"{None if units.get(unit) is None else dict(units[unit].attrib)}, expected {base}")
    for name, text in (("x", "the first mass's position <a & b>"), ("u", 'force on "x"'),
                       ("x'", "velocity of x (the first mass's position <a & b>)"), ("w", "control input")):
        if variables[name][1].get("description") != text:
            fail(f"two_oscillators: {name}'s description is {variables[name][1].get('description')!r}, not {text!r}")
    with open(os.path.join(directory, "sources", "fmu_binding.c")) as f:
        if '"force on \\"x\\""' not in f.read():
            fail("fmu_binding.c does not hold u's description as an escaped C string")
    # No dependency left out: each state and input the importer changes moves only derivatives and outputs
    # that list it (central to the declared structure being conservative).
    for name in ("two_oscillators", "pendulum", "knife_edge", "bicycle", "cart_pendulum", "slider_crank",
                 "bouncing_ball", "rolling_disk"):
        r, path = export(spec if name == "two_oscillators" else os.path.join(SPECS, name + ".toml"))
        if r.returncode != 0:
            fail(f"{name}: {r.stderr}")
            continue
        directory, root = unzip(path)
        args, nx, _ = importer_args(directory, root)
        variables = root.find("ModelVariables").findall("ScalarVariable")
        inputs = [int(v.get("valueReference")) for v in variables if v.get("causality") == "input"]
        outputs = [int(v.get("valueReference")) for v in variables if v.get("causality") == "output"]
        declared = set()
        for part in ("Derivatives", "Outputs"):
            element = root.find("ModelStructure").find(part)
            for u in element.findall("Unknown") if element is not None else []:
                declared |= {(int(u.get("index")), int(k)) for k in u.get("dependencies").split()}
        states = [int(u[0].get("derivative")) for u in variables if len(u) and u[0].get("derivative")]
        derivative_of_state = [i for i, v in enumerate(variables, 1) if len(v) and v[0].get("derivative")]
        r = subprocess.run([IMPORTER, "changes", *args, str(nx), str(len(inputs)), *map(str, inputs),
                            *map(str, outputs)], capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"{name}: the importer's changes failed: {r.stderr[-2000:]}")
            continue
        moved = set()
        for line in r.stdout.splitlines():
            what, which, *changed = line.split()
            known = states[int(which)] if what == "state" else int(which) + 1
            for c in changed:
                moved.add((derivative_of_state[int(c[4:])] if c.startswith("der:") else int(c) + 1, known))
        named = lambda pairs: sorted(f"{variables[u - 1].get('name')} on {variables[k - 1].get('name')}"
                                     for u, k in pairs)
        if moved - declared:
            fail(f"{name}: dependencies the FMU shows and modelDescription.xml leaves out: {named(moved - declared)}")
        if not moved:
            fail(f"{name}: no state or input moved anything: the check sees nothing")
        # Where the structure is exact, the declared dependencies are what the FMU shows, no more.
        if name == "two_oscillators" and moved != declared:
            fail(f"two_oscillators: declared and shown dependencies differ: declared only "
                 f"{named(declared - moved)}, shown only {named(moved - declared)}")
    # The pendulum's and the bicycle's: der(q) exactly q', and the counts against "all".
    print("| model | Outputs | Derivatives | InitialUnknowns | dependencies listed (all: each unknown on every known) |")
    print("|---|---:|---:|---:|---|")
    for name in ("pendulum", "bicycle"):
        r, path = export(os.path.join(SPECS, name + ".toml"))
        if r.returncode != 0:
            fail(f"{name}: {r.stderr}")
            continue
        directory, root = unzip(path)
        variables = root.find("ModelVariables").findall("ScalarVariable")
        states = [variables[int(v[0].get("derivative")) - 1].get("name") for v in variables
                  if len(v) and v[0].get("derivative") is not None]
        knowns = len(states) + sum(v.get("causality") == "input" for v in variables)
        initial_knowns = knowns + sum(v.get("causality") == "parameter" and v.get("initial") == "exact"
                                      and v.get("name") not in ("solver.step", "solver.method") for v in variables)
        derivatives = dependencies_of(root, "Derivatives")
        coordinates = [s for s in states if not s.endswith("'") and s + "'" in states]
        for q in coordinates:
            if derivatives[f"der({q})"] != [(q + "'", "constant")]:
                fail(f"{name}: der({q}) depends on {derivatives[f'der({q})']}, expected [({q}', constant)]")
        counts = []
        for part, per in (("Outputs", knowns), ("Derivatives", knowns), ("InitialUnknowns", initial_knowns)):
            deps = dependencies_of(root, part) if root.find("ModelStructure").find(part) is not None else {}
            counts.append(f"{sum(len(d) for d in deps.values())} of {len(deps) * per}")
        print(f"| {name} | {counts[0]} | {counts[1]} | {counts[2]} | nx = {len(states)} |")


def tunable():
    """A parameter changed while the FMU runs (g of the pendulum at t = 2, between
    Co-Simulation steps, in Model Exchange's event mode) changes the motion as
    simulate with that g, started from the FMU's state at t = 2, would."""
    spec = os.path.join(SPECS, "pendulum.toml")
    r, path = export(spec)
    if r.returncode != 0:
        fail(f"pendulum: {r.stderr}")
        return
    directory, root = unzip(path)
    args, nx, nind = importer_args(directory, root)
    variables = variables_of(root)
    if variables["g"][1].get("variability") != "tunable":
        fail(f"g's variability is {variables['g'][1].get('variability')}, not tunable")
    columns = ["x", "y", "x'", "y'", "lambda[1]"]
    t_tune, g_new = 2.0, 5.0
    print("| run | tuned at t = 2 against simulate from there | untuned against it |")
    print("|---|---:|---:|")
    for kind, bound, tolerances in (("cs", CS_BOUND, ()), ("me", ME_BOUND, TIGHT)):
        rows = {}
        for label, tune in (("tuned", [f"tune:{variables['g'][0]}={g_new!r}", f"at:{t_tune!r}"]), ("untuned", [])):
            r = subprocess.run([IMPORTER, "run", *args, kind, str(T_END), str(SAMPLE), str(ME_STEP), str(nx), str(nind),
                                *tune, *[str(variables[c][0]) for c in columns]], capture_output=True, text=True)
            if r.returncode != 0:
                fail(f"pendulum {kind} {label}: the importer failed: {r.stderr[-2000:]}")
                return
            rows[label] = [[float(x) for x in line.split(",")] for line in r.stdout.splitlines()]
        start = next(row for row in rows["tuned"] if abs(row[0] - t_tune) < 1e-9)
        given = ["--param", f"g={g_new!r}"] + [a for c, v in zip(columns[:4], start[1:5])
                                                for a in ("--init", f"{c}={v!r}")]
        out = os.path.join(SCRATCH, f"tuned-{kind}.csv")
        r = subprocess.run([LAGRANGEC, "simulate", spec, "--t-end", str(T_END - t_tune), "--sample", str(SAMPLE),
                            "--out", out, "--quiet", *given, *tolerances], capture_output=True, text=True, env=ENV)
        if r.returncode != 0:
            fail(f"pendulum: simulate from the tuned state: {r.stderr}")
            return
        with open(out) as f:
            header, reference = read_csv(f.read())
        errors = {}
        # The row at t = 2 is the FMU's before the change (its multiplier the old g's): compared from the next.
        for label in ("tuned", "untuned"):
            after = [[row[0] - t_tune] + row[1:] for row in rows[label] if row[0] > t_tune + 1e-9]
            errors[label], where = largest_error(f"pendulum {kind} {label}", after, header, reference[1:], columns)
            if label == "tuned" and not errors[label] <= bound:
                fail(f"pendulum {kind}: tuned g, off simulate by {errors[label]:.3g} ({where}), past {bound:g}")
        if not errors["untuned"] > 100 * bound:
            fail(f"pendulum {kind}: the untuned run is as close ({errors['untuned']:.3g}): the test sees nothing")
        print(f"| {kind} | {errors['tuned']:.2g} | {errors['untuned']:.2g} |")


def usage():
    spec = os.path.join(SPECS, "pendulum.toml")
    out = os.path.join(SCRATCH, "u.fmu")
    cases = [
        ([spec], "no FMU file given"),
        (["-o", out], "no spec given"),
        ([spec, "-o", out, "--kind", "fmi3"], "--kind takes cs, me or both, not 'fmi3'"),
        ([spec, "-o", out, "--kind"], "--kind takes cs, me or both, and nothing followed"),
        ([spec, "-o", out, "--real", "float"], "integrates double models only"),
        ([spec, "-o", out, "--frobnicate"], "unknown option '--frobnicate'"),
        ([spec, "-o", spec], "writing it would destroy the spec"),
        ([spec, spec, "-o", out], "fmu takes one spec"),
        ([spec, "-o", out, "--time-limit", "0"], "--time-limit takes seconds"),
    ]
    for args, message in cases:
        r = subprocess.run([LAGRANGEC, "fmu", *args], capture_output=True, text=True, env=ENV)
        if r.returncode != 2 or message not in r.stderr:
            fail(f"fmu {' '.join(args)}: exit {r.returncode}, {r.stderr!r}; wanted 2 and {message!r}")
    if os.path.exists(out):
        fail("a refused command wrote the FMU")
    r = subprocess.run([LAGRANGEC, "fmu", "--help"], capture_output=True, text=True)
    if r.returncode != 0 or "usage: lagrangec fmu" not in r.stdout:
        fail("fmu --help")
    # Friction switches its modes inside the runtime's steps: no Model Exchange, said so, or refused.
    friction = os.path.join(SPECS, "disk_link.toml")
    r = subprocess.run([LAGRANGEC, "fmu", friction, "-o", out, "--kind", "me"], capture_output=True, text=True, env=ENV)
    if r.returncode != 1 or "export it with --kind cs" not in r.stderr or os.path.exists(out):
        fail(f"fmu --kind me of a model with friction: exit {r.returncode}, {r.stderr!r}")
    r = subprocess.run([LAGRANGEC, "fmu", friction, "-o", out], capture_output=True, text=True, env=ENV)
    if r.returncode != 0 or "the FMU is Co-Simulation only" not in r.stderr:
        fail(f"fmu of a model with friction: exit {r.returncode}, {r.stderr!r}")
    os.remove(out)
    r = subprocess.run([LAGRANGEC, "fmu", os.path.join(SCRATCH, "missing.toml"), "-o", out], capture_output=True,
                       text=True, env=ENV)
    if r.returncode != 1 or os.path.exists(out):
        fail(f"a missing spec: exit {r.returncode}, {r.stderr!r}")
    # A compiler that fails: exit 1 naming what it compiled, no FMU, and its scratch directory gone.
    tmp = tempfile.mkdtemp(dir=SCRATCH)
    r = subprocess.run([LAGRANGEC, "fmu", spec, "-o", out], capture_output=True, text=True,
                       env=dict(ENV, CC="false", TMPDIR=tmp))
    if r.returncode != 1 or "compiling the FMU's library pendulum.so failed" not in r.stderr or os.path.exists(out):
        fail(f"a failing compiler: exit {r.returncode}, {r.stderr!r}")
    if os.listdir(tmp):
        fail(f"a failing compiler left {os.listdir(tmp)} in TMPDIR")


{"all-specs": all_specs, "checks": checks, "trajectories": trajectories, "usage": usage, "structure": structure,
 "tunable": tunable}[WHAT]()
shutil.rmtree(SCRATCH, ignore_errors=True)
if failures:
    print(f"{len(failures)} failures")
    sys.exit(1)
