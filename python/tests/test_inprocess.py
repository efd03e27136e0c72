"""In-process sessions (cardgym.inprocess) against the server: for the same seeds and actions they
give the same replies, byte for byte, and the same state hashes, in every game; the AEC env on
them (replies with the acting seat's observation, the others asked for on demand) shows every
agent exactly what it shows on the server; errors are the server's."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import same_reply

import cardgym
import cardgym.pettingzoo as cpz
import cardgym.selfplay
from cardgym.inprocess import InProcessClient
from cardgym.server import EmbeddedServer


@pytest.fixture(scope="module")
def hashing_server():
    """A private server that lists each env's state hash in GET /v1/sessions/:id."""
    server = EmbeddedServer(extra_args=["--expose-state-hashes"])
    client = cardgym.Client(server.url)
    yield client
    client.close()
    server.stop()


@pytest.fixture(scope="module")
def inprocess():
    return InProcessClient()


def masked_random(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """One random legal action per row of a vector env's action mask."""
    return np.array([int(rng.choice(np.flatnonzero(row))) for row in mask], dtype=np.int64)


def legal_actions(rng: np.random.Generator, reply) -> list:
    """One random legal action per env (0 where an env's game is over: the next step restarts it)."""
    out = []
    for row in reply["mask"]:
        legal = np.flatnonzero(row)
        out.append(int(rng.choice(legal)) if legal.size else 0)
    return out


@pytest.mark.parametrize(
    "seats,autoreset,observe",
    [
        ("all external", "next-step", None),
        ("default", "next-step", None),
        ("all external", "same-step", "all"),
        ("all external", "same-step", "acting"),  # the session cardgym.selfplay.vector_env makes
        ("default", "same-step", None),
    ],
)
def test_same_replies_and_state_hashes_as_the_server(game, hashing_server, inprocess, game_info, seats, autoreset, observe):
    """Every reply of the session, same-step `final` rows included, equal to the server's."""
    n = game_info[game]["defaultSeats"]
    options = {"seed": 11, "num_envs": 2, "illegal_action": "terminate", "max_decisions": 300, "autoreset": autoreset}
    if seats == "all external":
        options["seats"] = ["external"] * n if n > 1 else ["learner"]  # a lone client seat is the learner
        if n > 1 and observe is not None:
            options["observe"] = observe
    server = hashing_server.create_session(game, **options)
    local = inprocess.create_session(game, **options)
    try:
        rng = np.random.default_rng(5)
        a, b = server.reset(), local.reset()
        same_reply(a, b, f"{game} reset")
        ended = 0
        for step in range(400):
            if step == 150:
                a, b = server.reset(seeds=[3, None]), local.reset(seeds=[3, None])
                same_reply(a, b, f"{game} re-seeded reset")
            actions = legal_actions(rng, a)
            if step % 97 == 50:
                actions[0] = -1  # an illegal action ends env 0's episode with the penalty
            a, b = server.step(actions), local.step(actions)
            same_reply(a, b, f"{game} step {step}")
            ended += len(a["final"]["envs"]) if "final" in a else 0
            if step % 40 == 0:
                assert server.info()["hashes"] == local.hashes(), f"{game} step {step}: state hashes differ"
        assert server.info()["hashes"] == local.hashes()
        assert server.render(1) == local.render(1)
        assert ("final" in a) == (autoreset == "same-step")
        if autoreset == "same-step":
            assert ended >= 4, f"{game}: only {ended} final rows compared"
    finally:
        server.close()
        local.close()


def test_aec_env_shows_every_agent_what_the_server_shows(game, client, inprocess):
    remote = cpz.env(game, client=client, seed=4)
    local = cpz.env(game, client=inprocess, seed=4)
    assert local.unwrapped.session.observe == "acting", "replies carry the acting seat's observation only"
    try:
        rng = np.random.default_rng(1)
        for episode in range(3):
            remote.reset(seed=episode)
            local.reset(seed=episode)
            steps = 0
            while remote.agents and steps < 600:
                assert local.agents == remote.agents and local.agent_selection == remote.agent_selection
                for agent in remote.possible_agents:
                    same_reply(local.observe(agent), remote.observe(agent), f"{game} observe({agent}) at {steps}")
                _, reward, te, tr, info = remote.last()
                assert local.last()[1:] == (reward, te, tr, info)
                assert local.rewards == remote.rewards and local.terminations == remote.terminations
                mask = remote.observe(remote.agent_selection)["action_mask"]
                action = None if te or tr else int(rng.choice(np.flatnonzero(mask)))
                remote.step(action)
                local.step(action)
                steps += 1
    finally:
        remote.close()
        local.close()


def test_gymnasium_env_plays_what_it_plays_over_http(game, hashing_server, inprocess):
    """cardgym.make(client=InProcessClient()), the 1-env learner env a trainer uses for speed,
    against the same env over HTTP: the same observations, masks, rewards, flags and infos (values,
    types, dtypes, read-only views) and the same state hashes after every step, over six episodes
    with the learner's seat alternating, an illegal action ending one, the others ended by the
    game or truncated at max_decisions, and a re-seeded reset; and the same mask replies and
    action labels (env.action_labels()) after every step."""
    http = cardgym.Client(hashing_server.url, fast_path=False)
    options = {"seed": 7, "learner_seat": "alternating", "max_decisions": 30}
    remote = cardgym.make(game, client=http, **options)
    local = cardgym.make(game, client=inprocess, **options)
    assert remote.unwrapped.session.fast is None, "the reference is HTTP"

    def same(a, b, where):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            same_reply(x, y, f"{where} [{i}]")
        for k in a[0]:  # the observation dict's arrays: read-only views on both sides
            assert a[0][k].flags.writeable == b[0][k].flags.writeable, f"{where}: {k} writeable"
        assert [type(x) for x in a] == [type(x) for x in b], where

    try:
        rng = np.random.default_rng(2)
        a, b = remote.reset(), local.reset()
        same(a, b, f"{game} reset")
        episodes, steps, ended = 0, 0, set()
        while episodes < 6:
            obs = a[0]
            illegal = np.flatnonzero(obs["action_mask"] == 0)
            action = int(illegal[0]) if episodes == 1 and illegal.size else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            a, b = remote.step(action), local.step(action)
            same(a, b, f"{game} step {steps}")
            steps += 1
            assert remote.unwrapped.session.info()["hashes"] == local.unwrapped.session.hashes(), f"{game} step {steps}: state hashes differ"
            # The readable form of the mask (env.action_labels, the session's mask route) too.
            same_reply(remote.unwrapped.session.mask(labels=steps % 2 == 0), local.unwrapped.session.mask(labels=steps % 2 == 0), f"{game} mask {steps}")
            assert remote.action_labels() == local.action_labels(), f"{game} step {steps}: action labels differ"
            _, _, terminated, truncated, info = a
            if terminated or truncated:
                ended.add("illegal" if info.get("illegal_action") else "truncated" if truncated else "terminated")
                episodes += 1
                seed = 100 + episodes if episodes == 2 else None
                a, b = remote.reset(seed=seed), local.reset(seed=seed)
                same(a, b, f"{game} reset after episode {episodes}")
        assert "illegal" in ended and len(ended) > 1, f"{game}: episodes ended only as {ended}"
        assert remote.unwrapped.session.info()["hashes"] == local.unwrapped.session.hashes()
    finally:
        remote.close()
        local.close()
        http.close()


@pytest.mark.parametrize("illegal_action", ["terminate", "raise"])
def test_selfplay_vector_env_plays_what_it_plays_over_http(game, hashing_server, inprocess, game_info, illegal_action):
    """cardgym.selfplay.vector_env(client=InProcessClient()) against the same env over HTTP: every
    field of every reset and step (observations, masks, rewards, flags, infos with the ended games'
    final rows) and the same state hashes after every step, over games ended by the game, by
    max_decisions and by illegal actions (penalised, or raised as the server's error), with int
    and per-env seeds, and the same boards (render). A game of one seat has no self-play: both
    clients refuse it the same way."""
    http = cardgym.Client(hashing_server.url, fast_path=False)
    if game_info[game]["defaultSeats"] < 2:
        for client in (http, inprocess):
            with pytest.raises(ValueError, match="self-play needs at least 2 seats"):
                cardgym.selfplay.vector_env(game, 3, client=client, illegal_action=illegal_action)
        http.close()
        return
    options = {"seed": 3, "max_decisions": 40, "illegal_action": illegal_action, "render_mode": "ansi"}
    remote = cardgym.selfplay.vector_env(game, 3, client=http, **options)
    local = cardgym.selfplay.vector_env(game, 3, client=inprocess, **options)
    assert local.session.observe == "acting" and local.session.autoreset == "same-step"

    def hashes_agree(where: str) -> None:
        assert remote.session.info()["hashes"] == local.session.hashes(), f"{where}: state hashes differ"

    try:
        rng = np.random.default_rng(4)
        a, b = remote.reset(), local.reset()
        same_reply(a, b, f"{game} reset")
        finals = illegal = 0
        for step in range(160):
            if step in (60, 110):
                seed = 9 if step == 60 else [None, 21, 5]
                a, b = remote.reset(seed=seed), local.reset(seed=seed)
                same_reply(a, b, f"{game} reset(seed={seed})")
                hashes_agree(f"{game} reset at {step}")
            actions = masked_random(rng, a[0]["action_mask"])
            if step % 37 == 20:
                actions[1] = int(np.flatnonzero(a[0]["action_mask"][1] == 0)[0])  # an illegal move in env 1
                if illegal_action == "raise":
                    errors = []
                    for env in (remote, local):
                        with pytest.raises(cardgym.IllegalActionError) as e:
                            env.step(actions)
                        errors.append((e.value.status, e.value.code, str(e.value)))
                    assert errors[0] == errors[1]
                    actions[1] = int(np.flatnonzero(a[0]["action_mask"][1])[0])
                illegal += 1
            a, b = remote.step(actions), local.step(actions)
            same_reply(a, b, f"{game} step {step}")
            assert remote.agent_selection.tolist() == local.agent_selection.tolist()
            finals += len(a[4].get("final_envs", ()))
            hashes_agree(f"{game} step {step}")
        assert finals >= 3 and illegal >= 3, f"{game}: {finals} final rows, {illegal} illegal moves"
        assert remote.render() == local.render()
    finally:
        remote.close()
        local.close()
        http.close()
    assert local.session is None
    with pytest.raises(RuntimeError, match="closed"):
        local.step(np.zeros(3, dtype=np.int64))


def test_same_step_vector_env_plays_what_it_plays_over_http(hashing_server, inprocess):
    """cardgym.make_vec(autoreset_mode=SAME_STEP) in process against HTTP: the same steps, the
    ended episodes' final_obs and final_info included."""
    from gymnasium.vector import AutoresetMode

    http = cardgym.Client(hashing_server.url, fast_path=False)
    options = {"seed": 5, "autoreset_mode": AutoresetMode.SAME_STEP, "learner_seat": "alternating", "max_decisions": 25}
    remote = cardgym.make_vec("sevens", 4, client=http, **options)
    local = cardgym.make_vec("sevens", 4, client=inprocess, **options)
    try:
        rng = np.random.default_rng(6)
        a, b = remote.reset(), local.reset()
        same_reply(a, b, "reset")
        ended = 0
        for step in range(120):
            actions = masked_random(rng, a[0]["action_mask"])
            a, b = remote.step(actions), local.step(actions)
            same_reply(a, b, f"step {step}")
            ended += int(np.count_nonzero(a[4].get("_final_obs", ())))
        assert ended >= 4, f"only {ended} episodes ended"
        assert remote.unwrapped.session.info()["hashes"] == local.unwrapped.session.hashes()
    finally:
        remote.close()
        local.close()
        http.close()


def test_sb3_vec_env_plays_what_it_plays_over_http(hashing_server, inprocess):
    """cardgym.sb3.vec_env (same-step autoreset, SB3's terminal_observation) in process against
    HTTP: the same observations, masks, rewards, dones and infos (but the wall-clock ``t`` of
    ``infos[i]["episode"]``)."""
    import cardgym.sb3

    http = cardgym.Client(hashing_server.url, fast_path=False)
    remote = cardgym.sb3.vec_env("sevens", 3, client=http, seed=8, max_decisions=20)
    local = cardgym.sb3.vec_env("sevens", 3, client=inprocess, seed=8, max_decisions=20)

    def timeless(infos):
        return [{k: ({**v, "t": None} if k == "episode" else v) for k, v in info.items()} for info in infos]

    try:
        same_reply(remote.reset(), local.reset(), "reset")
        rng = np.random.default_rng(3)
        ended = 0
        for step in range(80):
            masks = remote.action_masks()
            same_reply(masks, local.action_masks(), f"masks {step}")
            actions = masked_random(rng, masks)
            (o1, r1, d1, i1), (o2, r2, d2, i2) = remote.step(actions), local.step(actions)
            same_reply((o1, r1, d1, timeless(i1)), (o2, r2, d2, timeless(i2)), f"step {step}")
            ended += int(d1.sum())
        assert ended >= 4, f"only {ended} episodes ended"
    finally:
        remote.close()
        local.close()
        http.close()


def test_aec_env_passes_pettingzoos_api_test(inprocess):
    from pettingzoo.test import api_test

    env = cpz.env("sevens", client=inprocess, seed=0)
    try:
        api_test(env, num_cycles=300)
    finally:
        env.close()


def test_errors_are_the_servers(client, inprocess):
    server = client.create_session("sevens", seed=1, seats=["external"] * 4)
    local = inprocess.create_session("sevens", seed=1, seats=["external"] * 4)
    try:
        for s in (server, local):
            with pytest.raises(cardgym.ServerError) as e:
                s.step([0])
            assert e.value.code == "reset_required"
        a, b = server.reset(), local.reset()
        illegal = int(np.flatnonzero(a["mask"][0] == 0)[0])
        errors = []
        for s in (server, local):
            with pytest.raises(cardgym.IllegalActionError) as e:
                s.step([illegal])
            errors.append((e.value.status, e.value.code, str(e.value)))
        assert errors[0] == errors[1]
        same_reply(server.step([int(np.flatnonzero(a["mask"][0])[0])]), local.step([int(np.flatnonzero(b["mask"][0])[0])]), "after the refusal")
    finally:
        server.close()
        local.close()
    with pytest.raises(cardgym.ServerError, match="onnx"):
        inprocess.create_session("sevens", seats=["learner", "onnx:builtin/sevens", "random", "random"])
    with pytest.raises(cardgym.ServerError) as e:
        inprocess.create_session("sevens", obs_dtype="bits")
    assert e.value.code == "invalid_config"
    closed = inprocess.create_session("sevens")
    closed.close()
    with pytest.raises(cardgym.ServerError) as e:
        closed.reset()
    assert e.value.code == "unknown_session"


def test_a_several_env_step_refuses_what_the_server_refuses(client, inprocess):
    """A step of several envs (whose ids go through the session's action buffer) refuses a wrong
    count, ids beyond int32 and illegal ids with the server's codes, as lists and as arrays, and
    leaves the session as it was."""
    server = client.create_session("sevens", num_envs=3, seed=1)
    local = inprocess.create_session("sevens", num_envs=3, seed=1)
    try:
        a = server.reset()
        same_reply(a, local.reset(), "reset")
        illegal = int(np.flatnonzero(a["mask"][1] == 0)[0])
        legal = [int(np.flatnonzero(row)[0]) for row in a["mask"]]
        for actions in ([0, 1], np.array([0, 1]), [0, 2**31, 0], np.array([0, 2**40, 0]), [legal[0], illegal, legal[2]], np.array([legal[0], illegal, legal[2]], dtype=np.int32)):
            codes = []
            for s in (server, local):
                with pytest.raises(cardgym.ServerError) as e:
                    s.step(actions)
                codes.append((type(e.value), e.value.status, e.value.code))
            assert codes[0] == codes[1], f"{actions!r}: {codes}"
        same_reply(server.step(np.array(legal, dtype=np.int16)), local.step(np.array(legal, dtype=np.int16)), "after the refusals")
    finally:
        server.close()
        local.close()


def test_replies_stay_as_they_were_after_later_steps(inprocess):
    """Each reply owns its bytes: a later step (which reuses the bundle's buffer) changes none."""
    s = inprocess.create_session("sevens", seed=2)
    try:
        first = s.reset()
        kept = first["obs"].copy()
        assert not first["obs"].flags.writeable
        rng = np.random.default_rng(0)
        reply = first
        for _ in range(20):
            reply = s.step(legal_actions(rng, reply))
        assert np.array_equal(first["obs"], kept)
    finally:
        s.close()
