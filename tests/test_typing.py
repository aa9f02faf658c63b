"""Type information (issue 19): the built stubs are the generator's output
for the op table, every public name has a type, and mypy run on user code
accepts correct code, flags planted mistakes at their lines and infers the
types the calls return at run time."""
import importlib.util
import os
import re
import subprocess
import sys
import types
import warnings

import pytest

import minitorch
import minitorch.nn.functional as F  # noqa: F401  (the reveal cases name it)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.dirname(os.path.abspath(minitorch.__file__))


def _generator():
    spec = importlib.util.spec_from_file_location("gen_stubs",
                                                  os.path.join(ROOT, "tools", "gen_stubs.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_stubs_are_the_generators_output():
    """The package's stubs, which its build wrote, are current. In a fresh
    interpreter: what the package holds after other tests ran (a lazily
    imported submodule, a registered op) is not its public surface."""
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_stubs.py"), "--check",
                           "--into", os.path.dirname(PACKAGE)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_build_writes_the_stubs():
    """setup.py's build_ext runs the generator into the package it built, so
    no stub is kept by hand (they are git-ignored build output)."""
    import ast
    with open(os.path.join(ROOT, "setup.py")) as f:
        tree = ast.parse(f.read())
    build_ext = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "BuildExt")
    run = next(n for n in build_ext.body if isinstance(n, ast.FunctionDef) and n.name == "run")
    strings = {n.value for n in ast.walk(run) if isinstance(n, ast.Constant)}
    assert {"gen_stubs.py", "--into"} <= strings


def test_every_published_row_has_a_def():
    stubs = {kind: open(os.path.join(PACKAGE, rel)).read() for kind, rel in
             (("m", "_C.pyi"), ("f", "_op_functions.pyi"), ("n", "nn/_op_functions.pyi"))}
    for _id, name, kinds, signature, *_rest in minitorch._C._op_rows():
        for kind in kinds:
            assert re.search(rf"^\s*def {name}\(|^from .* import {name} as {name}$",
                             stubs[kind], re.M), (kind, signature)


def test_package_ships_the_stubs_and_the_marker():
    assert os.path.isfile(os.path.join(PACKAGE, "py.typed"))
    with open(os.path.join(ROOT, "pyproject.toml")) as f:
        data = f.read()
    line = next(ln for ln in data.splitlines() if ln.startswith("minitorch = ["))
    assert '"py.typed"' in line and '"**/*.pyi"' in line


def test_varargs_and_overloads_follow_the_parser():
    text = open(os.path.join(PACKAGE, "_C.pyi")).read()
    assert "def view(self, *size: _int) -> Tensor: ..." in text
    assert "def view(self, size: Sequence[_int]) -> Tensor: ..." in text
    assert "def view(self, dtype: _dtype) -> Tensor: ..." in text
    # reshape(x, 2, 3) is refused at run time: only the method takes varargs
    functions = open(os.path.join(PACKAGE, "_op_functions.pyi")).read()
    assert "def reshape(input: Tensor, *" not in functions
    assert "def zeros(*size: _int, dtype: _dtype | None = ...," in functions
    with pytest.raises(TypeError):
        minitorch.reshape(minitorch.zeros(6), 2, 3)


def _matches(value, declared):
    """Whether a row's result value has the stub's declared result type."""
    import numpy
    if declared == "Any":
        return True
    if declared.startswith("return_types."):
        return isinstance(value, tuple) and type(value).__name__ == declared[13:]
    if declared.startswith("tuple["):
        items = declared[6:-1].split(", ")
        if items[-1] == "...":
            return isinstance(value, tuple) and all(_matches(v, items[0]) for v in value)
        return (isinstance(value, tuple) and len(value) == len(items)
                and all(_matches(v, t) for v, t in zip(value, items)))
    if " | " in declared:
        return any(_matches(value, t) for t in declared.split(" | "))
    simple = {"Tensor": minitorch.Tensor, "_int": int, "_float": float, "_str": str,
              "_bool": bool, "Size": minitorch.Size, "_dtype": minitorch.dtype,
              "None": type(None), "_np.ndarray[Any, Any]": numpy.ndarray}
    if declared == "_int" and isinstance(value, bool):
        return False
    return isinstance(value, simple[declared])


def _row_result(gen, fuzz_sweep, sweep, target):
    """(result, declared result types) of the target's row called with its
    baseline arguments; None when no baseline returns."""
    fuzz_sweep._find_baseline(sweep, target, lambda r: minitorch._C._op_rows()[r][4])
    if not target.baseline_ok:
        return None
    _id, name, _kinds, signature, hits, *_rest = minitorch._C._op_rows()[target.row]
    args, kwargs = fuzz_sweep._baseline_args(target)
    value = target.func(*args, **kwargs)
    assert minitorch._C._op_rows()[target.row][4] > hits, target.key
    return value, gen.declared_returns(name, signature, target.method)


def test_declared_result_types_are_what_the_rows_return():
    """Calls every published row with the fuzz sweep's baseline arguments (the
    first that reach the row) and checks the result against the return type
    the row's stub declares."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    try:
        import fuzz_sweep
    finally:
        sys.path.pop(0)
    gen = _generator()
    rows = minitorch._C._op_rows()
    sweep = fuzz_sweep.Sweep(os.devnull)
    checked, wrong = 0, []
    targets = fuzz_sweep._row_targets(rows)
    for target in targets:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # deprecations the baseline calls trigger
            result = _row_result(gen, fuzz_sweep, sweep, target)
        sweep.restore()
        if result is not None:
            checked += 1
            value, declared = result
            if not any(_matches(value, d) for d in declared):
                wrong.append((target.key, type(value).__name__, declared))
    assert wrong == []
    # the rest have no baseline that returns (the sweep only sees them raise)
    assert checked > 0.9 * len(targets)


# ------------------------------------------------------------------ mypy

MYPY_INI = """\
[mypy]
strict = True
follow_imports = silent
warn_unused_ignores = False
"""

CORRECT = '''\
import minitorch as torch
import minitorch.nn as nn
import minitorch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
x = torch.randn(16, 4)
target = torch.randint(0, 3, (16,))
losses: list[float] = []
for epoch in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), target)
    loss.backward()
    opt.step()
    losses.append(loss.item())
with torch.no_grad():
    pred = model(x).argmax(dim=1)
    accuracy = (pred == target).float().mean().item()
z = torch.zeros(2, 3)
w = torch.zeros((2, 3), dtype=torch.float64, requires_grad=True)
flat: torch.Tensor = z.view(-1) + 1
u = z[0, 1:] * 2.0 - z.sum(dim=1, keepdim=True) / 3 + 1 - (z.T @ z).sum()
n: int = z.dim() + z.numel() + z.size(0) + len(z)
shape: torch.Size = z.shape
values, indices = z.max(dim=1)
parts: tuple[torch.Tensor, ...] = z.split(1)
mask = (z > 0) & (z < 1) | ~(z == 0)
t = torch.cat([z, z], dim=0).reshape(3, 4).permute(1, 0).contiguous()
r = torch.tensor([1.0, 2.0], requires_grad=True)
grad: torch.Tensor | None = r.grad
dtype: torch.dtype = r.dtype
z[0] = 1.0
z += 1
for row in z:
    row.add_(1, alpha=2)
leaf = torch.ones(3).requires_grad_()
handle = leaf.register_hook(lambda g: g * 2)
handle.remove()
(grads,) = torch.autograd.grad((leaf * leaf).sum(), [leaf])
data = torch.utils.data.TensorDataset(x, target)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10)
for xb, yb in torch.utils.data.DataLoader(data, batch_size=4, shuffle=True):
    opt.zero_grad()
    F.nll_loss(F.log_softmax(model(xb), dim=1), yb).backward()
    opt.step()
sched.step()
model.load_state_dict(model.state_dict())
model.eval()
'''

# Each planted mistake sits on a line ending in "# mistake".
MISTAKES = '''\
import minitorch as torch
x = torch.zeros(2, 3)
a = torch.zeros("3")  # mistake
b = x.sum(dim="a")  # mistake
y: int = x + 1  # mistake
x.no_such_method()  # mistake
c = torch.add(x, x, alpah=2)  # mistake
d = x.view(2, "3")  # mistake
e: str = x.size(0)  # mistake
f = torch.ones(3, dtype="float32")  # mistake
g = x.sum(0, out=x)  # mistake
h = x.nansum(out=x)  # mistake
ok = x.view(2, 3)
ok_out = torch.nansum(x, out=x)
'''


def _reveal_cases():
    """Expressions whose inferred type mypy reveals, and the Python type name
    each evaluates to at run time."""
    return [
        ("x.dim()", "int"), ("x.numel()", "int"), ("x.size(0)", "int"), ("x.size()", "Size"),
        ("x.shape", "Size"), ("x.stride()", "tuple"), ("x.stride(1)", "int"),
        ("x.is_contiguous()", "bool"), ("x.tolist()", None), ("x.numpy()", "ndarray"),
        ("x.type()", "str"), ("x.dtype", "dtype"), ("x.device", "device"),
        ("x.max(1)", "max"), ("x.sort()", "sort"), ("x.aminmax()", "aminmax"),
        ("x.unbind()", "tuple"), ("x.chunk(2)", "tuple"), ("torch.var_mean(x)", "tuple"),
        ("x.nonzero()", "Tensor"), ("x.nonzero(as_tuple=True)", "tuple"),
        ("torch.where(x > 0)", "tuple"), ("torch.allclose(x, x)", "bool"),
        ("torch.result_type(x, 1)", "dtype"), ("x + 1", "Tensor"), ("1 - x", "Tensor"),
        ("x[0]", "Tensor"), ("x.T", "Tensor"), ("x.ravel()", "Tensor"),
        ("torch.ravel(x)", "Tensor"), ("x.grad", "NoneType"), ("float(x.sum())", "float"),
        ("torch.manual_seed(0)", "Generator"), ("torch.get_default_dtype()", "dtype"),
        ("F.relu(x)", "Tensor"), ("F.mse_loss(x, x)", "Tensor"), ("list(x)", "list"),
        ("x.__dlpack_device__()", "tuple"),
    ]


NAMESPACES = ("minitorch", "minitorch.nn", "minitorch.nn.functional", "minitorch.nn.init",
              "minitorch.optim", "minitorch.optim.lr_scheduler", "minitorch.linalg",
              "minitorch.autograd", "minitorch.func", "minitorch.utils.data", "minitorch.testing",
              "minitorch.masked", "minitorch.special", "minitorch.signal.windows")


def _api_names(module):
    """The public names of a namespace: its __all__ when it has one, else every
    public name holding a minitorch object, except that a plain module's
    imports of other minitorch modules' names are its own business. Submodules
    are left out (some are attributes only because something imported them)."""
    spreads = hasattr(module, "__path__") or module.__name__ == "minitorch.nn.functional"
    names = getattr(module, "__all__", [n for n in dir(module) if not n.startswith("_")])
    out = []
    for name in names:
        obj = getattr(module, name)
        home = getattr(obj, "__module__", None) or type(obj).__module__
        if isinstance(obj, types.ModuleType) or not home.startswith("minitorch"):
            continue
        if spreads or hasattr(module, "__all__") or home == module.__name__:
            out.append(name)
    return sorted(out)


def _public_names_script():
    """Touches every public name of minitorch's namespaces and every attribute
    of Tensor, so a name the type checker cannot see is an attr-defined error."""
    lines = ["import minitorch"] + [f"import {ns}" for ns in NAMESPACES[1:]]
    lines += ["from typing import Any", "x: Any"]
    for ns in NAMESPACES:
        lines += [f"x = {ns}.{name}" for name in _api_names(importlib.import_module(ns))]
    # __weakref__ is a slot of every such class, which typeshed leaves out
    lines += [f"x = minitorch.Tensor.{name}" for name in sorted(dir(minitorch.Tensor))
              if name != "__weakref__"]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def mypy_run(tmp_path_factory):
    pytest.importorskip("mypy", reason="mypy is needed to check the stubs")
    work = tmp_path_factory.mktemp("typing")
    (work / "mypy.ini").write_text(MYPY_INI)
    (work / "correct.py").write_text(CORRECT)
    (work / "mistakes.py").write_text(MISTAKES)
    (work / "public_names.py").write_text(_public_names_script())
    reveal = ["import minitorch as torch", "import minitorch.nn.functional as F",
              "x = torch.arange(6.0).reshape(2, 3)"]
    reveal += [f"reveal_type({expr})" for expr, _ in _reveal_cases()]
    (work / "reveal.py").write_text("\n".join(reveal) + "\n")
    messages = {}
    # the user's files, then the stubs themselves (errors in a module that is
    # only imported are silenced); the second run reuses the first's cache
    for targets in (["correct.py", "mistakes.py", "public_names.py", "reveal.py"],
                    ["-m", "minitorch._C", "-m", "minitorch._op_functions",
                     "-m", "minitorch.nn._op_functions"]):
        for line in _mypy(work, targets).splitlines():
            m = re.match(r"(.+?):(\d+): (error|note): (.*)", line)
            assert m, line
            messages.setdefault(m.group(1), []).append((int(m.group(2)), m.group(3),
                                                        m.group(4)))
    return messages


def _mypy(work, targets):
    env = dict(os.environ, MYPYPATH=os.path.dirname(PACKAGE))
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--cache-dir",
         str(work / "cache"), "--no-error-summary", "--hide-error-context"] + targets,
        cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr + proc.stdout
    return proc.stdout


def test_mypy_accepts_correct_code(mypy_run):
    assert mypy_run.get("correct.py", []) == []


def test_the_correct_code_runs(tmp_path):
    (tmp_path / "correct.py").write_text(CORRECT)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(PACKAGE))
    proc = subprocess.run([sys.executable, "correct.py"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr


def test_mypy_flags_each_planted_mistake_at_its_line(mypy_run):
    expected = {i for i, line in enumerate(MISTAKES.splitlines(), 1) if line.endswith("# mistake")}
    errors = {line for line, kind, _ in mypy_run.get("mistakes.py", []) if kind == "error"}
    assert errors == expected, mypy_run.get("mistakes.py")


def test_mypy_sees_every_public_name(mypy_run):
    assert mypy_run.get("public_names.py", []) == []


def test_stubs_themselves_are_clean(mypy_run):
    assert [m for f, ms in mypy_run.items() if f.endswith(".pyi") for m in ms] == []


def test_inferred_types_are_the_run_time_types(mypy_run):
    import numpy  # noqa: F401
    torch = minitorch  # noqa: F841  the name the expressions use
    x = minitorch.arange(6.0).reshape(2, 3)  # noqa: F841
    revealed = {line: text for line, kind, text in mypy_run.get("reveal.py", []) if kind == "note"}
    errors = [m for m in mypy_run.get("reveal.py", []) if m[1] == "error"]
    assert errors == []
    for i, (expr, runtime_name) in enumerate(_reveal_cases()):
        text = revealed[i + 4]
        value = eval(expr)
        assert type(value).__name__ == (runtime_name or type(value).__name__), expr
        inferred = re.fullmatch(r'Revealed type is "(.*)"', text).group(1)
        if runtime_name is None:
            assert inferred == "Any", (expr, inferred)
        elif runtime_name == "NoneType":
            assert inferred == "minitorch._tensor.Tensor | None", (expr, inferred)
        elif runtime_name in ("tuple", "list"):
            assert re.match(rf"(builtins\.)?{runtime_name}\[", inferred), (expr, inferred)
        elif runtime_name in NAMED:
            assert inferred.endswith(f"fallback=minitorch._C.return_types.{runtime_name}]"), (
                expr, inferred)
        else:
            inferred = re.sub(r"\[.*", "", inferred)  # numpy.ndarray[Any, Any]
            assert inferred.rsplit(".", 1)[-1] == runtime_name, (expr, inferred)
            assert isinstance(value, _resolve(inferred)), (expr, inferred)


NAMED = ("max", "sort", "aminmax")


def _resolve(qualified):
    """The class mypy names (int, minitorch._tensor.Tensor, ...)."""
    import builtins
    import numpy
    module, _, name = qualified.rpartition(".")
    roots = {"": builtins, "builtins": builtins, "numpy": numpy, "minitorch._tensor": minitorch,
             "minitorch._C": minitorch._C}
    return getattr(roots[module], name)


# ---------------------------------------------------------------- pyright

def test_pyright_accepts_correct_code_and_flags_each_mistake(tmp_path):
    """The same scripts, and the main stubs themselves, through pyright's
    checker (basedpyright bundles it with a Node.js runtime from PyPI), in its
    standard mode."""
    pytest.importorskip("basedpyright", reason="basedpyright runs pyright's checker")
    import json
    (tmp_path / "correct.py").write_text(CORRECT)
    (tmp_path / "mistakes.py").write_text(MISTAKES)
    (tmp_path / "pyrightconfig.json").write_text(json.dumps(
        {"typeCheckingMode": "standard", "extraPaths": [os.path.dirname(PACKAGE)],
         "pythonVersion": f"{sys.version_info.major}.{sys.version_info.minor}"}))
    stubs = [os.path.join(PACKAGE, rel) for rel in ("_C.pyi", "_op_functions.pyi",
                                                    "nn/_op_functions.pyi", "__init__.pyi")]
    proc = subprocess.run([sys.executable, "-m", "basedpyright", "--outputjson", "correct.py",
                           "mistakes.py"] + stubs, cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    report = json.loads(proc.stdout)
    errors = {}
    for d in report["generalDiagnostics"]:
        if d["severity"] == "error":
            line = d["range"]["start"]["line"] + 1
            errors.setdefault(os.path.basename(d["file"]), set()).add(line)
    expected = {i for i, line in enumerate(MISTAKES.splitlines(), 1) if line.endswith("# mistake")}
    assert errors == {"mistakes.py": expected}, report["generalDiagnostics"]


# ------------------------------------------- annotations seen at run time

@pytest.mark.parametrize("call", ["ravel([1, 2])", "trace(3)", "diff([1, 2])", "fliplr(1)",
                                  "flipud(1)", "logit([0.5])", "nansum([1.0])", "nanmean([1.0])",
                                  "take_along_dim(x, [0])", "cdist(x, 1)", "broadcast_to([1], (2,))"])
def test_tensor_annotated_composites_refuse_non_tensors_as_torch_does(call):
    """A Tensor annotation makes overrides.overridable check the argument, so
    the composites annotated for the stubs raise torch's TypeError."""
    torch = pytest.importorskip("torch")
    messages = []
    for lib in (torch, minitorch):
        with pytest.raises(TypeError) as info:
            eval("lib." + call, {"lib": lib, "x": lib.ones(2, 2)})
        messages.append(str(info.value))
    assert messages[1] == messages[0]
