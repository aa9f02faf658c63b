"""Runs an ordinary PyTorch script with a chosen library standing in for torch.

    python run_as.py minitorch script.py [args...]
    python run_as.py torch script.py [args...]

With `minitorch`, every `import torch` / `import torch.nn.functional as F` /
`from torch.utils.data import DataLoader` in the script (and in anything it
imports) resolves to the matching minitorch module, so the script's text stays
byte-for-byte what a torch user wrote. The script runs as `__main__` with
sys.argv and sys.path set as `python script.py args` would set them.
"""
import importlib
import importlib.abc
import importlib.machinery
import os
import runpy
import sys


class _AliasLoader(importlib.abc.Loader):
    """Hands back the already-imported stand-in module instead of executing code."""

    def __init__(self, module):
        self.module = module
        self.own_spec = module.__spec__

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        # importlib stamped the alias spec on the module; the stand-in keeps its own
        # so its relative imports and pickling still see the real package name.
        module.__spec__ = self.own_spec


class TorchAlias(importlib.abc.MetaPathFinder):
    """Resolves `torch` and `torch.<sub>` to `<lib>` and `<lib>.<sub>`.

    A submodule the stand-in lacks falls through to the usual "No module named"
    error, naming the torch module the script asked for.
    """

    def __init__(self, lib):
        self.lib = lib

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch" and not fullname.startswith("torch."):
            return None
        real = self.lib + fullname[len("torch"):]
        try:
            module = importlib.import_module(real)
        except ModuleNotFoundError as exc:
            if exc.name is not None and (real == exc.name or real.startswith(exc.name + ".")):
                return None
            raise
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(module),
                                              is_package=hasattr(module, "__path__"))


def install(lib):
    """Makes `import torch...` import lib (a no-op for lib == "torch")."""
    if lib == "torch":
        return
    sys.meta_path.insert(0, TorchAlias(lib))


def run_script(lib, script, args):
    install(lib)
    sys.argv = [script, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: run_as.py {torch|minitorch} script.py [args...]")
    run_script(sys.argv[1], sys.argv[2], sys.argv[3:])
