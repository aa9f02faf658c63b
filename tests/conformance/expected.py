"""The expected-failures lists (expected_failures/<kind>.txt): data, one
check per line as `<check id> | <reason>`, `#` comments and blank lines
ignored. A listed check must still fail (a pass fails the run: take it off
the list), an unlisted one must pass, and every listed id must name a check
the harness still generates, so a list only ever shrinks."""
import functools
from pathlib import Path

import pytest

from .convert import Unsupported

LISTS = Path(__file__).parent / "expected_failures"


@functools.lru_cache(maxsize=None)
def listed(kind):
    """{check id: reason} of expected_failures/<kind>.txt."""
    out = {}
    path = LISTS / f"{kind}.txt"
    if not path.exists():
        return out
    for n, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        check, sep, reason = line.partition(" | ")
        if not sep or not reason.strip():
            raise ValueError(f"{path}:{n}: expected '<check id> | <reason>'")
        if check in out:
            raise ValueError(f"{path}:{n}: {check} listed twice")
        out[check] = reason.strip()
    return out


def run_check(kind, check, fn):
    """Runs fn() as the check named `check` of `kind`, held to the list."""
    reason = listed(kind).get(check)
    try:
        fn()
    except Unsupported as e:
        pytest.skip(f"no minitorch counterpart for the sample: {e}")
    except Exception:
        if reason is not None:
            pytest.xfail(reason)
        raise
    if reason is not None:
        pytest.fail(f"{check} passes but expected_failures/{kind}.txt lists it ({reason}): "
                    "take it off the list")


def assert_list_current(kind, generated):
    """Every id on the list of `kind` is among the generated check ids."""
    stale = sorted(set(listed(kind)) - set(generated))
    assert not stale, (f"expected_failures/{kind}.txt lists checks the harness no longer "
                       f"generates: {stale}")
