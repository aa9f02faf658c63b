"""C extensions over the public C API (minitorch/minitorch.h): the example of
examples/c_extension built just in time, custom C ops as rows of the op
table, the API's functions, and the build helper's cache.

Every extension is compiled into a temporary folder; without a C compiler
the tests skip, saying so."""
import importlib.util
import inspect
import os
import sys

import pytest

import minitorch as mt
from minitorch.utils import cpp_extension

pytestmark = pytest.mark.skipif(not cpp_extension.compiler_available(),
                                reason="no C compiler: cannot build C extensions")

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "examples", "c_extension")


@pytest.fixture(scope="module")
def build_root(tmp_path_factory):
    return str(tmp_path_factory.mktemp("c_extensions"))


@pytest.fixture(scope="module")
def my_lib(build_root):
    return cpp_extension.load("my_lib", [os.path.join(EXAMPLE, "my_lib.c")],
                              extra_cflags=["-Wall", "-Werror"],
                              build_directory=os.path.join(build_root, "my_lib"))


@pytest.fixture(scope="module")
def example(my_lib):
    """functions.py and modules.py of the example, over the JIT-built my_lib."""
    saved = {k: sys.modules.get(k) for k in ("my_lib", "functions")}
    sys.modules["my_lib"] = my_lib
    loaded = {}
    try:
        for name in ("functions", "modules"):
            spec = importlib.util.spec_from_file_location(name, os.path.join(EXAMPLE, name + ".py"))
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            loaded[name] = module
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
        sys.modules.pop("modules", None)
    return loaded


def _pair(dtype=mt.float64, shape=(3, 4), requires_grad=False):
    g = mt.Generator().manual_seed(0)
    return (mt.randn(shape, dtype=dtype, generator=g).requires_grad_(requires_grad),
            mt.randn(shape, dtype=dtype, generator=g).requires_grad_(requires_grad))


# ---------------------------------------------------------------- the example

@pytest.mark.parametrize("dtype", [mt.float32, mt.float64])
@pytest.mark.parametrize("shape", [(), (1,), (5,), (3, 4), (2, 0, 3)])
def test_custom_add_matches_builtin_add(my_lib, dtype, shape):
    a, b = _pair(dtype, shape)
    out = mt.ops.my_lib.add(a, b)
    assert out.dtype == dtype and out.shape == a.shape
    assert mt.equal(out, mt.add(a, b))
    assert my_lib.add is mt.ops.my_lib.add


def test_custom_add_matches_torch():
    torch = pytest.importorskip("torch")
    a, b = _pair(mt.float32, (7,))
    out = mt.ops.my_lib.add(a, b)
    ref = torch.add(torch.from_numpy(a.numpy()), torch.from_numpy(b.numpy()))
    assert out.tolist() == ref.tolist()


def test_noncontiguous_inputs(my_lib):
    a, b = _pair(mt.float32, (4, 3))
    assert mt.equal(my_lib.add(a.t(), b.t()), a.t() + b.t())


def test_ffi_forward_and_backward(my_lib):
    a, b = _pair(mt.float32, (2, 3))
    out = mt.empty(0)
    assert my_lib.add_forward(a, b, out) is None
    assert out.shape == (2, 3) and mt.equal(out, a + b)
    grad_input = mt.empty(0)
    g = mt.full((2, 3), 2.5)
    my_lib.add_backward(g, grad_input)
    assert mt.equal(grad_input, g)


def test_function_and_module_of_the_example(example):
    a, b = _pair(mt.float64, (3,), requires_grad=True)
    y = example["functions"].MyAddFunction.apply(a, b)
    assert type(y.grad_fn).__name__ == "MyAddFunctionBackward"
    (y * mt.arange(3.0, dtype=mt.float64)).sum().backward()
    assert a.grad.tolist() == [0.0, 1.0, 2.0] and b.grad.tolist() == [0.0, 1.0, 2.0]
    module = example["modules"].MyAddModule()
    assert mt.equal(module(a, b), a + b)
    assert mt.autograd.gradcheck(module, _pair(mt.float64, (2, 2), requires_grad=True))


def test_backward_names_the_node_as_torch_does(my_lib):
    a, b = _pair(requires_grad=True)
    y = my_lib.add(a, b)
    assert type(y.grad_fn).__name__ == "GeneratedBackwardFor_my_lib_add_defaultBackward"
    assert y.grad_fn.name() == "GeneratedBackwardFor_my_lib_add_defaultBackward"
    (y * y).sum().backward()
    assert mt.allclose(a.grad, 2 * (a + b)) and mt.allclose(b.grad, 2 * (a + b))


def test_grad_fn_name_matches_torch_custom_op():
    torch = pytest.importorskip("torch")

    @torch.library.custom_op("mt_capi_test::add", mutates_args=())
    def add(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a + b
    x = torch.ones(2, requires_grad=True)
    a, _ = _pair(mt.float32, (2,), requires_grad=True)
    assert (type(mt.ops.my_lib.add(a, a).grad_fn).__name__.replace("my_lib", "mt_capi_test")
            == type(add(x, x).grad_fn).__name__)


def test_gradcheck_gradgradcheck_and_forward_ad(my_lib):
    inputs = _pair(mt.float64, (2, 3), requires_grad=True)
    assert mt.autograd.gradcheck(my_lib.add, inputs)
    assert mt.autograd.gradgradcheck(my_lib.add, inputs)
    assert mt.autograd.gradcheck(my_lib.add, inputs, check_forward_ad=True)
    import minitorch.autograd.forward_ad as fwAD
    a, b = _pair(mt.float64, (3,))
    ta, tb = mt.tensor([1.0, 2.0, 3.0], dtype=mt.float64), mt.full((3,), 0.5, dtype=mt.float64)
    with fwAD.dual_level():
        out = my_lib.add(fwAD.make_dual(a, ta), fwAD.make_dual(b, tb))
        assert fwAD.unpack_dual(out).tangent.tolist() == [1.5, 2.5, 3.5]
        one = my_lib.add(fwAD.make_dual(a, ta), b)
        assert fwAD.unpack_dual(one).tangent.tolist() == [1.0, 2.0, 3.0]


def test_only_inputs_that_require_grad_get_one(my_lib):
    a, b = _pair(requires_grad=False)
    a.requires_grad_()
    my_lib.add(a, b).sum().backward()
    assert b.grad is None and mt.equal(a.grad, mt.ones_like(a))
    with mt.no_grad():
        assert my_lib.add(a, b).grad_fn is None


# ----------------------------------------------------------- dispatch and listing

class Duck:
    """A tensor-like: not a Tensor, dispatches every op to its handler."""
    seen = []

    def __init__(self, value):
        self.value = value

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.seen.append(func)
        return "duck"


def test_duck_type_dispatches(my_lib):
    a, _ = _pair()
    Duck.seen.clear()
    assert my_lib.add(a, Duck(1)) == "duck"
    assert Duck.seen == [mt.ops.my_lib.add]


class Sub(mt.Tensor):
    pass


class Logged(mt.Tensor):
    seen = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.seen.append(func)
        return super().__torch_function__(func, types, args, kwargs or {})


def test_subclasses_dispatch(my_lib):
    a, b = _pair()
    out = my_lib.add(a.as_subclass(Sub), b)
    assert type(out) is Sub and mt.equal(out.as_subclass(mt.Tensor), a + b)
    Logged.seen.clear()
    out = my_lib.add(a, b.as_subclass(Logged))
    assert type(out) is Logged and Logged.seen == [mt.ops.my_lib.add]


def test_mode_sees_the_custom_op(my_lib):
    seen = []

    class Mode(mt.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            return func(*args, **(kwargs or {}))
    a, b = _pair(requires_grad=True)
    with Mode():
        y = my_lib.add(a, b)
    y.sum().backward()  # backward runs below __torch_function__
    assert seen == [mt.ops.my_lib.add]
    assert mt.equal(a.grad, mt.ones_like(a))


def test_overrides_list_the_custom_op(my_lib):
    listing = mt.overrides.get_overridable_functions()
    assert my_lib.add in listing[mt.ops.my_lib]
    dummy = mt.overrides.get_testing_overrides()[my_lib.add]
    assert list(inspect.signature(dummy).parameters) == ["a", "b"] and dummy() == -1
    assert my_lib.add.__doc__ == "my_lib::add(Tensor a, Tensor b) -> Tensor"


# ---------------------------------------------------------------- bad input

def test_bad_arguments_get_the_parsers_errors(my_lib):
    a, _ = _pair()
    with pytest.raises(TypeError, match=r"^my_lib::add\(\): argument 'b' \(position 2\) must be "
                                        r"Tensor, not str$"):
        my_lib.add(a, "x")
    with pytest.raises(TypeError, match=r"^my_lib::add\(\): argument 'b' \(position 2\) must be "
                                        r"Tensor, not int$"):
        my_lib.add(a, 3)
    with pytest.raises(TypeError, match=r'missing 1 required positional argument: "b"'):
        my_lib.add(a)
    with pytest.raises(TypeError, match=r"takes 2 positional arguments but 3 were given"):
        my_lib.add(a, a, a)
    with pytest.raises(TypeError, match=r"got an unexpected keyword argument 'alpha'"):
        my_lib.add(a, a, alpha=2)


def test_kernel_errors_are_python_exceptions(my_lib):
    with pytest.raises(ValueError, match="one shape"):
        my_lib.add(mt.ones(2), mt.ones(3))
    with pytest.raises(TypeError, match="float32 or float64"):
        my_lib.add(mt.ones(2, dtype=mt.int64), mt.ones(2, dtype=mt.int64))
    with pytest.raises(TypeError, match="one dtype"):
        my_lib.add(mt.ones(2), mt.ones(2, dtype=mt.float64))
    with pytest.raises(TypeError, match="expected a minitorch.Tensor, got list"):
        my_lib.add_forward([1.0], mt.ones(1), mt.empty(0))


# ------------------------------------------------------------ the API itself

API_SOURCE = r"""
#include <string.h>

/* probe(t): metadata of t as a dict, read through the API */
static PyObject *probe(PyObject *self, PyObject *args)
{
    PyObject *o;
    if (!PyArg_ParseTuple(args, "O", &o))
        return NULL;
    minitorch_tensor *t = MT->unwrap(o);
    if (!t)
        return NULL;
    PyObject *sizes = PyTuple_New(MT->ndim(t)), *strides = PyTuple_New(MT->ndim(t));
    for (int d = 0; d < MT->ndim(t); d++) {
        PyTuple_SET_ITEM(sizes, d, PyLong_FromLongLong(MT->sizes(t)[d]));
        PyTuple_SET_ITEM(strides, d, PyLong_FromLongLong(MT->strides(t)[d]));
    }
    return Py_BuildValue("{s:i,s:N,s:N,s:i,s:L,s:i,s:L,s:i,s:i}", "check", MT->check(o),
                         "sizes", sizes, "strides", strides, "dtype", (int)MT->dtype(t),
                         "numel", (long long)MT->numel(t), "contiguous", MT->is_contiguous(t),
                         "offset", (long long)MT->storage_offset(t),
                         "itemsize", MT->element_size(MT->dtype(t)),
                         "requires_grad", MT->requires_grad(t));
}

/* make(): zeros, empty and from_data tensors */
static PyObject *make(PyObject *self, PyObject *args)
{
    int64_t shape[2] = {2, 3};
    double data[6] = {1, 2, 3, 4, 5, 6};
    minitorch_tensor *z = MT->zeros(2, shape, MINITORCH_FLOAT32);
    minitorch_tensor *e = MT->empty(1, shape + 1, MINITORCH_INT64);
    minitorch_tensor *d = MT->from_data(data, 2, shape, MINITORCH_FLOAT64);
    if (!z || !e || !d)
        return NULL;
    return Py_BuildValue("NNN", MT->wrap(z), MT->wrap(e), MT->wrap(d));
}

/* bad_shape(): a negative size is refused */
static PyObject *bad_shape(PyObject *self, PyObject *args)
{
    int64_t shape[1] = {-2};
    minitorch_tensor *t = MT->zeros(1, shape, MINITORCH_FLOAT32);
    return t ? MT->wrap(t) : NULL;
}

/* contig(t): MT->contiguous, and whether it is t itself */
static PyObject *contig(PyObject *self, PyObject *args)
{
    PyObject *o;
    if (!PyArg_ParseTuple(args, "O", &o) || !MT->unwrap(o))
        return NULL;
    minitorch_tensor *c = MT->contiguous(MT->unwrap(o));
    if (!c)
        return NULL;
    int same = c == MT->unwrap(o);
    return Py_BuildValue("Ni", MT->wrap(c), same);
}

/* resize(out, like) */
static PyObject *resize(PyObject *self, PyObject *args)
{
    PyObject *o, *l;
    if (!PyArg_ParseTuple(args, "OO", &o, &l) || !MT->unwrap(o) || !MT->unwrap(l))
        return NULL;
    if (MT->resize_as(MT->unwrap(o), MT->unwrap(l)) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* run(a, b, alpha): add by name with a keyword, by id, and sum_dim-like calls */
static PyObject *run(PyObject *self, PyObject *args)
{
    PyObject *x, *y;
    double alpha;
    if (!PyArg_ParseTuple(args, "OOd", &x, &y, &alpha) || !MT->unwrap(x) || !MT->unwrap(y))
        return NULL;
    minitorch_tensor *a = MT->unwrap(x), *b = MT->unwrap(y);
    minitorch_tensor *r1 = MT->call("add", "TTkf", a, b, "alpha", alpha);
    if (!r1)
        return NULL;
    int id = MT->op_id("mul");
    if (id < 0)
        return NULL;
    minitorch_tensor *r2 = MT->call_id(id, "TT", a, b);
    int64_t dims[1] = {0};
    minitorch_tensor *r3 = r2 ? MT->call("sum", "TLb", a, 1, dims, 1) : NULL;
    if (!r3) {
        MT->release(r1);
        if (r2)
            MT->release(r2);
        return NULL;
    }
    return Py_BuildValue("NNN", MT->wrap(r1), MT->wrap(r2), MT->wrap(r3));
}

/* call_named(name, a): one tensor argument to any op */
static PyObject *call_named(PyObject *self, PyObject *args)
{
    const char *name;
    PyObject *x;
    if (!PyArg_ParseTuple(args, "sO", &name, &x) || !MT->unwrap(x))
        return NULL;
    minitorch_tensor *r = MT->call(name, "TT", MT->unwrap(x), MT->unwrap(x));
    return r ? MT->wrap(r) : NULL;
}

/* mylib::scaled(Tensor a, *, float alpha=2.0, Scalar beta=1) -> Tensor: alpha * a + beta */
static minitorch_tensor *scaled_kernel(const minitorch_args *a)
{
    minitorch_tensor *m = MT->call("mul", "Tf", MT->arg_tensor(a, 0), MT->arg_double(a, 1));
    if (!m)
        return NULL;
    minitorch_tensor *r = MT->call("add", "Tf", m, MT->arg_double(a, 2));
    MT->release(m);
    return r;
}

static int scaled_backward(minitorch_node *node, minitorch_tensor *g, minitorch_tensor **gi)
{
    gi[0] = MT->call("mul", "Tf", g, MT->saved_double(node, 1));
    return gi[0] ? 0 : -1;
}

/* mylib::nograd(Tensor a) -> Tensor: no backward registered */
static minitorch_tensor *nograd_kernel(const minitorch_args *a)
{
    return MT->call("mul", "Tf", MT->arg_tensor(a, 0), 3.0);
}

/* mylib::wrong(Tensor a) -> Tensor: a backward of the wrong shape */
static int wrong_backward(minitorch_node *node, minitorch_tensor *g, minitorch_tensor **gi)
{
    int64_t shape[1] = {7};
    gi[0] = MT->zeros(1, shape, MINITORCH_FLOAT64);
    return gi[0] ? 0 : -1;
}

/* mylib::failing(Tensor a) -> Tensor: a kernel that raises */
static minitorch_tensor *failing_kernel(const minitorch_args *a)
{
    PyErr_SetString(PyExc_ZeroDivisionError, "failing kernel");
    return NULL;
}

/* register_ops(): the ops above; a malformed schema is refused */
static PyObject *register_ops(PyObject *self, PyObject *args)
{
    PyObject *s = MT->register_op(
        "mylib::scaled(Tensor a, *, float alpha=2.0, Scalar beta=1) -> Tensor",
        scaled_kernel, scaled_backward, NULL);
    PyObject *n = s ? MT->register_op("mylib::nograd(Tensor a) -> Tensor", nograd_kernel,
                                      NULL, NULL) : NULL;
    PyObject *w = n ? MT->register_op("mylib::wrong(Tensor a) -> Tensor", nograd_kernel,
                                      wrong_backward, NULL) : NULL;
    PyObject *f = w ? MT->register_op("mylib::failing(Tensor a) -> Tensor", failing_kernel,
                                      NULL, NULL) : NULL;
    if (!f)
        return NULL;
    return Py_BuildValue("NNNN", s, n, w, f);
}

static PyObject *register_bad(PyObject *self, PyObject *args)
{
    const char *schema;
    if (!PyArg_ParseTuple(args, "s", &schema))
        return NULL;
    return MT->register_op(schema, nograd_kernel, NULL, NULL);
}
"""

API_FUNCTIONS = ["probe", "make", "bad_shape", "contig", "resize", "run", "call_named",
                 "register_ops", "register_bad"]


@pytest.fixture(scope="module")
def api(build_root):
    return cpp_extension.load_inline("capi_probe", API_SOURCE, functions=API_FUNCTIONS,
                                     extra_cflags=["-Wall", "-Werror"],
                                     build_directory=os.path.join(build_root, "capi_probe"))


@pytest.fixture(scope="module")
def custom(api):
    return dict(zip(["scaled", "nograd", "wrong", "failing"], api.register_ops()))


def test_metadata(api):
    base = mt.arange(24.0).reshape(2, 3, 4)
    view = base.transpose(0, 2)[1:]
    info = api.probe(view)
    assert info["check"] == 1
    assert info["sizes"] == tuple(view.shape) and info["strides"] == view.stride()
    assert info["offset"] == view.storage_offset() == 1
    assert info["dtype"] == 8 and info["itemsize"] == 4  # MINITORCH_FLOAT32
    assert info["numel"] == view.numel() and info["contiguous"] == 0
    assert api.probe(base)["contiguous"] == 1
    assert api.probe(mt.ones(2, requires_grad=True))["requires_grad"] == 1
    with pytest.raises(TypeError, match="expected a minitorch.Tensor, got int"):
        api.probe(3)


def test_creation(api):
    z, e, d = api.make()
    assert z.dtype == mt.float32 and z.shape == (2, 3) and z.sum().item() == 0
    assert e.dtype == mt.int64 and e.shape == (3,)
    assert d.dtype == mt.float64 and d.tolist() == [[1, 2, 3], [4, 5, 6]]
    with pytest.raises(RuntimeError, match="negative dimension -2"):
        api.bad_shape()


def test_contiguous_and_resize(api):
    t = mt.arange(6.0).reshape(2, 3)
    same, is_same = api.contig(t)
    assert is_same == 1 and same is t
    copy, is_same = api.contig(t.t())
    assert is_same == 0 and copy.is_contiguous() and mt.equal(copy, t.t())
    out = mt.empty(0)
    api.resize(out, t)
    assert out.shape == (2, 3)


def test_running_ops_by_name_and_id(api):
    a, b = _pair(mt.float64, (2, 3))
    r1, r2, r3 = api.run(a, b, 0.5)
    assert mt.equal(r1, mt.add(a, b, alpha=0.5))
    assert mt.equal(r2, a * b)
    assert mt.equal(r3, a.sum(0, keepdim=True))
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of "
                                           r"tensor b \(2\)"):
        api.run(mt.ones(3), mt.ones(2), 1.0)
    with pytest.raises(ValueError, match="no op named 'no_such_op'"):
        api.call_named("no_such_op", a)
    assert mt.equal(api.call_named("my_lib::add", a), a + a)


def test_ops_called_from_c_record_autograd(api):
    a, b = _pair(mt.float64, (2,), requires_grad=True)
    r1, _, _ = api.run(a, b, 2.0)
    assert type(r1.grad_fn).__name__ == "AddBackward0"
    r1.sum().backward()
    assert b.grad.tolist() == [2.0, 2.0]


def test_custom_op_with_scalar_keywords(custom):
    a, _ = _pair(mt.float64, (3,), requires_grad=True)
    scaled = custom["scaled"]
    assert scaled is mt.ops.mylib.scaled
    assert mt.allclose(scaled(a), 2 * a + 1)
    assert mt.allclose(scaled(a, alpha=0.5, beta=-2), 0.5 * a - 2)
    with pytest.raises(TypeError, match=r"takes 1 positional argument but 2 were given"):
        scaled(a, 3.0)
    with pytest.raises(TypeError, match=r"argument 'alpha' must be float, not str"):
        scaled(a, alpha="x")
    scaled(a, alpha=3.0).sum().backward()
    assert a.grad.tolist() == [3.0, 3.0, 3.0]
    assert mt.autograd.gradcheck(lambda x: scaled(x, alpha=-1.5), (a.detach().requires_grad_(),))


def test_custom_op_without_backward(custom):
    a = mt.ones(2, requires_grad=True)
    y = custom["nograd"](a)
    assert y.tolist() == [3.0, 3.0] and y.requires_grad
    with pytest.raises(RuntimeError, match=r"^Trying to backward through mylib.nograd.default but "
                                           r"no autograd formula was registered. Please use "
                                           r"register_autograd to add one.$"):
        y.sum().backward()


def test_backward_of_the_wrong_shape(custom):
    a = mt.ones(2, dtype=mt.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"returned an invalid gradient at index 0 - got "
                                           r"\[7\] but expected shape compatible with \[2\]"):
        custom["wrong"](a).sum().backward()


def test_kernel_exception_propagates(custom):
    with pytest.raises(ZeroDivisionError, match="failing kernel"):
        custom["failing"](mt.ones(1))


@pytest.mark.parametrize("schema, message", [
    ("noname(Tensor a) -> Tensor", "starts with 'namespace::name\\('"),
    ("mylib::(Tensor a) -> Tensor", "starts with 'namespace::name\\('"),
    ("mylib::f(Tensor a -> Tensor", "malformed custom op schema"),
    ("mylib::f(Tensor a) -> (Tensor, Tensor)", "returns one Tensor"),
    ("mylib::f(Tensor[] a) -> Tensor", "takes no 'Tensor\\[\\]' parameter"),
    ("mylib::f(Tensr a) -> Tensor", "malformed signature"),
])
def test_malformed_schemas_are_refused(api, schema, message):
    with pytest.raises((ValueError, RuntimeError), match=message):
        api.register_bad(schema)


# ------------------------------------------------------------ ABI and cache

ABI_SOURCE = r"""
static struct PyModuleDef abi_module = {PyModuleDef_HEAD_INIT, "abi_probe", NULL, -1, NULL};

PyMODINIT_FUNC PyInit_abi_probe(void)
{
    if (import_minitorch() < 0)
        return NULL;
    return PyModule_Create(&abi_module);
}
"""


def test_abi_major_mismatch_is_an_import_error(build_root):
    ok = cpp_extension.load_inline("abi_probe", ABI_SOURCE,
                                   build_directory=os.path.join(build_root, "abi_ok"))
    assert ok.__name__ == "abi_probe"
    with pytest.raises(ImportError, match=r"^module compiled against minitorch C API version "
                                          r"99\.0, but the installed minitorch provides version "
                                          r"1\.0$"):
        cpp_extension.load_inline("abi_probe", ABI_SOURCE, extra_cflags=["-DMINITORCH_ABI_MAJOR=99"],
                                  build_directory=os.path.join(build_root, "abi_bad"))


def test_include_paths_hold_the_header():
    (folder,) = cpp_extension.include_paths()
    assert folder == mt.get_include()
    assert os.path.isfile(os.path.join(folder, "minitorch", "minitorch.h"))


def test_load_caches_by_sources_and_flags(tmp_path):
    src = tmp_path / "cached.c"
    src.write_text("#include <minitorch/minitorch.h>\n" + ABI_SOURCE.replace("abi_probe", "cached"))
    build = str(tmp_path / "build")

    def libraries():
        return sorted(f for f in os.listdir(build) if f.startswith("cached_"))
    first = cpp_extension.load("cached", [str(src)], build_directory=build)
    (lib,) = libraries()
    mtime = os.path.getmtime(os.path.join(build, lib))
    again = cpp_extension.load("cached", [str(src)], build_directory=build)
    assert libraries() == [lib] and os.path.getmtime(os.path.join(build, lib)) == mtime
    assert again.__file__ == first.__file__
    cpp_extension.load("cached", [str(src)], build_directory=build, extra_cflags=["-O1"])
    assert len(libraries()) == 2  # new flags: rebuilt
    src.write_text(src.read_text() + "\n/* changed */\n")
    cpp_extension.load("cached", [str(src)], build_directory=build)
    assert len(libraries()) == 3  # new source: rebuilt


def test_build_errors_are_reported(tmp_path):
    src = tmp_path / "broken.c"
    src.write_text("this is not C;\n")
    with pytest.raises(RuntimeError, match="Error building extension 'broken'"):
        cpp_extension.load("broken", [str(src)], build_directory=str(tmp_path / "b"))


def test_module_names_are_identifiers(tmp_path):
    with pytest.raises(ValueError, match="must be a Python identifier"):
        cpp_extension.load("my-lib", [str(tmp_path / "x.c")], build_directory=str(tmp_path))


def test_c_extension_object_for_setuptools():
    ext = cpp_extension.CExtension("pkg.mod", ["a.c"], include_dirs=["x"])
    assert ext.name == "pkg.mod" and ext.sources == ["a.c"]
    assert ext.include_dirs == ["x", mt.get_include()] and ext.language == "c"
    cpp = cpp_extension.CppExtension("pkg.mod", ["a.cpp", "b.c"])
    assert cpp.language == "c++" and cpp.include_dirs == [mt.get_include()]
    assert cpp_extension.CExtension("m", ["a.c", "b.cc"]).language == "c++"
