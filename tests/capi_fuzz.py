"""The generated fuzz sweep of the C API (minitorch/include/minitorch/minitorch.h):
every entry of the function table called with hostile arguments through a
C++ test extension (tests/c/capi_fuzz_driver.cpp, built with load_inline):
NULL handles, names and formats, dtype codes outside minitorch_dtype,
negative, huge and overflowing sizes, ndim outside [0, 16], format strings
with unknown letters, a dangling 'k', repeated or unknown keywords, NULL
keyword names and too many arguments, values of the wrong kind in every
parameter position of every published op, ids of ops no name reaches, and
parameter indices outside a custom op's schema in its kernel and backward.

Run as a program it sweeps and writes a JSON summary (tests/test_fuzz_capi.py
runs it in a child process, so a crash or a sanitizer abort is reported with
the call that caused it instead of killing the test run):

    python tests/capi_fuzz.py SUMMARY.json PROGRESS_FILE BUILD_DIR

The entries are read from the header's minitorch_api struct and the ops from
minitorch._C._op_rows(), so a new entry or op is swept (or reported as not
swept) without a change here. A call passes when it returns a result, or
fails with an exception other than SystemError together with the error value
the header documents; cases whose failure is certain (a bad dtype code, a
NULL where None is not allowed, an unknown format letter...) must also fail
with the exception the header names.
"""
import json
import os
import re
import sys

import minitorch as mt
from minitorch import _C
from minitorch.utils import cpp_extension

HERE = os.path.dirname(os.path.abspath(__file__))
DRIVER = os.path.join(HERE, "c", "capi_fuzz_driver.cpp")
DRIVER_FUNCTIONS = ["objects", "create", "metadata", "element_size", "resize_as", "op_id",
                    "call", "register_probe", "take_log"]
INT_MIN, INT_MAX = -2 ** 31, 2 ** 31 - 1
BAD_DTYPES = [-1, 77, 10 ** 6, INT_MIN, INT_MAX]


def header_entries():
    """The names of the function table's entries, as the header declares them."""
    with open(os.path.join(mt.get_include(), "minitorch", "minitorch.h")) as f:
        text = f.read()
    body = text[text.index("typedef struct {\n    unsigned abi_major;"):text.index("} minitorch_api;")]
    return sorted(set(re.findall(r"\(\*(\w+)\)\(", body)))


# ------------------------------------------------------------ op signatures

_LETTERS = [(re.compile(r"^Tensor(\|(Number|Scalar))?\??$"), "T"),
            (re.compile(r"^(int|SymInt)\??$"), "i"),
            (re.compile(r"^int\[\d*\]\??$"), "L"),
            (re.compile(r"^(float|Scalar|Number)\??$"), "f"),
            (re.compile(r"^bool\??$"), "b"),
            (re.compile(r"^(dtype|ScalarType)\??$"), "D"),
            (re.compile(r"^str\??$"), "s")]


def _split_params(text):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def parse_signature(signature):
    """[(name, letter or None, optional, keyword_only, has_default)] of a row's
    signature text."""
    inner = signature[signature.index("(") + 1:signature.rindex(")")]
    params, keyword = [], False
    for part in _split_params(inner):
        if part == "*":
            keyword = True
            continue
        decl, equals, default = part.partition("=")
        type_text, _, name = decl.strip().rpartition(" ")
        letter = next((c for rx, c in _LETTERS if rx.match(type_text)), None)
        optional = type_text.endswith("?") or default.strip() == "None"
        params.append((name, letter, optional, keyword, bool(equals)))
    return params


def callable_names():
    """{name: (row id, params)} of the row MT->call(name) runs: the first row
    of the name published as a function, else the first published one."""
    chosen = {}
    for rid, row in enumerate(_C._op_rows()):
        name, kinds, signature = row[1], row[2], row[3]
        if not kinds:
            continue
        if name not in chosen or ("f" in kinds and "f" not in chosen[name][2]):
            chosen[name] = (rid, parse_signature(signature), kinds)
    return {n: (rid, params) for n, (rid, params, _) in chosen.items()}


def unpublished_ids():
    return [rid for rid, row in enumerate(_C._op_rows()) if not row[2]]


# ---------------------------------------------------------------- values

def _tensor():
    return mt.arange(6.0).reshape(2, 3)


VALID = {"T": _tensor, "i": lambda: 0, "f": lambda: 0.5, "b": lambda: 0,
         "D": lambda: int(8), "s": lambda: "none", "L": lambda: (1, [1])}


def _base(params):
    """The format and values of the required positional parameters (up to the
    first one the format cannot spell)."""
    fmt, values = "", []
    for name, letter, optional, keyword, has_default in params:
        if keyword or has_default or letter is None:
            break
        fmt += letter
        values.append(VALID[letter]())
    return fmt, values


def _expect(case, kind, pattern):
    case["expect"] = (kind, pattern)
    return case


def call_cases(name, params):
    """The hostile calls of one op: (fmt, values, expected failure or None)."""
    fmt, values = _base(params)
    cases = [dict(fmt=fmt, values=values, what="baseline")]
    for i, letter in enumerate(fmt):
        prm = params[i]
        head_fmt, head_values = fmt[:i], values[:i]
        tail_fmt, tail_values = fmt[i + 1:], values[i + 1:]

        def at(letter_here, value_list, what):
            return dict(fmt=head_fmt + letter_here + tail_fmt,
                        values=head_values + value_list + tail_values, what=f"{what} at {i}")
        if letter == "T":
            case = at("T", [None], "NULL tensor")
            cases.append(case if prm[2] else _expect(case, "TypeError", "must be Tensor, not NULL"))
        if letter == "D":
            for code in BAD_DTYPES:
                cases.append(_expect(at("D", [code], f"dtype {code}"), "ValueError",
                                     rf"invalid dtype {code}"))
        if letter == "s":
            case = at("s", [None], "NULL str")
            cases.append(case if prm[2] else _expect(case, "TypeError", "must be str, not NULL"))
        if letter == "L":
            for n, items in ((-1, [1]), (1000, [1]), (3, None)):
                cases.append(_expect(at("L", [(n, items)], f"int list n={n}"), "TypeError",
                                     "cannot take a 'L' value"))
        if letter != "s":
            cases.append(_expect(at("s", ["x"], "a str"), "TypeError", "cannot take a 's' value"))
        if letter in "LDsbi":
            cases.append(_expect(at("T", [_tensor()], "a tensor"), "TypeError",
                                 "cannot take a 'T' value"))
    cases += [
        _expect(dict(fmt=fmt + "X", values=values, what="unknown letter"), "ValueError",
                "unknown format character 'X'"),
        _expect(dict(fmt=fmt + "k", values=values + ["input"], what="dangling k"), "ValueError",
                "ends with 'k'"),
        _expect(dict(fmt="O" + fmt, values=[None] + values, what="letter O"), "ValueError",
                "unknown format character 'O'"),
        _expect(dict(fmt=None, values=values, what="NULL format"), "ValueError",
                "format must be a string"),
        dict(fmt="", values=[], what="no arguments"),
    ]
    if params:
        first = params[0][1] or "T"
        value = VALID.get(first, _tensor)()
        cases += [
            _expect(dict(fmt="k" + first, values=[None, value], what="NULL keyword name"),
                    "TypeError", "keyword argument name is NULL"),
            _expect(dict(fmt="k" + first, values=["no_such_param", value], what="unknown keyword"),
                    "TypeError", "unexpected keyword argument 'no_such_param'"),
        ]
        if fmt:
            cases.append(_expect(dict(fmt=fmt + "k" + fmt[0], values=values + [params[0][0],
                                                                            values[0]],
                                      what="repeated keyword"),
                                 "TypeError", "got multiple values for argument"))
    if len(params) < 15 and all(p[1] == "T" for p in params):
        cases.append(_expect(dict(fmt="T" * (len(params) + 1),
                                  values=[_tensor() for _ in range(len(params) + 1)],
                                  what="too many"), "TypeError", r"takes \d+ arguments"))
    return cases


# ---------------------------------------------------------------- the sweep

class Sweep:
    def __init__(self, ext, progress_path):
        self.ext = ext
        self.progress_path = progress_path
        self.findings = []
        self.entries = set()
        self.calls = 0
        self.expected = 0  # calls whose failure and its wording were checked

    def progress(self, text):
        with open(self.progress_path, "w") as f:
            f.write(text)

    def check(self, entry, detail, outcome, expect=None):
        self.entries.add(entry)
        self.calls += 1
        where = f"{entry}({detail})"
        if outcome[0] == "bad":
            self.findings.append(f"{where}: {outcome[1]}")
        elif outcome[0] == "raised" and outcome[1] == "SystemError":
            self.findings.append(f"{where}: SystemError: {outcome[2]}")
        elif expect is not None:
            self.expected += 1
            kind, pattern = expect
            if outcome[0] != "raised" or outcome[1] != kind or not re.search(pattern,
                                                                              outcome[2] or ""):
                self.findings.append(f"{where}: expected {kind} matching {pattern!r}, got "
                                     f"{outcome!r}"[:400])

    def records(self, items, expect=None):
        for entry, detail, outcome in items:
            self.check(entry, detail, outcome, expect)

    def run_table(self):
        ext = self.ext
        self.progress("objects")
        for obj in (_tensor(), 3, None, "x"):
            self.records(ext.objects(obj))
        self.progress("create")
        for ndim, sizes, dtype, data in [(2, [2, 3], 8, bytes(24)), (0, [], 9, bytes(8)),
                                         (1, [0], 0, None), (2, [2, 3], 8, None)]:
            for entry, detail, outcome in ext.create(ndim, sizes, dtype, data):
                failing = data is None and entry == "from_data" and ndim and 0 not in sizes
                self.check(entry, f"{ndim}, {sizes}, {dtype}", outcome,
                           ("ValueError", "data is NULL") if failing else None)
                if not failing and outcome[0] != "ok":
                    self.findings.append(f"{entry}({ndim}, {sizes}, {dtype}): {outcome!r}")
        hostile = [(-1, [], 8), (17, [1] * 17, 8), (2 ** 30, [1], 8), (INT_MIN, [1], 8),
                   (2, None, 8), (1, [-1], 8), (3, [2, -5, 2], 9), (2, [2 ** 40, 2 ** 40], 8),
                   (1, [2 ** 62], 8), (4, [2 ** 20] * 4, 9), (1, [2 ** 58], 0)]
        hostile += [(1, [2], code, bytes(64)) for code in BAD_DTYPES]
        for case in hostile:
            ndim, sizes, dtype = case[:3]
            data = case[3] if len(case) > 3 else None
            for entry, detail, outcome in ext.create(ndim, sizes, dtype, data):
                self.check(entry, f"{ndim}, {sizes}, {dtype}", outcome)
                if outcome[0] != "raised":
                    self.findings.append(f"{entry}({ndim}, {sizes}, {dtype}): not refused: "
                                         f"{outcome!r}"[:300])
        self.progress("metadata")
        for t in (None, _tensor(), mt.empty(0), _tensor().t(), mt.ones(2, requires_grad=True)):
            items = ext.metadata(t)
            self.records(items, ("RuntimeError", "expected a proper Tensor but got NULL")
                         if t is None else None)
        for code in list(range(10)) + BAD_DTYPES:
            self.records(ext.element_size(code),
                         ("ValueError", "invalid dtype") if code in BAD_DTYPES else None)
        t = _tensor()
        for a, b in ((None, t), (mt.empty(0), None), (None, None), (mt.empty(0), t)):
            self.records(ext.resize_as(a, b), None if a is not None and b is not None else
                         ("RuntimeError", "expected a proper Tensor but got NULL"))
        for name in (None, "", "no_such_op", "add", "capi_fuzz::", "::", "a" * 10000):
            self.records(ext.op_id(name), None if name == "add" else ("ValueError", ""))

    def run_custom_op(self):
        self.progress("register_op and the probe op's accessors")
        items = self.ext.register_probe()
        probe = None
        for entry, detail, outcome in items:
            self.check(entry, detail, outcome)
            if detail == "probe" and outcome[0] == "ok":
                probe = outcome[1]
            elif outcome[0] != "raised":
                self.findings.append(f"register_op({detail}): not refused: {outcome!r}")
        if probe is None:
            self.findings.append("register_op: the probe op could not be registered")
            return
        x = mt.ones(3, dtype=mt.float64, requires_grad=True)
        out = probe(x, 2, 1.5, "txt", [1, 2, 3], flag=True)
        out.sum().backward()
        if x.grad is None or x.grad.tolist() != [1.0, 1.0, 1.0]:
            self.findings.append(f"probe op backward: gradient {x.grad!r}")
        self.records(self.ext.take_log())

    def run_calls(self):
        ext = self.ext
        ops = callable_names()
        for k, (name, (rid, params)) in enumerate(sorted(ops.items())):
            self.progress(f"call {name} ({k + 1}/{len(ops)})")
            for case in call_cases(name, params):
                outcome = ext.call(name, case["fmt"], list(case["values"]), False)
                self.check("call", f"{name}, {case['fmt']!r}: {case['what']}", outcome,
                           case.get("expect"))
            fmt, values = _base(params)
            self.check("call_id", f"{rid} ({name})", ext.call(rid, fmt + "X", values, True),
                       ("ValueError", "unknown format character"))
        self.progress("call: names and ids")
        for name, pattern in ((None, "op name must be a string"), ("", "no op named"),
                              ("no_such_op", "no op named 'no_such_op'")):
            self.check("call", repr(name), ext.call(name, "T", [_tensor()], False),
                       ("ValueError", pattern))
        for rid in [-1, -1000, INT_MIN, INT_MAX, 10 ** 6] + unpublished_ids():
            self.check("call_id", str(rid), ext.call(rid, "T", [_tensor()], True),
                       ("ValueError", f"no op with id {rid}"))
        return len(ops)


def main(summary_path, progress_path, build_dir):
    with open(DRIVER) as f:
        source = f.read()
    ext = cpp_extension.load_inline("capi_fuzz_driver", source, functions=DRIVER_FUNCTIONS,
                                    extra_cflags=["-Wall", "-Wextra", "-Werror"],
                                    build_directory=build_dir)
    sweep = Sweep(ext, progress_path)
    sweep.run_table()
    sweep.run_custom_op()
    ops = sweep.run_calls()
    entries = header_entries()
    summary = dict(findings=sweep.findings, calls=sweep.calls, ops=ops, expected=sweep.expected,
                   entries=entries, entries_unswept=sorted(set(entries) - sweep.entries))
    with open(summary_path, "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main(*sys.argv[1:4])
