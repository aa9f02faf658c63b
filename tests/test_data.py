"""minitorch.utils.data: datasets, samplers, DataLoader and default_collate,
compared with torch.utils.data where the behaviour is deterministic."""
import collections
import pathlib

import numpy as np
import pytest

import minitorch as mt
from minitorch.utils.data import (
    BatchSampler, ConcatDataset, DataLoader, Dataset, IterableDataset, RandomSampler,
    SequentialSampler, Subset, TensorDataset, default_collate, random_split,
)

torch = pytest.importorskip("torch")


def to_np(x):
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def assert_same_structure(ours, ref):
    if isinstance(ref, torch.Tensor):
        assert isinstance(ours, mt.Tensor)
        assert str(ours.dtype).split(".")[1] == str(ref.dtype).split(".")[1]
        assert tuple(ours.shape) == tuple(ref.shape)
        np.testing.assert_array_equal(to_np(ours), ref.numpy())
    elif isinstance(ref, dict):
        assert type(ours) is type(ref) and ours.keys() == ref.keys()
        for k in ref:
            assert_same_structure(ours[k], ref[k])
    elif isinstance(ref, (list, tuple)):
        assert type(ours) is type(ref) and len(ours) == len(ref)
        for a, b in zip(ours, ref):
            assert_same_structure(a, b)
    else:
        assert ours == ref


Point = collections.namedtuple("Point", "x y")


def samples(lib):
    t = lib.tensor
    return [
        [t([1.0, 2.0]), t([3.0, 4.0])],
        [1.5, 2.5, -1.0],
        [1, 2, 3],
        [True, False],
        ["a", "b"],
        [(t([1]), 2.0, "x"), (t([3]), 4.0, "y")],
        [{"img": t([[1, 2]]), "label": 7}, {"img": t([[3, 4]]), "label": 8}],
        [collections.OrderedDict(a=1.0), collections.OrderedDict(a=2.0)],
        [[1, 2.0], [3, 4.0]],
        [Point(1, t([1.0])), Point(2, t([2.0]))],
        [np.array([1, 2], dtype=np.int16), np.array([3, 4], dtype=np.int16)],
        [np.float32(1.5), np.float32(2.5)],
    ]


@pytest.mark.parametrize("i", range(len(samples(mt))))
def test_default_collate_matches_torch(i):
    from torch.utils.data import default_collate as torch_collate

    assert_same_structure(default_collate(samples(mt)[i]), torch_collate(samples(torch)[i]))


def test_default_collate_errors():
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors"):
        default_collate([object(), object()])


def test_tensor_dataset_and_loader_in_order():
    x = mt.arange(20.0).reshape(10, 2)
    y = mt.arange(10)
    ds = TensorDataset(x, y)
    assert len(ds) == 10
    assert ds[3][0].tolist() == [6.0, 7.0] and ds[3][1].item() == 3
    dl = DataLoader(ds, batch_size=4)
    assert len(dl) == 3
    batches = list(dl)
    assert [b[1].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert tuple(batches[0][0].shape) == (4, 2)
    assert isinstance(batches[0], list)
    dl = DataLoader(ds, batch_size=4, drop_last=True)
    assert len(dl) == 2 and [b[1].tolist() for b in dl] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(mt.ones(3), mt.ones(4))


def test_shuffle_uses_the_generator():
    ds = TensorDataset(mt.arange(50))

    def epoch(seed):
        g = mt.Generator()
        g.manual_seed(seed)
        return [i for (b,) in DataLoader(ds, batch_size=7, shuffle=True, generator=g)
                for i in b.tolist()]

    a, b, c = epoch(1), epoch(1), epoch(2)
    assert a == b and a != c
    assert sorted(a) == list(range(50)) and a != list(range(50))
    # Same order as minitorch.randperm with the same seed.
    g = mt.Generator()
    g.manual_seed(1)
    assert a == mt.randperm(50, generator=g).tolist()
    # Without a generator the default one drives it: manual_seed reproduces.
    mt.manual_seed(5)
    d1 = [b.tolist() for (b,) in DataLoader(ds, batch_size=50, shuffle=True)]
    mt.manual_seed(5)
    d2 = [b.tolist() for (b,) in DataLoader(ds, batch_size=50, shuffle=True)]
    assert d1 == d2
    # Every epoch reshuffles.
    dl = DataLoader(ds, batch_size=50, shuffle=True)
    assert next(iter(dl))[0].tolist() != next(iter(dl))[0].tolist()


def test_loader_options_and_errors():
    ds = TensorDataset(mt.arange(6))
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        DataLoader(ds, sampler=SequentialSampler(ds), shuffle=True)
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
        DataLoader(ds, batch_sampler=BatchSampler(SequentialSampler(ds), 2, False), batch_size=2)
    with pytest.raises(ValueError, match="batch_size should be a positive integer value"):
        DataLoader(ds, batch_size=0)
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        DataLoader(ds, num_workers=-1)
    dl = DataLoader(ds, batch_sampler=BatchSampler(SequentialSampler(ds), 4, False))
    assert [b[0].tolist() for b in dl] == [[0, 1, 2, 3], [4, 5]]
    dl = DataLoader(ds, batch_size=None)
    assert len(dl) == 6 and [s[0].item() for s in dl] == list(range(6))
    dl = DataLoader(ds, batch_size=3, collate_fn=lambda batch: len(batch))
    assert list(dl) == [3, 3]
    dl = DataLoader(list(range(5)), batch_size=2)
    assert [b.tolist() for b in dl] == [[0, 1], [2, 3], [4]]


def test_iterable_dataset():
    class Stream(IterableDataset):
        def __iter__(self):
            return iter(range(7))

    assert [b.tolist() for b in DataLoader(Stream(), batch_size=3)] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [b.tolist() for b in DataLoader(Stream(), batch_size=3, drop_last=True)] == \
        [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(ValueError, match="expected unspecified shuffle option"):
        DataLoader(Stream(), shuffle=True)


def test_samplers():
    data = list(range(10))
    assert list(SequentialSampler(data)) == data
    g = mt.Generator()
    g.manual_seed(0)
    rs = list(RandomSampler(data, generator=g))
    assert sorted(rs) == data
    g.manual_seed(0)
    many = list(RandomSampler(data, num_samples=25, generator=g))
    assert len(many) == 25 and sorted(many[:10]) == data
    g.manual_seed(0)
    rep = list(RandomSampler(data, replacement=True, num_samples=30, generator=g))
    assert len(rep) == 30 and all(0 <= i < 10 for i in rep)
    assert list(BatchSampler(range(5), 2, False)) == [[0, 1], [2, 3], [4]]
    assert len(BatchSampler(range(5), 2, True)) == 2
    with pytest.raises(ValueError, match="num_samples should be a positive integer value"):
        RandomSampler(data, num_samples=0)


def test_random_split_lengths_and_fractions():
    ds = TensorDataset(mt.arange(10))
    g = mt.Generator()
    g.manual_seed(42)
    a, b = random_split(ds, [7, 3], generator=g)
    assert isinstance(a, Subset) and len(a) == 7 and len(b) == 3
    idx = sorted(int(s[0]) for s in a) + sorted(int(s[0]) for s in b)
    assert sorted(idx) == list(range(10))
    g.manual_seed(42)
    perm = mt.randperm(10, generator=g).tolist()
    assert a.indices == perm[:7] and b.indices == perm[7:]
    # Fractions: floors, then the remainder round-robin, as torch.
    parts = random_split(range(11), [0.5, 0.3, 0.2])
    ref = torch.utils.data.random_split(range(11), [0.5, 0.3, 0.2])
    assert [len(p) for p in parts] == [len(r) for r in ref] == [6, 3, 2]
    with pytest.raises(ValueError, match="Sum of input lengths does not equal"):
        random_split(ds, [3, 3])
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        random_split(range(2), [0.95, 0.05])


def test_subset_and_concat():
    ds = TensorDataset(mt.arange(10) * 10)
    sub = Subset(ds, [2, 5, 7])
    assert len(sub) == 3 and sub[1][0].item() == 50
    assert [b[0].tolist() for b in DataLoader(sub, batch_size=2)] == [[20, 50], [70]]
    cat = ConcatDataset([sub, Subset(ds, [1])])
    assert len(cat) == 4 and cat[3][0].item() == 10 and cat[-1][0].item() == 10
    assert len(sub + sub) == 6

    class Squares(Dataset):
        def __getitem__(self, i):
            return i * i

        def __len__(self):
            return 4

    assert [b.tolist() for b in DataLoader(Squares(), batch_size=3)] == [[0, 1, 4], [9]]


def test_digits_dataset_file():
    path = pathlib.Path(__file__).resolve().parents[1] / "examples" / "data" / "digits.npz"
    with np.load(path) as d:
        images, labels = d["images"], d["labels"]
    assert images.shape == (1797, 8, 8) and images.dtype == np.uint8
    assert labels.shape == (1797,) and labels.dtype == np.uint8
    assert images.max() == 16 and images.min() == 0
    assert np.bincount(labels).tolist() == [178, 182, 177, 183, 181, 182, 181, 179, 174, 180]
    ds = TensorDataset(mt.tensor(images).reshape(-1, 64).float() / 16, mt.tensor(labels).long())
    x, y = next(iter(DataLoader(ds, batch_size=32)))
    assert tuple(x.shape) == (32, 64) and y.dtype == mt.int64


def test_large_batches_collate():
    ds = TensorDataset(mt.arange(2000.0).reshape(1000, 2), mt.arange(1000))
    x, y = next(iter(DataLoader(ds, batch_size=1000)))
    assert tuple(x.shape) == (1000, 2) and y.tolist() == list(range(1000))
    assert x[999].tolist() == [1998.0, 1999.0]
