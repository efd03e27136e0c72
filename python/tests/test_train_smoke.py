"""The research loop in miniature, as CI runs it: a few thousand steps of examples/train_ppo.py
(masked PPO against random, sandbag, computer and self-play snapshots), the ONNX export, then the
Node side loading the exported model and playing whole games with it, in the arena (inside the
training script) and as an `onnx:path=` opponent seat of a server session."""

from __future__ import annotations

import json
import shutil

import numpy as np
from conftest import masked_choice
from torch_support import fresh_run, train_ppo_module

import cardgym


def test_short_training_run_exports_a_model_the_server_seats_as_an_opponent(client):
    train_ppo = train_ppo_module()
    run = "pytest-smoke"
    repo, run_dir = fresh_run(run)
    out = run_dir / "final.onnx"
    try:
        summary = train_ppo.main([
            "--total-steps", "3000", "--seed", "3", "--num-envs", "2", "--num-steps", "64",
            "--opponents", "random;sandbag;0.5*computer;self", "--snapshot-every", "2",
            "--run-name", run, "--out", str(out), "--url", client.url,
            "--arena-games", "4", "--arena-agents", "random,sandbag",
        ])
        assert summary["steps"] >= 3000
        # Self-play really happened: snapshots were exported and seated by the server.
        assert len(list(run_dir.glob("snap-*.onnx"))) >= 2
        log = [json.loads(line) for line in out.with_suffix(".log.jsonl").read_text().splitlines()]
        assert log and "self" in log[-1]["episodes"] and "random" in log[-1]["win_rate"]
        # The arena (npm run arena, i.e. the Node onnx agent) played every game to its end.
        arena = summary["arena"]
        assert set(arena) == {"random", "sandbag"}
        for row in arena.values():
            assert row["games"] == 4 and row["wins"] + row["draws"] + row["losses"] == 4

        # The exported model as a server-side opponent: whole games, every decision legal (an
        # illegal decision by a server-side agent fails the step with an error).
        venv = cardgym.make_vec("dcg", 4, client=client, seed=21, opponents=f"onnx:path=runs/{run}/final.onnx")
        try:
            obs, _ = venv.reset(seed=21)
            rng = np.random.default_rng(0)
            finished = 0
            for _ in range(5000):
                obs, _, term, trunc, _ = venv.step(np.array([masked_choice(rng, m) for m in obs["action_mask"]]))
                finished += int((term | trunc).sum())
                if finished >= 4:
                    break
            assert finished >= 4
        finally:
            venv.close()
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
