"""The environment for a child Python that must import the minitorch this
test process imported: the checkout's in-place build, or the installed
package when the tests run from an unpacked sdist."""
import os

import minitorch


def child_env():
    root = os.path.dirname(os.path.dirname(os.path.abspath(minitorch.__file__)))
    return dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (root, os.environ.get("PYTHONPATH")) if p))
