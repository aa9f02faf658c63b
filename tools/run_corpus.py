"""Counts how many real public torch programs run unchanged on minitorch.

    python tools/run_corpus.py CORPUS_DIR [--manifest tools/corpus_manifest.json]
                               [--timeout 480] [--jobs 1] [--only SUBSTRING] [--json OUT]

CORPUS_DIR holds the programs' text, fetched from the public repositories the
manifest names (repo, path, commit), one file per entry at
CORPUS_DIR/<owner>__<name>/<path>; their code is not ours and is never
committed. Each entry may give `argv` (extra command-line arguments) and
`env` (extra environment variables) when the program itself reads them to
shorten its run; the program's text is never edited.

Every program runs first under torch, in a fresh temporary working directory
and a child process with a time limit: a program that fails there (needs a GPU,
a file, a package we lack) is excluded, with its reason. The rest then run
with minitorch standing in for torch (examples/real_programs/run_as.py: every
`import torch...` resolves to minitorch's module of the same name) and are
classified:
  ok        ran to completion (exit 0);
  missing   stopped on a name minitorch lacks (module attribute, import, method,
            keyword argument) - the name is reported;
  failed    stopped on any other error - the exception's last line is reported;
  timeout   still running after the time limit.
The summary ends with the failure reasons ranked by how many programs they stop.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUN_AS = os.path.join(ROOT, "examples", "real_programs", "run_as.py")
MANIFEST = os.path.join(ROOT, "tools", "corpus_manifest.json")

_MISSING = [
    re.compile(r"^AttributeError: module '([\w.]+)' has no attribute '(\w+)'", re.M),
    re.compile(r"^AttributeError: '(\w+)' object has no attribute '(\w+)'", re.M),
    re.compile(r"^AttributeError: type object '(\w+)' has no attribute '(\w+)'", re.M),
    re.compile(r"^ImportError: cannot import name '(\w+)' from '([\w.]+)'", re.M),
    re.compile(r"^ModuleNotFoundError: No module named '(torch[\w.]*)'()", re.M),
    re.compile(r"^TypeError: ([\w.]+\(?\)?) got an unexpected keyword argument '(\w+)'", re.M),
]


def program_path(corpus, entry):
    return os.path.join(corpus, entry["repo"].replace("/", "__"), entry["path"])


def run_one(lib, path, entry, timeout):
    """Runs the program under lib in a scratch directory; returns
    (status, detail, seconds) with status "ok", "error" or "timeout"."""
    env = dict(os.environ, MPLBACKEND="Agg", OMP_NUM_THREADS="1", **entry.get("env", {}))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH")) if p)
    cmd = [sys.executable, RUN_AS, lib, path, *entry.get("argv", [])]
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        try:
            proc = subprocess.run(cmd, cwd=scratch, env=env, capture_output=True, text=True,
                                  timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return "timeout", f"over {timeout} s", time.perf_counter() - start
    seconds = time.perf_counter() - start
    if proc.returncode == 0:
        return "ok", "", seconds
    return "error", proc.stderr, seconds


def last_error_line(stderr):
    lines = [s for s in stderr.strip().splitlines() if s and not s.startswith(" ")]
    return lines[-1] if lines else "(no message)"


def classify(stderr):
    """("missing", name) when the error is a name minitorch lacks, else ("failed", line)."""
    tail = stderr[stderr.rfind("Traceback (most recent call last)"):]
    for pattern in _MISSING:
        m = pattern.search(tail)
        if m:
            owner, name = m.groups()
            if pattern.pattern.startswith("^ImportError"):
                owner, name = name, owner
            owner = owner.replace("minitorch", "torch")
            return "missing", f"{owner}.{name}" if name else owner
    return "failed", last_error_line(tail).replace("minitorch", "torch")


def examine(corpus, entry, timeout):
    path = program_path(corpus, entry)
    record = {"repo": entry["repo"], "path": entry["path"]}
    if not os.path.exists(path):
        record.update(status="absent", detail=f"no file {path}")
        return record
    status, stderr, seconds = run_one("torch", path, entry, timeout)
    record["torch_seconds"] = round(seconds, 2)
    if status != "ok":
        detail = stderr if status == "timeout" else last_error_line(stderr)
        record.update(status="excluded", detail=f"under torch: {detail}")
        return record
    status, stderr, seconds = run_one("minitorch", path, entry, timeout)
    record["minitorch_seconds"] = round(seconds, 2)
    if status == "ok":
        record.update(status="ok", detail="")
    elif status == "timeout":
        record.update(status="timeout", detail=stderr)
    else:
        kind, detail = classify(stderr)
        record.update(status=kind, detail=detail)
    return record


def summarize(records):
    counts = collections.Counter(r["status"] for r in records)
    usable = sum(counts[s] for s in ("ok", "missing", "failed", "timeout"))
    lines = [f"programs: {len(records)}; excluded (fail under torch or absent): "
             f"{counts['excluded'] + counts['absent']}; run under torch: {usable}",
             f"run unchanged on minitorch: {counts['ok']} / {usable}; missing name: "
             f"{counts['missing']}; other failure: {counts['failed']}; "
             f"timeout: {counts['timeout']}"]
    reasons = collections.Counter(f"{r['status']}: {r['detail']}" for r in records
                                  if r["status"] in ("missing", "failed", "timeout"))
    if reasons:
        lines.append("failure reasons, most frequent first:")
        lines += [f"  {n:3d}  {reason}" for reason, n in reasons.most_common()]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", help="folder holding the fetched programs")
    parser.add_argument("--manifest", default=MANIFEST)
    parser.add_argument("--timeout", type=float, default=480.0,
                        help="seconds per run (a few tutorials train 10000 steps: "
                             "minutes under torch on a busy 2-core machine)")
    parser.add_argument("--jobs", type=int, default=1, help="programs examined at once")
    parser.add_argument("--only", default="", help="examine entries whose path contains this")
    parser.add_argument("--json", help="write the per-program records here")
    args = parser.parse_args(argv)
    with open(args.manifest) as f:
        entries = [e for e in json.load(f)["programs"] if args.only in e["path"]]
    records = []
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for r in pool.map(lambda e: examine(args.corpus, e, args.timeout), entries):
            print(f"{r['status']:9} {r['repo']}/{r['path']}  {r['detail']}".rstrip(), flush=True)
            records.append(r)
    print(summarize(records))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(records, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
