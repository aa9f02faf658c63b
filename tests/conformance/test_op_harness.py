"""The op harness's own machinery: the name mapping from OpInfos to
minitorch callables, the rebinding of lambdas written over torch, and the
table tools/gen_conformance.py renders from report lines."""
import importlib.util
import json
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("expecttest")

import torch

import minitorch as mt

from .op_mapping import mapped_op_db

MAPPED = {m.id: m for m in mapped_op_db()}


def test_function_method_inplace_found_by_name():
    add = MAPPED["add"]
    assert (add.namespace, add.function, add.method, add.inplace) == \
        ("torch", mt.add, mt.Tensor.add, mt.Tensor.add_)
    relu = MAPPED["nn.functional.relu"]
    assert relu.namespace == "nn.functional" and relu.function is mt.nn.functional.relu


def test_partial_inplace_variant_keeps_its_keywords():
    hs = MAPPED["nn.functional.hardsigmoid"].inplace
    assert hs.func is mt.nn.functional.hardsigmoid and hs.keywords == {"inplace": True}


@pytest.mark.parametrize("name,value", [("T", [[1.0, 3.0], [2.0, 4.0]]),
                                        ("new_zeros", None)])
def test_lambda_over_torch_runs_on_minitorch(name, value):
    m = MAPPED[name]
    assert m.namespace == "Tensor" and m.present
    x = mt.tensor([[1.0, 2.0], [3.0, 4.0]])
    if name == "T":
        out = m.function(x)
        assert isinstance(out, mt.Tensor) and out.tolist() == value
    else:
        out = m.function(x, (3,))
        assert isinstance(out, mt.Tensor) and out.tolist() == [0.0, 0.0, 0.0]


def test_absent_and_inapplicable():
    # hash_tensor and chalf waited for the uint64 and complex32 dtypes
    assert MAPPED["hash_tensor"].present and MAPPED["hash_tensor"].applicable
    assert MAPPED["hash_tensor"].namespace == "torch"
    assert MAPPED["chalf"].present and MAPPED["chalf"].applicable
    assert MAPPED["linalg.eig"].present and MAPPED["linalg.eig"].namespace == "linalg"
    jit = next(m for m in MAPPED.values() if m.namespace == "cuda.jiterator")
    assert not jit.applicable and not jit.present
    # the in-place form is the method's own underscore form; an op torch has
    # none for maps to None, not to another
    assert MAPPED["cumsum"].method is mt.Tensor.cumsum and MAPPED["cumsum"].inplace is mt.Tensor.cumsum_
    assert MAPPED["sum"].method is mt.Tensor.sum and MAPPED["sum"].inplace is None


def test_aten_overloads_map_to_minitorchs_of_the_same_names():
    # a packet, an overload, and an overload named inside a lambda over torch
    assert MAPPED["_softmax_backward_data"].function is mt.ops.aten._softmax_backward_data
    assert MAPPED["slice"].function is mt.ops.aten.slice.Tensor
    assert MAPPED["torch.ops.aten._safe_softmax.default"].function is \
        mt.ops.aten._safe_softmax.default
    assert MAPPED["max_pool2d_with_indices_backward"].present
    assert all(MAPPED[name].namespace == "aten" for name in ("_softmax_backward_data",
                                                              "_chunk_cat"))


def _gen_tool():
    path = Path(__file__).resolve().parents[2] / "tools" / "gen_conformance.py"
    spec = importlib.util.spec_from_file_location("gen_conformance", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_table_counts_from_report_lines(tmp_path):
    lines = [
        ("op", "torch", "add", True, True, {"check": "samples", "total": 10, "agree": 10,
                                            "variants": {"function": [5, 5], "out=": [5, 5]}}),
        ("op", "torch", "add", True, True, {"check": "grad", "total": 3, "agree": 3}),
        ("op", "torch", "cat", True, False, {"check": "samples", "total": 4, "agree": 2,
                                             "variants": {"function": [2, 2], "out=": [2, 0]}}),
        ("op", "torch", "cat", True, False, {"check": "errors", "total": 4, "agree": 1,
                                             "type": 3}),
        ("op", "fft", "fft.fft", False, False, {"applicable": True}),
        ("op", "cuda.jiterator", "jiterator_unary", False, False, {"applicable": False}),
        ("module", "nn", "Linear", True, True, "train and eval"),
        ("module", "nn", "PReLU", False, False, ""),
    ]
    report = tmp_path / "r.jsonl"
    report.write_text("".join(json.dumps(dict(zip(
        ("kind", "namespace", "name", "present", "passed", "detail"), line))) + "\n"
        for line in lines))
    page = _gen_tool().render(_gen_tool().read_report(report))
    assert "| torch | 2 | 2 | 2 | 1 | 1 | 12 of 14 (85.7%) | 3 of 4 | 1 |" in page
    assert "| fft | 1 | 1 | 0 | 0 | 0 | 0 of 0 | 0 of 0 | 0 |" in page
    assert "| **total** | **4** | **3** | **2** | **1** | **1** | **12 of 14 (85.7%)** " \
        "| **3 of 4** | **1** |" in page
    assert "| the same, leaving out `out=` | 2 of 2 (100.0%) |" in page
    assert "| sample checks agreeing (all variants, all dtypes) | 12 of 14 (85.7%) |" in page
    assert "| ... through the out= variant | 5 of 7 (71.4%) |" in page
    assert "| nn | 2 | 1 | 1 |" in page
    assert page.startswith("# Conformance") and "Generated by `python tools/gen_conformance.py`" \
        in page


def test_complex_figures_kept_apart(tmp_path):
    lines = [
        ("op", "torch", "add", True, True, {"check": "samples", "total": 4, "agree": 4,
                                            "variants": {"function": [4, 4]}}),
        ("op", "torch", "add", True, False, {"check": "complex_samples", "total": 6, "agree": 5,
                                             "variants": {"function": [6, 5]}}),
        ("op", "torch", "add", True, True, {"check": "complex_grad", "total": 2, "agree": 2}),
        ("op", "torch", "sin", True, True, {"check": "complex_samples", "total": 3, "agree": 3}),
        ("op", "torch", "floor", True, True, {"check": "samples", "total": 2, "agree": 2}),
    ]
    report = tmp_path / "r.jsonl"
    report.write_text("".join(json.dumps(dict(zip(
        ("kind", "namespace", "name", "present", "passed", "detail"), line))) + "\n"
        for line in lines))
    page = _gen_tool().render(_gen_tool().read_report(report))
    # the real figures do not count the complex checks
    assert "| torch | 3 | 3 | 3 | 3 | 3 | 6 of 6 (100.0%) | 0 of 0 | 0 |" in page
    assert "| ... through the function variant | 4 of 4 (100.0%) |" in page
    assert "| present OpInfos listing complex dtypes whose every complex check agrees | " \
        "1 of 2 (50.0%) |" in page
    assert "| complex sample checks agreeing (all variants, complex64 and complex128) | " \
        "8 of 9 (88.9%) |" in page
    assert "| complex128 gradients agreeing | 2 of 2 (100.0%) |" in page


def test_complex_dtypes_listed_apart():
    assert MAPPED["sin"].complex_dtypes == [torch.complex64, torch.complex128]
    assert MAPPED["sin"].dtypes == [torch.float32, torch.float64, torch.int64, torch.bool]
    assert MAPPED["floor"].complex_dtypes == []
