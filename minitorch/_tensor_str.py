"""Text rendering of tensors, matching ``repr`` of PyTorch 2.13 character for character
(with ``minitorch.`` in place of ``torch.`` in dtype names).

Only NumPy is used: the caller hands over the tensor's values as an array plus
the name of its dtype, and gets back the full ``tensor(...)`` string.
"""

import math

import numpy as np

_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}
_FLOAT_DTYPES = frozenset({"float16", "bfloat16", "float32", "float64"})
_COMPLEX_DTYPES = frozenset({"complex32", "complex64", "complex128"})
# Integer literals already read as int64 and True/False as bool, so these never need a dtype suffix.
_IMPLIED_DTYPES = frozenset({"int64", "bool"})

_options = {**_PROFILES["default"], "sci_mode": None}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Change how tensors print; options left as None keep their value, except sci_mode.

    As in torch, an unknown profile name is ignored, and sci_mode is always
    overwritten, so any call without it returns to automatic notation.
    """
    if profile in _PROFILES:
        _options.update(_PROFILES[profile])
    for key, value in (("precision", precision), ("threshold", threshold),
                       ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            _options[key] = value
    _options["sci_mode"] = sci_mode


def get_printoptions():
    """A copy of the current options, keyed like set_printoptions' arguments (minus profile)."""
    return dict(_options)


class _ElementFormat:
    """Chooses one notation and one column width for every element of a tensor."""

    def __init__(self, shown, is_float):
        self.is_float = is_float
        self.precision = _options["precision"]
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        if not is_float:
            self.width = max([1] + [len(str(v)) for v in shown.ravel().tolist()])
            return

        flat = shown.ravel()
        regular = np.unique(flat[np.isfinite(flat) & (flat != 0)])
        if regular.size == 0:
            # Nothing to measure; torch then ignores even a forced sci_mode.
            return
        magnitudes = np.abs(regular)
        # Python floats: a ratio beyond the double range becomes inf without a NumPy warning.
        smallest, largest = float(magnitudes.min()), float(magnitudes.max())
        self.int_mode = bool(np.all(regular == np.ceil(regular)))
        self.sci_mode = _options["sci_mode"]
        if self.sci_mode is None:
            self.sci_mode = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4

        if self.sci_mode:
            spec, dot = f".{self.precision}e", 0
        elif self.int_mode:
            spec, dot = ".0f", 1
        else:
            spec, dot = f".{self.precision}f", 0
        self.width = max(len(format(v, spec)) for v in regular.tolist()) + dot

    def __call__(self, value):
        if not self.is_float:
            text = str(value)
        elif self.sci_mode:
            text = format(value, f".{self.precision}e")
        elif self.int_mode:
            # The trailing dot marks an integral value as floating point; nan/inf need no marker.
            text = format(value, ".0f") + ("." if math.isfinite(value) else "")
        else:
            text = format(value, f".{self.precision}f")
        return text.rjust(self.width)


class _ComplexFormat:
    """Real and imaginary parts each with a notation and width of their own, as torch's."""

    def __init__(self, shown):
        self.real = _ElementFormat(shown.real, True)
        self.imag = _ElementFormat(shown.imag, True)
        # the imaginary part's "j"
        self.width = self.real.width + self.imag.width + 1

    def __call__(self, value):
        imag = (self.imag(value.imag) + "j").lstrip()
        # a signed imaginary part (-0.0 too) carries its own sign
        return self.real(value.real) + (imag if imag[0] in "+-" else "+" + imag)


def _render(shown, cut, indent, fmt):
    """Nest the shown values in brackets; ``cut[d]`` says whether axis d hides a middle part."""
    if shown.ndim == 0:
        return fmt(shown.item())
    middle = shown.shape[0] // 2
    if shown.ndim == 1:
        items = [fmt(v) for v in shown.tolist()]
        if cut[0]:
            # The extra space only appears when there are neighbours to separate it from.
            items[middle:middle] = [" ..." if items else "..."]
        per_line = max(1, math.floor((_options["linewidth"] - indent) / (fmt.width + 2)))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = [_render(sub, cut[1:], indent + 1, fmt) for sub in shown]
    if cut[0]:
        rows[middle:middle] = ["..."]
    # One blank line between 3-D blocks, two between 4-D blocks, and so on.
    separator = "," + "\n" * (shown.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(rows) + "]"


def _body(values, is_float, indent, is_complex=False):
    edge = _options["edgeitems"]
    if values.size > _options["threshold"]:
        cut = [n > 2 * edge for n in values.shape]
        keep = [list(range(edge)) + list(range(n - edge, n)) if c else list(range(n))
                for n, c in zip(values.shape, cut)]
        shown = values[np.ix_(*keep)] if values.ndim else values
    else:
        cut = [False] * values.ndim
        shown = values
    fmt = _ComplexFormat(shown) if is_complex else _ElementFormat(shown, is_float)
    return _render(shown, cut, indent, fmt)


def _close(text, extras, indent):
    """Append ``, key=value`` extras and the closing parenthesis, wrapping long lines."""
    # torch counts the last line as two columns longer than it is; copy that to wrap alike.
    used = len(text) - text.rfind("\n") + 1
    parts = [text]
    for extra in extras:
        if used + len(extra) + 2 > _options["linewidth"]:
            parts.append(",\n" + " " * indent + extra)
            used = indent + len(extra)
        else:
            parts.append(", " + extra)
            used += len(extra) + 2
    return "".join(parts) + ")"


def format_tensor(values, dtype_name, *, default_dtype_name="float32", suffixes=(),
                  prefix="tensor("):
    """Return the repr of a tensor holding ``values`` with dtype ``dtype_name``.

    ``values`` carries bfloat16 data as float32 and complex32 data as
    complex64. ``suffixes`` are extra ``(key, value)`` pairs such as
    ``("requires_grad", "True")``, printed after the dtype. Continuation lines
    line up under the last line of ``prefix``.
    """
    values = np.asarray(values)
    is_float = dtype_name in _FLOAT_DTYPES
    is_complex = dtype_name in _COMPLEX_DTYPES
    if is_float:
        # float64 holds every narrower float exactly, and torch computes the layout in double.
        values = values.astype(np.float64)
    elif is_complex:
        values = values.astype(np.complex128)
    # a Python complex's dtype goes unsaid, as a Python float's does
    default_complex = "complex128" if default_dtype_name == "float64" else "complex64"
    indent = len(prefix) - prefix.rfind("\n") - 1
    extras = []
    if values.size == 0:
        # Shape (0,) is implied by "[]"; nothing else is, not even int64.
        if values.ndim != 1:
            extras.append(f"size={tuple(values.shape)}")
        if dtype_name != default_dtype_name:
            extras.append(f"dtype=minitorch.{dtype_name}")
        body = "[]"
    else:
        if not _options["edgeitems"]:
            # torch spells out the shape whenever edgeitems is 0, even if nothing is elided.
            extras.append(f"size={tuple(values.shape)}")
        if (dtype_name not in (default_dtype_name, default_complex)
                and dtype_name not in _IMPLIED_DTYPES):
            extras.append(f"dtype=minitorch.{dtype_name}")
        body = _body(values, is_float, indent, is_complex)
    extras.extend(f"{key}={value}" for key, value in suffixes)
    return _close(prefix + body, extras, indent)
