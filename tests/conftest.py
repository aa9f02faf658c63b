"""Test settings shared by the suite.

Hypothesis runs derandomized by default so CI is reproducible; set
HYPOTHESIS_PROFILE=explore to search with fresh random examples.
"""
import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None)
settings.register_profile("explore", deadline=None, max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_terminal_summary(terminalreporter, config):
    """The fuzz sweep's coverage and call count (tests/test_fuzz_sweep.py)."""
    line = getattr(config, "_fuzz_sweep_line", None)
    if line:
        terminalreporter.write_line(line)
