"""measure.py — running one measured process: wall time and peak memory under a time limit, callgrind instruction counts, medians."""
import os
import re
import signal
import subprocess
import tempfile
import time


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2


def timed(cmd, limit, env=None, cwd=None):
    """Runs cmd under /usr/bin/time; {'wall': s, 'peak_mib': MiB, 'stdout': text}, or None past `limit` seconds.

    Wall time is the parent's clock around the process (time's %e has only
    10 ms steps); the peak resident set is time's %M.

    The process gets its own session so that, past the limit, its whole
    group (time and what it runs) is killed, not just /usr/bin/time.
    """
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        t0 = time.perf_counter()
        p = subprocess.Popen(["/usr/bin/time", "-f", "%e %M", "-o", tf.name] + list(cmd),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env, cwd=cwd, start_new_session=True)
        try:
            out, err = p.communicate(timeout=limit)
            wall = time.perf_counter() - t0
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            return None
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({p.returncode}):\n{err[-2000:]}")
        kib = tf.read().split()[-1]
    return {"wall": wall, "peak_mib": int(kib) / 1024, "stdout": out}


def callgrind_ir(cmd, toggle, env=None):
    """Instructions executed inside function `toggle` (inclusive) while cmd runs under callgrind."""
    err = stderr(["valgrind", "--tool=callgrind", f"--toggle-collect={toggle}",
                  "--callgrind-out-file=/dev/null"] + list(cmd), env=env)
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
