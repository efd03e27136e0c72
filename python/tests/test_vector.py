from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from conftest import masked_choice
from gymnasium.vector import AutoresetMode, VectorEnv

import cardgym


def masked_actions(rng, mask):
    return np.array([masked_choice(rng, row) for row in mask])


def test_vector_env_is_one_session_stepped_in_one_request(game, client):
    before = client.health()["sessions"]
    steps_before = client.metrics()["steps"]
    venv = cardgym.make_vec(game, 8, client=client, seed=0)
    try:
        assert isinstance(venv, VectorEnv) and venv.num_envs == 8
        assert client.health()["sessions"] == before + 1
        obs, infos = venv.reset()
        assert obs in venv.observation_space
        assert obs["observation"].shape == (8, venv.single_observation_space["observation"].shape[0])
        rng = np.random.default_rng(0)
        for _ in range(10):
            obs, rewards, terminated, truncated, infos = venv.step(masked_actions(rng, obs["action_mask"]))
            assert obs in venv.observation_space
            assert rewards.shape == terminated.shape == truncated.shape == (8,)
        assert client.metrics()["steps"] == steps_before + 10  # one server step per vector step
    finally:
        venv.close()
    assert client.health()["sessions"] == before


def test_next_step_autoreset(game, client):
    venv = cardgym.make_vec(game, 4, client=client, seed=5)
    try:
        assert venv.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
        obs, infos = venv.reset()
        rng = np.random.default_rng(0)
        seen_end = 0
        for _ in range(2000):
            obs, rewards, terminated, truncated, infos = venv.step(masked_actions(rng, obs["action_mask"]))
            done = terminated | truncated
            if not done.any():
                continue
            # Done rows: the mask offers only action 0 (it is ignored); episode counters then move on.
            assert (obs["action_mask"][done, 0] == 1).all() and (obs["action_mask"][done, 1:] == 0).all()
            episode = infos["episode_index"].copy()
            prev_obs = obs["observation"].copy()
            actions = masked_actions(rng, obs["action_mask"])
            obs, rewards, terminated, truncated, infos = venv.step(actions)
            assert (infos["episode_index"][done] == episode[done] + 1).all()
            assert (rewards[done] == 0).all() and not terminated[done].any() and not truncated[done].any()
            assert not np.array_equal(obs["observation"][done], prev_obs[done])
            seen_end += int(done.sum())
            if seen_end >= 4:
                break
        assert seen_end >= 4, "no episode ended in 2000 steps"
    finally:
        venv.close()


def test_row_zero_of_a_vector_env_is_the_single_env_with_the_same_seed(game, client):
    # Env i's streams derive from (session seed, i): a 1-env session is env 0 of any session.
    venv = cardgym.make_vec(game, 3, client=client, seed=77)
    env = cardgym.make(game, client=client, seed=77)
    try:
        vobs, _ = venv.reset()
        obs, _ = env.reset()
        rng = np.random.default_rng(4)
        for _ in range(100):
            assert np.array_equal(vobs["observation"][0], obs["observation"])
            actions = masked_actions(rng, vobs["action_mask"])
            vobs, vr, vte, vtr, _ = venv.step(actions)
            obs, r, te, tr, _ = env.step(actions[0])
            assert (float(vr[0]), bool(vte[0]), bool(vtr[0])) == (r, te, tr)
            if te or tr:
                break
    finally:
        venv.close()
        env.close()


def test_same_seed_same_batches_and_reset_seed(client):
    a = cardgym.make_vec("sevens", 16, client=client, seed=3)
    b = cardgym.make_vec("sevens", 16, client=client, seed=3)
    try:
        oa, _ = a.reset()
        ob, _ = b.reset()
        rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(1)
        for _ in range(50):
            assert np.array_equal(oa["observation"], ob["observation"])
            oa, ra, *_ = a.step(masked_actions(rng_a, oa["action_mask"]))
            ob, rb, *_ = b.step(masked_actions(rng_b, ob["action_mask"]))
            assert np.array_equal(ra, rb)
        first, _ = a.reset(seed=9)
        first = first["observation"].copy()
        a.step(masked_actions(rng_a, a.action_masks()))
        again, _ = a.reset(seed=9)
        assert np.array_equal(first, again["observation"])
        with pytest.raises(ValueError):
            a.reset(seed=[1, 2, 3])  # one seed per env, or an int
    finally:
        a.close()
        b.close()


def test_gymnasium_make_vec_uses_the_one_session_vector_env(client):
    venv = gymnasium.make_vec("cardgym/sevens-v0", num_envs=4, client=client, seed=0)
    try:
        assert isinstance(venv.unwrapped, cardgym.CardgymVectorEnv)
        assert venv.unwrapped.session.num_envs == 4
        obs, _ = venv.reset()
        assert obs["observation"].shape[0] == 4
    finally:
        venv.close()


def test_vector_illegal_action_raises_and_changes_nothing(client):
    venv = cardgym.make_vec("sevens", 4, client=client, seed=8, illegal_action="raise")
    try:
        obs, _ = venv.reset()
        actions = masked_actions(np.random.default_rng(0), obs["action_mask"])
        bad = actions.copy()
        bad[2] = int(np.flatnonzero(obs["action_mask"][2] == 0)[0])
        with pytest.raises(cardgym.IllegalActionError) as err:
            venv.step(bad)
        assert err.value.code == "illegal_action" and "env 2" in err.value.message
        info = venv.session.info()
        assert info["step"] == 0
        venv.step(actions)
        assert venv.session.info()["step"] == 1
    finally:
        venv.close()
