"""Core: the fixed cost of making tensors, views and indexing, where Python overhead dominates."""
import numpy as np

from harness import trio

GROUP = "core"


def cases():
    def x16(lib):
        return lib.zeros(16) if lib is not np else np.zeros(16, np.float32)

    def x44(lib):
        return lib.zeros(4, 4) if lib is not np else np.zeros((4, 4), np.float32)

    return [
        trio(GROUP, "tensor([1.0])",
             lambda lib: ("lib.tensor([1.0])", {"lib": lib}),
             lambda np_: ("np.array([1.0], dtype=np.float32)", {"np": np_}),
             target=0.5),
        trio(GROUP, "zeros(1)",
             lambda lib: ("lib.zeros(1)", {"lib": lib}),
             lambda np_: ("np.zeros(1, dtype=np.float32)", {"np": np_}),
             target=0.5),
        trio(GROUP, "x.view(4, 4) of 16 elements",
             lambda lib: ("x.view(4, 4)", {"x": x16(lib)}),
             lambda np_: ("x.reshape(4, 4)", {"x": x16(np_)}),
             target=0.5, notes=["NumPy: x.reshape(4, 4), also a view"]),
        trio(GROUP, "x.t() of 4x4",
             lambda lib: ("x.t()", {"x": x44(lib)}),
             lambda np_: ("x.T", {"x": x44(np_)}),
             target=0.5, notes=["NumPy: x.T"]),
        trio(GROUP, "x[0] of 4x4",
             lambda lib: ("x[0]", {"x": x44(lib)}),
             lambda np_: ("x[0]", {"x": x44(np_)}),
             target=0.5),
    ]
