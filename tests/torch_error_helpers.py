"""The check the torch-comparison tests share: a call raises the same
exception type and message in minitorch as in torch."""
import pytest


def assert_same_error(call, ours, theirs):
    """call(ours...) and call(theirs...) raise alike; ours and theirs are tuples of
    namespaces (minitorch and torch ones); minitorch's dtype names read as torch's."""
    with pytest.raises(Exception) as m:
        call(*ours)
    with pytest.raises(Exception) as t:
        call(*theirs)
    assert type(m.value) is type(t.value)
    assert str(m.value).replace("minitorch.", "torch.") == str(t.value)
