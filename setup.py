"""The build, as pyproject.toml describes it, plus one choice: ``ATOUT_COMPILE=1``
compiles the modules listed in server/base/compiled.py with mypyc (C extensions
beside the same sources). Without it the package is pure Python, as always,
and the build needs neither mypy nor a C compiler.

Compiling needs mypy (mypyc is part of it) in the build's environment.
pyproject.toml's ``build-system.requires`` cannot depend on a variable, and
listing mypy there would make every install download it for nothing; so this
file names it only when compiling, as ``setup_requires``, which setuptools'
PEP 517 backend reports to pip as a requirement of this build
(``get_requires_for_build_wheel``/``_editable``), and pip installs it in the
isolated build environment before building. The package's own dependencies
come too: mypyc type-checks the modules it compiles against them (msgspec,
websockets, structlog...), and their types decide what the compiled code does.
"""

from __future__ import annotations

import os
import runpy
import sys
import tomllib
from pathlib import Path

from setuptools import Extension, setup

ROOT = Path(__file__).resolve().parent

# The mypy the compiled build is made and tested with (.ci/run, the image):
# mypyc's output and its run-time checks change between versions.
MYPY = "mypy>=2.4,<3"


def compiled_build() -> tuple[list[Extension], list[str]]:
    """The extensions to build and the build's extra requirements."""
    if os.environ.get("ATOUT_COMPILE", "") != "1":
        return [], []
    try:
        from mypyc.build import mypycify
    except ImportError:
        # pip is asking what this build needs (mypy is not installed yet):
        # name it; setuptools passes it on, and runs this file again to build.
        with (ROOT / "pyproject.toml").open("rb") as f:
            dependencies: list[str] = tomllib.load(f)["project"]["dependencies"]
        return [], [MYPY, *dependencies]
    if {"egg_info", "dist_info"} & set(sys.argv[1:]):
        # Only the metadata is asked for (pip asks it first): no extension
        # appears in it, and compiling takes a while.
        return [], []
    # Read as a file, not imported: the package's dependencies may be absent
    # from the build's environment; that module needs none.
    listing = runpy.run_path(str(ROOT / "server" / "base" / "compiled.py"))
    paths = [str(path.relative_to(ROOT)) for path in listing["sources"](ROOT)]
    # The code of every module is in one shared library, which each module's
    # own small extension imports: named into the server package (mypyc's
    # default is a top-level name by hash), so that it is found wherever the
    # package is, in an editable install too (which puts the packages on the
    # path, not the project's folder).
    extensions = mypycify(paths, opt_level="3", debug_level="0", group_name=listing["SHARED"])
    return extensions, []


extensions, requires = compiled_build()
setup(ext_modules=extensions, setup_requires=requires)
