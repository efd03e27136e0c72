"""The trainers people use, for real (torch, Stable-Baselines3 + sb3-contrib, Ray RLlib): their
env checkers on every game, and the examples run as tests. `npm run test:integrations` sets up
python/.venv-integrations (several GB) and runs this file."""

from __future__ import annotations

import json
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


def test_onnx_export_runs_with_the_package_index_torch_and_no_onnxscript(tmp_path, client):
    # torch >= 2.9 defaults to the dynamo exporter, which needs onnxscript; cardgym.onnx.export
    # must work with what `cardgym[export]` installs (onnx, onnxruntime) and torch alone.
    import importlib.util

    import torch

    assert importlib.util.find_spec("onnxscript") is None, "this venv must not have onnxscript, or the test proves nothing"
    spec = client.spec("dcg")
    torch.manual_seed(0)
    policy = torch.nn.Sequential(
        torch.nn.Linear(spec["observation"]["size"], 32), torch.nn.Tanh(), torch.nn.Linear(32, spec["action"]["size"])
    )
    report = cardgym.onnx.export(policy, "dcg", tmp_path / "mlp.onnx", client=client, check="both")
    assert report["checked_with"] == ["onnxruntime (Python)", "onnxruntime-node"]
    assert report["max_abs_diff"] <= 1e-4


def test_sb3_maskable_ppo_export_matches_the_policy_and_plays_an_arena_match(tmp_path, client):
    import torch
    from sb3_contrib import MaskablePPO

    venv = cardgym.sb3.vec_env("dcg", 2, client=client, seed=0)
    try:
        model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
        model.learn(128)  # a few updates: weights that are no longer the initial ones
        # Real observations and masks, from the envs the model trained on.
        obs = venv.reset()
        rows, masks = [], []
        for _ in range(24):
            mask = venv.action_masks()
            rows.append(obs.copy())
            masks.append(mask.copy())
            actions, _ = model.predict(obs, action_masks=mask, deterministic=False)
            obs, _, _, _ = venv.step(actions)
    finally:
        venv.close()
    obs_rows = np.concatenate(rows).astype(np.float32)
    mask_rows = np.concatenate(masks)
    path = tmp_path / "maskable.onnx"
    report = cardgym.sb3.export_onnx(model, "dcg", path, client=client, example_obs=obs_rows, check="both")
    assert report["max_abs_diff"] <= 1e-4

    import onnxruntime

    logits = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(["logits"], {"obs": obs_rows})[0]
    with torch.no_grad():
        dist = model.policy.get_distribution(torch.as_tensor(obs_rows))
        sb3_log_probs = dist.distribution.logits.numpy()  # the unmasked categorical: log-softmax of the raw logits
    exported_log_probs = torch.log_softmax(torch.as_tensor(logits), dim=1).numpy()
    np.testing.assert_allclose(exported_log_probs, sb3_log_probs, atol=1e-4)
    greedy, _ = model.predict(obs_rows, action_masks=mask_rows, deterministic=True)
    np.testing.assert_array_equal(cardgym.onnx.masked_argmax(logits, mask_rows), greedy)

    out = tmp_path / "arena"
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        ["npx", "tsx", "scripts/arena.ts", "--game", "dcg", "--agents", f"onnx:path={path},random", "--games", "4", "--seed", "1", "--out", str(out), "-q"],
        cwd=root, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    arena = json.loads((out / "arena.json").read_text())
    assert arena["totalGames"] == 4
    onnx_seat = next(a for a in arena["agents"] if a["agent"].startswith("onnx:"))
    assert onnx_seat["decisions"] > 0


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


@pytest.mark.parametrize(
    "game, policies, args",
    [
        # dcg learns fast: seat 0's greedy mean return vs random rose from -0.49 to +0.10 after three
        # iterations of 2000 steps in a trial run (200 games each), so a rise of 0.2 is the signal.
        ("dcg", "shared", ["--iterations", "3", "--batch", "2000", "--eval-games", "100", "--min-gain", "0.2"]),
        ("dcg", "two", ["--iterations", "3", "--batch", "2000", "--eval-games", "100", "--min-gain", "0.2"]),
        # sevens (5 seats) shows no learning signal at this budget: sampling and episodes only.
        ("sevens", "shared", ["--iterations", "2", "--batch", "1000", "--eval-games", "30"]),
        ("sevens", "two", ["--iterations", "2", "--batch", "1000", "--eval-games", "30"]),
    ],
)
def test_rllib_multi_agent_ppo(game, policies, args):
    out = run_example("rllib_multiagent_ppo.py", "--game", game, "--policies", policies, *args, timeout=1500)
    line = next(x for x in out.splitlines() if x.startswith(f"{game} ({policies}):"))
    steps, episodes = int(line.split()[2]), int(line.split()[5])
    assert steps > 0 and episodes > 0, line


# Runs the multi-agent example with an env that raises in its env runners (never in the driver's
# own evaluation env, whose config is a plain dict): the run must stop with the error in its
# output, as RLlib's MultiAgentEnvError did not when runners were restarted quietly and their logs
# stayed in the workers.
PLANTED_FAILURE = r"""
import runpy, sys
import cardgym.rllib

real = cardgym.rllib.multi_agent_env_creator

def failing(env_config):
    env = real(env_config)
    if getattr(env_config, "worker_index", 0) < 1:
        return env
    step, steps = env.step, [0]

    def step_then_fail(action_dict):
        steps[0] += 1
        if steps[0] == 5:
            raise RuntimeError("planted env failure at step 5")
        return step(action_dict)

    env.step = step_then_fail
    return env

cardgym.rllib.multi_agent_env_creator = failing
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def test_rllib_multi_agent_ppo_stops_with_an_env_runners_error():
    example = str(EXAMPLES / "rllib_multiagent_ppo.py")
    args = ["--game", "sevens", "--iterations", "2", "--batch", "1000", "--eval-games", "2"]
    proc = subprocess.run([sys.executable, "-c", PLANTED_FAILURE, example, *args], capture_output=True, text=True, timeout=900)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, f"the run went on past its env runners' error:\n{out[-3000:]}"
    assert "planted env failure at step 5" in out, f"the env runner's error did not reach the driver's output:\n{out[-3000:]}"


def test_cleanrl_style_self_play_ppo():
    out = run_example("cleanrl_selfplay_ppo.py", "--game", "dcg", "--minutes", "2", "--min-win", "0.6", timeout=900)
    assert "greedy win rate vs random" in out


def test_numpy_2_is_what_this_venv_runs():
    # The package supports numpy 2; this environment (PyPI torch) is where that is exercised.
    assert int(np.__version__.split(".")[0]) >= 2
