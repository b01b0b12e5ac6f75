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


def _clone(ref, into):
    subprocess.run(["git", "clone", "-q", "--shared", str(ROOT), str(into)], check=True)
    subprocess.run(["git", "-C", str(into), "checkout", "-q", ref], check=True)
    return subprocess.run(["git", "-C", str(into), "rev-parse", "--short", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("refs", nargs="+")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--model", default="two-ellipsoids")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
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
