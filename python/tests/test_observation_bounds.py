"""The observation Box comes from the bounds the server declares per layout field."""

from __future__ import annotations

import numpy as np
from conftest import masked_choice

import cardgym
from cardgym.env import observation_box


def test_box_follows_the_declared_field_bounds(game, client):
    spec = client.spec(game)
    box = observation_box(spec)
    for field in spec["observation"]["layout"]:
        at = slice(field["offset"], field["offset"] + field["length"])
        want_low = np.float32(field["low"]) if "low" in field else np.float32(-np.inf)
        want_high = np.float32(field["high"]) if "high" in field else np.float32(np.inf)
        assert (box.low[at] == want_low).all(), field["name"]
        assert (box.high[at] == want_high).all(), field["name"]


def test_box_is_finite_and_holds_every_observation(game, client):
    env = cardgym.make(game, client=client, seed=3)
    try:
        space = env.observation_space["observation"]
        assert np.isfinite(space.low).all() and np.isfinite(space.high).all()
        rng = np.random.default_rng(0)
        obs, _ = env.reset()
        for _ in range(300):
            assert space.contains(obs["observation"]), "observation outside the declared bounds"
            obs, _, terminated, truncated, _ = env.step(masked_choice(rng, obs["action_mask"]))
            if terminated or truncated:
                obs, _ = env.reset()
    finally:
        env.close()
