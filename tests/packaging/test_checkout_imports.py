"""`porthamiltonian.library` and `.models` import from a source checkout as from an install.

The README's test command runs ``python -m pytest`` in the checkout, which puts the
checkout's `porthamiltonian/` ahead of the installed copy on sys.path; the installed copy has
`library/` and `models/` inside it, the checkout beside it (`porthamiltonian/_checkout.py`).
The subprocess runs without `site` (no installed or editable copy of this package is
visible), with only the checkout and the directory holding numpy on its path.
"""

import os
import subprocess
import sys

import numpy

import porthamiltonian

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(porthamiltonian.__file__)))


def test_library_and_models_import_from_the_checkout():
    deps = os.path.dirname(os.path.dirname(os.path.abspath(numpy.__file__)))
    code = (
        "import sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]\n"
        "import porthamiltonian.library as lib, porthamiltonian.models as models\n"
        "from porthamiltonian.library.springs import PointSpring\n"
        "print(lib.__file__); print(models.__file__); print(PointSpring.__module__)\n"
    )
    out = subprocess.run([sys.executable, "-S", "-c", code, ROOT, deps], capture_output=True, text=True,
                         cwd=ROOT, check=False)
    assert out.returncode == 0, out.stderr
    lib_file, models_file, module = out.stdout.split()
    assert lib_file == os.path.join(ROOT, "library", "__init__.py")
    assert models_file == os.path.join(ROOT, "models", "__init__.py")
    assert module == "porthamiltonian.library.springs"
