"""The trainers people use, for real (torch, Stable-Baselines3 + sb3-contrib, Ray RLlib): their
env checkers on every game, and the examples run as tests. `npm run test:integrations` sets up
python/.venv-integrations (several GB) and runs this file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from stable_baselines3.common.env_checker import check_env as sb3_check_env
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv

import cardgym
import cardgym.rllib
import cardgym.sb3

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
GAMES = ["dcg", "sevens", "shephy", "blackpoker"]


@pytest.fixture(scope="module")
def client():
    c = cardgym.Client()
    yield c
    c.close()


@pytest.mark.parametrize("game", GAMES)
def test_sb3_check_env_passes_with_default_options(game, client):
    env = cardgym.make(game, client=client, seed=0)
    try:
        sb3_check_env(env, warn=False)
    finally:
        env.close()


@pytest.mark.parametrize("game", GAMES)
def test_rllib_env_checks_pass(game, client):
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    single = cardgym.rllib.env_creator({"game": game, "seed": 1})
    try:
        from gymnasium.utils.env_checker import check_env

        check_env(single, skip_render_check=True)
    finally:
        single.close()
    if client.game(game)["maxSeats"] < 2:
        return
    multi = cardgym.rllib.multi_agent_env_creator({"game": game, "seed": 1})
    try:
        check_multiagent_environments(multi)
    finally:
        multi.close()


def test_the_sb3_vec_env_is_a_real_sb3_vec_env_and_masking_is_found(client):
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    venv = cardgym.sb3.vec_env("dcg", 4, client=client, seed=0)
    try:
        assert cardgym.sb3.HAVE_SB3 and isinstance(venv, VecEnv)
        venv.reset()
        assert is_masking_supported(venv)
        masks = get_action_masks(venv)
        assert masks.shape == (4, venv.action_space.n) and masks.any(axis=1).all()
        dummy = DummyVecEnv([lambda i=i: cardgym.make("dcg", client=client, seed=i) for i in range(4)])
        dummy.reset()
        assert get_action_masks(dummy).shape == masks.shape
        dummy.close()
    finally:
        venv.close()


def run_example(name: str, *args: str, timeout: float) -> str:
    proc = subprocess.run([sys.executable, str(EXAMPLES / name), *args], capture_output=True, text=True, timeout=timeout)
    print(proc.stdout[-4000:], proc.stderr[-4000:])
    assert proc.returncode == 0, f"{name} exited {proc.returncode}:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    return proc.stdout


def test_sb3_maskable_ppo_learns_dcg_against_random():
    out = run_example("sb3_maskable_ppo.py", "--game", "dcg", "--minutes", "8", "--min-win", "0.8", timeout=1500)
    assert "win rate vs random" in out


def test_rllib_ppo_with_two_env_runners():
    out = run_example("rllib_ppo.py", "--game", "dcg", "--iterations", "2", "--env-runners", "2", timeout=900)
    assert "with 2 env runners" in out


def test_cleanrl_style_self_play_ppo():
    out = run_example("cleanrl_selfplay_ppo.py", "--game", "dcg", "--minutes", "2", "--min-win", "0.6", timeout=900)
    assert "greedy win rate vs random" in out


def test_numpy_2_is_what_this_venv_runs():
    # The package supports numpy 2; this environment (PyPI torch) is where that is exercised.
    assert int(np.__version__.split(".")[0]) >= 2
