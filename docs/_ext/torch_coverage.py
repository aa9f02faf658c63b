"""The "which torch names exist" part of docs/differences.md: compares the
public names of torch's namespaces with minitorch's at doc-build time, and
lists the op table's rows. Without torch installed it says so instead of
listing (the known gaps on the page are written by hand)."""
import importlib

import minitorch

NAMESPACES = [
    ("torch", "minitorch"),
    ("torch.Tensor", "minitorch.Tensor"),
    ("torch.nn", "minitorch.nn"),
    ("torch.nn.functional", "minitorch.nn.functional"),
    ("torch.nn.init", "minitorch.nn.init"),
    ("torch.optim", "minitorch.optim"),
    ("torch.optim.lr_scheduler", "minitorch.optim.lr_scheduler"),
    ("torch.autograd", "minitorch.autograd"),
    ("torch.autograd.functional", "minitorch.autograd.functional"),
    ("torch.autograd.forward_ad", "minitorch.autograd.forward_ad"),
    ("torch.func", "minitorch.func"),
    ("torch.linalg", "minitorch.linalg"),
    ("torch.special", "minitorch.special"),
    ("torch.signal.windows", "minitorch.signal.windows"),
    ("torch.masked", "minitorch.masked"),
    ("torch.utils.data", "minitorch.utils.data"),
    ("torch.utils.checkpoint", "minitorch.utils.checkpoint"),
    ("torch.utils._pytree", "minitorch.utils._pytree"),
    ("torch.utils.benchmark", "minitorch.utils.benchmark"),
    ("torch.library", "minitorch.library"),
    ("torch.overrides", "minitorch.overrides"),
    ("torch.testing", "minitorch.testing"),
]


# namespaces whose modules import many helpers (typing names): compared by
# their __all__ instead of everything they hold
BY_ALL = {"torch.utils._pytree", "minitorch.utils._pytree"}


def _resolve(dotted):
    """A module, or a class inside one (torch.Tensor)."""
    try:
        return importlib.import_module(dotted)
    except ImportError:
        parent, _, name = dotted.rpartition(".")
        return getattr(importlib.import_module(parent), name)


def _names(obj):
    """Public attribute names, without submodules."""
    out = set()
    for name in dir(obj):
        if name.startswith("_"):
            continue
        try:
            value = getattr(obj, name)
        except Exception:
            continue
        if type(value).__name__ != "module":
            out.add(name)
    return out


def _public(dotted):
    obj = _resolve(dotted)
    return set(obj.__all__) if dotted in BY_ALL else _names(obj)


def _code_list(names):
    return ", ".join(f"`{n}`" for n in sorted(names)) if names else "none"


def op_table_summary():
    rows = minitorch._C._op_rows()
    names = {r[1] for r in rows}
    return (f"The op table has {len(rows)} rows (overloads and the in-place and operator "
            f"forms included) publishing {len(names)} names, each with torch's "
            "signature.\n")


def markdown():
    parts = [op_table_summary(), ""]
    try:
        import torch
    except ImportError:
        parts.append("PyTorch was not installed when this site was built, so the name-by-name "
                     "comparison is left out: install `torch==2.13.0` and rebuild.\n")
        return "\n".join(parts)
    parts.append(f"Compared with PyTorch {torch.__version__} when this site was built: for "
                 "each namespace, how many of torch's public names minitorch has, which it "
                 "lacks, and which it has that torch does not.\n")
    rows = minitorch._C._op_rows()
    for theirs, ours in NAMESPACES:
        t = _public(theirs)
        o = _public(ours)
        parts += [f"## `{ours}`", "",
                  f"{len(t & o)} of torch's {len(t)} public names.", "",
                  f"Missing: {_code_list(t - o)}", "",
                  f"Only in minitorch: {_code_list(o - t)}", ""]
    extra = sorted({r[1] for r in rows} - set(dir(torch)) - set(dir(torch.Tensor))
                   - set(dir(torch.nn.functional)))
    parts += ["## Op-table names torch does not publish", "",
              "Rows for minitorch's own use (fused optimizer steps, pooling and loss "
              f"kernels behind nn.functional): {_code_list(extra)}", ""]
    return "\n".join(parts)
