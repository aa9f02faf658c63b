"""Sphinx configuration of the minitorch documentation site. The API pages
are generated from the docstrings of the built package (build_ext --inplace
first); tools/ci_docs.sh builds the site with warnings as errors."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, "_ext"))

project = "minitorch"
author = "the minitorch authors"
copyright = "the minitorch authors"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "myst_parser",
    "minitorch_api",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
# the coverage lists are included into differences.md, not pages of their own
exclude_patterns = ["_build", "_generated/*.md"]
myst_heading_anchors = 3

autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "signature"
autodoc_inherit_docstrings = True
napoleon_google_docstring = True
napoleon_numpy_docstring = False

html_theme = "alabaster"
html_title = "minitorch"
