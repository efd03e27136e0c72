"""The Python the docs show uses the package as it is: every ```python block of README.md,
python/README.md and docs/*.md parses, every ``cardgym.<name>...`` it names exists, and every call
of a cardgym function or class in it passes arguments that function accepts (the names of its
keywords, the number of its positional arguments, none missing; keywords a function takes as
``**options`` are checked when the env is made, not here). Cheap: nothing is run; the README's
block and the in-process example also run for real (test/docs/readme-commands.test.ts,
test/package/wheel.test.ts), the others need servers, clusters or trainers."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", ROOT / "python" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def python_blocks() -> Iterator[Tuple[str, str]]:
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M):
            line = text.count("\n", 0, m.start()) + 2
            yield f"{path.relative_to(ROOT)}:{line}", m.group(1)


BLOCKS = list(python_blocks())


def dotted(node: ast.AST) -> Optional[List[str]]:
    """``a.b.c`` as ["a", "b", "c"]; None for anything else (a call, a subscript...)."""
    parts: List[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(parts)]


def resolve(names: Dict[str, str], chain: List[str]) -> Tuple[Any, str]:
    """The object ``chain`` names when its first name is bound to a cardgym module or object;
    a submodule is imported as the snippet's own ``import cardgym.x`` would."""
    obj: Any = importlib.import_module(names[chain[0]].split(":")[0])
    if ":" in names[chain[0]]:
        obj = getattr(obj, names[chain[0]].split(":")[1])
    path = names[chain[0]]
    for attr in chain[1:]:
        if not hasattr(obj, attr) and inspect.ismodule(obj):
            try:
                importlib.import_module(f"{obj.__name__}.{attr}")
            except ModuleNotFoundError:
                pass
        if not hasattr(obj, attr):
            raise AttributeError(f"{path} has no {attr!r}")
        obj = getattr(obj, attr)
        path += f".{attr}"
    return obj, path


def cardgym_names(tree: ast.AST) -> Dict[str, str]:
    """Names a snippet binds to cardgym: ``import cardgym[.x] [as y]``, ``from cardgym[.x] import z``."""
    names: Dict[str, str] = {"cardgym": "cardgym"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "cardgym":
                    names[alias.asname or "cardgym"] = alias.name if alias.asname else "cardgym"
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "cardgym":
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}:{alias.name}"
    return names


def problems(source: str) -> List[str]:
    tree = ast.parse(source)
    names = cardgym_names(tree)
    found: List[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and not isinstance(getattr(node, "ctx", None), ast.Store):
            chain = dotted(node)
            if chain and chain[0] in names:
                try:
                    resolve(names, chain)
                except (AttributeError, ImportError) as e:
                    found.append(f"line {node.lineno}: {'.'.join(chain)}: {e}")
        if isinstance(node, ast.Call):
            chain = dotted(node.func)
            if not chain or chain[0] not in names:
                continue
            if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
                continue  # *args / **kwargs: nothing to check statically
            try:
                target, path = resolve(names, chain)
                signature = inspect.signature(target)
            except (AttributeError, ImportError, TypeError, ValueError):
                continue  # reported above, or not a Python callable with a signature
            try:
                signature.bind(*node.args, **{k.arg: k.value for k in node.keywords if k.arg is not None})
            except TypeError as e:
                found.append(f"line {node.lineno}: {path}{signature}: {e}")
    return sorted(found, key=lambda f: int(f.split(":")[0].split()[1]))


def test_the_docs_have_python_blocks_that_use_the_package() -> None:
    assert len(BLOCKS) >= 10
    assert sum("cardgym" in source for _, source in BLOCKS) >= 8


@pytest.mark.parametrize("where,source", BLOCKS, ids=[w for w, _ in BLOCKS])
def test_a_python_block_uses_names_and_arguments_the_package_has(where: str, source: str) -> None:
    assert problems(source) == [], where


def test_the_check_finds_a_renamed_function_and_a_wrong_keyword() -> None:
    assert problems("import cardgym\ncardgym.make_vec('sevens', num_envs=4, seed=0)\n") == []
    found = problems(
        "import cardgym.pettingzoo, cardgym.evaluate\ncardgym.make_vecs('sevens')\n"
        "cardgym.evaluate.evaluate(None, 'dcg', opponents='random')\ncardgym.pettingzoo.env()\n"
    )
    assert len(found) == 3, found
    assert "has no 'make_vecs'" in found[0] and "opponents" in found[1] and "game" in found[2], found
