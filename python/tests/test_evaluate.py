"""cardgym.evaluate: a policy scored as the arena scores it, on the arena's config."""

from __future__ import annotations

import numpy as np
import pytest

import cardgym
from cardgym.evaluate import evaluate, wilson


def first_legal(obs: np.ndarray, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def test_evaluates_on_the_arenas_dcg_config_not_the_envs_mirror_match(client):
    result = evaluate(first_legal, "dcg", opponent="random", games=6, seed=3, client=client)
    # The arena (and the engine) seat vanguard against bastion; the Python envs play a mirror match.
    assert result.config["books"] == ["vanguard", "bastion"]
    env = cardgym.make("dcg", client=client, seed=0)
    try:
        assert env.session is not None and env.session.config["books"] != result.config["books"]
    finally:
        env.close()
    assert result.wins + result.draws + result.losses == 6
    assert "vanguard" in str(result) and "95% Wilson" in str(result)


def test_scores_from_the_policys_seat_whichever_seat_it_plays(client):
    # First-legal play beats random play at blackpoker and loses to the computer agent: a scoring
    # that read the wrong seat on the games where the seats swapped would pull both toward even.
    vs_random = evaluate(first_legal, "blackpoker", opponent="random", games=20, seed=5, client=client)
    vs_computer = evaluate(first_legal, "blackpoker", opponent="computer", games=20, seed=5, client=client)
    assert vs_random.wins > vs_random.losses and vs_computer.losses > vs_computer.wins


def test_wilson_matches_the_arena():
    # The arena's known values (its statistics tests): 90 of 100 -> [0.8256, 0.9448], exact ends.
    low, high = wilson(90, 100)
    assert low == pytest.approx(0.8256, abs=1e-3) and high == pytest.approx(0.9448, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10) == (pytest.approx(0.7225, abs=1e-3), 1.0)
