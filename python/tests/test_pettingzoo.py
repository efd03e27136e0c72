from __future__ import annotations

import numpy as np
import pytest
from conftest import masked_choice
from pettingzoo.test import api_test, seed_test

import cardgym
import cardgym.pettingzoo as cpz


def test_api_test_passes(game, client):
    env = cpz.env(game, client=client, seed=0)
    try:
        api_test(env, num_cycles=1000)
    finally:
        env.close()


def test_seed_test_passes(game, client):
    seed_test(lambda: cpz.env(game, client=client, seed=0), num_cycles=500)


def test_agents_are_the_client_seats(game, client, game_info):
    env = cpz.raw_env(game, client=client, seed=0)
    try:
        n = game_info[game]["defaultSeats"]
        assert env.possible_agents == [f"player_{i}" for i in range(n)]
        env.reset(seed=1)
        assert env.agent_selection in env.possible_agents
        obs = env.observe(env.agent_selection)
        assert obs["action_mask"].any()
        for other in env.possible_agents:
            if other != env.agent_selection:
                assert not env.observe(other)["action_mask"].any(), "only the seat to act has legal actions"
    finally:
        env.close()


def play_episode(env, rng):
    """Masked random play of one AEC episode; returns each agent's summed rewards."""
    totals = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        totals[agent] += reward
        env.step(None if terminated or truncated else masked_choice(rng, obs["action_mask"]))
    return totals


def test_episodes_end_for_every_agent_and_zero_sum_holds(game, client, game_info):
    env = cpz.raw_env(game, client=client, seed=12)
    try:
        rng = np.random.default_rng(0)
        for _episode in range(3):
            env.reset()
            totals = play_episode(env, rng)
            assert env.agents == []
            if game_info[game]["zeroSum"] and len(totals) > 1:
                assert sum(totals.values()) == pytest.approx(0.0, abs=1e-5)
    finally:
        env.close()


def test_illegal_action_raises_and_env_keeps_working(client):
    env = cpz.env("sevens", client=client, seed=4, illegal_action="raise")
    try:
        env.reset()
        agent = env.agent_selection
        obs = env.observe(agent)
        bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
        with pytest.raises(cardgym.IllegalActionError) as err:
            env.step(bad)
        assert err.value.code == "illegal_action" and "not legal" in err.value.message
        assert env.agent_selection == agent
        env.step(masked_choice(np.random.default_rng(0), obs["action_mask"]))
        assert env.unwrapped.session.info()["step"] == 1
    finally:
        env.close()


def test_mixed_seats_server_agents_and_external(client):
    env = cpz.raw_env("sevens", client=client, seed=0, seats=["external", "random", "external", "random"])
    try:
        assert env.possible_agents == ["player_0", "player_2"]
        env.reset()
        totals = play_episode(env, np.random.default_rng(1))
        assert set(totals) == {"player_0", "player_2"}
    finally:
        env.close()


def test_max_decisions_truncates_every_agent(client):
    env = cpz.raw_env("sevens", client=client, seed=0, max_decisions=3)
    try:
        env.reset()
        rng = np.random.default_rng(0)
        seen = []
        for _agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                seen.append((terminated, truncated))
                env.step(None)
            else:
                env.step(masked_choice(rng, obs["action_mask"]))
        assert seen and all(s == (False, True) for s in seen) and len(seen) == len(env.possible_agents)
    finally:
        env.close()
