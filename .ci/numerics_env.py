"""Print (as shell exports) the environment of CI's second pass: numpy and OpenBLAS on other code paths.

A test that compares floats more tightly than their round-off passes on the machine where it
was written and fails on another CPU (issue 36: a skew matrix compared bit for bit failed where
OpenBLAS picked another kernel). The second pass runs the numerics-heavy tests with

- numpy's SIMD dispatch above its baseline disabled (`NPY_DISABLE_CPU_FEATURES`), naming only
  the dispatch targets this CPU has, since numpy refuses at import to disable one it lacks;
- OpenBLAS forced to other kernels than it picks by itself (`OPENBLAS_CORETYPE`): SkylakeX on
  a CPU newer than Skylake-X (AVX512_ICL/SPR: OpenBLAS names the detected core SkylakeX there,
  but forcing it changes the kernels, and reproduced the failure above), Haswell on a Skylake-X
  class CPU, Sandybridge on one without AVX-512.
"""

import platform

import numpy as np

umath = np._core._multiarray_umath
wide = [name for name in umath.__cpu_dispatch__ if umath.__cpu_features__.get(name)]
print(f"export NPY_DISABLE_CPU_FEATURES='{' '.join(wide)}'")

if platform.machine() in ("x86_64", "AMD64"):
    has = umath.__cpu_features__
    if has.get("AVX512_ICL") or has.get("AVX512_SPR"):
        core = "SkylakeX"
    elif has.get("AVX512F"):
        core = "Haswell"
    else:
        core = "Sandybridge"
    print(f"export OPENBLAS_CORETYPE={core}")
    print("unset OPENBLAS_L2_SIZE")
