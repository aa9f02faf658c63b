"""Rebuilds digits.npz from the copy of the UCI digits shipped inside the
scikit-learn wheel, without installing scikit-learn:

    pip download --no-deps scikit-learn -d /tmp/skl
    python examples/data/make_digits.py /tmp/skl/scikit_learn-*.whl
"""
import gzip
import io
import pathlib
import sys
import zipfile

import numpy as np


def main(wheel: str) -> None:
    with zipfile.ZipFile(wheel) as z:
        raw = gzip.decompress(z.read("sklearn/datasets/data/digits.csv.gz"))
    table = np.loadtxt(io.BytesIO(raw), delimiter=",", dtype=np.float64)
    if table.shape != (1797, 65) or table.min() < 0 or table[:, :64].max() > 16:
        raise SystemExit(f"unexpected digits table: shape {table.shape}")
    images = table[:, :64].astype(np.uint8).reshape(-1, 8, 8)
    labels = table[:, 64].astype(np.uint8)
    out = pathlib.Path(__file__).with_name("digits.npz")
    np.savez_compressed(out, images=images, labels=labels)
    print(f"wrote {out}: images {images.shape}, labels {labels.shape}")


if __name__ == "__main__":
    main(sys.argv[1])
