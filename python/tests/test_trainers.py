"""The trainer-facing conventions: Gymnasium vector seeding, SB3's VecEnv conventions, RLlib's
observation keys and multi-agent contract, batched self-play, rendering, illegal actions and
writable observations. Runs without torch, SB3 or Ray (their real libraries are exercised by
`npm run test:integrations`)."""

from __future__ import annotations

from typing import Any, Dict, List

import gymnasium
import numpy as np
import pytest
from conftest import masked_choice
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from pettingzoo.test import render_test

import cardgym
import cardgym.pettingzoo as cpz
import cardgym.rllib
import cardgym.sb3


def masked_rows(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    return np.array([masked_choice(rng, row) for row in mask])


@pytest.mark.parametrize("vec_game", ["sevens", "dcg"])
def test_make_vec_equals_sync_vector_env_of_single_envs(vec_game, client):
    game = vec_game
    n, seed = 4, 31
    vec = cardgym.make_vec(game, n, client=client, seed=seed)
    sync = SyncVectorEnv([lambda i=i: cardgym.make(game, client=client, seed=seed + i) for i in range(n)])
    try:
        rng = np.random.default_rng(0)
        ov, _ = vec.reset()
        os_, _ = sync.reset()
        episodes = 0
        for t in range(300):
            assert np.array_equal(ov["observation"], os_["observation"]), t
            # The one documented difference: a done row's mask is [1, 0, ...] in the vector env.
            same = ov["action_mask"] == os_["action_mask"]
            assert same[os_["action_mask"].sum(1) > 0].all(), t
            actions = np.array([masked_choice(rng, ov["action_mask"][i]) for i in range(n)])
            ov, rv, tv, uv, _ = vec.step(actions)
            os_, rs, ts, us, _ = sync.step(actions)
            assert np.array_equal(rv, rs) and np.array_equal(tv, ts) and np.array_equal(uv, us), t
            episodes += int(tv.sum() + uv.sum())
        assert episodes >= n
        # Re-seeding with an int and with a list, as SyncVectorEnv does.
        ov, _ = vec.reset(seed=5)
        os_, _ = sync.reset(seed=5)
        assert np.array_equal(ov["observation"], os_["observation"])
        seeds: List[Any] = [9, None, 11, None]
        ov, _ = vec.reset(seed=seeds)
        single = cardgym.make(game, client=client, seed=0)
        try:
            assert np.array_equal(ov["observation"][0], single.reset(seed=9)[0]["observation"])
            assert np.array_equal(ov["observation"][2], single.reset(seed=11)[0]["observation"])
        finally:
            single.close()
    finally:
        vec.close()
        sync.close()


def test_same_step_vector_env_returns_final_obs(client):
    vec = cardgym.make_vec("sevens", 3, client=client, seed=2, autoreset_mode=AutoresetMode.SAME_STEP)
    nxt = cardgym.make_vec("sevens", 3, client=client, seed=2)
    try:
        assert vec.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
        obs, _ = vec.reset()
        nobs, _ = nxt.reset()
        rng = np.random.default_rng(1)
        for _ in range(400):
            actions = masked_rows(rng, obs["action_mask"])
            obs, r, te, tr, info = vec.step(actions)
            nobs, nr, nte, ntr, _ = nxt.step(actions)
            assert np.array_equal(r, nr) and np.array_equal(te, nte)
            if te.any() or tr.any():
                i = int(np.flatnonzero(te | tr)[0])
                assert info["_final_obs"][i]
                assert np.array_equal(info["final_obs"][i]["observation"], nobs["observation"][i])
                return
        pytest.fail("no episode ended")
    finally:
        vec.close()
        nxt.close()


def dummy_vec_reference(game: str, client: cardgym.Client, n: int, seed: int, steps: int) -> List[Dict[str, Any]]:
    """What SB3's DummyVecEnv of single envs does, written out: step each env; when one is done,
    keep its last observation as terminal_observation and reset it in the same step."""
    envs = [cardgym.make(game, client=client, seed=0) for _ in range(n)]
    try:
        obs = [env.reset(seed=seed + i)[0] for i, env in enumerate(envs)]
        rng = np.random.default_rng(3)
        trace = []
        for _ in range(steps):
            actions = [masked_choice(rng, o["action_mask"]) for o in obs]
            row: Dict[str, Any] = {"actions": actions, "rewards": [], "dones": [], "terminal": {}, "obs": []}
            for i, env in enumerate(envs):
                o, r, te, tr, _ = env.step(actions[i])
                if te or tr:
                    row["terminal"][i] = o["observation"].copy()
                    o, _ = env.reset()
                obs[i] = o
                row["rewards"].append(r)
                row["dones"].append(te or tr)
                row["obs"].append(o["observation"].copy())
            trace.append(row)
        return trace
    finally:
        for env in envs:
            env.close()


def test_sb3_vec_env_follows_sb3_conventions_like_a_dummy_vec_env(client):
    n, seed, steps = 3, 40, 120
    reference = dummy_vec_reference("dcg", client, n, seed, steps)
    venv = cardgym.sb3.vec_env("dcg", n, client=client)
    try:
        assert venv.seed(seed) == [seed + i for i in range(n)]
        obs = venv.reset()
        assert obs.shape == (n, venv.observation_space.shape[0])
        assert venv.has_attr("action_masks") if hasattr(venv, "has_attr") else venv.get_attr("action_masks")
        ended = 0
        for t, row in enumerate(reference):
            masks = np.stack(venv.env_method("action_masks"))
            assert masks.shape == (n, venv.action_space.n) and masks.dtype == bool
            for i in range(n):
                assert masks[i, row["actions"][i]], (t, i)
            obs, rewards, dones, infos = venv.step(np.array(row["actions"]))
            assert rewards.dtype == np.float32 and dones.dtype == bool and len(infos) == n
            assert np.array_equal(obs, np.array(row["obs"])), t
            assert np.array_equal(rewards, np.array(row["rewards"], dtype=np.float32)), t
            assert list(dones) == row["dones"], t
            for i in range(n):
                if dones[i]:
                    ended += 1
                    assert np.array_equal(infos[i]["terminal_observation"], row["terminal"][i])
                    assert infos[i]["TimeLimit.truncated"] is False
                    assert set(infos[i]["episode"]) == {"r", "l", "t"}
                    assert masks.any()
                else:
                    assert "terminal_observation" not in infos[i]
        assert ended > 0
        assert venv.env_method("action_masks", indices=[1])[0].shape == (venv.action_space.n,)
    finally:
        venv.close()


def test_sb3_vec_env_truncation_and_dict_observations(client):
    venv = cardgym.sb3.vec_env("sevens", 2, client=client, seed=1, max_decisions=6, observation="dict")
    try:
        obs = venv.reset()
        assert set(obs) == {"observation", "action_mask"}
        rng = np.random.default_rng(0)
        for _ in range(10):
            obs, _, dones, infos = venv.step(masked_rows(rng, venv.action_masks()))
            if dones.any():
                i = int(np.flatnonzero(dones)[0])
                assert infos[i]["TimeLimit.truncated"] is True
                assert set(infos[i]["terminal_observation"]) == {"observation", "action_mask"}
                return
        pytest.fail("max_decisions did not truncate")
    finally:
        venv.close()


def test_illegal_action_option_on_every_env_type(client):
    env = cardgym.make("sevens", client=client, seed=1)
    vec = cardgym.make_vec("sevens", 2, client=client, seed=1)
    aec = cpz.env("sevens", client=client, seed=1)
    sp = cardgym.selfplay.vector_env("sevens", 2, client=client, seed=1)
    sb = cardgym.sb3.vec_env("sevens", 2, client=client, seed=1)
    try:
        obs, _ = env.reset()
        bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
        _, r, te, _, info = env.step(bad)
        assert (r, te, info.get("illegal_action")) == (-1.0, True, True)
        obs, _ = vec.reset()
        actions = masked_rows(np.random.default_rng(0), obs["action_mask"])
        actions[1] = int(np.flatnonzero(obs["action_mask"][1] == 0)[0])
        _, r, te, _, info = vec.step(actions)
        assert te[1] and r[1] == -1.0 and info["illegal_action"][1] and not info["illegal_action"][0]
        aec.reset()
        agent = aec.agent_selection
        aec.step(int(np.flatnonzero(aec.observe(agent)["action_mask"] == 0)[0]))
        assert aec.terminations[agent] and aec.infos[agent].get("illegal_action") and aec.rewards[agent] == -1.0
        obs, _ = sp.reset()
        seat = int(sp.agent_selection[0])
        _, r, te, _, info = sp.step([int(np.flatnonzero(obs["action_mask"][0] == 0)[0]), masked_choice(np.random.default_rng(0), obs["action_mask"][1])])
        assert te[0] and r[0, seat] == -1.0 and info["illegal_action"][0]
        sb.reset()
        m = sb.action_masks()
        _, r, d, infos = sb.step(np.array([int(np.flatnonzero(~m[0])[0]), int(np.flatnonzero(m[1])[0])]))
        assert d[0] and r[0] == -1.0 and infos[0]["illegal_action"]
        for make in (cardgym.make, cardgym.make_vec, cpz.env, cardgym.sb3.vec_env):
            with pytest.raises(ValueError, match="illegal_action"):
                kwargs: Dict[str, Any] = {"client": client, "illegal_action": "ignore"}
                make("sevens", 2, **kwargs) if make in (cardgym.make_vec, cardgym.sb3.vec_env) else make("sevens", **kwargs)
    finally:
        for e in (env, vec, aec, sp, sb):
            e.close()


def test_single_env_refuses_to_step_after_the_episode_ended(client):
    env = cardgym.make("sevens", client=client, seed=4, max_decisions=3)
    try:
        obs, _ = env.reset()
        rng = np.random.default_rng(0)
        for _ in range(5):
            obs, _, te, tr, _ = env.step(masked_choice(rng, obs["action_mask"]))
            if te or tr:
                break
        assert tr
        with pytest.raises(RuntimeError, match="episode is over \\(truncated\\); call reset"):
            env.step(0)
        env.reset()
        with pytest.raises(RuntimeError, match="before step"):
            cardgym.make("sevens", client=client).step(0)
    finally:
        env.close()


def test_writable_observations(client):
    env = cardgym.make("sevens", client=client, seed=1)
    wenv = cardgym.make("sevens", client=client, seed=1, writable_obs=True)
    vec = cardgym.make_vec("sevens", 2, client=client, seed=1, writable_obs=True)
    try:
        obs, _ = env.reset()
        with pytest.raises(ValueError):
            obs["observation"] *= 2  # a read-only view of the reply by default
        wobs, _ = wenv.reset()
        wobs["observation"] -= wobs["observation"].mean()  # in-place normalisation
        vobs, _ = vec.reset()
        vobs["observation"] /= 2
        vobs["action_mask"][:] = 1
    finally:
        env.close()
        wenv.close()
        vec.close()


def test_render_draws_the_board_for_every_env_type(game, client, capsys):
    env = cardgym.make(game, client=client, seed=2, render_mode="ansi")
    vec = cardgym.make_vec(game, 2, client=client, seed=2, render_mode="ansi")
    sp = cardgym.selfplay.vector_env(game, 2, client=client, seed=2, render_mode="ansi") if game != "shephy" else None
    human = cardgym.make(game, client=client, seed=2, render_mode="human")
    try:
        env.reset()
        text = env.render()
        assert isinstance(text, str) and "legal actions:" in text
        board = text.split("\nlearner: seat")[0]
        assert len(board.splitlines()) >= 2, "no board drawn"
        vec.reset()
        texts = vec.render()
        assert isinstance(texts, tuple) and len(texts) == 2 and all("legal actions:" in t for t in texts)
        if sp is not None:
            sp.reset()
            assert all("legal actions:" in t for t in sp.render())
        human.reset()
        assert human.render() is None
        assert capsys.readouterr().out == text  # same seed, same table: human prints what ansi returns
    finally:
        for e in (env, vec, human) + ((sp,) if sp else ()):
            e.close()


def test_pettingzoo_render_test_passes(game, client):
    render_test(lambda render_mode=None: cpz.env(game, client=client, seed=3, render_mode=render_mode))


def test_dcg_default_books_are_a_mirror_match(client):
    env = cardgym.make("dcg", client=client, seed=0)
    custom = cardgym.make("dcg", client=client, seed=0, config={"books": ["tempo", "bastion"]})
    try:
        assert env.session.config["books"] == ["vanguard", "vanguard"]
        assert custom.session.config["books"] == ["tempo", "bastion"]
    finally:
        env.close()
        custom.close()


def test_learner_seat_modes(client):
    env = cardgym.make("dcg", client=client, seed=5, learner_seat="alternating", max_decisions=40)
    try:
        seats = []
        for _ in range(4):
            _, info = env.reset()
            seats.append(info["learner_seat"])
            while True:
                obs, _, te, tr, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
                if te or tr:
                    break
        assert seats == [0, 1, 0, 1]
    finally:
        env.close()


def test_self_play_vector_env_matches_the_aec_env(client):
    n, seed = 3, 12
    sp = cardgym.selfplay.vector_env("sevens", n, client=client, seed=seed)
    aecs = [cpz.raw_env("sevens", client=client, seed=seed + i) for i in range(n)]
    try:
        obs, infos = sp.reset()
        for a in aecs:
            a.reset()
        assert sp.possible_agents == aecs[0].possible_agents
        rng = np.random.default_rng(0)
        live = [True] * n
        for _ in range(200):
            actions = masked_rows(rng, obs["action_mask"])
            for i, a in enumerate(aecs):
                if not live[i]:
                    continue
                agent = a.agent_selection
                assert agent == sp.possible_agents[sp.agent_selection[i]]
                seen = a.observe(agent)
                assert np.array_equal(seen["observation"], obs["observation"][i])
                assert np.array_equal(seen["action_mask"], obs["action_mask"][i])
            obs, rewards, te, tr, infos = sp.step(actions)
            assert rewards.shape == (n, sp.num_agents)
            for i, a in enumerate(aecs):
                if not live[i]:
                    continue
                a.step(int(actions[i]))
                step_rewards = np.array([a.rewards[ag] for ag in a.possible_agents], dtype=np.float32)
                assert np.array_equal(step_rewards, rewards[i])
                if te[i] or tr[i]:
                    j = list(infos["final_envs"]).index(i)
                    for k, ag in enumerate(a.possible_agents):
                        assert np.array_equal(infos["final_obs"][j, k], a.observe(ag)["observation"])
                    live[i] = False
                else:
                    assert i not in list(infos["final_envs"])
            if not any(live):
                return
        pytest.fail("not every game ended")
    finally:
        sp.close()
        for a in aecs:
            a.close()


def test_rllib_single_agent_env_contract(game, client):
    env = cardgym.rllib.env_creator({"game": game, "seed": 3})
    try:
        # RLlib's env check runs Gymnasium's checker on the single-agent env.
        gymnasium.utils.env_checker.check_env(env, skip_render_check=True)
        obs, _ = env.reset()
        assert set(obs) == {"observations", "action_mask"} and obs["action_mask"].dtype == np.float32
        assert env.observation_space.contains(obs)
    finally:
        env.close()


def test_rllib_env_context_seeds_differ_per_runner(client):
    class Context(dict):  # what RLlib's EnvContext adds to the config dict
        worker_index = 2
        vector_index = 1

    a = cardgym.rllib.env_creator(Context(game="sevens", seed=10))
    b = cardgym.rllib.env_creator({"game": "sevens", "seed": 2011})
    try:
        assert np.array_equal(a.reset()[0]["observations"], b.reset()[0]["observations"])
    finally:
        a.close()
        b.close()


def test_rllib_multi_agent_env_contract(game, client, game_info):
    # Rewards: RLlib's MultiAgentEpisode (new API stack) raises "Agent ... acted (and received next
    # obs), but did NOT receive any reward" when the agent that acted gets its next observation in
    # the same step with no key in the rewards dict (a seat making several decisions in a row), so
    # every step names every agent's reward, zero included.
    if game_info[game]["maxSeats"] < 2:
        # A one-player game has no second agent: a clear error that names the single-agent creator.
        with pytest.raises(ValueError, match="at least 2 client seats; use cardgym.rllib.env_creator"):
            cardgym.rllib.multi_agent_env_creator({"game": game, "seed": 7})
        return
    env = cardgym.rllib.multi_agent_env_creator({"game": game, "seed": 7})
    try:
        rng = np.random.default_rng(0)
        repeats = 0
        for _ in range(3):
            obs, infos = env.reset()
            assert len(obs) == 1 and set(infos) == set(obs)
            total = {a: 0.0 for a in env.possible_agents}
            for _ in range(5000):
                (agent,) = obs
                assert env.observation_spaces[agent].contains(obs[agent])
                action = masked_choice(rng, obs[agent]["action_mask"])
                obs, rewards, terms, truncs, infos = env.step({agent: action})
                assert set(rewards) == set(env.possible_agents), f"rewards named {sorted(rewards)}"
                repeats += agent in obs
                for a, r in rewards.items():
                    total[a] += r
                assert "__all__" in terms and "__all__" in truncs
                if terms["__all__"] or truncs["__all__"]:
                    assert set(obs) == set(env.possible_agents)
                    assert all(terms[a] for a in env.possible_agents)
                    break
                assert len(obs) == 1
            else:
                pytest.fail("episode did not end")
            returns = env.session.mask()  # the session still answers after the episode
            assert returns["mask"].sum() == 0
            assert abs(sum(total.values())) < 1e-4 or not game_info[game]["zeroSum"]
        assert repeats > 0 or game == "sevens", "no agent acted twice in a row: the case RLlib rejects was not exercised"
    finally:
        env.close()

