"""The size bound of docs/quality-bar.md for the Python package: no function in python/cardgym
over 120 lines (decorators, docstring and body included), as ESLint's max-lines-per-function holds
the TypeScript outside tests and scripts. A function that outgrows it is split into named steps."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "cardgym"
MAX_LINES = 120


def long_functions(source: str, name: str) -> list:
    """Every function or method (nested ones and lambdas included) over MAX_LINES lines, as
    "file:line name (N lines)"."""
    out = []
    for node in ast.walk(ast.parse(source, filename=name)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
            lines = (node.end_lineno or node.lineno) - first + 1
            if lines > MAX_LINES:
                out.append(f"{name}:{node.lineno} {getattr(node, 'name', 'lambda')} ({lines} lines)")
    return out


def test_no_function_in_the_package_is_over_120_lines():
    files = sorted(PACKAGE.glob("**/*.py"))
    assert len(files) > 10
    found = [hit for f in files for hit in long_functions(f.read_text(encoding="utf-8"), str(f.relative_to(PACKAGE.parent)))]
    assert found == []


@pytest.mark.parametrize("lines, hit", [(120, False), (121, True)])
def test_the_check_counts_decorators_docstrings_and_nested_functions(lines, hit):
    body = "\n".join(f"        x += {i}" for i in range(lines - 4))
    source = f'class C:\n    @staticmethod\n    def f(x):\n        """Doc."""\n{body}\n        return x\n'
    assert bool(long_functions(source, "planted.py")) is hit
