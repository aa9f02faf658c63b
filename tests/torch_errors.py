"""Comparing minitorch's errors with torch's on the same call."""
import pytest


def error_pair(ours, theirs):
    """Runs theirs (must raise), then ours (must raise the same type); returns
    both messages."""
    with pytest.raises(Exception) as want:
        theirs()
    with pytest.raises(type(want.value)) as got:
        ours()
    return str(got.value), str(want.value)


def same_error(ours, theirs, renamed=False):
    """ours raises what theirs raises, with the same message (torch's names
    read as minitorch's when renamed)."""
    got, want = error_pair(ours, theirs)
    assert got == (want.replace("torch.", "minitorch.") if renamed else want)
