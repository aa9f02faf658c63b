"""Sphinx extension: writes the API reference pages and the torch coverage
lists into docs/_generated/ before the build reads the sources, from what
the built package exports, so a new op, module or function appears without
editing the docs (tests/test_docstrings.py checks that it has a docstring)."""
import importlib
import inspect
import os
import types

import minitorch

# (page, title, intro, [(heading, module, kind)]); kind "functions" lists the
# module's public functions, "classes" its classes with their members.
PAGES = [
    ("minitorch", "minitorch", "Tensor creation, math, reductions, indexing and the "
     "library's settings. Each op-table function's docstring is generated from its row.",
     [("Functions", "minitorch", "functions"), ("Classes", "minitorch", "classes")]),
    ("tensor", "minitorch.Tensor", "The tensor type: its methods and properties.",
     [("Tensor", "minitorch.Tensor", "tensor")]),
    ("nn", "minitorch.nn", "Layers, losses, containers, functional forms and initializers.",
     [("Modules", "minitorch.nn", "classes"),
      ("minitorch.nn.functional", "minitorch.nn.functional", "functions"),
      ("minitorch.nn.init", "minitorch.nn.init", "functions")]),
    ("optim", "minitorch.optim", "Optimizers and learning rate schedulers.",
     [("Optimizers", "minitorch.optim", "classes"),
      ("minitorch.optim.lr_scheduler", "minitorch.optim.lr_scheduler", "classes")]),
    ("autograd", "minitorch.autograd", "Reverse and forward mode automatic differentiation.",
     [("Functions", "minitorch.autograd", "functions"),
      ("Classes", "minitorch.autograd", "classes"),
      ("minitorch.autograd.functional", "minitorch.autograd.functional", "functions"),
      ("minitorch.autograd.forward_ad", "minitorch.autograd.forward_ad", "functions"),
      ("Forward AD classes", "minitorch.autograd.forward_ad", "classes"),
      ("minitorch.autograd.graph", "minitorch.autograd.graph", "classes")]),
    ("profiler", "minitorch.profiler",
     "The CPU profiler: op and backward-node events, summary tables, schedules and "
     "Chrome traces (see the Profiling page).",
     [("minitorch.profiler", "minitorch.profiler", "functions"),
      ("Profiler classes", "minitorch.profiler", "classes"),
      ("minitorch.autograd.profiler", "minitorch.autograd.profiler", "classes"),
      ("minitorch.autograd.profiler_util", "minitorch.autograd.profiler_util", "classes")]),
    ("func", "minitorch.func, linalg, fft, special, signal and masked",
     "Function transforms, linear algebra, discrete Fourier transforms, special functions, "
     "window functions, and reductions over the elements a mask selects.",
     [("minitorch.func", "minitorch.func", "functions"),
      ("minitorch.linalg", "minitorch.linalg", "functions"),
      ("minitorch.fft", "minitorch.fft", "functions"),
      ("minitorch.special", "minitorch.special", "functions"),
      ("minitorch.signal.windows", "minitorch.signal.windows", "functions"),
      ("minitorch.masked", "minitorch.masked", "functions")]),
    ("utils", "minitorch.utils", "Data loading, checkpointing and building C extensions.",
     [("minitorch.utils.data", "minitorch.utils.data", "classes"),
      ("minitorch.utils.checkpoint", "minitorch.utils.checkpoint", "functions"),
      ("minitorch.utils.cpp_extension", "minitorch.utils.cpp_extension", "functions"),
      ("Extension classes", "minitorch.utils.cpp_extension", "classes")]),
    ("pytree", "minitorch.utils._pytree",
     "Nested containers (pytrees): flattening to leaves and a TreeSpec, mapping over the "
     "leaves, key paths and registering container types, as torch.utils._pytree.",
     [("Functions", "minitorch.utils._pytree", "functions"),
      ("Classes", "minitorch.utils._pytree", "classes")]),
    ("benchmark", "minitorch.utils.benchmark",
     "Timing statements (Timer), their results (Measurement) and tables comparing them "
     "(Compare), as torch.utils.benchmark.",
     [("Classes", "minitorch.utils.benchmark", "classes"),
      ("Functions", "minitorch.utils.benchmark", "functions")]),
    ("distributions", "minitorch.distributions",
     "Probability distributions: sampling, log densities, entropy and KL divergence.",
     [("Distributions", "minitorch.distributions", "classes"),
      ("Functions", "minitorch.distributions", "functions"),
      ("minitorch.distributions.constraints", "minitorch.distributions.constraints",
       "classes")]),
    ("interop", "minitorch.utils.safetensors and minitorch.utils.tensorboard",
     "Reading and writing safetensors files, and logging to TensorBoard.",
     [("minitorch.utils.safetensors", "minitorch.utils.safetensors", "functions"),
      ("Errors", "minitorch.utils.safetensors", "classes"),
      ("minitorch.utils.tensorboard", "minitorch.utils.tensorboard", "classes")]),
    ("onnx", "minitorch.onnx",
     "Exporting a model to an ONNX file by tracing one run of it (see the ONNX export "
     "page); needs the onnx extra.",
     [("Functions", "minitorch.onnx", "functions"),
      ("Classes", "minitorch.onnx", "classes")]),
    ("extending", "minitorch.library, overrides and testing",
     "Custom ops, the __torch_function__ helpers and test assertions.",
     [("minitorch.library", "minitorch.library", "functions"),
      ("Custom op classes", "minitorch.library", "classes"),
      ("minitorch.overrides", "minitorch.overrides", "functions"),
      ("Modes", "minitorch.overrides", "classes"),
      ("minitorch.testing", "minitorch.testing", "functions")]),
]


def public_names(module):
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    return sorted(names)


def _ours(obj):
    module = getattr(obj, "__module__", None) or type(obj).__module__
    return module.startswith("minitorch")


def members(modname, kind, seen):
    """The names a section documents, with the autodoc directive for each. An
    object several namespaces export (minitorch.no_grad is
    minitorch.autograd.no_grad) is indexed where it first appears; Tensor
    has a page of its own."""
    module = importlib.import_module(modname)
    out = []
    for name in public_names(module):
        obj = getattr(module, name, None)
        if (obj is None or obj is minitorch.Tensor or isinstance(obj, types.ModuleType)
                or not _ours(obj)):
            continue
        options = [":no-index:"] if id(obj) in seen else []
        seen.add(id(obj))
        if kind == "classes" and isinstance(obj, type):
            out.append(("autoclass", name, [":members:"] + options))
        elif kind == "functions" and callable(obj) and not isinstance(obj, type):
            out.append(("autofunction", name, options))
    return out


def tensor_members():
    out = []
    for name in sorted(n for n in dir(minitorch.Tensor) if not n.startswith("_")):
        raw = inspect.getattr_static(minitorch.Tensor, name)
        directive = ("autoproperty" if isinstance(raw, property) else
                     "autoattribute" if inspect.isgetsetdescriptor(raw) else "automethod")
        out.append((directive, name, []))
    return out


def write_if_changed(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path) and open(path).read() == text:
        return
    with open(path, "w") as f:
        f.write(text)


def api_page(page, title, intro, sections, seen):
    lines = [title, "=" * len(title), "", intro, ""]
    for heading, modname, kind in sections:
        if len(sections) > 1 or kind == "tensor":
            lines += [heading, "-" * len(heading), ""]
        if kind == "tensor":
            lines += [".. class:: minitorch.Tensor", "   :no-index:", "",
                      "   " + inspect.getdoc(minitorch.Tensor).splitlines()[0], ""]
            entries = tensor_members()
            prefix = "minitorch.Tensor."
        else:
            entries = members(modname, kind, seen)
            prefix = modname + "."
        for directive, name, options in entries:
            lines.append(f".. {directive}:: {prefix}{name}")
            lines += [f"   {o}" for o in options]
            lines.append("")
    return "\n".join(lines)


def generate(app):
    out = os.path.join(app.srcdir, "_generated")
    index = ["API reference", "=============", "",
             "Generated from the docstrings of the built package.", "",
             ".. toctree::", "   :maxdepth: 1", ""]
    seen = set()
    for page, title, intro, sections in PAGES:
        write_if_changed(os.path.join(out, "api", page + ".rst"),
                         api_page(page, title, intro, sections, seen))
        index.append(f"   {page}")
    write_if_changed(os.path.join(out, "api", "index.rst"), "\n".join(index) + "\n")
    import torch_coverage
    write_if_changed(os.path.join(out, "torch_coverage.md"), torch_coverage.markdown())


def setup(app):
    app.connect("builder-inited", generate)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
