"""The C argument parser: conversions, varargs, aliases and torch's error words."""
import numpy as np
import pytest

import minitorch as mt


def test_varargs_and_tuple_forms_of_int_list():
    x = mt.zeros(6)
    assert x.view(2, 3).shape == (2, 3)
    assert x.view((2, 3)).shape == (2, 3)
    assert x.view([3, 2]).shape == (3, 2)
    assert x.view(mt.Size([6])).shape == (6,)
    assert mt.zeros(2, 3).shape == mt.zeros((2, 3)).shape == (2, 3)


def test_numpy_integers_and_zero_dim_int_tensors_are_ints():
    x = mt.zeros(6)
    assert x.view(np.int64(2), 3).shape == (2, 3)
    assert x.view(mt.tensor(3), 2).shape == (3, 2)


def test_keywords_and_defaults():
    a, b = mt.ones(2), mt.ones(2)
    assert mt.add(a, b, alpha=3).tolist() == [4.0, 4.0]
    assert mt.add(input=a, other=b).tolist() == [2.0, 2.0]
    assert mt.zeros(2, dtype=mt.int32).dtype is mt.int32
    assert mt.zeros(2, dtype=float).dtype is mt.float64


def test_numbers_where_tensors_expected_for_arithmetic():
    assert mt.add(mt.ones(2), 2).tolist() == [3.0, 3.0]
    assert (2 * mt.ones(2)).tolist() == [2.0, 2.0]


@pytest.mark.parametrize("call, message", [
    (lambda: mt.add(mt.ones(1), mt.ones(1), 1, 2),
     "add() takes 2 positional arguments but 4 were given"),
    (lambda: mt.add(mt.ones(1), mt.ones(1), beta=2),
     "add() got an unexpected keyword argument 'beta'"),
    # (add would take this as torch does: its deprecated add(input, alpha, other))
    (lambda: mt.mul(mt.ones(1), mt.ones(1), other=mt.ones(1)),
     "mul() got multiple values for argument 'other'"),
    (lambda: mt.add(other=mt.ones(1)),
     'add() missing 1 required positional argument: "input"'),
    (lambda: mt.ones(1).view(2, 3.0),
     "view(): argument 'size' (position 1) must be tuple of ints, but found element of type float at pos 1"),
    (lambda: mt.zeros((2, 3.5)),
     "zeros(): argument 'size' (position 1) must be tuple of ints, but found element of type float at pos 1"),
    (lambda: mt.add("a", mt.ones(1)),
     "add(): argument 'input' (position 1) must be Tensor, not str"),
    (lambda: mt.ones(2).transpose(0, "1"),
     "transpose(): argument 'dim1' (position 2) must be int, not str"),
    (lambda: mt.zeros(2, dtype="float"),
     "zeros(): argument 'dtype' must be minitorch.dtype, not str"),
])
def test_error_messages(call, message):
    with pytest.raises(TypeError) as e:
        call()
    assert str(e.value) == message


def test_error_messages_match_torch_where_names_agree():
    torch = pytest.importorskip("torch")
    for name in ("add", "mul"):
        for args, kwargs in [((1, 2, 3, 4), {}), ((torch.ones(1), torch.ones(1)), {"beta": 1})]:
            targs = tuple(torch.ones(1) if isinstance(a, torch.Tensor) else a for a in args)
            margs = tuple(mt.ones(1) if isinstance(a, torch.Tensor) else a for a in args)
            with pytest.raises(TypeError) as te:
                getattr(torch, name)(*targs, **kwargs)
            with pytest.raises(TypeError) as me:
                getattr(mt, name)(*margs, **kwargs)
            assert type(me.value) is type(te.value)


def test_bool_is_not_an_int_and_int_is_not_a_bool():
    with pytest.raises(TypeError):
        mt.ones(4).view(True)
    with pytest.raises(TypeError):
        mt.tensor([1.0], requires_grad=1)


def test_dim_index_errors_are_index_errors():
    with pytest.raises(IndexError) as e:
        mt.ones(2, 2).transpose(0, 2)
    assert str(e.value) == "Dimension out of range (expected to be in range of [-2, 1], but got 2)"


def _methods_of_self_alone():
    """The Tensor methods from the op table whose every row takes self alone
    (an out= aside, which methods refuse)."""
    out = []
    for name in sorted({row[1] for row in mt._C._op_rows() if "m" in row[2]}):
        sigs = getattr(mt.Tensor, name)._signatures
        if all(len([p for p in sig if p[0] != "out"]) == 1 for sig in sigs):
            out.append(name)
    return out


def test_a_method_of_self_alone_refuses_arguments_as_torchs():
    """torch makes such a method CPython's no-argument method: it refuses any
    keyword, out= too, then any argument, in CPython's words."""
    torch = pytest.importorskip("torch")
    names = _methods_of_self_alone()
    assert {"abs", "t", "numel", "neg_"} <= set(names)
    compared = 0
    for name in names:
        for kwargs, args in (({"out": None}, ()), ({}, (1,))):
            messages = []
            for lib in (torch, mt):
                x = lib.ones(2, 2)
                with pytest.raises(TypeError) as info:
                    getattr(lib.Tensor, name)(x, *args, **kwargs)
                messages.append(str(info.value))
            # torch's own method may take more (an overload minitorch has not)
            # or be another's alias (its __abs__ is abs)
            if messages[0].startswith(f"TensorBase.{name}("):
                assert messages[1] == messages[0]
                compared += 1
    assert compared > len(names)
