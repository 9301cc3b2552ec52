"""measure.py — running one measured process: wall time and peak memory under a time limit, callgrind instruction counts, medians."""
import os
import re
import resource
import signal
import subprocess
import tempfile
import time


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2


def bounded(cmd, limit, memory=None, env=None, cwd=None):
    """Runs cmd under /usr/bin/time within `limit` seconds and, if given, `memory` bytes of address space
    (RLIMIT_AS, inherited by what it starts: a compiler's cc1 too). Returns {'wall': s, 'cpu': s, 'peak_mib': MiB,
    'status': exit code, 'stdout', 'stderr'}, or {'timeout': True} past the limit.

    Wall time is the parent's clock around the process (time's %e has only
    10 ms steps); the peak resident set is time's %M, the largest of the
    process and the children it waited for; cpu is their user + system
    time (time's %U + %S), what a loaded machine does not stretch.

    The process gets its own session so that, past the limit, its whole
    group (time and what it runs) is killed, not just /usr/bin/time.
    """
    def cap():
        if memory:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        t0 = time.perf_counter()
        p = subprocess.Popen(["/usr/bin/time", "-f", "%e %M %U %S", "-o", tf.name] + list(cmd),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env, cwd=cwd, start_new_session=True, preexec_fn=cap)
        try:
            out, err = p.communicate(timeout=limit)
            wall = time.perf_counter() - t0
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            return {"timeout": True}
        kib, user, system = tf.read().split()[-3:]
    return {"wall": wall, "cpu": float(user) + float(system), "peak_mib": int(kib) / 1024, "status": p.returncode,
            "stdout": out, "stderr": err}


def timed(cmd, limit, env=None, cwd=None):
    """bounded(cmd, limit) that must succeed: {'wall', 'peak_mib', 'stdout'}, or None past the limit."""
    r = bounded(cmd, limit, env=env, cwd=cwd)
    if r.get("timeout"):
        return None
    if r["status"] != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({r['status']}):\n{r['stderr'][-2000:]}")
    return {"wall": r["wall"], "peak_mib": r["peak_mib"], "stdout": r["stdout"]}


def callgrind_ir(cmd, toggle, env=None, out="/dev/null", instructions=False):
    """Instructions executed inside function `toggle` (inclusive) while cmd runs under callgrind; the profile
    goes to `out` (per instruction with `instructions`, for callgrind_annotate's source lines).

    LD_BIND_NOW resolves every library symbol at start-up, so the first call
    does not carry the dynamic linker's lazy binding (hundreds of
    instructions per symbol: MuJoCo's first mj_forward binds dozens).
    """
    env = dict(env if env is not None else os.environ, LD_BIND_NOW="1")
    err = stderr(["valgrind", "--tool=callgrind", f"--toggle-collect={toggle}", f"--callgrind-out-file={out}"]
                 + (["--dump-instr=yes"] if instructions else []) + list(cmd), env=env)
    return int(re.search(r"Collected : (\d+)", err).group(1))


def _run(cmd, env, cwd):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({p.returncode}):\n{p.stderr[-2000:]}")
    return p


def output(cmd, env=None, cwd=None):
    """stdout of cmd, which must succeed."""
    return _run(cmd, env, cwd).stdout


def stderr(cmd, env=None, cwd=None):
    """stderr of cmd, which must succeed."""
    return _run(cmd, env, cwd).stderr
