"""Writes docs/conformance.md, the conformance table against PyTorch's own
test databases (issue #32), from the report lines tests/conformance writes.

    python tools/gen_conformance.py                 # runs pytest tests/conformance
    python tools/gen_conformance.py --report FILE   # reads a report already written
    python tools/gen_conformance.py --out PATH      # writes elsewhere

Running the harness needs torch and expecttest installed; each check writes
one JSON line (kind, namespace, name, present, passed, detail) to the file
$MT_CONFORMANCE_REPORT names.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMAND = "python tools/gen_conformance.py"
# checks whose every case must agree for an op to count as passing
VALUE_CHECKS = ("samples", "grad", "fwad")
# the checks at complex dtypes, figured apart (issue #33)
COMPLEX_CHECKS = ("complex_samples", "complex_grad")


def run_harness(path):
    env = dict(os.environ, MT_CONFORMANCE_REPORT=str(path))
    cmd = [sys.executable, "-m", "pytest", "tests/conformance", "-q", "-p", "no:cacheprovider",
           "-W", "ignore"]
    code = subprocess.call(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    if code not in (0, 1):
        sys.exit(f"pytest tests/conformance exited with {code}: the report is incomplete")
    if code == 1:
        print("note: pytest tests/conformance failed: an expected-failures list is not current",
              file=sys.stderr)


def read_report(path):
    lines = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    if not lines:
        sys.exit(f"{path}: no report lines (are torch and expecttest installed?)")
    return lines


def _detail(line):
    d = line.get("detail")
    return d if isinstance(d, dict) else {}


def _entries(lines, kind):
    """name -> {namespace, present, passed, checks: {check: detail+passed}}."""
    out = {}
    for line in lines:
        if line["kind"] != kind:
            continue
        e = out.setdefault(line["name"], {"namespace": line["namespace"], "present": False,
                                          "applicable": True, "checks": {}, "passed": True})
        d = _detail(line)
        e["present"] |= bool(line["present"])
        if not line["present"]:
            e["applicable"] = d.get("applicable", True)
        e["passed"] &= bool(line["passed"])
        e["checks"][d.get("check", str(len(e["checks"])))] = dict(d, passed=line["passed"])
    return out


def _pct(a, b):
    return f"{a:,} of {b:,} ({100 * a / b:.1f}%)" if b else "0 of 0"


def op_section(lines):
    ops = _entries(lines, "op")
    if not ops:
        return []
    per_ns = collections.defaultdict(collections.Counter)
    sums = collections.Counter()
    for e in ops.values():
        c = per_ns[e["namespace"]]
        c["opinfos"] += 1
        c["applicable"] += e["applicable"]
        c["present"] += e["present"]
        values_ok = e["present"] and all(ch["passed"] for k, ch in e["checks"].items()
                                         if k in VALUE_CHECKS)
        c["values"] += values_ok
        # the same, leaving out the out= variant, the most common gap
        samples = e["checks"].get("samples", {})
        c["values_no_out"] += e["present"] and all(
            ch["passed"] for k, ch in e["checks"].items() if k in VALUE_CHECKS[1:]) and all(
            a == t for v, (t, a) in samples.get("variants", {}).items() if v != "out=") and (
            samples.get("passed") or "variants" in samples)
        c["all"] += values_ok and all(ch["passed"] for k, ch in e["checks"].items()
                                      if k not in COMPLEX_CHECKS)
        complex_checks = [ch for k, ch in e["checks"].items() if k in COMPLEX_CHECKS]
        c["complex"] += e["present"] and bool(complex_checks)
        c["complex_ok"] += e["present"] and bool(complex_checks) and all(
            ch["passed"] for ch in complex_checks)
        for k, ch in e["checks"].items():
            if k == "errors":
                c["err_total"] += ch.get("total", 0)
                c["err_type"] += ch.get("type", 0)
                c["err_msg"] += ch.get("agree", 0)
            else:
                sums[k + "_total"] += ch.get("total", 0)
                sums[k + "_agree"] += ch.get("agree", 0)
            if k == "samples":
                c["samples_total"] += ch.get("total", 0)
                c["samples_agree"] += ch.get("agree", 0)
                for v, (t, a) in ch.get("variants", {}).items():
                    sums[v + "_total"] += t
                    sums[v + "_agree"] += a
    out = ["## Operators (op_db)", "",
           "One row per torch namespace. *Applicable*: OpInfos with a CPU dtype among float32, "
           "float64, int64 and bool. *Present*: minitorch has the callable. *Values agree*: "
           "every sample and reference input (function, method, in-place and out= variants), "
           "every float64 gradient and forward-mode tangent agrees with torch. *All checks*: "
           "also every error input raises torch's exception type and message. *Sample checks*: "
           "the single checks of samples and reference inputs (each variant and dtype) that "
           "agree.", "",
           "| namespace | OpInfos | applicable | present | values agree | all checks "
           "| sample checks | error inputs: torch's type | and message |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    total = collections.Counter()
    for ns in sorted(per_ns, key=lambda n: (-per_ns[n]["opinfos"], n)):
        c = per_ns[ns]
        total.update(c)
        out.append(f"| {ns} | {c['opinfos']} | {c['applicable']} | {c['present']} | "
                   f"{c['values']} | {c['all']} | {_pct(c['samples_agree'], c['samples_total'])} | "
                   f"{c['err_type']} of {c['err_total']} | "
                   f"{c['err_msg']} |")
    c = total
    out.append(f"| **total** | **{c['opinfos']}** | **{c['applicable']}** | "
               f"**{c['present']}** | **{c['values']}** | **{c['all']}** | "
               f"**{_pct(c['samples_agree'], c['samples_total'])}** | "
               f"**{c['err_type']} of {c['err_total']}** | **{c['err_msg']}** |")
    out += ["", "| figure | minitorch |", "|---|---|",
            f"| OpInfos with a minitorch callable, of applicable | "
            f"{_pct(c['present'], c['applicable'])} |",
            f"| present OpInfos whose every sample and derivative agrees | "
            f"{_pct(c['values'], c['present'])} |",
            f"| the same, leaving out `out=` | {_pct(c['values_no_out'], c['present'])} |",
            f"| sample checks agreeing (all variants, all dtypes) | "
            f"{_pct(sums['samples_agree'], sums['samples_total'])} |",
            *(f"| ... through the {v} variant | {_pct(sums[v + '_agree'], sums[v + '_total'])} |"
              for v in ("function", "method", "inplace", "out=")),
            f"| float64 gradients agreeing | {_pct(sums['grad_agree'], sums['grad_total'])} |",
            f"| float64 forward-mode tangents agreeing | "
            f"{_pct(sums['fwad_agree'], sums['fwad_total'])} |",
            f"| error inputs raising torch's exception type | "
            f"{_pct(c['err_type'], c['err_total'])} |",
            f"| error inputs raising torch's type and message | "
            f"{_pct(c['err_msg'], c['err_total'])} |", ""]
    out += ["### Complex dtypes", "",
            "The present OpInfos that list complex64 or complex128 among their CPU dtypes, "
            "checked at those dtypes: every sample and reference input through every variant "
            "(`complex_samples`), and reverse-mode gradients at complex128 where the OpInfo "
            "supports complex autograd (`complex_grad`, torch's conjugate Wirtinger "
            "convention). These checks are left out of the figures above.", "",
            "| figure | minitorch |", "|---|---|",
            f"| present OpInfos listing complex dtypes whose every complex check agrees | "
            f"{_pct(c['complex_ok'], c['complex'])} |",
            f"| complex sample checks agreeing (all variants, complex64 and complex128) | "
            f"{_pct(sums['complex_samples_agree'], sums['complex_samples_total'])} |",
            f"| complex128 gradients agreeing | "
            f"{_pct(sums['complex_grad_agree'], sums['complex_grad_total'])} |", ""]
    return out


def info_section(lines, kind, title):
    entries = _entries(lines, kind)
    if not entries:
        return []
    per_ns = collections.defaultdict(collections.Counter)
    for e in entries.values():
        c = per_ns[e["namespace"]]
        c["entries"] += 1
        c["present"] += e["present"]
        c["passing"] += e["present"] and e["passed"]
    out = [f"## {title}", "", "| namespace | entries | present | passing |", "|---|---:|---:|---:|"]
    for ns in sorted(per_ns):
        c = per_ns[ns]
        out.append(f"| {ns} | {c['entries']} | {c['present']} | {c['passing']} |")
    return out + [""]


def render(lines):
    out = ["# Conformance with PyTorch's test databases", "",
           f"*Generated by `{COMMAND}` from the harness in `tests/conformance` "
           "(issue #32); do not edit by hand.*", "",
           "The harness runs the entries of PyTorch's own test databases (`op_db`, "
           "`module_db`, `optim_db` of `torch.testing._internal`) on torch and on minitorch and "
           "compares them. The checks known to fail today are listed, one reason each, in "
           "`tests/conformance/expected_failures/`; CI fails when a listed check starts passing "
           "or an unlisted one fails.", ""]
    out += op_section(lines)
    out += info_section(lines, "module", "Modules (module_db)")
    out += info_section(lines, "optim", "Optimizers (optim_db)")
    return "\n".join(out).rstrip() + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--report", help="a report file already written (default: run the harness)")
    ap.add_argument("--out", default=str(ROOT / "docs" / "conformance.md"))
    args = ap.parse_args()
    if args.report:
        lines = read_report(args.report)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "report.jsonl"
            run_harness(path)
            lines = read_report(path)
    Path(args.out).write_text(render(lines))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
