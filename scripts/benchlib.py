"""Helpers shared by the benchmark scripts: the cache location (as
scripts/lib.sh and racewatch compute it), a description of the machine, the
git revision, atomic writes of results files, the notes on real drivers that
cannot be measured, and running a child with a time limit and its peak
memory."""
import os
import platform
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def cache_dir():
    env = os.environ
    if env.get("RACEWATCH_CACHE"):
        return Path(env["RACEWATCH_CACHE"])
    base = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / "racewatch"


def machine():
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{os.cpu_count()} × {cpu}, {mem:.0f} GiB, {platform.system()} {platform.release()}"


def git_revision():
    out = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return out.stdout.strip() or "unknown"


def write_atomically(path, text):
    tmp = Path(str(path) + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)
    print(f"wrote {path}")


NOT_IN_TREE = "not in linux 6.12"
NOT_PARSED = "not parsed on x86-64"
WHY_NOT_PARSED = {"drivers/block/swim.c": "an m68k (Macintosh) driver: needs the m68k headers"}


def driver_name(rel):
    return Path(rel).name[:-2] if rel.endswith(".c") else Path(rel).name


def run_child(cmd, cwd, timeout, env=None):
    """Runs cmd (in env, else this process's environment); returns
    (returncode or None on timeout, stdout, stderr, wall seconds, peak RSS in
    MiB of the child)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen([str(c) for c in cmd], cwd=cwd, env=env, stdout=out, stderr=err, start_new_session=True)
        timed_out = threading.Event()

        def kill():
            timed_out.set()
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout, kill) if timeout else None
        if timer:
            timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            if timer:
                timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        wall = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        code = None if timed_out.is_set() else proc.returncode
        return code, out.read().decode(errors="replace"), err.read().decode(errors="replace"), wall, \
            usage.ru_maxrss / 1024
