"""How this minitorch was built and what it uses on this machine, as torch's
``torch.__config__.show()`` reports it: the compiler, the SIMD kernels chosen
at run time, float16 support, the BLAS behind matmul and the LAPACK behind
minitorch.linalg."""
from . import _C, _blas


def show() -> str:
    """A human-readable report of the build and the run-time choices."""
    b = _C._build_info()
    if b["simd_clones"]:
        simd = "AVX2" if b["cpu_avx2_fma"] else "baseline (this CPU lacks AVX2/FMA)"
    else:
        simd = "baseline (no run-time SIMD dispatch for this compiler and platform)"
    half = "compiler _Float16" if b["native_float16"] else "software conversion"
    lines = [
        "minitorch built with:",
        f"  - {b['compiler'].strip()}",
        f"  - CPU capability usage: {simd}",
        f"  - float16: {half}",
        f"  - BLAS: {_blas.describe()}",
        f"  - LAPACK: {_blas.describe_lapack()}",
        f"  - threads: {_C.get_num_threads()}",
    ]
    return "\n".join(lines) + "\n"
