"""Autograd and nn: graph recording, backward, custom Functions, gradcheck, small training steps.

The same torch-style code runs on minitorch and PyTorch; NumPy has no counterpart.
"""
from data import array
from harness import trio

GROUP = "autograd"


def _chain(lib):
    x = lib.tensor([1.0], requires_grad=True)
    w, g = lib.tensor([1.0001]), lib.ones(1)

    def step():
        y = x
        for _ in range(50):
            y = y * w
            y = y + w
        y.backward(g)
        x.grad = None
    return step


def _mul_sum(lib):
    a, b = array(lib, (2, 2), requires_grad=True), array(lib, (2, 2), requires_grad=True)

    def step():
        (a * b).sum().backward()
        a.grad = b.grad = None
    return step


def _matmul_relu(lib):
    a = array(lib, (1024, 1024), requires_grad=True)
    b = array(lib, (1024, 1024), requires_grad=True)

    def step():
        a.mm(b).relu().sum().backward()
        a.grad = b.grad = None
    return step


def _custom_function(lib):
    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2.0

        @staticmethod
        def backward(ctx, grad):
            return grad * 2.0

    x, g = lib.tensor([1.0], requires_grad=True), lib.ones(1)

    def step():
        Double.apply(x).backward(g)
        x.grad = None
    return step


def _gradcheck(lib):
    class Linear(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input, weight):
            ctx.save_for_backward(input, weight)
            return input.mm(weight.t())

        @staticmethod
        def backward(ctx, grad):
            input, weight = ctx.saved_tensors
            return grad.mm(weight), grad.t().mm(input)

    inputs = (array(lib, (20, 20), "float64", requires_grad=True),
              array(lib, (30, 20), "float64", requires_grad=True))
    gradcheck = lib.autograd.gradcheck

    def step():
        assert gradcheck(Linear.apply, inputs, eps=1e-6, atol=1e-4)
    return step


def _mlp_adam(lib):
    nn = lib.nn
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    x = array(lib, (64, 64))
    y = lib.tensor([i % 10 for i in range(64)])

    def step():
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    return step


def _conv(lib):
    nn = lib.nn
    model = nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU(), nn.MaxPool2d(2))
    x = array(lib, (32, 3, 32, 32))

    def step():
        model.zero_grad()
        model(x).sum().backward()
    return step


def cases():
    return [
        trio(GROUP, "chain of 100 elementwise ops, 1 element, fwd+bwd", _chain, target=0.25),
        trio(GROUP, "(a*b).sum() 2x2, fwd+bwd", _mul_sum, target=0.2),
        trio(GROUP, "mm 1024x1024 + relu + sum, fwd+bwd", _matmul_relu, target=1.1),
        trio(GROUP, "custom Function apply+backward, 1 element", _custom_function, target=0.35),
        trio(GROUP, "gradcheck linear Function, 20x20 @ (30x20).t() float64", _gradcheck,
             target=0.5),
        trio(GROUP, "MLP 64-128-10 batch 64, Adam training step", _mlp_adam, target=0.5),
        trio(GROUP, "Conv2d(3,16,3)+ReLU+MaxPool2d(2) batch 32 32x32, fwd+bwd", _conv, target=1.5),
    ]
