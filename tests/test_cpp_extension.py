"""C++ extensions over the public C API: the LLTM example of
examples/cpp_extension_lltm built with load_inline, load and setup.py
(CppExtension, BuildExtension), checked against the same cell written with
minitorch ops and with torch; the header compiled as C++ and C with every
warning an error; and load_inline's and load's options, as torch's.

Every extension is compiled into a temporary folder; without a C++ compiler
the tests skip, saying so."""
import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import minitorch as mt
from minitorch.utils import cpp_extension

pytestmark = pytest.mark.skipif(not cpp_extension.compiler_available(cpp=True),
                                reason="no C++ compiler: cannot build C++ extensions")

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "examples", "cpp_extension_lltm")
STRICT = ["-Wall", "-Wextra", "-Werror", "-pedantic"]


def _example_source():
    with open(os.path.join(EXAMPLE, "lltm.cpp")) as f:
        return f.read()


def _import_lltm_py(lltm_cpp):
    """lltm.py of the example over a built lltm_cpp module."""
    saved = sys.modules.get("lltm_cpp")
    sys.modules["lltm_cpp"] = lltm_cpp
    try:
        spec = importlib.util.spec_from_file_location("lltm_example",
                                                      os.path.join(EXAMPLE, "lltm.py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        if saved is None:
            sys.modules.pop("lltm_cpp", None)
        else:
            sys.modules["lltm_cpp"] = saved
    return module


@pytest.fixture(scope="module")
def build_root(tmp_path_factory):
    return str(tmp_path_factory.mktemp("cpp_extensions"))


@pytest.fixture(scope="module", params=["load_inline", "load"])
def lltm(request, build_root):
    """lltm.py over lltm_cpp, built from the text with load_inline (bindings
    generated) or from the file with load (the file's own module init)."""
    folder = os.path.join(build_root, request.param)
    if request.param == "load_inline":
        ext = cpp_extension.load_inline(
            "lltm_inline", cpp_sources=_example_source(), functions=["forward", "backward"],
            extra_cflags=STRICT + ["-DLLTM_NO_MODULE_INIT"], build_directory=folder)
    else:
        ext = cpp_extension.load("lltm_cpp", [os.path.join(EXAMPLE, "lltm.cpp")],
                                 extra_cflags=STRICT, build_directory=folder)
    return _import_lltm_py(ext)


def reference_cell(lib, input, weights, bias, old_h, old_cell):
    """The LLTM cell with the library's own ops (minitorch or torch)."""
    X = lib.cat([old_h, input], dim=1)
    gate_weights = lib.addmm(bias, X, weights.t())
    gates = gate_weights.chunk(3, dim=1)
    input_gate = lib.sigmoid(gates[0])
    output_gate = lib.sigmoid(gates[1])
    candidate_cell = lib.nn.functional.elu(gates[2])
    new_cell = old_cell + candidate_cell * input_gate
    new_h = lib.tanh(new_cell) * output_gate
    return new_h, new_cell


def _inputs(batch, features, state, dtype, seed=0):
    g = mt.Generator().manual_seed(seed)
    shapes = [(batch, features), (3 * state, features + state), (3 * state,), (batch, state),
              (batch, state)]
    return [mt.randn(s, dtype=dtype, generator=g).requires_grad_() for s in shapes]


SIZES = [(1, 1, 1), (3, 4, 5), (8, 2, 16), (5, 7, 3)]


@pytest.mark.parametrize("dtype", [mt.float32, mt.float64])
@pytest.mark.parametrize("batch, features, state", SIZES)
def test_lltm_matches_the_cell_written_with_minitorch_ops(lltm, batch, features, state, dtype):
    ours = _inputs(batch, features, state, dtype)
    ref = [t.detach().clone().requires_grad_() for t in ours]
    new_h, new_cell = lltm.LLTMFunction.apply(*ours)
    ref_h, ref_cell = reference_cell(mt, *ref)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == mt.float32 else dict(rtol=1e-12, atol=1e-12)
    assert new_h.dtype == dtype and new_h.shape == (batch, state)
    assert mt.allclose(new_h, ref_h, **tol) and mt.allclose(new_cell, ref_cell, **tol)
    assert type(new_h.grad_fn).__name__ == "LLTMFunctionBackward"
    g = mt.Generator().manual_seed(1)
    grad_h, grad_cell = (mt.randn(batch, state, dtype=dtype, generator=g) for _ in range(2))
    mt.autograd.backward([new_h, new_cell], [grad_h, grad_cell])
    mt.autograd.backward([ref_h, ref_cell], [grad_h, grad_cell])
    for mine, theirs in zip(ours, ref):
        assert mine.grad.shape == mine.shape
        assert mt.allclose(mine.grad, theirs.grad, **tol)


@pytest.mark.parametrize("batch, features, state", SIZES)
def test_lltm_matches_torch(lltm, batch, features, state):
    torch = pytest.importorskip("torch")
    ours = _inputs(batch, features, state, mt.float64, seed=batch)
    theirs = [torch.tensor(t.tolist(), dtype=torch.float64, requires_grad=True) for t in ours]
    new_h, new_cell = lltm.LLTMFunction.apply(*ours)
    ref_h, ref_cell = reference_cell(torch, *theirs)
    np.testing.assert_allclose(new_h.tolist(), ref_h.tolist(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(new_cell.tolist(), ref_cell.tolist(), rtol=1e-12, atol=1e-12)
    (new_h.sum() + 2 * new_cell.sum()).backward()
    (ref_h.sum() + 2 * ref_cell.sum()).backward()
    for mine, ref in zip(ours, theirs):
        np.testing.assert_allclose(mine.grad.tolist(), ref.grad.tolist(), rtol=1e-10,
                                   atol=1e-12)


def test_lltm_gradcheck_and_module(lltm):
    inputs = _inputs(2, 3, 4, mt.float64)
    assert mt.autograd.gradcheck(lltm.LLTMFunction.apply, inputs)
    cell = lltm.LLTM(3, 4).double()
    assert [n for n, _ in cell.named_parameters()] == ["weights", "bias"]
    x, h, c = inputs[0], inputs[3], inputs[4]
    for _ in range(3):  # a few steps of a sequence, the state carried over
        h, c = cell(x, (h, c))
    (h.sum() + c.sum()).backward()
    assert cell.weights.grad.shape == (12, 7) and cell.bias.grad.shape == (12,)
    assert mt.isfinite(cell.weights.grad).all()


def test_lltm_errors_come_from_the_ops_it_calls(lltm):
    x, w, b, h, c = _inputs(2, 3, 4, mt.float64)
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied"):
        lltm.LLTMFunction.apply(x, w[:, :5], b, h, c)
    with pytest.raises(TypeError, match=r"expected a minitorch.Tensor, got list"):
        lltm.lltm_cpp.forward([1.0], w, b, h, c)
    with pytest.raises(TypeError, match=r"forward\(\) takes 5 tensors"):
        lltm.lltm_cpp.forward(x, w)


def test_lltm_built_by_setup_py(tmp_path):
    """CppExtension and BuildExtension from a setup.py, as the example's
    README step `pip install ./examples/cpp_extension_lltm` runs them."""
    work = tmp_path / "lltm"
    shutil.copytree(EXAMPLE, work)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(mt.__file__)), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=work,
                          env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "-std=c++17" in done.stdout + done.stderr
    assert "g++" in done.stdout + done.stderr or "c++" in done.stdout + done.stderr
    # --inplace puts it in the package's folder, the example's own
    built = [f for f in os.listdir(work) if f.startswith("lltm_cpp")
             and f.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))]
    assert built, os.listdir(work)
    spec = importlib.util.spec_from_file_location("lltm_cpp", os.path.join(work, built[0]))
    ext = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ext)
    x, w, b, h, c = _inputs(2, 3, 4, mt.float64)
    new_h, new_cell = ext.forward(x, w, b, h, c)[:2]
    ref_h, ref_cell = reference_cell(mt, x, w, b, h, c)
    assert mt.allclose(new_h, ref_h) and mt.allclose(new_cell, ref_cell)


def test_build_extension_takes_torchs_dict_of_flags(tmp_path):
    from setuptools import Distribution
    (tmp_path / "flags.cpp").write_text(
        "#include <minitorch/minitorch.h>\n"
        "static PyModuleDef def = {PyModuleDef_HEAD_INIT, \"flags\", nullptr, -1, nullptr,\n"
        "                          nullptr, nullptr, nullptr, nullptr};\n"
        "PyMODINIT_FUNC PyInit_flags(void)\n{\n"
        "    PyObject *m = import_minitorch() < 0 ? nullptr : PyModule_Create(&def);\n"
        "    if (m && PyModule_AddIntConstant(m, \"value\", FLAG_VALUE) < 0)\n"
        "        Py_CLEAR(m);\n    return m;\n}\n")
    ext = cpp_extension.CppExtension("flags", [str(tmp_path / "flags.cpp")],
                                     extra_compile_args={"cxx": ["-DFLAG_VALUE=7"],
                                                         "nvcc": ["-O3"]})
    dist = Distribution({"name": "flags", "ext_modules": [ext],
                         "cmdclass": {"build_ext": cpp_extension.BuildExtension}})
    cmd = dist.get_command_obj("build_ext")
    cmd.build_lib, cmd.build_temp = str(tmp_path / "lib"), str(tmp_path / "tmp")
    dist.run_command("build_ext")
    (built,) = os.listdir(tmp_path / "lib")
    spec = importlib.util.spec_from_file_location("flags", str(tmp_path / "lib" / built))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.value == 7


# ------------------------------------------------------------ the header

HEADER_PROBE = r"""
/* C++ against the C API: a lambda kernel, templates, auto, nullptr */
template <typename F> static minitorch_tensor *twice(F f, minitorch_tensor *t)
{
    return f(t);
}

static PyObject *doubled(PyObject *, PyObject *args)
{
    PyObject *o = nullptr;
    if (!PyArg_ParseTuple(args, "O", &o))
        return nullptr;
    minitorch_tensor *t = MT->unwrap(o);
    if (!t)
        return nullptr;
    auto r = twice([](minitorch_tensor *x) { return MT->call("mul", "Tf", x, 2.0); }, t);
    return r ? MT->wrap(r) : nullptr;
}

static PyObject *register_cube(PyObject *, PyObject *)
{
    minitorch_kernel kernel = [](const minitorch_args *a) -> minitorch_tensor * {
        minitorch_tensor *x = MT->arg_tensor(a, 0);
        minitorch_tensor *sq = MT->call("mul", "TT", x, x);
        minitorch_tensor *r = sq ? MT->call("mul", "TT", sq, x) : nullptr;
        MT->release(sq);
        return r;
    };
    minitorch_backward backward = [](minitorch_node *node, minitorch_tensor *g,
                                     minitorch_tensor **gi) -> int {
        minitorch_tensor *x = MT->saved_input(node, 0);
        minitorch_tensor *sq = x ? MT->call("mul", "TT", x, x) : nullptr;
        minitorch_tensor *three = sq ? MT->call("mul", "Tf", sq, 3.0) : nullptr;
        gi[0] = three ? MT->call("mul", "TT", three, g) : nullptr;
        MT->release(x);
        MT->release(sq);
        MT->release(three);
        return gi[0] ? 0 : -1;
    };
    return MT->register_op("cpp_probe::cube(Tensor x) -> Tensor", kernel, backward, nullptr);
}
"""


@pytest.mark.parametrize("std", ["c++11", "c++14", "c++17", "c++20"])
def test_header_compiles_as_cpp_with_every_warning_an_error(std, tmp_path):
    # the probe's lambdas need C++11; its own -std= replaces ours
    ext = cpp_extension.load_inline(
        f"cpp_probe_{std.replace('+', 'p')}", HEADER_PROBE,
        functions={"doubled": "2 * x", "register_cube": "registers cpp_probe::cube"},
        extra_cflags=STRICT + [f"-std={std}"], build_directory=str(tmp_path))
    x = mt.tensor([1.0, -2.0, 3.5])
    assert ext.doubled(x).tolist() == [2.0, -4.0, 7.0]
    assert ext.doubled.__doc__ == "2 * x"


def test_cpp_lambdas_as_custom_op_callbacks(tmp_path):
    ext = cpp_extension.load_inline("cpp_probe_ops", HEADER_PROBE,
                                    functions=["doubled", "register_cube"],
                                    extra_cflags=STRICT, build_directory=str(tmp_path))
    cube = ext.register_cube()
    assert cube is mt.ops.cpp_probe.cube
    x = mt.tensor([1.0, 2.0, -3.0], dtype=mt.float64, requires_grad=True)
    y = cube(x)
    assert y.tolist() == [1.0, 8.0, -27.0]
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 12.0, 27.0]
    assert mt.autograd.gradcheck(cube, (x.detach().requires_grad_(),))


@pytest.mark.parametrize("std", ["c99", "c11", "c17"])
def test_header_compiles_as_c_with_every_warning_an_error(std, tmp_path):
    src = tmp_path / "c_probe.c"
    # implicit void * conversion: valid C, an error in C++, so this is
    # compiled as C
    src.write_text("#include <minitorch/minitorch.h>\n#include <stdlib.h>\n"
                   "static PyObject *n_dims(PyObject *self, PyObject *args)\n{\n"
                   "    (void)self;\n    int *unused = malloc(sizeof(int));\n    free(unused);\n"
                   "    PyObject *o;\n    if (!PyArg_ParseTuple(args, \"O\", &o) || !MT->unwrap(o))\n"
                   "        return NULL;\n    return PyLong_FromLong(MT->ndim(MT->unwrap(o)));\n}\n"
                   "static PyMethodDef methods[] = {{\"n_dims\", n_dims, METH_VARARGS, NULL},\n"
                   "                                {NULL, NULL, 0, NULL}};\n"
                   "static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, \"c_probe\", NULL, -1,\n"
                   "                                 methods, NULL, NULL, NULL, NULL};\n"
                   "PyMODINIT_FUNC PyInit_c_probe(void)\n{\n"
                   "    return import_minitorch() < 0 ? NULL : PyModule_Create(&def);\n}\n")
    ext = cpp_extension.load("c_probe", [str(src)], extra_cflags=STRICT + [f"-std={std}"],
                             build_directory=str(tmp_path / "build"))
    assert ext.n_dims(mt.zeros(2, 3, 4)) == 3


def test_c_and_cpp_sources_in_one_extension(tmp_path):
    """Each source in its own language; the C++ runtime linked in."""
    (tmp_path / "part.c").write_text(
        "#include <stdlib.h>\nlong c_side(long n)\n{\n    long *p = malloc(sizeof *p);\n"
        "    *p = n * 2;\n    long r = *p;\n    free(p);\n    return r;\n}\n")
    (tmp_path / "main.cc").write_text(
        "#include <minitorch/minitorch.h>\n#include <string>\n#include <vector>\n"
        "extern \"C\" long c_side(long n);\n"
        "static PyObject *both(PyObject *, PyObject *args)\n{\n    long n = 0;\n"
        "    if (!PyArg_ParseTuple(args, \"l\", &n))\n        return nullptr;\n"
        "    std::vector<std::string> words(static_cast<size_t>(n), \"ab\");\n"
        "    std::string all;\n    for (const auto &w : words)\n        all += w;\n"
        "    return Py_BuildValue(\"(ls)\", c_side(n), all.c_str());\n}\n"
        "static PyMethodDef methods[] = {{\"both\", both, METH_VARARGS, nullptr},\n"
        "                                {nullptr, nullptr, 0, nullptr}};\n"
        "static PyModuleDef def = {PyModuleDef_HEAD_INIT, \"mixed\", nullptr, -1, methods,\n"
        "                          nullptr, nullptr, nullptr, nullptr};\n"
        "PyMODINIT_FUNC PyInit_mixed(void)\n{\n"
        "    return import_minitorch() < 0 ? nullptr : PyModule_Create(&def);\n}\n")
    ext = cpp_extension.load("mixed", [str(tmp_path / "part.c"), str(tmp_path / "main.cc")],
                             extra_cflags=["-Wall", "-Werror"],
                             build_directory=str(tmp_path / "build"))
    assert ext.both(3) == (6, "ababab")


# ------------------------------------------------------------ the options

def test_cpp_compile_errors_carry_the_compiler_output(tmp_path):
    with pytest.raises(RuntimeError) as info:
        cpp_extension.load_inline("broken_cpp", "int f() { return undeclared_name; }",
                                  build_directory=str(tmp_path))
    message = str(info.value)
    assert message.startswith("Error building extension 'broken_cpp': ")
    assert "undeclared_name" in message and "error" in message
    # C++ only: a C++ compiler read the text
    with pytest.raises(RuntimeError, match=r"(?s)^Error building extension 'not_c'.*error"):
        cpp_extension.load_inline("not_c", "static int *f(void) { return malloc(4); }\n"
                                  "#include <stdlib.h>\n", build_directory=str(tmp_path / "c"))


def test_c_compile_errors_carry_the_compiler_output(tmp_path):
    src = tmp_path / "broken.c"
    src.write_text("int f(void) { return missing_symbol; }\n")
    with pytest.raises(RuntimeError, match=r"(?s)^Error building extension 'broken': .*"
                                           r"missing_symbol"):
        cpp_extension.load("broken", [str(src)], build_directory=str(tmp_path / "b"))


def test_extra_include_paths_cflags_and_build_directory(tmp_path):
    include = tmp_path / "inc"
    include.mkdir()
    (include / "answer.hpp").write_text("constexpr long answer() { return ANSWER_BASE + 2; }\n")
    build = tmp_path / "where"
    ext = cpp_extension.load_inline(
        "with_paths", "#include <answer.hpp>\n"
        "static PyObject *get(PyObject *, PyObject *) { return PyLong_FromLong(answer()); }\n",
        functions="get", extra_include_paths=[str(include)], extra_cflags=["-DANSWER_BASE=40"],
        build_directory=str(build))
    assert ext.get() == 42
    assert (build / "main.cpp").read_text().startswith("#include <minitorch/minitorch.h>")
    assert any(f.startswith("with_paths_") for f in os.listdir(build))


def test_no_implicit_headers(tmp_path):
    text = ("#include <Python.h>\nstatic PyModuleDef def = {PyModuleDef_HEAD_INIT, \"bare\", "
            "nullptr, -1, nullptr, nullptr, nullptr, nullptr, nullptr};\n"
            "PyMODINIT_FUNC PyInit_bare(void) { return PyModule_Create(&def); }\n")
    ext = cpp_extension.load_inline("bare", text, no_implicit_headers=True,
                                    build_directory=str(tmp_path))
    assert ext.__name__ == "bare"
    assert "minitorch.h" not in (tmp_path / "main.cpp").read_text()


def test_verbose_prints_the_commands(tmp_path, capfd):
    cpp_extension.load_inline("loud", "static PyObject *f(PyObject *, PyObject *) "
                              "{ Py_RETURN_NONE; }", functions=["f"], verbose=True,
                              build_directory=str(tmp_path))
    err = capfd.readouterr().err
    assert "Building extension module loud..." in err and "-std=c++17" in err
    assert "Loading extension module loud from" in err
    cpp_extension.load_inline("loud", "static PyObject *f(PyObject *, PyObject *) "
                              "{ Py_RETURN_NONE; }", functions=["f"], verbose=False,
                              build_directory=str(tmp_path))
    assert capfd.readouterr().err == ""


def test_docstrings_are_escaped(tmp_path):
    doc = 'quotes " and \\ and ??= and \u00e9\nsecond line'
    ext = cpp_extension.load_inline("escaped", "static PyObject *f(PyObject *, PyObject *) "
                                    "{ Py_RETURN_NONE; }", functions={"f": doc},
                                    extra_cflags=STRICT, build_directory=str(tmp_path))
    assert ext.f.__doc__ == doc


def test_function_names_must_be_identifiers(tmp_path):
    with pytest.raises(ValueError, match=r"functions must name C/C\+\+ functions, got 'a b'"):
        cpp_extension.load_inline("bad_names", "", functions=["a b"],
                                  build_directory=str(tmp_path))


def test_gpu_options(tmp_path):
    src = "static PyObject *f(PyObject *, PyObject *) { Py_RETURN_NONE; }"
    ext = cpp_extension.load_inline("cpu_only", src, functions=["f"], with_cuda=False,
                                    build_directory=str(tmp_path))
    assert ext.f() is None
    for kwargs in ({"with_cuda": True}, {"cuda_sources": "__global__ void k() {}"},
                   {"extra_cuda_cflags": ["-O3"]}):
        with pytest.raises(RuntimeError, match="minitorch has no CUDA or SYCL device: "
                                               r"load_inline\(\) builds C and C\+\+ sources"):
            cpp_extension.load_inline("gpu", src, functions=["f"], build_directory=str(tmp_path),
                                      **kwargs)
    with pytest.raises(RuntimeError, match=r"minitorch has no CUDA device: load\(\) cannot "
                                           r"build k\.cu"):
        cpp_extension.load("gpu", ["k.cu"], build_directory=str(tmp_path))


def test_signatures_follow_torch():
    torch_ext = pytest.importorskip("torch.utils.cpp_extension")
    import inspect
    for name in ("load", "load_inline"):
        ours = list(inspect.signature(getattr(cpp_extension, name)).parameters)
        theirs = list(inspect.signature(getattr(torch_ext, name)).parameters)
        assert ours == theirs, name


def test_setuptools_is_declared_and_its_absence_explained(monkeypatch):
    tomllib = pytest.importorskip("tomllib")
    with open(os.path.join(os.path.dirname(__file__), "..", "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)["project"]
    assert any(d.replace(" ", "").startswith("setuptools>=") for d in project["dependencies"])
    monkeypatch.setitem(sys.modules, "setuptools", None)
    monkeypatch.setitem(sys.modules, "setuptools.command.build_ext", None)
    spec = importlib.util.spec_from_file_location("cpp_extension_without_setuptools",
                                                  cpp_extension.__file__)
    with pytest.raises(ImportError, match=r"builds extensions with setuptools, which is not "
                                          r"installed in this Python environment: pip install"):
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
