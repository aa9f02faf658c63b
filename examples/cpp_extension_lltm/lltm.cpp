/* lltm_cpp: the LLTM cell of PyTorch's C++ extension tutorial, its forward and
 * backward written in C++ against minitorch's C API. lltm.py wraps the two in
 * an autograd.Function and an nn.Module.
 *
 * Only <minitorch/minitorch.h> is used. Build it with setup.py beside it
 * (CppExtension), with minitorch.utils.cpp_extension.load("lltm_cpp",
 * ["lltm.cpp"]), or with load_inline(cpp_sources=<this text>,
 * functions=["forward", "backward"], extra_cflags=["-DLLTM_NO_MODULE_INIT"]),
 * which generates the module init this file otherwise ends with. */
#include <minitorch/minitorch.h>

#include <cstdint>
#include <initializer_list>
#include <utility>

namespace
{

/* An owned tensor reference, released when it goes out of scope. An empty
 * one stands for a failed call (its Python exception is set): every helper
 * below returns an empty result for an empty operand, so a chain of calls is
 * checked once, at its end. */
class Tensor
{
  public:
    explicit Tensor(minitorch_tensor *t = nullptr) : t_(t) {}
    Tensor(const Tensor &) = delete;
    Tensor &operator=(const Tensor &) = delete;
    Tensor(Tensor &&other) noexcept : t_(std::exchange(other.t_, nullptr)) {}
    Tensor &operator=(Tensor &&other) noexcept
    {
        std::swap(t_, other.t_);
        return *this;
    }
    ~Tensor()
    {
        if (t_)
            MT->release(t_);
    }

    /* a new reference to a tensor held elsewhere (NULL stays empty) */
    static Tensor borrow(minitorch_tensor *t)
    {
        if (t)
            MT->retain(t);
        return Tensor(t);
    }

    minitorch_tensor *get() const { return t_; }
    explicit operator bool() const { return t_ != nullptr; }
    int64_t size(int dim) const { return MT->sizes(t_)[dim]; }
    /* the minitorch.Tensor object, which takes the reference over */
    PyObject *to_python() { return MT->wrap(std::exchange(t_, nullptr)); }

  private:
    minitorch_tensor *t_;
};

Tensor unary(const char *op, const Tensor &x)
{
    return x ? Tensor(MT->call(op, "T", x.get())) : Tensor();
}

Tensor binary(const char *op, const Tensor &a, const Tensor &b)
{
    return a && b ? Tensor(MT->call(op, "TT", a.get(), b.get())) : Tensor();
}

Tensor operator+(const Tensor &a, const Tensor &b) { return binary("add", a, b); }
Tensor operator*(const Tensor &a, const Tensor &b) { return binary("mul", a, b); }

/* number - x */
Tensor rsub(double number, const Tensor &x)
{
    return x ? Tensor(MT->call("sub", "fT", number, x.get())) : Tensor();
}

Tensor columns(const Tensor &x, int64_t start, int64_t length)
{
    return x ? Tensor(MT->call("narrow", "Tiii", x.get(), int64_t{1}, start, length)) : Tensor();
}

/* torch.cat(parts, dim=1) of 2-d tensors of one dtype */
Tensor cat_columns(std::initializer_list<const Tensor *> parts)
{
    int64_t sizes[2] = {0, 0};
    for (const Tensor *p : parts) {
        if (!*p)
            return Tensor();
        sizes[0] = p->size(0);
        sizes[1] += p->size(1);
    }
    Tensor out(MT->empty(2, sizes, MT->dtype((*parts.begin())->get())));
    int64_t start = 0;
    for (const Tensor *p : parts) {
        Tensor slot = columns(out, start, p->size(1));
        if (!binary("copy_", slot, *p))
            return Tensor();
        start += p->size(1);
    }
    return out;
}

/* where(z > 0, positive, negative) */
Tensor where_positive(const Tensor &z, const Tensor &positive, const Tensor &negative)
{
    Tensor mask = z ? Tensor(MT->call("gt", "Tf", z.get(), 0.0)) : Tensor();
    if (!mask || !positive || !negative)
        return Tensor();
    return Tensor(MT->call("where", "TTT", mask.get(), positive.get(), negative.get()));
}

Tensor ones_like(const Tensor &z)
{
    return z ? Tensor(MT->call("ones_like", "T", z.get())) : Tensor();
}

/* elu with alpha 1, and the derivatives of sigmoid, tanh and elu */
Tensor elu(const Tensor &z)
{
    return where_positive(z, Tensor::borrow(z.get()), unary("expm1", z));
}
Tensor d_elu(const Tensor &z) { return where_positive(z, ones_like(z), unary("exp", z)); }

Tensor d_sigmoid(const Tensor &z)
{
    Tensor s = unary("sigmoid", z);
    return rsub(1.0, s) * s;
}

Tensor d_tanh(const Tensor &z)
{
    Tensor t = unary("tanh", z);
    return rsub(1.0, t * t);
}

/* The tensors of a call, unwrapped (borrowed by the call, kept here). */
template <size_t N> bool unwrap_all(PyObject *args, const char *name, Tensor (&out)[N])
{
    if (!PyTuple_Check(args) || PyTuple_GET_SIZE(args) != (Py_ssize_t)N) {
        PyErr_Format(PyExc_TypeError, "%s() takes %d tensors", name, (int)N);
        return false;
    }
    for (size_t i = 0; i < N; i++) {
        out[i] = Tensor::borrow(MT->unwrap(PyTuple_GET_ITEM(args, (Py_ssize_t)i)));
        if (!out[i])
            return false;
    }
    return true;
}

PyObject *to_tuple(std::initializer_list<Tensor *> results)
{
    for (Tensor *r : results)
        if (!*r)
            return nullptr;
    PyObject *tuple = PyTuple_New((Py_ssize_t)results.size());
    Py_ssize_t i = 0;
    for (Tensor *r : results) {
        if (!tuple)
            break;
        PyTuple_SET_ITEM(tuple, i++, r->to_python());
    }
    return tuple;
}

/* forward(input, weights, bias, old_h, old_cell) -> (new_h, new_cell,
 * input_gate, output_gate, candidate_cell, X, gate_weights) */
PyObject *forward(PyObject *, PyObject *args)
{
    Tensor in[5];
    if (!unwrap_all(args, "forward", in))
        return nullptr;
    const Tensor &input = in[0], &weights = in[1], &bias = in[2], &old_h = in[3];
    const Tensor &old_cell = in[4];
    Tensor X = cat_columns({&old_h, &input});
    Tensor weights_t = unary("t", weights);
    Tensor gate_weights =
        X && weights_t && bias
            ? Tensor(MT->call("addmm", "TTT", bias.get(), X.get(), weights_t.get()))
            : Tensor();
    int64_t state = old_h ? old_h.size(1) : 0;
    Tensor input_gate = unary("sigmoid", columns(gate_weights, 0, state));
    Tensor output_gate = unary("sigmoid", columns(gate_weights, state, state));
    Tensor candidate_cell = elu(columns(gate_weights, 2 * state, state));
    Tensor new_cell = old_cell + candidate_cell * input_gate;
    Tensor new_h = unary("tanh", new_cell) * output_gate;
    return to_tuple(
        {&new_h, &new_cell, &input_gate, &output_gate, &candidate_cell, &X, &gate_weights});
}

/* backward(grad_h, grad_cell, new_cell, input_gate, output_gate,
 * candidate_cell, X, gate_weights, weights) -> (d_old_h, d_input, d_weights,
 * d_bias, d_old_cell) */
PyObject *backward(PyObject *, PyObject *args)
{
    Tensor in[9];
    if (!unwrap_all(args, "backward", in))
        return nullptr;
    const Tensor &grad_h = in[0], &grad_cell = in[1], &new_cell = in[2], &input_gate = in[3];
    const Tensor &output_gate = in[4], &candidate_cell = in[5], &X = in[6];
    const Tensor &gate_weights = in[7], &weights = in[8];
    int64_t state = grad_h.size(1);

    Tensor d_output_gate = unary("tanh", new_cell) * grad_h;
    Tensor d_tanh_new_cell = output_gate * grad_h;
    Tensor d_new_cell = d_tanh(new_cell) * d_tanh_new_cell + grad_cell;
    Tensor d_old_cell = Tensor::borrow(d_new_cell.get());
    Tensor d_candidate_cell = input_gate * d_new_cell;
    Tensor d_input_gate = candidate_cell * d_new_cell;

    d_input_gate = d_input_gate * d_sigmoid(columns(gate_weights, 0, state));
    d_output_gate = d_output_gate * d_sigmoid(columns(gate_weights, state, state));
    d_candidate_cell = d_candidate_cell * d_elu(columns(gate_weights, 2 * state, state));

    Tensor d_gates = cat_columns({&d_input_gate, &d_output_gate, &d_candidate_cell});
    Tensor d_weights = binary("mm", unary("t", d_gates), X);
    int64_t batch_dim[1] = {0};
    Tensor d_bias = d_gates ? Tensor(MT->call("sum", "TL", d_gates.get(), 1, batch_dim)) : Tensor();
    Tensor d_X = binary("mm", d_gates, weights);
    Tensor d_old_h = columns(d_X, 0, state);
    Tensor d_input = d_X ? columns(d_X, state, d_X.size(1) - state) : Tensor();
    return to_tuple({&d_old_h, &d_input, &d_weights, &d_bias, &d_old_cell});
}

} // namespace

#ifndef LLTM_NO_MODULE_INIT
static PyMethodDef lltm_methods[] = {
    {"forward", forward, METH_VARARGS, "LLTM forward"},
    {"backward", backward, METH_VARARGS, "LLTM backward"},
    {nullptr, nullptr, 0, nullptr},
};

static PyModuleDef lltm_module = {
    PyModuleDef_HEAD_INIT,
    "lltm_cpp",
    "The LLTM cell over minitorch's C API",
    -1,
    lltm_methods,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
};

PyMODINIT_FUNC PyInit_lltm_cpp(void)
{
    if (import_minitorch() < 0)
        return nullptr;
    return PyModule_Create(&lltm_module);
}
#endif
