"""Which hooks the engine runs, in which order, and what autograd.grad
captures, compared with torch: tensor hooks before a node's own prehooks;
a node autograd.grad only captures runs its tensor hooks and nothing else,
one that runs on is captured before its hooks; backward(inputs=...) runs the
inputs' nodes as a full backward does (a non-leaf input retains its grad);
tensor hooks see None for a gradient that is undefined; AccumulateGrad runs
as soon as it is ready."""
import pytest

from side_by_side import same, val

torch = pytest.importorskip("torch")


def log_hooks(L, mode):
    """torch's test_prehook_ordering scenario under each way of running."""
    log = []

    def tensor_hook(g):
        log.append("t")
        return g * 3

    def node_prehook(gs):
        log.append("n")
        return tuple(g * 2 for g in gs)

    a = L.tensor(1.0, requires_grad=True)
    b = a.clone()
    b.grad_fn.register_prehook(node_prehook)
    b.register_hook(tensor_hook)
    b.grad_fn.register_prehook(node_prehook)
    acc = b.grad_fn.next_functions[0][0]
    a.register_hook(tensor_hook)
    acc.register_prehook(node_prehook)
    a.register_hook(tensor_hook)
    got = None
    if mode == "backward":
        b.sum().backward()
    elif mode == "grad_leaf":
        got = L.autograd.grad(b.sum(), (a,))
    elif mode == "grad_both":
        got = L.autograd.grad(b.sum(), (a, b))
    elif mode == "inputs_nonleaf":
        b.sum().backward(inputs=(b,))
    elif mode == "inputs_leaf":
        b.sum().backward(inputs=(a,))
    return log, val(got), val(a.grad), b.retains_grad, val(b.grad)


@pytest.mark.parametrize("mode", ["backward", "grad_leaf", "grad_both", "inputs_nonleaf",
                                  "inputs_leaf"])
def test_tensor_hooks_then_node_prehooks(mode):
    log, *_ = same(torch, log_hooks, mode)
    assert log  # every mode runs some hook


def test_prehook_ordering_values():
    import minitorch as mt
    log, got, a_grad, retains, b_grad = log_hooks(mt, "grad_leaf")
    # a captured leaf: its tensor hooks only, not AccumulateGrad's prehook
    assert log == ["t", "n", "n", "t", "t"] and got == (("T", (), [108.0]),) and a_grad is None
    log, got, a_grad, retains, b_grad = log_hooks(mt, "inputs_nonleaf")
    # the retained grad sees the tensor hook, not the node prehooks after it
    assert log == ["t", "n", "n"] and retains and b_grad == ("T", (), [3.0]) and a_grad is None


def count_hooks(L, how):
    """torch's test_hook_edge_case_when_called_with_grad: which of a chain's
    hooks run for each target set."""
    a = L.tensor(1.0, requires_grad=True)
    b = a * 2
    c = b * 2
    counts = {"tensor": 0, "pre": 0, "post": 0}

    def bump(name):
        def hook(*args):
            counts[name] += 1
        return hook

    a.register_hook(bump("tensor"))
    b.register_hook(bump("tensor"))
    acc = b.grad_fn.next_functions[0][0]
    acc.register_hook(bump("post"))
    acc.register_prehook(bump("pre"))
    b.grad_fn.register_hook(bump("post"))
    b.grad_fn.register_prehook(bump("pre"))
    got = None
    if how == "grad_b":
        got = L.autograd.grad(c, inputs=(b,))
    elif how == "grad_ab":
        got = L.autograd.grad(c, inputs=(a, b))
    elif how == "backward":
        c.backward()
    elif how == "inputs_ab":
        c.backward(inputs=(a, b))
    elif how == "inputs_b":
        c.backward(inputs=(b,))
    return counts, val(got), val(a.grad), val(b.grad)


@pytest.mark.parametrize("how", ["grad_b", "grad_ab", "backward", "inputs_ab", "inputs_b"])
def test_hooks_run_for_each_target_set(how):
    same(torch, count_hooks, how)


def test_edge_case_counts():
    import minitorch as mt
    assert count_hooks(mt, "grad_b")[0] == {"tensor": 1, "pre": 0, "post": 0}
    assert count_hooks(mt, "grad_ab")[0] == {"tensor": 2, "pre": 1, "post": 1}
    assert count_hooks(mt, "inputs_ab")[0] == {"tensor": 2, "pre": 2, "post": 2}


def captured_before_hooks(L, hook_kind):
    """A target that runs on is captured as its gradient arrived; one that
    does not, after its tensor hooks."""
    a = L.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    c = (b * 2).sum()
    if hook_kind == "tensor":
        b.register_hook(lambda g: g * 10)
    else:
        b.grad_fn.register_prehook(lambda gs: (gs[0] * 10,))
    both = L.autograd.grad(c, (a, b), retain_graph=True)
    only_b = L.autograd.grad(c, (b,), retain_graph=True)
    only_a = L.autograd.grad(c, (a,))
    return val(both), val(only_b), val(only_a)


@pytest.mark.parametrize("hook_kind", ["tensor", "prehook"])
def test_capture_sees_hooks_only_when_not_running_on(hook_kind):
    both, only_b, only_a = same(torch, captured_before_hooks, hook_kind)
    assert both[1] == ("T", (2,), [2.0, 2.0])  # raw, before the hook
    assert only_b[0][2] == ([20.0, 20.0] if hook_kind == "tensor" else [2.0, 2.0])
    assert only_a[0][2] == [40.0, 40.0]


def undefined_grads(L, case):
    """Tensor hooks of a running node are called with None for an output
    that got no gradient (retained grads stay None)."""
    seen = []
    if case == "unbind":
        x = L.ones(4, requires_grad=True)
        parts = x.unbind()
        parts[0].register_hook(lambda g: seen.append(val(g)))
        parts[2].retain_grad()
        parts[1].backward()
        parts[3].backward()
        return seen, val(x.grad), val(parts[2].grad)
    if case == "leaf":
        a = L.tensor(1.0, requires_grad=True)
        b = L.tensor(2.0, requires_grad=True)
        a.register_hook(lambda g: seen.append(val(g)))

        class FirstOnly(L.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x + y

            @staticmethod
            def backward(ctx, g):
                return g, None

        FirstOnly.apply(b, a).backward()
        return seen, val(a.grad), val(b.grad)
    x = L.ones(3, requires_grad=True)
    parts = x.split(1)

    def replace(g):
        return L.ones(1)

    parts[0].register_hook(replace)
    err = None
    try:
        parts[1].sum().backward()
    except RuntimeError as e:
        err = str(e)
    return seen, err


@pytest.mark.parametrize("case", ["unbind", "leaf", "replace_none"])
def test_tensor_hooks_see_none(case):
    got = same(torch, undefined_grads, case)
    if case == "unbind":
        assert got[0] == [None, None]
    elif case == "leaf":
        assert got[0] == [None] and got[1] is None
    else:
        assert got[1] == "can't replace a None gradient with a non-None value"


def leaf_first_order(L, early, n):
    """AccumulateGrad runs as soon as it is ready, before the nodes that got
    ready with it, even ones made after it (torch gives it the highest
    priority)."""
    order = []
    a = L.ones(2, requires_grad=True)
    a.register_hook(lambda g: order.append("leaf"))
    if early:
        a * 1  # makes a's AccumulateGrad before the exps below
    mids = [L.ones(2, requires_grad=True).exp() for _ in range(n)]
    for i, m in enumerate(mids):
        m.grad_fn.register_prehook(lambda gs, i=i: order.append(f"exp{i}"))
    out = a
    for m in mids:
        out = out + m
    out.sum().backward()
    return order, val(a.grad)


@pytest.mark.parametrize("early", [False, True])
@pytest.mark.parametrize("n", [1, 3])
def test_accumulate_grad_runs_first(early, n):
    order, grad = same(torch, leaf_first_order, early, n)
    assert order[0] == "leaf" and grad == ("T", (2,), [1.0, 1.0])
