"""examples/train_sevens_ppo.py: its reward is the arena's sevens measure (the learner against each
neighbour, the seat after and the seat before it, wrapping round the table), and a short run
trains, logs that measure and exports a model the server seats."""

from __future__ import annotations

import importlib
import json
import shutil
import sys

import numpy as np
from torch_support import EXAMPLES, fresh_run, require_torch

import cardgym


def module():
    require_torch()
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    return importlib.import_module("train_sevens_ppo")


def test_pair_score_counts_both_neighbours_round_the_table():
    m = module()
    returns = np.array([-0.5, 1.0, -1.0, 0.5, 0.0])  # ranks 4, 1, 5, 2, 3
    # Seat 0: below seat 1 and below seat 4 (the seat before it, wrapping): -1.
    assert m.pair_score(returns, 0) == -1.0
    # Seat 3: above seat 4 and above seat 2: +1.
    assert m.pair_score(returns, 3) == 1.0
    # Seat 4: below seat 3 (before), above seat 0 (after, wrapping): 0, an arena win half the time.
    assert m.pair_score(returns, 4) == 0.0
    assert [m.rank_of(returns, s) for s in range(5)] == [4, 1, 5, 2, 3]


def test_short_run_logs_the_pair_measure_and_exports_a_model_the_server_seats(client):
    m = module()
    run = "pytest-sevens-ppo"
    _, run_dir = fresh_run(run)
    try:
        summary = m.main(["--total-steps", "600", "--minutes", "0", "--num-envs", "4", "--num-steps", "32", "--hidden", "16",
                          "--run-name", run, "--url", client.url, "--arena-games", "0"])
        assert summary["steps"] >= 600 and summary["episodes"] > 0
        log = [json.loads(line) for line in (run_dir / "final.log.jsonl").read_text().splitlines()]
        assert log and 0.0 <= log[-1]["pair_win"] <= 1.0 and 1.0 <= log[-1]["mean_rank"] <= 5.0
        venv = cardgym.make_vec("sevens", 2, client=client, seed=5, opponents=f"onnx:path=runs/{run}/final.onnx")
        try:
            obs, _ = venv.reset(seed=5)
            finished = 0
            for _ in range(500):
                obs, _, term, trunc, _ = venv.step(np.array([int(np.flatnonzero(row)[0]) for row in obs["action_mask"]]))
                finished += int((term | trunc).sum())
                if finished >= 2:
                    break
            assert finished >= 2  # the model played whole games in the other seats, every decision legal
        finally:
            venv.close()
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
