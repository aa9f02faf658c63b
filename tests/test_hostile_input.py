"""Python code that changes the arguments of a call while it is being parsed,
handlers that recurse without end, and numbers where torch wants a tensor: each
must end in a clean exception (or torch's result), never a crash or a read of
memory the call does not own. Run under ASan by tools/asan_run.sh."""
import gc
import threading

import numpy as np
import pytest

import minitorch as mt

try:
    import torch
except ImportError:  # the comparisons with torch skip
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs torch as the reference")


# ----------------------------------------------- sequences changed mid-parse

def test_int_list_emptied_by_an_elements_index_is_read_as_given():
    shape = []

    class Clears:
        def __index__(self):
            shape.clear()
            shape.extend(object() for _ in range(10))
            gc.collect()
            return 2

    shape.extend([Clears(), 3, 4])
    assert mt.zeros(24).reshape(shape).shape == (2, 3, 4)
    assert len(shape) == 10  # the __index__ did run


def test_tensor_list_emptied_by_a_later_argument_keeps_its_tensors():
    parts = [mt.arange(1000.0), mt.arange(1000.0) * 2]

    class Dim:
        def __index__(self):
            parts.clear()
            gc.collect()
            return 0

    out = mt.cat(parts, dim=Dim())
    assert parts == []
    assert out.shape == (2000,)
    assert out[:3].tolist() == [0.0, 1.0, 2.0]
    assert out[1000:1003].tolist() == [0.0, 2.0, 4.0]
    assert float(out.sum()) == 1498500.0


def test_stack_list_replaced_during_parse():
    parts = [mt.ones(3), mt.zeros(3)]

    class Dim:
        def __index__(self):
            parts[:] = [mt.full((5,), 7.0)] * 4
            gc.collect()
            return 1

    assert mt.stack(parts, Dim()).tolist() == [[1.0, 0.0]] * 3


# ----------------------------------------------- torch.tensor on lying data

class ShapeLies(mt.Tensor):
    @property
    def shape(self):
        return (1,)


class ShapeIsAList(mt.Tensor):
    @property
    def shape(self):
        return [10 ** 6]


@pytest.mark.parametrize("cls", [ShapeLies, ShapeIsAList])
def test_tensor_from_list_reads_sizes_from_memory_not_the_shape_property(cls):
    got = mt.tensor([mt.arange(5.0).as_subclass(cls)])
    assert got.shape == (1, 5)
    assert got.tolist() == [[0.0, 1.0, 2.0, 3.0, 4.0]]


def test_ndarray_subclass_with_lying_shape():
    class Lies(np.ndarray):
        @property
        def shape(self):
            return (1,)

    got = mt.tensor([np.arange(5.0).view(Lies)])
    assert got.tolist() == [[0.0, 1.0, 2.0, 3.0, 4.0]]


def test_item_that_grows_the_list_being_stored():
    data = []

    class Grows(mt.Tensor):
        def item(self):
            data.extend([1.0] * 1000)
            gc.collect()
            return 1.0

    data.extend([mt.tensor(1.0).as_subclass(Grows), 2.0])
    with pytest.raises(ValueError, match=r"expected sequence of length 2 at dim 0 \(got 1002\)"):
        mt.tensor(data)


def test_item_that_shrinks_an_inner_list():
    data = []

    class Shrinks(mt.Tensor):
        def item(self):
            data[1].clear()
            gc.collect()
            return 1.0

    data.extend([[mt.tensor(1.0).as_subclass(Shrinks), 2.0], [3.0, 4.0]])
    with pytest.raises(ValueError, match=r"expected sequence of length 2 at dim 1 \(got 0\)"):
        mt.tensor(data)


def test_item_that_resizes_a_tensor_still_to_be_stored():
    inner = mt.arange(3.0)

    class Resizes(mt.Tensor):
        def item(self):
            inner.data = mt.zeros(1)
            return 1.0

    with pytest.raises(ValueError, match="expected sequence of length 3 at dim 1"):
        mt.tensor([[mt.tensor(1.0).as_subclass(Resizes), 0.0, 0.0], inner])


# ------------------------------------------------------------ recursion

def run_in_thread(fn, stack_size):
    result = {}

    def body():
        try:
            result["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - reported to the test below
            result["error"] = e

    old = threading.stack_size(stack_size)
    try:
        t = threading.Thread(target=body)
        t.start()
        t.join()
    finally:
        threading.stack_size(old)
    return result


class Recurses:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


class RecursingSubclass(mt.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize("call", [
    lambda: mt.add(Recurses(), 1),
    lambda: mt.cat([mt.ones(1), Recurses()]),
    lambda: mt.ones(2)[Recurses()],
    lambda: mt.ones(2).as_subclass(RecursingSubclass) + 1,
], ids=["function", "list", "indexing", "subclass"])
@pytest.mark.parametrize("stack_kib", [256, 2048])
def test_unbounded_handler_recursion_is_a_recursion_error(call, stack_kib):
    result = run_in_thread(call, stack_kib * 1024)
    assert isinstance(result.get("error"), RecursionError), result


def test_recursion_guard_holds_with_a_raised_recursion_limit():
    import sys

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(100000)
    try:
        result = run_in_thread(lambda: mt.ones(2)[Recurses()], 2 * 1024 * 1024)
    finally:
        sys.setrecursionlimit(old)
    assert isinstance(result.get("error"), RecursionError)
    assert "C stack" in str(result["error"])


def test_deep_but_finite_recursion_still_works():
    depth = [0]

    class Counts:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            depth[0] += 1
            if depth[0] < 100:
                return func(*args, **(kwargs or {}))
            return "bottom"

    assert run_in_thread(lambda: mt.add(Counts(), 1), 2 * 1024 * 1024) == {"value": "bottom"}
    assert depth[0] == 100


# ------------------------------------------- many __torch_function__ types

def test_every_overloading_type_reaches_the_handler():
    seen = []

    def make(i):
        def handler(cls, func, types, args=(), kwargs=None):
            seen.append(tuple(t.__name__ for t in types))
            return i
        return type(f"Duck{i}", (), {"__torch_function__": classmethod(handler)})()

    ducks = [make(i) for i in range(40)]
    assert mt.cat(ducks) == 0
    assert seen == [tuple(f"Duck{i}" for i in range(40))]


def test_overloading_types_beyond_the_inline_list_in_handle_torch_function():
    from minitorch.overrides import handle_torch_function

    def make(i):
        def handler(cls, func, types, args=(), kwargs=None):
            return len(types)
        return type(f"D{i}", (), {"__torch_function__": classmethod(handler)})()

    ducks = [make(i) for i in range(20)]
    assert handle_torch_function(lambda *a: None, ducks, *ducks) == 20


# ------------------------------------------------ numbers in tensor places

BINARY = ["add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
          "floor_divide", "remainder", "fmod", "pow", "xlogy", "copysign", "bitwise_and",
          "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "eq",
          "lt", "ge", "maximum", "atan2", "hypot", "clamp_min", "result_type"]


@needs_torch
@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("args", [(2, 3), (2.5, 3), (True, 2), (2, "t"), ("t", 2)],
                         ids=["ints", "float-int", "bool-int", "number-tensor", "tensor-number"])
def test_numbers_for_tensor_operands_as_torch(name, args):
    def call(lib):
        real = tuple(lib.ones(2, dtype=lib.int64) if a == "t" else a for a in args)
        try:
            r = getattr(lib, name)(*real)
        except TypeError:
            return "TypeError"
        except RuntimeError:
            return "RuntimeError"
        return r.tolist() if hasattr(r, "tolist") else str(r).split(".")[-1]

    assert call(mt) == call(torch)


@needs_torch
@pytest.mark.parametrize("call", [
    "lib.reshape(lib.ones(6), 6)", "lib.tile(lib.ones(2), 2)", "lib.flip(lib.ones(2), 0)",
    "lib.ones(6).reshape(6)", "lib.zeros(2, 3)", "lib.ones(2, 3).permute(1, 0)",
    "lib.xlogy_(2, lib.ones(2))", "lib.Tensor.mul_(2, 3)",
])
def test_varargs_and_inplace_targets_as_torch(call):
    def run(lib):
        try:
            r = eval(call, {"lib": lib})
        except TypeError:
            return "TypeError"
        return r.tolist()

    assert run(mt) == run(torch)


def test_tensor_like_in_an_int_list_emptied_by_a_later_element():
    shape = []

    class Duck:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return ("dispatched", func.__name__)

    class Clears:
        def __index__(self):
            shape.clear()
            gc.collect()
            return 3

    shape.extend([Duck(), Clears()])
    assert mt.zeros(6).reshape(shape) == ("dispatched", "reshape")
    assert shape == []


# -------------------------------- non-tensors in Python-level functions

def _functional_names():
    """The Python-level nn.functional functions torch has too."""
    import minitorch.nn.functional as F
    if torch is None:
        return []
    return sorted(n for n in dir(F) if not n.startswith("_") and callable(getattr(F, n))
                  and getattr(getattr(F, n), "_dispatches", False)
                  and hasattr(torch.nn.functional, n))


@needs_torch
@pytest.mark.parametrize("name", _functional_names())
@pytest.mark.parametrize("args", [(1,), (1, "T"), ("T", 1), (1, "T", "T"), ("s", "T")],
                         ids=["int", "int-tensor", "tensor-int", "int-tensor-tensor", "str-tensor"])
def test_functional_non_tensor_is_a_type_error_where_torch_says_so(name, args):
    import minitorch.nn.functional as F
    import torch.nn.functional as TF

    def run(lib, f):
        real = [lib.ones(2, 3) if a == "T" else a for a in args]
        try:
            f(*real)
        except TypeError as e:
            return "TypeError", str(e)
        except Exception as e:  # noqa: BLE001 - compared with torch's
            return type(e).__name__, str(e)
        return "ok", ""

    theirs, _ = run(torch, getattr(TF, name))
    ours, message = run(mt, getattr(F, name))
    assert ours != "AttributeError", message
    if theirs == "TypeError":
        assert ours == "TypeError", message
