"""matmul / bmm on a small GPT's shapes (forward and the transposed operands
of backward), minitorch vs torch, interleaved, medians.

    python benchmarks/gemm_shapes.py [threads] [rounds]
"""
import sys
import time


def cases(lib):
    g = lib.Generator().manual_seed(0) if hasattr(lib, "Generator") else None
    r = lambda *s: lib.randn(*s, generator=g)
    x, w3, w4, w4b = r(1024, 128), r(384, 128), r(512, 128), r(128, 512)
    dy3, h = r(1024, 384), r(1024, 512)
    q, k, att = r(64, 64, 32), r(64, 64, 32), r(64, 64, 64)
    return {
        "(1024,128)x(128,384)^T [linear fwd]": lambda: x @ w3.t(),
        "(1024,128)x(128,512)^T [linear fwd]": lambda: x @ w4.t(),
        "(1024,512)x(512,128)^T [linear fwd]": lambda: h @ w4b.t(),
        "(1024,384)x(384,128) [grad input]": lambda: dy3 @ w3,
        "(384,1024)x(1024,128) [grad weight]": lambda: dy3.t() @ x,
        "bmm (64,64,32)x(64,32,64) [q k^T]": lambda: lib.bmm(q, k.transpose(1, 2)),
        "bmm (64,64,64)x(64,64,32) [att v]": lambda: lib.bmm(att, q),
    }


def main():
    threads = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 41
    import torch

    import minitorch

    libs = (minitorch, torch)
    for lib in libs:
        lib.set_num_threads(threads)
    per = {lib.__name__: cases(lib) for lib in libs}
    for name in per["minitorch"]:
        res = {}
        for lib in libs:
            for _ in range(5):
                per[lib.__name__][name]()
        times = {lib.__name__: [] for lib in libs}
        for _ in range(rounds):
            for lib in libs:
                f = per[lib.__name__][name]
                t = time.perf_counter()
                for _ in range(5):
                    f()
                times[lib.__name__].append((time.perf_counter() - t) / 5)
        for k, v in times.items():
            res[k] = sorted(v)[len(v) // 2] * 1e6
        print(f"{name:40s} threads={threads}  minitorch {res['minitorch']:8.1f} us  "
              f"torch {res['torch']:8.1f} us  ratio {res['minitorch'] / res['torch']:.2f}")


if __name__ == "__main__":
    main()
