from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from conftest import masked_choice
from gymnasium.utils.env_checker import check_env

import cardgym


def rollout(env, rng, steps):
    """Masked random play; returns every observation, reward and flag seen, resets included."""
    obs, info = env.reset()
    trace = [("reset", obs["observation"].copy(), obs["action_mask"].copy(), 0.0, False, False)]
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(masked_choice(rng, obs["action_mask"]))
        trace.append(("step", obs["observation"].copy(), obs["action_mask"].copy(), reward, terminated, truncated))
        if terminated or truncated:
            obs, info = env.reset()
            trace.append(("reset", obs["observation"].copy(), obs["action_mask"].copy(), 0.0, False, False))
    return trace


def same_trace(a, b):
    return len(a) == len(b) and all(
        x[0] == y[0] and np.array_equal(x[1], y[1]) and np.array_equal(x[2], y[2]) and x[3:] == y[3:] for x, y in zip(a, b)
    )


def test_every_served_game_is_registered_with_gymnasium(client):
    served = [g["id"] for g in client.games()]
    assert served, "the server serves no game"
    missing = [g for g in served if f"cardgym/{g}-v0" not in gymnasium.registry]
    assert not missing, f"served but not registered at import (add to cardgym.KNOWN_GAMES): {missing}"


def test_check_env_passes(game, client):
    # check_env steps random *unmasked* actions (action_space.sample()); with the default options
    # (illegal_action="terminate") an illegal one ends the episode with a penalty.
    env = gymnasium.make(f"cardgym/{game}-v0", client=client, seed=0).unwrapped
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(env)
        relevant = [str(w.message) for w in caught if "gymnasium" in (w.filename or "") or "cardgym" in (w.filename or "")]
        # Every game declares finite bounds for every float, so the checker has nothing to flag.
        assert np.isfinite(env.observation_space["observation"].low).all()
        assert np.isfinite(env.observation_space["observation"].high).all()
        assert not relevant, relevant
    finally:
        env.close()


def test_check_env_passes_with_render_mode(client):
    env = gymnasium.make("cardgym/sevens-v0", client=client, seed=0, render_mode="ansi").unwrapped
    try:
        check_env(env)
        env.reset(seed=1)
        text = env.render()
        assert "legal actions:" in text and "seat 0:" in text  # the board, then the actions
    finally:
        env.close()


def test_spaces_match_the_server_spec(game, client, game_info):
    env = cardgym.make(game, client=client, seed=0)
    try:
        info = game_info[game]
        assert env.observation_space["observation"].shape == (info["observationSize"],)
        assert env.observation_space["action_mask"].n == info["actionSize"]
        assert env.action_space.n == info["actionSize"]
        obs, _ = env.reset()
        assert obs in env.observation_space
        assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
        assert np.array_equal(env.action_masks(), obs["action_mask"].astype(bool))
        assert env.action_masks().any()
        # A masked sample is always legal.
        env.action_space.seed(3)
        for _ in range(20):
            a = env.action_space.sample(mask=obs["action_mask"])
            assert obs["action_mask"][a] == 1
    finally:
        env.close()


def test_same_seed_gives_identical_observation_streams(game, client):
    a = cardgym.make(game, client=client, seed=1234)
    b = cardgym.make(game, client=client, seed=1234)
    c = cardgym.make(game, client=client, seed=4321)
    try:
        ta = rollout(a, np.random.default_rng(5), 300)
        tb = rollout(b, np.random.default_rng(5), 300)
        tc = rollout(c, np.random.default_rng(5), 300)
        assert same_trace(ta, tb)
        assert not same_trace(ta, tc), "a different seed should deal a different game"
        # reset(seed=...) re-seeds: the same stream again, in the same env.
        a.reset(seed=99)
        t1 = rollout_from_seed(a, 99, 100)
        t2 = rollout_from_seed(a, 99, 100)
        assert same_trace(t1, t2)
    finally:
        for env in (a, b, c):
            env.close()


def rollout_from_seed(env, seed, steps):
    env.reset(seed=seed)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=seed)
    trace = [("reset", obs["observation"].copy(), obs["action_mask"].copy(), 0.0, False, False)]
    for _ in range(steps):
        obs, r, te, tr, _ = env.step(masked_choice(rng, obs["action_mask"]))
        trace.append(("step", obs["observation"].copy(), obs["action_mask"].copy(), r, te, tr))
        if te or tr:
            break
    return trace


def test_illegal_action_raises_the_servers_error_and_the_env_keeps_working(game, client):
    env = cardgym.make(game, client=client, seed=11, illegal_action="raise")
    twin = cardgym.make(game, client=client, seed=11, illegal_action="raise")
    try:
        obs, _ = env.reset()
        twin.reset()
        illegal = np.flatnonzero(obs["action_mask"] == 0)
        assert illegal.size > 0
        with pytest.raises(cardgym.IllegalActionError) as err:
            env.step(int(illegal[0]))
        e = err.value
        assert isinstance(e, cardgym.ServerError) and isinstance(e, Exception)
        assert e.code == "illegal_action" and e.status == 400
        assert f"action {int(illegal[0])} is not legal" in e.message and "legal action ids" in e.message
        assert e.message in str(e)
        with pytest.raises(cardgym.IllegalActionError) as err:
            env.step(env.action_space.n)
        assert err.value.code == "action_out_of_range"
        # Nothing changed: the env continues exactly like a twin that never saw the bad actions.
        rng1, rng2 = np.random.default_rng(2), np.random.default_rng(2)
        o1, o2 = obs, twin.reset(seed=11)[0]
        env.reset(seed=11)
        with pytest.raises(cardgym.IllegalActionError):
            env.step(int(illegal[0]))
        for _ in range(50):
            s1 = env.step(masked_choice(rng1, o1["action_mask"]))
            s2 = twin.step(masked_choice(rng2, o2["action_mask"]))
            assert np.array_equal(s1[0]["observation"], s2[0]["observation"]) and s1[1:4] == s2[1:4]
            o1, o2 = s1[0], s2[0]
            if s1[2] or s1[3]:
                break
    finally:
        env.close()
        twin.close()


def test_illegal_action_terminate_mode(client):
    env = cardgym.make("sevens", client=client, seed=3, illegal_action="terminate", illegal_reward=-5)
    try:
        obs, _ = env.reset()
        bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
        obs2, reward, terminated, truncated, info = env.step(bad)
        assert (reward, terminated, truncated) == (-5.0, True, False)
        assert info["illegal_action"] is True
        assert np.array_equal(obs2["observation"], obs["observation"])
        with pytest.raises(RuntimeError, match="episode is over"):
            env.step(0)
        obs, _ = env.reset()
        env.step(masked_choice(np.random.default_rng(0), obs["action_mask"]))
    finally:
        env.close()


def test_episode_rewards_add_up_to_the_game_returns(game, client):
    env = cardgym.make(game, client=client, seed=21)
    try:
        rng = np.random.default_rng(1)
        for _ in range(3):
            obs, info = env.reset()
            total, done = 0.0, False
            while not done:
                obs, r, te, tr, info = env.step(masked_choice(rng, obs["action_mask"]))
                total += r
                done = te or tr
            assert te and not tr
            assert total == pytest.approx(float(info["returns"][0]))
            assert not env.action_masks().any(), "nothing is legal once the episode is over"
    finally:
        env.close()


def test_opponents_config_and_seat(client):
    env = cardgym.make("sevens", opponents=["random", "random"], seat=2, client=client, seed=0)
    try:
        assert env.session.seats == ["random", "random", "learner"]
        assert env.session.config["seats"] == 3
        _, info = env.reset()
        assert info["returns"].shape == (3,)
    finally:
        env.close()
    env = cardgym.make("sevens", opponents="random", config={"seats": 4}, client=client, seed=0)
    try:
        assert env.session.seats == ["learner", "random", "random", "random"]
    finally:
        env.close()
    with pytest.raises(ValueError):
        cardgym.make("sevens", opponents=["random"], config={"seats": 4}, client=client)


def test_server_errors_carry_code_status_and_message(client):
    with pytest.raises(cardgym.ServerError) as err:
        cardgym.make("no-such-game", opponents=["random"], client=client)
    assert err.value.code == "unknown_game" and err.value.status == 404
    assert "no-such-game" in err.value.message and "sevens" in err.value.message
    with pytest.raises(cardgym.ServerError) as err:
        cardgym.make("sevens", config={"seats": 2}, opponents=["random"], client=client)
    assert err.value.code == "invalid_config" and err.value.status == 400 and "seats" in err.value.message


def test_closing_an_env_deletes_its_session(client):
    before = client.health()["sessions"]
    env = cardgym.make("sevens", client=client, seed=0)
    assert client.health()["sessions"] == before + 1
    env.close()
    env.close()  # twice is fine
    assert client.health()["sessions"] == before


def test_max_decisions_truncates(client):
    env = cardgym.make("sevens", client=client, seed=0, max_decisions=2)
    try:
        obs, _ = env.reset()
        rng = np.random.default_rng(0)
        for _ in range(10):
            obs, r, terminated, truncated, info = env.step(masked_choice(rng, obs["action_mask"]))
            if terminated or truncated:
                break
        assert truncated and not terminated
        assert info["episode_step"] >= 2
    finally:
        env.close()
