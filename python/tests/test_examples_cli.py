"""The examples the READMEs run first answer a typo as a command line does: one line naming the
problem and the usage, exit 2, no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest
from hang_guard import hang_guard

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run(script: str, args: List[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args], capture_output=True, text=True, timeout=hang_guard(300), env={**os.environ}
    )


@pytest.mark.parametrize(
    "script,args,says",
    [
        ("random_rollout.py", ["sevns"], "unknown_game"),
        ("random_rollout.py", ["sevens", "five"], "invalid int value: 'five'"),
        ("vector_rollout.py", ["sevens", "abc"], "invalid int value: 'abc'"),
        ("vector_rollout.py", ["sevns", "4", "1"], "unknown_game"),
        ("vector_rollout.py", ["sevens", "0", "1"], "numEnvs"),
    ],
)
def test_a_typo_is_one_line_and_the_usage(script: str, args: List[str], says: str) -> None:
    done = run(script, args)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith("usage: "), done.stderr
    assert says in done.stderr, done.stderr
