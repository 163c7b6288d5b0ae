"""Helpers shared by the benchmark scripts: the cache location (as
scripts/lib.sh and racewatch compute it), a description of the machine, the
git revision, and atomic writes of results files."""
import os
import platform
import subprocess
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
