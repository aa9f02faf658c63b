"""The modules of minitorch.utils.benchmark, laid out as torch's."""
