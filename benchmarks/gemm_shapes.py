"""matmul / bmm on a small GPT's shapes (forward and the transposed operands
of backward), a square 2048 product and batches of small products,
minitorch vs torch, interleaved, medians.

    python benchmarks/gemm_shapes.py [threads] [rounds] [--only-minitorch]

--only-minitorch times minitorch alone, for comparing two builds of it
(run the script alternately with PYTHONPATH pointing at each build, from
outside the worktree so the path decides which one is imported).
"""
import sys
import time


def cases(lib):
    g = lib.Generator().manual_seed(0) if hasattr(lib, "Generator") else None

    def r(*s):
        return lib.randn(*s, generator=g)

    x, w3, w4, w4b = r(1024, 128), r(384, 128), r(512, 128), r(128, 512)
    dy3, h = r(1024, 384), r(1024, 512)
    q, k, att = r(64, 64, 32), r(64, 64, 32), r(64, 64, 64)
    q4, k4 = r(8, 8, 64, 32), r(8, 8, 64, 32)
    s16a, s16b = r(16, 64, 64), r(16, 64, 64)
    big_a, big_b = r(2048, 2048), r(2048, 2048)
    xb = r(8, 128, 128)
    return {
        "(1024,128)x(128,384)^T [linear fwd]": lambda: x @ w3.t(),
        "(1024,128)x(128,512)^T [linear fwd]": lambda: x @ w4.t(),
        "(1024,512)x(512,128)^T [linear fwd]": lambda: h @ w4b.t(),
        "(1024,384)x(384,128) [grad input]": lambda: dy3 @ w3,
        "(384,1024)x(1024,128) [grad weight]": lambda: dy3.t() @ x,
        "(8,128,128)x(128,384)^T [3-d linear]": lambda: xb @ w3.t(),
        "bmm (64,64,32)x(64,32,64) [q k^T]": lambda: lib.bmm(q, k.transpose(1, 2)),
        "bmm (64,64,64)x(64,64,32) [att v]": lambda: lib.bmm(att, q),
        "(8,8,64,32)x(8,8,32,64) [4-d attn]": lambda: q4 @ k4.transpose(-1, -2),
        "bmm 16 x (64,64)x(64,64)": lambda: lib.bmm(s16a, s16b),
        "(2048,2048)x(2048,2048)": lambda: big_a @ big_b,
    }


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    threads = int(args[0]) if args else 1
    rounds = int(args[1]) if len(args) > 1 else 41
    import minitorch

    libs = [minitorch]
    if "--only-minitorch" not in sys.argv:
        import torch

        libs.append(torch)
    for lib in libs:
        lib.set_num_threads(threads)
    per = {lib.__name__: cases(lib) for lib in libs}
    for name in per["minitorch"]:
        n_rounds = max(3, rounds // 8) if "2048" in name else rounds
        reps = 1 if "2048" in name else 5
        for lib in libs:
            for _ in range(2 if "2048" in name else 5):
                per[lib.__name__][name]()
        times = {lib.__name__: [] for lib in libs}
        for _ in range(n_rounds):
            for lib in libs:
                f = per[lib.__name__][name]
                t = time.perf_counter()
                for _ in range(reps):
                    f()
                times[lib.__name__].append((time.perf_counter() - t) / reps)
        res = {k: sorted(v)[len(v) // 2] * 1e6 for k, v in times.items()}
        line = f"{name:40s} threads={threads}  minitorch {res['minitorch']:9.1f} us"
        if "torch" in res:
            line += (f"  torch {res['torch']:9.1f} us  "
                     f"ratio {res['minitorch'] / res['torch']:.2f}")
        print(line, flush=True)


if __name__ == "__main__":
    main()
