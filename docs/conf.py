"""Sphinx configuration for the simdfilter documentation.

Build: ``docs/build.sh OUT`` (HTML with -W, then the doctests), or
``python -m sphinx -W -b html docs OUT``. The package must be importable
(``pip install -e '.[docs]'``): the API reference is read from its docstrings
and every ``>>>`` example of the pages is run by ``-b doctest``. The notebook
page shows the outputs stored in benchmarks/explore.ipynb (nothing executes).
"""

import doctest

import simdfilter

project = "simdfilter"
author = "the simdfilter authors"
copyright = "the simdfilter authors, MIT licence"
release = simdfilter.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",
    "numpydoc",
    # Notebooks (.ipynb) and Markdown pages (.md); myst_nb brings myst_parser.
    "myst_nb",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown", ".ipynb": "myst-nb"}

# Notebooks are shown with the outputs stored in them, never run here: the one
# notebook (guide/explore.ipynb, a link to benchmarks/explore.ipynb) times
# queries on two million rows, a minute of work whose timings belong to the
# CPU it printed. benchmarks/store_notebook.py runs it and stores them.
nb_execution_mode = "off"
root_doc = "index"
exclude_patterns = ["_build", "build.sh"]
templates_path = []

# No network in the build: no intersphinx, no remote images.
intersphinx_mapping = {}

# autodoc: members in the order the source gives them; type hints in the
# signature only (numpydoc documents the parameters).
autodoc_member_order = "bysource"
autodoc_typehints = "none"
autodoc_default_options = {"undoc-members": False}

# numpydoc: no autosummary tables of methods (the accessors' methods are
# documented in full below each class), no validation beyond what -W enforces.
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# ``>>>`` blocks of the pages (and docstrings pulled in by autodoc) are doctests;
# output compared with NORMALIZE_WHITESPACE, so wrapped reprs still match.
doctest_default_flags = (
    doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE | doctest.DONT_ACCEPT_TRUE_FOR_1
)
doctest_global_setup = """
import numpy as np
import simdfilter
"""

html_theme = "pydata_sphinx_theme"
html_title = f"simdfilter {release}"
html_static_path = []
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_sidebars = {"**": ["sidebar-nav-bs"]}
html_show_sourcelink = False
