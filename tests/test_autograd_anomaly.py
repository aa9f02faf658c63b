"""autograd.detect_anomaly / set_detect_anomaly: NaN detection in backward,
the forward stack of a failing node (and of the nodes whose backward made
it) reported as warnings, nesting and restoring; compared with torch."""
import contextlib
import io
import warnings

import pytest

import minitorch as mt


def libs():
    return [mt, pytest.importorskip("torch")]


def nan_function(lib, fail_0th):
    class MyFunc(lib.autograd.Function):
        @staticmethod
        def forward(ctx, inp1, inp2):
            return inp1.sum(0, keepdim=True)

        @staticmethod
        def backward(ctx, g):
            gi = g.clone().expand(4).clone()
            gi[0] = float("nan")
            return (gi, None) if fail_0th else (None, gi)
    return MyFunc


def run(fn):
    """(error or None, warning messages without torch's C++ location suffix)."""
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        try:
            fn()
            err = None
        except RuntimeError as e:
            err = str(e)
    return err, [str(w.message).split(" (Triggered internally")[0] for w in ws
                 if "jit" not in str(w.message)]


@pytest.mark.parametrize("fail_0th", [True, False])
def test_nan_in_backward_names_the_function_and_its_forward(fail_0th):
    got = []
    for lib in libs():
        F = nan_function(lib, fail_0th)
        inp = lib.rand(4, requires_grad=True)
        F.apply(inp, inp).backward()  # off: NaN passes silently

        def with_forward():
            with lib.autograd.detect_anomaly():
                F.apply(inp, inp).backward()

        out = F.apply(inp, inp)

        def backward_only():
            with lib.autograd.detect_anomaly():
                out.backward()

        got.append((run(with_forward), run(backward_only)))
    for (err, ws), (terr, tws) in zip(got[0], got[1]):
        assert err == terr
        assert err == f"Function 'MyFuncBackward' returned nan values in its {0 if fail_0th else 1}th output."
        assert [w.split(".")[0] for w in ws] == [w.split(".")[0] for w in tws]
    (_, ws), (_, ws2) = got[0]
    assert ws[0].startswith("Anomaly Detection has been enabled.")
    assert ws[1].startswith("Error detected in MyFuncBackward. Traceback of forward call that "
                            "caused the error:\n")
    assert "F.apply(inp, inp).backward()" in ws[1]
    assert ws2[1] == ("Error detected in MyFuncBackward. No forward pass information available. "
                      "Enable detect anomaly during forward pass for more information.")


def test_nested_failure_reports_the_node_that_made_the_failing_one():
    got = []
    for lib in libs():
        class Outer(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x.sum(0, keepdim=True)

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return Inner.apply(g.expand(3) * x)

        class Inner(lib.autograd.Function):
            @staticmethod
            def forward(ctx, y):
                return y * 2

            @staticmethod
            def backward(ctx, g):
                return g + float("nan")

        def go():
            with lib.autograd.detect_anomaly():
                x = lib.rand(3, requires_grad=True)
                out = Outer.apply(x)
                (gx,) = lib.autograd.grad(out, (x,), create_graph=True)
                gx.sum().backward()

        got.append(run(go))
    (err, ws), (terr, tws) = got
    assert err == terr == "Function 'InnerBackward' returned nan values in its 0th output."
    assert len(ws) == len(tws) == 3
    assert ws[1].startswith("Error detected in InnerBackward.") and "Inner.apply" in ws[1]
    assert ws[2].startswith("\n\nPrevious calculation was induced by OuterBackward. Traceback "
                            "of forward call that induced the previous calculation:\n")
    assert "Outer.apply(x)" in ws[2]


def test_check_nan_off_and_nesting_restore():
    for lib in libs():
        class Nan(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.clone()

            @staticmethod
            def backward(ctx, g):
                return g * float("nan")

        x = lib.rand(3, requires_grad=True)
        out = Nan.apply(x).sum()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autograd.detect_anomaly(check_nan=False):
                out.backward(retain_graph=True)
                assert lib.is_anomaly_enabled() and not lib.is_anomaly_check_nan_enabled()
                with lib.autograd.detect_anomaly(check_nan=True):
                    with pytest.raises(RuntimeError, match="returned nan values in its 0th"):
                        out.backward(retain_graph=True)
                assert not lib.is_anomaly_check_nan_enabled()
                out.backward(retain_graph=True)
        assert not lib.is_anomaly_enabled() and lib.is_anomaly_check_nan_enabled()
        lib.autograd.set_detect_anomaly(True)
        assert lib.is_anomaly_enabled()
        lib.autograd.set_detect_anomaly(False)
        with lib.autograd.set_detect_anomaly(True, check_nan=False):
            assert lib.is_anomaly_enabled() and not lib.is_anomaly_check_nan_enabled()
        assert not lib.is_anomaly_enabled() and lib.is_anomaly_check_nan_enabled()


def test_other_backward_errors_keep_their_message_and_warn():
    for lib in libs():
        def go():
            with lib.autograd.detect_anomaly():
                a = lib.randn(5, requires_grad=True)
                d1 = a + 1
                d2 = d1 ** 2
                d1 += 1
                lib.autograd.grad(d2.sum(), a)

        err, ws = run(go)
        assert err.startswith("one of the variables needed for gradient computation has been "
                              "modified by an inplace operation")
        assert ws[1].startswith("Error detected in PowBackward0. Traceback of forward call")

        # warnings that raise go to stderr; the backward error stands
        stderr = io.StringIO()
        with warnings.catch_warnings(), contextlib.redirect_stderr(stderr):
            warnings.simplefilter("error")
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                with lib.autograd.set_detect_anomaly(True):
                    go2 = lib.randn(5, requires_grad=True) + 1
                    d2 = go2 ** 2
                    go2 += 1
                    d2.sum().backward()
        if lib is mt:
            assert "Error detected in PowBackward0" in stderr.getvalue()
