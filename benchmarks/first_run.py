"""The first run after install against a warm one, commit against commit (issue 36; not a test):

    python benchmarks/first_run.py REF [REF ...] [--rounds 2] [--model two-ellipsoids] [--out FILE]

Each REF (a commit of this repository) is checked out into a temporary clone; then, round
after round, interleaved (the machine is shared: only interleaved figures compare), each
runs the command line (``python -m porthamiltonian run MODEL``) three times in a fresh
interpreter:

- ``cold``: ``NUMBA_CACHE_DIR`` and ``PORTHAMILTONIAN_CACHE`` pointed at new directories:
  what the first run after ``pip install`` pays (every kernel compiles);
- ``warm``: the same command again, every cache filled;
- ``new rhs``: a new ``PORTHAMILTONIAN_CACHE`` with numba's cache kept: the kernels load, the
  generated right-hand side compiles (a user's model that uses only built-in kernels).

Recorded per run: the wall time, when the compile notice appeared on stderr (the helpers
start at the latest then), and the CLI's own "s to compile or load" the right-hand side.
Writes a Markdown table to ``--out`` (default: printed only).

    python benchmarks/first_run.py --venv VENV [--venv VENV ...] [--rounds 2]

measures installed packages instead (``pip install .`` into each VENV: with the kernels
compiled at install, ``_build/backend.py``, or without, ``PORTHAMILTONIAN_COMPILE_AT_INSTALL=0``):
per round, each VENV's numba cache beside the installed package emptied (``__pycache__``; the
shipped ``_numba_cache`` kept) and a new ``PORTHAMILTONIAN_CACHE``, then ``porthamiltonian run
MODEL`` cold and warm, with the wall and CPU (user + system, children included) seconds and
the load average at each start.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_RHS = re.compile(r"right-hand side: \S+ \(([\d.]+) s to compile or load it\)")


def _run(checkout, model, numba_cache, rhs_cache, out):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(numba_cache), PORTHAMILTONIAN_CACHE=str(rhs_cache),
               PYTHONPATH=str(checkout), PYTHONUNBUFFERED="1")
    t0 = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "porthamiltonian.cli", "run", model, "--no-progress", "--out",
                             str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            cwd=str(checkout))
    notice = None
    for line in proc.stderr:
        if notice is None and "compiling" in line:
            notice = time.monotonic() - t0
    stdout = proc.stdout.read()
    proc.wait()
    wall = time.monotonic() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{checkout}: exit {proc.returncode}\n{stdout[-2000:]}")
    rhs = _RHS.search(stdout)
    return {"wall": wall, "notice": notice, "rhs": float(rhs.group(1)) if rhs else None}


def _run_installed(venv, model, rhs_cache, out):
    """``VENV/bin/porthamiltonian run MODEL``: wall and CPU seconds (children included)."""
    env = dict(os.environ, PORTHAMILTONIAN_CACHE=str(rhs_cache))
    env.pop("NUMBA_CACHE_DIR", None)
    load = os.getloadavg()[0]
    before = os.times()
    t0 = time.monotonic()
    done = subprocess.run([str(Path(venv) / "bin" / "porthamiltonian"), "run", model, "--no-progress", "--out",
                           str(out)], capture_output=True, text=True, env=env, cwd=str(out.parent))
    wall = time.monotonic() - t0
    after = os.times()
    if done.returncode != 0:
        raise RuntimeError(f"{venv}: exit {done.returncode}\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return {"wall": wall, "cpu": cpu, "load": load}


def _installed(args):
    """The ``--venv`` mode (module docstring)."""
    rows = []
    tmp = Path(tempfile.mkdtemp(prefix="first_run_"))
    try:
        for r in range(args.rounds):
            for venv in args.venv:
                for package in Path(venv).glob("lib/python*/site-packages/porthamiltonian"):
                    for f in package.rglob("__pycache__/*.nb[ic]"):
                        f.unlink()
                run = tmp / f"r{r}-{Path(venv).name}"
                run.mkdir()
                cold = _run_installed(venv, args.model, run / "rhs", run / "out")
                warm = _run_installed(venv, args.model, run / "rhs", run / "out")
                rows.append((r + 1, venv, cold, warm))
                print(f"round {r + 1} {venv}: cold {cold} warm {warm}", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    lines = [f"`python benchmarks/first_run.py --venv {' --venv '.join(args.venv)} --rounds {args.rounds} --model "
             f"{args.model}`, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} CPUs", "",
             "| round | venv | cold wall / CPU [s] (load) | warm wall / CPU [s] (load) | extra wall / CPU [s] |",
             "|---|---|---|---|---|"]
    for r, venv, cold, warm in rows:
        lines.append(f"| {r} | {venv} | {cold['wall']:.1f} / {cold['cpu']:.1f} ({cold['load']:.1f}) | "
                     f"{warm['wall']:.1f} / {warm['cpu']:.1f} ({warm['load']:.1f}) | "
                     f"{cold['wall'] - warm['wall']:.1f} / {cold['cpu'] - warm['cpu']:.1f} |")
    return "\n".join(lines) + "\n"


def _clone(ref, into):
    subprocess.run(["git", "clone", "-q", "--shared", str(ROOT), str(into)], check=True)
    subprocess.run(["git", "-C", str(into), "checkout", "-q", ref], check=True)
    return subprocess.run(["git", "-C", str(into), "rev-parse", "--short", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("refs", nargs="*")
    ap.add_argument("--venv", action="append", default=[], help="an environment the package is installed in")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--model", default="two-ellipsoids")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    if args.venv:
        text = _installed(args)
        print(text)
        if args.out:
            with open(args.out, "a") as f:
                f.write("\n" + text)
        return 0
    if not args.refs:
        ap.error("give commits to compare, or --venv")
    tmp = Path(tempfile.mkdtemp(prefix="first_run_"))
    try:
        checkouts = {}
        for i, ref in enumerate(args.refs):
            checkouts[f"{ref} ({_clone(ref, tmp / f'src{i}')})"] = tmp / f"src{i}"
        rows = []
        for r in range(args.rounds):
            for label, src in checkouts.items():
                caches = tmp / f"r{r}-{src.name}"
                cold = _run(src, args.model, caches / "numba", caches / "rhs", caches / "out")
                warm = _run(src, args.model, caches / "numba", caches / "rhs", caches / "out")
                new_rhs = _run(src, args.model, caches / "numba", caches / "rhs2", caches / "out")
                rows.append((r + 1, label, cold, warm, new_rhs))
                print(f"round {r + 1} {label}: cold {cold} warm {warm} new rhs {new_rhs}", flush=True)
                shutil.rmtree(caches, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?",)
    lines = [f"`python benchmarks/first_run.py {' '.join(args.refs)} --rounds {args.rounds} --model {args.model}`, "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} CPUs, load average at the end "
             f"{load[0]:.1f}", "",
             "| round | commit | cold wall [s] | notice at [s] | cold rhs compile [s] | warm wall [s] | extra [s] "
             "| new rhs: wall / compile [s] |", "|---|---|---|---|---|---|---|---|"]
    for r, label, cold, warm, new_rhs in rows:
        notice = f"{cold['notice']:.1f}" if cold["notice"] is not None else "-"
        lines.append(f"| {r} | {label} | {cold['wall']:.1f} | {notice} | {cold['rhs']:.1f} | {warm['wall']:.1f} | "
                     f"{cold['wall'] - warm['wall']:.1f} | {new_rhs['wall']:.1f} / {new_rhs['rhs']:.1f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "a") as f:
            f.write("\n" + text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
