"""The tests' own layout: shared helpers live in ``tests/support/``, and no
test module reaches into another (its private helpers, or any ``test_*.py``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
KEPT: set[str] = set()  # no module outside support/ may define a support helper
SOURCES = sorted([*TESTS.rglob("*.py"), *(ROOT / "bench").rglob("*.py")])


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of every ``from tests... import ...`` in ``path``."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tests"):
            out.append((node.module or "", [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names if a.name.startswith("tests.")]
    return out


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_imports_a_test_module_or_a_private_helper(path: Path) -> None:
    for module, names in _imports(path):
        last = module.rsplit(".", 1)[-1]
        assert not last.startswith("test_"), f"{module} is a test module: move what is shared"
        private = [n for n in names if n.startswith("_")]
        assert not private, f"private helpers {private} of {module}"


def test_each_support_helper_is_defined_once() -> None:
    seen: dict[str, str] = {}
    for path in sorted((TESTS / "support").glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            if not node.name.startswith("_"):
                assert node.name not in seen, f"{node.name} in {seen[node.name]} and {path.name}"
                seen[node.name] = path.name
    for path in SOURCES:
        if path.parent.name == "support" or path.stem in KEPT:
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and node.name in {"free_port", "_free_port"}:
                pytest.fail(f"{path.name} defines its own {node.name}: use tests.support.ports")
