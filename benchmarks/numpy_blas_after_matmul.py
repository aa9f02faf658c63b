"""NumPy's own sgemm speed before and after minitorch products that borrow its
OpenBLAS: they must leave its thread count (and so its speed) as it was.

    python benchmarks/numpy_blas_after_matmul.py [size] [rounds]
"""
import sys
import threading
import time

import numpy as np

import minitorch


def median_ms(fn, rounds):
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return sorted(times)[len(times) // 2] * 1e3


def main():
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 21
    a = np.random.default_rng(0).standard_normal((size, size)).astype(np.float32)
    a @ a
    before = median_ms(lambda: a @ a, rounds)
    x = minitorch.from_numpy(a)
    minitorch.set_num_threads(2)

    def products():
        for _ in range(3):
            x @ x

    pool = [threading.Thread(target=products) for _ in range(2)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    after = median_ms(lambda: a @ a, rounds)
    print(f"NumPy {size}^2 sgemm: {before:.1f} ms before minitorch products, "
          f"{after:.1f} ms after (ratio {after / before:.2f})")


if __name__ == "__main__":
    main()
