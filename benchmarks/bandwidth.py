"""The machine's memory bandwidth as the realistic suite's yardstick: the best of
several large NumPy copies (256 MiB each way, far beyond any cache), split over
`threads` Python threads (NumPy's copy releases the GIL). Counted as STREAM
counts a copy: bytes read plus bytes written, write-allocate traffic not included."""
import threading
import time
from functools import lru_cache

import numpy as np

COPY_BYTES = 256 << 20


def _copy_seconds(src, dst, threads):
    parts = np.array_split(np.arange(src.size), threads)
    bounds = [(int(p[0]), int(p[-1]) + 1) for p in parts if p.size]

    def work(lo, hi):
        np.copyto(dst[lo:hi], src[lo:hi])

    workers = [threading.Thread(target=work, args=b) for b in bounds]
    t0 = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return time.perf_counter() - t0


@lru_cache(maxsize=None)
def copy_gbps(threads, repeats=5):
    """GB/s (1e9 bytes) of the best of `repeats` copies on `threads` threads."""
    src = np.ones(COPY_BYTES // 4, dtype=np.float32)
    dst = np.zeros_like(src)  # touched, so page faults stay out of the timing
    best = min(_copy_seconds(src, dst, threads) for _ in range(repeats))
    return 2 * src.nbytes / best / 1e9
