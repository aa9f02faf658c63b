"""A conformance check run against its expected-failures list and written
as a report line for tools/gen_conformance.py: passed or failed, with the
failure's first words as detail; skipped samples write nothing."""
from .convert import Unsupported, report
from .expected import run_check


def run_reported(kind, namespace, name, check, fn, list_name):
    """run_check(list_name, check, fn), reporting the check's outcome under
    (kind, namespace, name)."""
    def checked():
        try:
            fn()
        except Unsupported:
            raise
        except Exception as e:
            report(kind, namespace, name, True, False, f"{check}: {type(e).__name__}: {e}"[:400])
            raise
        report(kind, namespace, name, True, True, check)

    run_check(list_name, check, checked)
