"""Which dtypes each public function accepts, against torch: every function
present in both libraries (top level, Tensor methods, nn.functional, linalg,
fft) called with one or two 2x2 tensors of float16, bfloat16, int8, uint8,
int64, bool and complex64 must compute where torch computes (same result dtype) and
refuse where torch refuses (same exception type, same first line of the
message). A call torch refuses on float32 too says nothing about dtypes and
is not compared. The differences kept on purpose are listed in KEPT with
their reason. (torch.special has its own sweep: test_special_dtype_refusals.)

Run as a script to print every difference instead of asserting."""
import warnings

import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

DTYPES = ("float16", "bfloat16", "int8", "uint8", "int64", "bool", "complex64")

# what cannot be called blindly: random draws, factories and converters
# (their first argument is not a tensor to take a dtype from), calls that
# change global state, and views of memory that are not the call's result
_SKIP = {
    "manual_seed", "seed", "set_default_dtype", "set_num_threads", "set_grad_enabled", "load",
    "save", "compile", "empty", "tensor", "from_numpy", "as_tensor", "set_printoptions",
    "use_deterministic_algorithms", "set_default_device", "set_rng_state", "get_rng_state",
    "initial_seed", "set_flush_denormal", "set_num_interop_threads", "vmap", "cond",
    "while_loop", "typename", "is_tensor", "is_storage", "numel", "set_warn_always",
    "is_grad_enabled", "compiled_with_cxx11_abi", "get_default_dtype", "get_num_threads",
    "chunk", "split", "unbind", "tensor_split", "hsplit", "vsplit", "dsplit", "meshgrid",
    "broadcast_tensors", "atleast_1d", "atleast_2d", "atleast_3d", "block_diag",
    "cartesian_prod", "einsum", "bernoulli", "multinomial", "normal", "poisson", "rand_like",
    "randn_like", "randint_like", "empty_like", "randperm", "randint", "rand", "randn",
    "unique", "unique_consecutive", "sym_int", "sym_float", "sym_max", "sym_min", "sym_not",
    "sym_ite", "sym_sum", "sym_fresh_size", "align_tensors", "from_dlpack", "frombuffer",
    "get_device", "is_nonzero", "result_type", "can_cast", "promote_types", "is_same_size",
    "is_floating_point", "is_complex", "is_conj", "is_neg", "is_inference", "is_signed",
    "asarray", "empty_strided", "set_", "share_memory_", "pin_memory", "storage",
    "untyped_storage", "_typed_storage", "data_ptr", "storage_offset", "backward",
    "register_hook", "register_post_accumulate_grad_hook", "retain_grad", "requires_grad_",
    "__dlpack__", "__dlpack_device__", "numpy", "tolist", "item", "apply_", "map_", "map2_",
    "new_empty", "new_empty_strided", "random_", "uniform_", "normal_", "cauchy_",
    "exponential_", "geometric_", "log_normal_", "bernoulli_", "resize_", "resize_as_",
    "dim_order", "element_size", "nbytes", "itemsize", "cpu", "cuda", "to_dense", "to_sparse",
    "to_sparse_csr", "to_sparse_csc", "to_sparse_bsr", "to_sparse_bsc", "to_mkldnn",
    "dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout",
    "rrelu", "rrelu_", "gumbel_softmax", "fractional_max_pool2d", "fractional_max_pool3d",
    "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices",
    "native_channel_shuffle", "is_shared", "is_pinned", "module_load", "type", "data",
    "detach_", "share_memory", "record_stream",
    "lobpcg", "nonzero_static", "set_default_tensor_type", "is_warn_always_enabled",
    "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
    "get_deterministic_debug_mode", "set_deterministic_debug_mode", "get_float32_matmul_precision",
    "set_float32_matmul_precision", "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
    "is_autocast_available", "get_autocast_dtype", "set_autocast_dtype",
}

# (namespace, name, dtype, arity) -> why minitorch differs from torch there
_CLAMP_TENSOR_BOUND = ("clamp_min and clamp_max are one row for a number and a tensor bound; "
                      "torch names maximum_cpu/minimum_cpu for a tensor bound, the row's one "
                      "complex refusal says torch's words for a number bound")
_NAN_TO_NUM = ("nan_to_num has no complex kernel yet (torch replaces NaN and the "
               "infinities in each part); refused with its name")
KEPT = {
    **{(label, name, "complex64", 2): _CLAMP_TENSOR_BOUND
       for label in ("torch", "Tensor")
       for name in ("clamp_min", "clamp_min_", "clamp_max", "clamp_max_")},
    **{(label, name, "complex64", 1): _NAN_TO_NUM
       for label in ("torch", "Tensor") for name in ("nan_to_num", "nan_to_num_")},
    ("nn.functional", "silu", "complex64", 1):
        "silu has no complex kernel yet (torch computes x * sigmoid(x)); refused with its name",
}


def _namespaces():
    """(label, torch object, minitorch object, how to call) per namespace."""
    return (
        ("torch", torch, mt, "function"),
        ("Tensor", torch.Tensor, mt.Tensor, "method"),
        ("nn.functional", torch.nn.functional, mt.nn.functional, "function"),
        ("linalg", torch.linalg, mt.linalg, "function"),
        ("fft", torch.fft, mt.fft, "function"),
    )


def _names(tns, mns):
    return sorted(n for n in dir(tns) if not n.startswith("_") and n not in _SKIP
                  and not isinstance(getattr(tns, n, None), type)
                  and callable(getattr(tns, n, None)) and callable(getattr(mns, n, None)))


CASES = [(label, name) for label, tns, mns, _ in _namespaces() for name in _names(tns, mns)]
_NS = {label: (tns, mns, how) for label, tns, mns, how in _namespaces()}


def _outcome(lib, label, name, dtype, arity):
    tns, mns, how = _NS[label]
    ns = tns if lib is torch else mns
    x = lib.tensor([[1.0, 2.0], [3.0, 4.0]]).to(getattr(lib, dtype))
    if how == "method":
        fn = getattr(x, name)
        args = () if arity == 1 else (x.clone(),)
    else:
        fn = getattr(ns, name)
        args = (x,) if arity == 1 else (x, x.clone())
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn(*args)
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return type(e).__name__, str(e).split("\n")[0]
    if isinstance(r, (tuple, list)):
        r = r[0] if r and hasattr(r[0], "dtype") else None
    if hasattr(r, "dtype") and not isinstance(r, type):
        return "ok", str(r.dtype).split(".")[-1]
    return "ok", type(r).__name__


def differences(label, name):
    """[(dtype, arity, torch's outcome, minitorch's outcome)] where they differ."""
    found = []
    for arity in (1, 2):
        if _outcome(torch, label, name, "float32", arity)[0] != "ok":
            continue
        for dtype in DTYPES:
            t = _outcome(torch, label, name, dtype, arity)
            m = _outcome(mt, label, name, dtype, arity)
            if t != m and (label, name, dtype, arity) not in KEPT:
                found.append((dtype, arity, t, m))
    return found


def test_the_sweep_covers_the_namespaces():
    counts = {label: sum(1 for c in CASES if c[0] == label) for label in _NS}
    assert counts["torch"] > 300 and counts["Tensor"] > 400
    assert counts["nn.functional"] > 60 and counts["linalg"] > 30 and counts["fft"] > 15


def test_the_kept_differences_still_differ():
    """A kept difference torch and minitorch have since come to agree on is
    dropped from the list."""
    for label, name, dtype, arity in KEPT:
        t = _outcome(torch, label, name, dtype, arity)
        assert t != _outcome(mt, label, name, dtype, arity), (label, name, dtype, arity)


@pytest.mark.parametrize("label,name", CASES, ids=[f"{a}.{b}" for a, b in CASES])
def test_dtype_acceptance_matches_torch(label, name):
    assert differences(label, name) == []


def _o(lib, t, *shape):
    return lib.ones(*shape or (2, 2), dtype=getattr(lib, t))


# calls the 2x2 sweep does not make: mixed dtypes, other shapes and
# arguments, out=; each compared with torch as the sweep compares
TARGETED = {
    "cdist_mixed_float_double": lambda L: L.cdist(_o(L, "float32"), _o(L, "float64")),
    "cdist_float_half": lambda L: L.cdist(_o(L, "float32"), _o(L, "float16")),
    "cdist_x2_long": lambda L: L.cdist(_o(L, "float32"), _o(L, "int64")),
    "cdist_half_mm_path": lambda L: L.cdist(_o(L, "float16", 30, 2), _o(L, "float16", 30, 2)),
    "cdist_mm_path_mixed": lambda L: L.cdist(_o(L, "float32", 30, 2), _o(L, "float64", 30, 2)),
    "cdist_columns_first": lambda L: L.cdist(_o(L, "int64", 2, 1), _o(L, "int64")),
    "trace_bool_batch": lambda L: L.trace(_o(L, "bool")),
    "histogram_half_edges": lambda L: L.histogram(_o(L, "float16"), _o(L, "float16", 3)),
    "histogram_long_edges": lambda L: L.histogram(_o(L, "int64"), _o(L, "int64", 3)),
    "histogramdd_half_counts": lambda L: L.histogramdd(_o(L, "float16"), [2, 2]),
    "histc_bool_bad_range": lambda L: L.histc(_o(L, "bool"), min=3, max=1),
    "histc_long": lambda L: L.histc(_o(L, "int64")),
    "isin_complex_elements": lambda L: L.isin(_o(L, "complex64"), _o(L, "bool")),
    "isin_bool_test_elements": lambda L: L.isin(_o(L, "float32"), _o(L, "bool")),
    "isin_bool_scalar": lambda L: L.isin(True, _o(L, "float32")),
    "isin_half_long": lambda L: L.isin(_o(L, "float16"), _o(L, "int64")),
    "dist_long_float": lambda L: L.dist(_o(L, "int64"), _o(L, "float32")),
    "dist_long_int": lambda L: L.dist(_o(L, "int64"), _o(L, "int32")),
    "ldexp_out_long": lambda L: L.ldexp(_o(L, "float32"), _o(L, "float32"), out=_o(L, "int64")),
    "ldexp_inplace_float_double": lambda L: _o(L, "float32").ldexp_(_o(L, "float64")),
    "ldexp_inplace_int_int": lambda L: _o(L, "int32").ldexp_(_o(L, "int32")),
    "var_mean_dim": lambda L: L.var_mean(_o(L, "int64"), 0, correction=0),
    "std_long": lambda L: L.std(_o(L, "int64")),
    "tensordot_bool_dims_1": lambda L: L.tensordot(_o(L, "bool"), _o(L, "bool"), 1),
    "tensordot_bool_3d": lambda L: L.tensordot(_o(L, "bool", 2, 2, 2), _o(L, "bool", 2, 2, 2), 3),
    "tensordot_long_all": lambda L: L.tensordot(_o(L, "int64"), _o(L, "int64")),
    "pinv_1d": lambda L: L.linalg.pinv(_o(L, "float32", 2)),
    "pinv_batch_half": lambda L: L.linalg.pinv(_o(L, "float16", 3, 2, 2), hermitian=True),
    "pinv_rcond_positional": lambda L: L.linalg.pinv(L.eye(2), 0.5),
    "matrix_rank_long_atol": lambda L: L.linalg.matrix_rank(_o(L, "int64"), atol=1.0, rtol=0.0),
    "lstsq_mixed": lambda L: L.linalg.lstsq(_o(L, "float32"), _o(L, "int64")),
    "lstsq_1d": lambda L: L.linalg.lstsq(_o(L, "float16", 2), _o(L, "float16")),
    "logdet_long": lambda L: L.logdet(_o(L, "int64")),
    "slogdet_half_batch": lambda L: L.linalg.slogdet(_o(L, "float16", 3, 2, 2)),
    "det_half": lambda L: L.linalg.det(_o(L, "float16")),
    "triangular_solve_half_float": lambda L: L.triangular_solve(_o(L, "float16"), _o(L, "float32")),
    "triangular_solve_long": lambda L: L.triangular_solve(_o(L, "int64"), _o(L, "int64")),
    "vander_int": lambda L: L.linalg.vander(_o(L, "int32", 2)),
    "svd_lowrank_half": lambda L: L.svd_lowrank(_o(L, "float16", 3, 3), q=2),
    "complex_half_out_cfloat": lambda L: L.complex(_o(L, "float16"), _o(L, "float16"),
                                                   out=_o(L, "complex64")),
    "polar_half_out": lambda L: L.polar(_o(L, "float16"), _o(L, "float16"),
                                        out=_o(L, "complex32")),
    "complex_uint16": lambda L: L.complex(_o(L, "uint16"), _o(L, "uint16")),
    "view_as_complex_uint16": lambda L: L.view_as_complex(_o(L, "uint16")),
    "mse_long_float": lambda L: L.nn.functional.mse_loss(_o(L, "int64"), _o(L, "float32")),
    "smooth_l1_long_beta_0": lambda L: L.nn.functional.smooth_l1_loss(
        _o(L, "int64"), _o(L, "int64"), beta=0.0),
    "kl_div_float_long": lambda L: L.nn.functional.kl_div(_o(L, "float32"), _o(L, "int64"),
                                                          reduction="sum"),
    "kl_div_complex": lambda L: L.nn.functional.kl_div(_o(L, "complex64"), _o(L, "complex64"),
                                                       reduction="sum"),
    "hinge_int_none": lambda L: L.nn.functional.hinge_embedding_loss(
        _o(L, "int8"), _o(L, "int8"), reduction="none"),
    "hinge_int_sum": lambda L: L.nn.functional.hinge_embedding_loss(
        _o(L, "int8"), _o(L, "float32"), reduction="sum"),
    "hinge_float_int": lambda L: L.nn.functional.hinge_embedding_loss(
        _o(L, "float32"), _o(L, "int8"), reduction="sum"),
    "soft_margin_int_double": lambda L: L.nn.functional.soft_margin_loss(
        _o(L, "int8"), _o(L, "float64"), reduction="none"),
    "soft_margin_float_int": lambda L: L.nn.functional.soft_margin_loss(
        _o(L, "float32"), _o(L, "int8"), reduction="none"),
    "cosine_similarity_int_float": lambda L: L.nn.functional.cosine_similarity(
        _o(L, "int8"), _o(L, "float32")),
    "cosine_similarity_complex": lambda L: L.nn.functional.cosine_similarity(
        _o(L, "complex64"), _o(L, "complex64")),
    "elu_complex": lambda L: L.nn.functional.elu(_o(L, "complex64")),
    "hardtanh_complex": lambda L: L.nn.functional.hardtanh(_o(L, "complex64")),
    "bce_logits_complex": lambda L: L.nn.functional.binary_cross_entropy_with_logits(
        _o(L, "complex64"), _o(L, "complex64")),
    "pdist_half_negative_p": lambda L: L.nn.functional.pdist(_o(L, "float16"), p=-1),
    "histc_complex_range": lambda L: L.histc(_o(L, "complex64"), min=0, max=1),
    "matrix_rank_complex_atol": lambda L: L.linalg.matrix_rank(
        L.eye(2), atol=_o(L, "complex64", 1)),
    "pinv_complex_rtol": lambda L: L.linalg.pinv(L.eye(2), rtol=_o(L, "complex64", 1)),
    "nanmean_complex": lambda L: L.nanmean(_o(L, "complex64")),
}


def _targeted_outcome(lib, name):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = TARGETED[name](lib)
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return type(e).__name__, str(e).split("\n")[0]
    if isinstance(r, (tuple, list)):
        r = r[0]
    return "ok", str(r.dtype).split(".")[-1]


@pytest.mark.parametrize("name", sorted(TARGETED))
def test_targeted_dtype_cases_match_torch(name):
    assert _targeted_outcome(mt, name) == _targeted_outcome(torch, name)


def test_complex_and_view_as_complex_of_float16_give_complex32_values():
    re = [[1.0, -2.5], [0.0, 65504.0]]
    im = [[0.5, 3.0], [-0.0, -1.0]]
    for make in (lambda L: L.complex(L.tensor(re).half(), L.tensor(im).half()),
                 lambda L: L.view_as_complex(L.tensor([re, im]).half().permute(1, 2, 0)
                                             .contiguous())):
        t, m = make(torch), make(mt)
        assert m.dtype == mt.complex32 and t.dtype == torch.complex32
        assert mt.view_as_real(m).float().tolist() == torch.view_as_real(t).float().tolist()
        assert m.real.dtype == mt.float16 and m.imag.float().tolist() == t.imag.float().tolist()


if __name__ == "__main__":
    total = 0
    for label, name in CASES:
        for dtype, arity, t, m in differences(label, name):
            total += 1
            print(label, name, dtype, arity, "torch", t, "mt", m)
    print("differences", total)
