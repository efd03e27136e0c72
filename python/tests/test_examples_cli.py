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


@pytest.mark.parametrize(
    "extra,says",
    [
        (["--opponents", "bogus"], 'unknown agent "bogus"'),
        (["--opponents", "random", "--config", '{"hp": -3}'], "hp must be between 1 and 100"),
        (["--opponents", "x*random"], "the weight 'x' of 'random' is not a number"),
        (["--init-onnx", "/nonexistent/start.onnx"], "--init-onnx /nonexistent/start.onnx: no such file"),
    ],
)
def test_train_ppo_refuses_a_bad_opponent_or_config_in_one_line(client, extra: List[str], says: str) -> None:
    """A typo in --opponents or --config, caught by the argument parser or refused by the server
    when the sessions open, stops the run before any training with the reason, not a traceback."""
    from torch_support import fresh_run, require_torch

    require_torch()
    _, run_dir = fresh_run("pytest-ppo-cli")
    try:
        done = run("train_ppo.py", ["--total-steps", "64", "--num-envs", "1", "--num-steps", "8", "--arena-games", "0",
                                    "--run-name", "pytest-ppo-cli", "--url", client.url, *extra])
    finally:
        import shutil

        shutil.rmtree(run_dir, ignore_errors=True)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert "train_ppo.py: error:" in done.stderr and says in done.stderr, done.stderr


def test_table_bot_names_a_table_or_server_it_cannot_use_in_one_line(client) -> None:
    """No such table (or a server that is not there): the reason and exit 2, not a traceback."""
    for args, says in [
        (["--url", client.url, "--table", "t-nope", "--seat", "0", "--token", "x"], 'unknown_table (404): no table "t-nope"'),
        (["--url", "http://127.0.0.1:1"], "unreachable"),
    ]:
        done = run("table_bot.py", args)
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr, done.stderr
        assert done.stderr.startswith("table_bot.py: error: ") and says in done.stderr, done.stderr


@pytest.mark.parametrize(
    "args,says",
    [(["--game", "sevns"], "--game 'sevns' is not served; served games: dcg"), (["--envs", "1,x"], "--envs takes comma-separated env counts")],
)
def test_python_bench_refuses_a_typo_before_measuring(client, args: List[str], says: str) -> None:
    bench = Path(__file__).resolve().parents[1] / "bench.py"
    done = subprocess.run(
        [sys.executable, str(bench), "--url", client.url, "--seconds", "0.1", *args],
        capture_output=True, text=True, timeout=hang_guard(300), env={**os.environ},
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "env-steps/s" not in done.stdout, done.stderr + done.stdout
    assert done.stderr.startswith("usage: ") and says in done.stderr, done.stderr


def test_train_exit_refuses_a_missing_init_onnx_in_one_line() -> None:
    from torch_support import fresh_run, require_torch

    require_torch()
    _, run_dir = fresh_run("pytest-exit-cli")
    done = run("train_exit.py", ["--run-name", "pytest-exit-cli", "--init-onnx", "/nonexistent/start.onnx", "--rounds", "1"])
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert "train_exit.py: error: --init-onnx /nonexistent/start.onnx: no such file" in done.stderr, done.stderr
    assert not run_dir.exists()
