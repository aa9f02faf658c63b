"""Moving data: pickling 100 MB with protocol 5 out-of-band buffers (the
zero-copy path of multiprocessing and Ray), and a DataLoader whose workers
run an augmentation-heavy dataset beside num_workers=0.

The pickling case runs the same code on all three libraries; torch pickles
its storage in band, so its column is the copying baseline.
"""
import pickle

from data import array
from harness import Case, Ratio, Variant, trio

GROUP = "data"
MB100 = (25 * 1024 * 1024,)  # float32


def _pickle_oob(lib):
    x = array(lib, MB100)

    def step():
        buffers = []
        data = pickle.dumps(x, protocol=5, buffer_callback=buffers.append)
        pickle.loads(data, buffers=buffers)
    return step


class Augmented:
    """64 samples of a 3x64x64 image: flips, noise, normalisation and a blur,
    a few milliseconds of small ops per sample, as a typical transform."""

    def __init__(self, lib):
        self.lib = lib
        self.images = array(lib, (64, 3, 64, 64))

    def __len__(self):
        return 64

    def __getitem__(self, i):
        lib = self.lib
        x = self.images[i]
        for _ in range(8):
            x = x.flip(-1) + 0.01 * lib.randn(3, 64, 64)
            x = (x - x.mean()) / (x.std() + 1e-5)
            x = lib.nn.functional.avg_pool2d(x[None], 3, 1, 1)[0]
        return x, i


def _loader(workers):
    def setup(lib):
        loader = lib.utils.data.DataLoader(Augmented(lib), batch_size=8, num_workers=workers,
                                           persistent_workers=workers > 0)

        def epoch():
            for _ in loader:
                pass
        return epoch
    return setup


def cases():
    return [
        trio(GROUP, "pickle 100 MB float32, protocol 5 out-of-band, dump+load", _pickle_oob,
             np_setup=_pickle_oob, target_np=2.0,
             notes=["torch pickles its storage in band (a copy each way)"]),
        Case(GROUP, "DataLoader epoch, 64 augmented 3x64x64 samples, batch 8",
             [Variant("2 workers", "minitorch", _loader(2)),
              Variant("in process", "minitorch", _loader(0)),
              Variant("torch 2 workers", "torch", _loader(2)),
              Variant("torch in process", "torch", _loader(0))],
             [Ratio("2 workers / num_workers=0", "2 workers", "in process", 1.0),
              Ratio("minitorch/torch, 2 workers", "2 workers", "torch 2 workers"),
              Ratio("torch: 2 workers / num_workers=0", "torch 2 workers", "torch in process")],
             ["persistent workers: an epoch after the first, start-up excluded"]),
    ]
