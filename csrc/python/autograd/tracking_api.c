/* The Python face of version counters and view tracking: bumping and
 * setting versions (autograd.graph.increment_version,
 * autograd._unsafe_preserve_version_counter), the view replay switch
 * (autograd._force_original_view_tracking), and the stand-in tensor through
 * which autograd.grad captures the gradient reaching a GradientEdge. */
#include "autograd_bind.h"

#include "../../autograd/view_tracking.h"

/* _increment_version(tensor): an inference tensor has no counter to bump */
static PyObject *increment_version(PyObject *m, PyObject *t)
{
    if (!MTPy_Check(t))
        return PyErr_Format(PyExc_TypeError, "increment_version(): expected a Tensor, got %s",
                            Py_TYPE(t)->tp_name);
    if (!MTPy_T(t)->storage->inference)
        mt_bump_version(MTPy_T(t));
    Py_RETURN_NONE;
}

/* _unsafe_set_version_counter(tensors, versions) */
static PyObject *unsafe_set_version_counter(PyObject *m, PyObject *args)
{
    PyObject *ts, *vs;
    if (!PyArg_ParseTuple(args, "OO:_unsafe_set_version_counter", &ts, &vs))
        return NULL;
    PyObject *tf = PySequence_Fast(ts, "tensors must be a sequence");
    PyObject *vf = tf ? PySequence_Fast(vs, "versions must be a sequence") : NULL;
    PyObject *result = NULL;
    if (!vf)
        goto done;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(tf), nv = PySequence_Fast_GET_SIZE(vf);
    if (n != nv) {
        PyErr_Format(PyExc_RuntimeError, "tensors_len=%zd, versions_len=%zd", n, nv);
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PySequence_Fast_GET_ITEM(tf, i);
        long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(vf, i));
        if (v == -1 && PyErr_Occurred())
            goto done;
        if (!MTPy_Check(t)) {
            PyErr_Format(PyExc_TypeError, "expected Tensors, got %s", Py_TYPE(t)->tp_name);
            goto done;
        }
        if (MTPy_T(t)->storage->inference) {
            PyErr_SetString(PyExc_RuntimeError,
                            "Tried to call torch.autograd._unsafe_set_version() on a tensor that "
                            "does not have a version counter. Was it created in inference mode?");
            goto done;
        }
        if (v < 0) {
            PyErr_Format(PyExc_RuntimeError,
                         "Cannot set a version_counter to a value below 0: %lld", v);
            goto done;
        }
        *mt_version_slot(MTPy_T(t)) = v;
    }
    result = Py_NewRef(Py_None);
done:
    Py_XDECREF(tf);
    Py_XDECREF(vf);
    return result;
}

static PyObject *set_view_replay_enabled(PyObject *m, PyObject *v)
{
    int b = PyObject_IsTrue(v);
    if (b < 0)
        return NULL;
    mt_view_replay = b;
    Py_RETURN_NONE;
}

static PyObject *is_view_replay_enabled(PyObject *m, PyObject *unused)
{
    return PyBool_FromLong(mt_view_replay);
}

/* _gradient_edge_tensor(node, output_nr): a tensor of the shape and dtype
 * of that output of node whose history is that output, so the engine
 * captures what reaches the edge as it captures what reaches a tensor. */
static PyObject *gradient_edge_tensor(PyObject *m, PyObject *args)
{
    PyObject *node;
    long long nr;
    if (!PyArg_ParseTuple(args, "OL:_gradient_edge_tensor", &node, &nr))
        return NULL;
    PyObject *node_type = PyObject_GetAttrString(m, "_Node");
    int ok = node_type ? PyObject_IsInstance(node, node_type) : -1;
    Py_XDECREF(node_type);
    if (ok < 0)
        return NULL;
    if (!ok)
        return PyErr_Format(PyExc_TypeError, "GradientEdge.node must be a Node, got %s",
                            Py_TYPE(node)->tp_name);
    mt_node *n = mtpy_node_of(node);
    if (!n)
        return PyErr_Format(PyExc_RuntimeError, "the GradientEdge's node was freed");
    if (nr < 0 || nr >= n->nout)
        return PyErr_Format(PyExc_IndexError,
                            "GradientEdge.output_nr %lld is out of range for a "
                            "node of %d outputs",
                            nr, n->nout);
    const mt_tensor_meta *want = &n->out_meta[nr];
    mt_tensor *t = mt_new(want->dtype, want->ndim, want->sizes, true);
    if (!t)
        return mtpy_raise();
    if (mt_set_history(t, n, (uint32_t)nr) < 0) {
        mt_release(t);
        return mtpy_raise();
    }
    return (PyObject *)mtpy_container(t);
}

static PyMethodDef module_methods[] = {
    {"_increment_version", increment_version, METH_O, NULL},
    {"_set_view_replay_enabled", set_view_replay_enabled, METH_O, NULL},
    {"_is_view_replay_enabled", is_view_replay_enabled, METH_NOARGS, NULL},
    {"_gradient_edge_tensor", gradient_edge_tensor, METH_VARARGS, NULL},
    {NULL},
};

/* where torch has them: _C._autograd */
static PyMethodDef autograd_methods[] = {
    {"_unsafe_set_version_counter", unsafe_set_version_counter, METH_VARARGS, NULL},
    {NULL},
};

int mt_tracking_init(PyObject *module)
{
    if (PyModule_AddFunctions(module, module_methods) < 0)
        return -1;
    PyObject *sub = PyObject_GetAttrString(module, "_autograd");
    int rc = sub ? PyModule_AddFunctions(sub, autograd_methods) : -1;
    Py_XDECREF(sub);
    return rc;
}
