"""Every python block of the README and the docs runs as written (issue 35).

The blocks of one file run in order in one namespace, as a reader would type them, in a fresh
process whose working directory is a temporary folder (so that ``if __name__ == "__main__":``
holds, as in a script, and files written by a block stay out of the checkout). A block right
after a line ``<!-- not-run: REASON -->`` is skipped; the reason is required.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"(?P<mark><!-- not-run:(?P<reason>[^>]*)-->\s*\n)?```python\n(?P<code>.*?)```", re.S)
#: seconds per file on a loaded two-core machine (docs/sweeps.md, a Dask sweep and an identification, took 52 s)
TIMEOUT = 600


def blocks(path):
    """``[(line, code)]`` of the file's python blocks that run, and ``[(line, reason)]`` skipped."""
    text = path.read_text()
    run, skipped = [], []
    for m in BLOCK.finditer(text):
        line = text.count("\n", 0, m.start("code")) + 1
        if m.group("mark"):
            reason = m.group("reason").strip()
            assert reason, f"{path.name}:{line}: a not-run mark needs a reason"
            skipped.append((line, reason))
        else:
            run.append((line, m.group("code")))
    return run, skipped


def test_the_extraction_finds_blocks_and_marks():
    found = {path.name: blocks(path) for path in FILES}
    assert len(found["README.md"][0]) >= 1 and not found["README.md"][1]   # the README's example runs
    run = [code for r, _ in found.values() for _, code in r]
    assert len(run) >= 10 and all(code.strip() for code in run)
    assert sum(len(s) for _, s in found.values()) <= 2


def test_the_readme_is_two_screens_and_its_links_resolve():
    """Issue 35: the README is what a user reads first (the two commands, the output, an example,
    the models, links); the rest lives in docs/, and every link it gives must exist."""
    text = (ROOT / "README.md").read_text()
    assert text.count("\n") <= 160, "README.md grew past two screens: move the detail to a docs page"
    links = re.findall(r"\]\((docs/[^)#]+)\)", text)
    assert len(links) >= 10
    assert [link for link in links if not (ROOT / link).is_file()] == []
    ci = (ROOT / ".ci" / "run").read_text()
    test_command = 'python3 -m venv .venv && .venv/bin/pip install ".[test]" && .venv/bin/python -m pytest'
    assert test_command in ci and f"```bash\n{test_command}\n```" in text   # CI runs the README's command verbatim


@pytest.mark.parametrize("path", [p for p in FILES if blocks(p)[0]], ids=lambda p: p.name)
def test_the_python_blocks_run_as_written(path, tmp_path):
    run, _ = blocks(path)
    script = "\n".join(f"# {path.name}, line {line}\n{code}" for line, code in run)
    (tmp_path / "snippets.py").write_text(script)
    env_path = str(ROOT)
    proc = subprocess.run([sys.executable, "snippets.py"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=TIMEOUT, env={**__import__("os").environ, "PYTHONPATH": env_path})
    assert proc.returncode == 0, f"{path.name}: its python blocks fail:\n{proc.stderr[-3000:]}"


def test_the_readme_models_table_lists_the_registry():
    """Every registered model is in the README's models table, and the table names no other."""
    from porthamiltonian.models import MODELS

    text = (ROOT / "README.md").read_text()
    table = text.split("## Models", 1)[1].split("\n## ", 1)[0]
    listed = {name for row in table.splitlines() if row.startswith("| `")
              for name in re.findall(r"`([a-z0-9-]+)`", row.split("|")[1])}
    assert listed == set(MODELS), f"README only: {sorted(listed - set(MODELS))}; registry only: {sorted(set(MODELS) - listed)}"
