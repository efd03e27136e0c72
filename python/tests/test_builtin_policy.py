"""The committed dcg policy (models/builtin/dcg-ppo-v1.onnx) as a server-side opponent seat,
named `onnx:builtin/dcg-ppo-v1` (resolved by the agents, not the server's model directory). Needs
no torch: the server runs the model with onnxruntime-node."""

from __future__ import annotations

import numpy as np
from conftest import masked_choice

import cardgym


def test_builtin_policy_is_an_opponent_seat_and_beats_a_random_learner(client):
    venv = cardgym.make_vec("dcg", 8, client=client, seed=5, opponents="onnx:builtin/dcg-ppo-v1")
    try:
        obs, _ = venv.reset(seed=5)
        rng = np.random.default_rng(5)
        learner_returns = []
        for _ in range(20000):
            obs, reward, term, trunc, _ = venv.step(np.array([masked_choice(rng, m) for m in obs["action_mask"]]))
            learner_returns += reward[term | trunc].tolist()
            if len(learner_returns) >= 8:
                break
        assert len(learner_returns) >= 8
        # The random learner loses most games to the trained policy.
        assert sum(r < 0 for r in learner_returns) >= 6
    finally:
        venv.close()
