"""One line per case of a run.py --json file, as a Markdown table:

    python benchmarks/table.py results.json

Columns: case, threads, medians, minitorch/torch (or CONTENDED: the ratio of a
case during which other processes were busy is not a result), the agreement
check, cores used by others, throughput against the yardstick (minitorch /
torch), and page faults per call where counted."""
import json
import re
import sys

from harness import fmt_ns, is_contended


def _percent(extra, lib):
    """'a% / b%' of minitorch and torch from a case's GB/s or GFLOPS line."""
    for line in extra:
        found = re.search(r"(?<!\w)%s [\d.]+ \((\d+)%%\)" % lib, line)
        if found:
            return found.group(1) + "%"
    return ""


def rows(report):
    yield ("| case | T | minitorch | torch | numpy | minitorch/torch | check | others | "
           "% bw or peak (mt / torch) | faults/call (mt / torch) |")
    yield "|---|---|---|---|---|---|---|---|---|---|"
    for c in report["cases"]:
        v = c["variants"]

        def med(label):
            r = v.get(label)
            if r is None:
                return ""
            return fmt_ns(r["median_ns"]) if r["status"] == "ok" else r["status"]

        ratio = next((r for r in c["ratios"] if r["label"] == "minitorch/torch"), None)
        if is_contended(c.get("others_cores")):
            shown = "CONTENDED"
        elif ratio and ratio["value"] is not None:
            shown = "%.2f" % ratio["value"]
        else:
            shown = ratio["result"] if ratio else ""
        ok, detail = c.get("check") or (None, "")
        check = "-" if ok is None else ("ok" if ok else "FAILED: " + detail)
        extra = c.get("extra") or []
        pct = " / ".join(p for p in (_percent(extra, "minitorch"), _percent(extra, "torch")) if p)
        faults = " / ".join("%.1f" % v[k]["faults"] for k in ("minitorch", "torch")
                            if k in v and v[k].get("faults") is not None)
        others = c.get("others_cores")
        name = re.sub(r", \d+T$", "", c["name"])
        yield "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, c.get("threads", ""), med("minitorch"), med("torch"), med("numpy"), shown,
            check, "" if others is None else "%.2f" % others, pct, faults)


def main(argv):
    with open(argv[1]) as f:
        report = json.load(f)
    print("load average %.2f at the end; threads %s"
          % (report.get("loadavg", float("nan")), report.get("threads")))
    for line in rows(report):
        print(line)


if __name__ == "__main__":
    main(sys.argv)
