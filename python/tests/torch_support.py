"""The ONNX export, parity and training tests need PyTorch and onnx (Debian's python3-torch and
python3-onnx, installed by scripts/torch-env.sh, which scripts/python-test.sh runs when they are
missing). Locally those tests are skipped without them; under CI (CI=true) they fail instead, so a
CI machine without torch can never pass by silently skipping the export contract."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def require_torch():
    """Imports and returns torch (and checks onnx), or skips / fails (in CI) with the reason."""
    try:
        torch = importlib.import_module("torch")
        importlib.import_module("onnx")
    except ImportError as e:
        message = (
            f"PyTorch/onnx unavailable ({e}); install them with `sudo bash scripts/torch-env.sh` "
            "(Debian's python3-torch python3-onnx, seen by python/.venv through --system-site-packages)"
        )
        if in_ci():
            pytest.fail(f"CI=true and {message}", pytrace=False)
        pytest.skip(message)
    return torch


def train_ppo_module():
    """python/examples/train_ppo.py as a module (its Actor is the architecture the fixture uses)."""
    require_torch()
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    return importlib.import_module("train_ppo")


def train_exit_module():
    """python/examples/train_exit.py as a module (expert iteration; it imports train_ppo's actor)."""
    train_ppo_module()
    return importlib.import_module("train_exit")


def fresh_run(name: str):
    """The checkout and its empty ``models/runs/<name>`` (anything a failed run left is removed)."""
    import shutil

    from cardgym.server import find_repo

    repo = find_repo()
    run_dir = repo / "models" / "runs" / name
    shutil.rmtree(run_dir, ignore_errors=True)
    return repo, run_dir
