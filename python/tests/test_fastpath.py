"""The fast path (cardgym.fastpath) against HTTP: sessions over the embedded server's Unix socket
use it by default, give exactly the replies HTTP gives for the same seeds and actions, report
errors as HTTP does, and HTTP stays selectable."""

from __future__ import annotations

import socket
import struct

import numpy as np
import pytest
from conftest import same_reply, shared_client

import cardgym
from cardgym.fastpath import FastConnection, FastPathBroken


@pytest.fixture(scope="module")
def http_client():
    c = cardgym.Client(shared_client().url, fast_path=False)
    yield c
    c.close()


def test_default_is_the_fast_path_and_http_is_selectable(client, http_client):
    assert client.fast_path
    s = client.create_session("sevens", seed=1)
    h = http_client.create_session("sevens", seed=1)
    try:
        assert s.fast is not None
        assert h.fast is None
    finally:
        s.close()
        h.close()


@pytest.mark.parametrize("autoreset", ["next-step", "same-step"])
def test_same_replies_as_http(game, autoreset, client, http_client):
    """Every reply of a fast-path session equals the HTTP session's, array for array, including
    refused actions (test/server/fast-path.test.ts also checks the state hashes, and that a
    different action makes them differ)."""
    kwargs = dict(num_envs=3, seed=11, autoreset=autoreset, max_decisions=80)
    fast = client.create_session(game, **kwargs)
    slow = http_client.create_session(game, **kwargs)
    rng = np.random.default_rng(5)
    try:
        assert fast.fast is not None
        a, b = fast.reset(seed=3), slow.reset(seed=3)
        same_reply(a, b, "reset")
        ends = 0
        for step in range(120):
            actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in a["mask"]])
            if step % 41 == 40:
                actions[0] = 9999  # refused the same way by both
            try:
                a = fast.step(actions)
            except cardgym.ServerError as e:
                with pytest.raises(cardgym.ServerError) as other:
                    slow.step(actions)
                assert (e.code, e.status, e.message) == (other.value.code, other.value.status, other.value.message)
                a = fast.reset(envs=[0], seeds=[step])
                b = slow.reset(envs=[0], seeds=[step])
            else:
                b = slow.step(actions)
            same_reply(a, b, f"step {step}")
            ends += int((a["terminated"] | a["truncated"]).sum())
        assert ends > 0
    finally:
        fast.close()
        slow.close()


def test_envs_use_the_fast_path_by_default(client):
    env = cardgym.make("sevens", seed=4, client=client)
    try:
        assert env.unwrapped.session.fast is not None
        obs, _ = env.reset()
        obs, *_ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    finally:
        env.close()


def test_errors_and_bad_keys(client):
    s = client.create_session("sevens", num_envs=2, seed=2)
    try:
        with pytest.raises(cardgym.ServerError) as e:
            s.step([0, 0])
        assert e.value.code == "reset_required" and e.value.status == 409
        s.reset()
        with pytest.raises(cardgym.ServerError) as e:
            s.step([0])
        assert e.value.code == "wrong_action_count"
        with pytest.raises(cardgym.ServerError) as e:
            s.step(np.array([2**40, 0]))
        assert e.value.code == "invalid_body"
        # HTTP refuses to step a session the fast path holds.
        with pytest.raises(cardgym.ServerError) as e:
            client.request("POST", f"/v1/sessions/{s.id}/step", {"actions": [0, 0]})
        assert e.value.code == "session_attached"
        assert s.fast is not None
        with pytest.raises(FastPathBroken):
            FastConnection(s.fast.path, "wrong key", 10)
        # A raw frame declaring a huge length: a typed error, then the server closes that connection only.
        raw = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        raw.settimeout(30)
        raw.connect(s.fast.path)
        raw.sendall(struct.pack("<IB3x", 0xFFFFFFFF, 3))
        head = raw.recv(8, socket.MSG_WAITALL)
        n, kind, status = struct.unpack("<IBxH", head)
        assert (kind, status) == (1, 413)
        raw.close()
        s.reset(seed=1)
    finally:
        s.close()


def _first_legal(mask: np.ndarray) -> np.ndarray:
    return mask.argmax(axis=1)


def test_pool_plays_what_make_vec_plays(client):
    """A pool sharded over two sessions steps each env exactly as one make_vec session does, in
    lockstep and asynchronously (half the envs per recv, any order)."""
    n = 8
    venv = cardgym.make_vec("sevens", n, seed=30, client=client)
    sync = cardgym.make_pool("sevens", n, shards=2, seed=30, client=client)
    async_pool = cardgym.make_pool("sevens", n, shards=2, batch_size=4, seed=30, client=client)
    try:
        assert all(s.fast is not None for s in sync.sessions)
        v_obs, _ = venv.reset()
        p_obs, _ = sync.reset()
        async_pool.reset()
        np.testing.assert_array_equal(v_obs["observation"], p_obs["observation"])
        # The per-env trajectories of a deterministic policy (first legal action).
        expected = [[row.tobytes()] for row in v_obs["observation"]]
        for _ in range(40):
            acts = _first_legal(v_obs["action_mask"])
            v_obs, v_rew, v_te, v_tr, _ = venv.step(acts)
            p_obs, p_rew, p_te, p_tr, p_info = sync.step(_first_legal(p_obs["action_mask"]))
            for a, b in ((v_obs["observation"], p_obs["observation"]), (v_obs["action_mask"], p_obs["action_mask"]), (v_rew, p_rew), (v_te, p_te), (v_tr, p_tr)):
                np.testing.assert_array_equal(a, b)
            np.testing.assert_array_equal(p_info["env_id"], np.arange(n))
            for i, row in enumerate(v_obs["observation"]):
                expected[i].append(row.tobytes())
        got: list = [[] for _ in range(n)]
        while min(len(g) for g in got) < 41:
            obs, _, _, _, info = async_pool.recv()
            assert len(info["env_id"]) == 4
            for row, i in zip(obs["observation"], info["env_id"]):
                got[i].append(row.tobytes())
            async_pool.send(_first_legal(obs["action_mask"]), info["env_id"])
        for i in range(n):
            assert got[i][:41] == expected[i]
    finally:
        venv.close()
        sync.close()
        async_pool.close()


def test_a_step_interrupted_mid_reply_leaves_the_env_usable(client, monkeypatch):
    """Ctrl-C during a step (a KeyboardInterrupt while the reply is read) drops the fast-path
    connection, which is out of step. The session is fine and still bound to the fast path, so the
    next reset attaches again: it must not fail as 'connection broke' and then forever as HTTP's 409
    session_attached. Same for the EnvPool's send/recv."""
    venv = cardgym.make_vec("dcg", 4, seed=11, client=client)
    pool = cardgym.make_pool("dcg", 4, shards=2, seed=11, client=client)
    try:
        for env in (venv, pool):
            obs, _ = env.reset()
            real = FastConnection._receive
            calls = []

            def interrupted(self, calls=calls, real=real):
                calls.append(1)
                if len(calls) == 1:
                    raise KeyboardInterrupt
                return real(self)

            monkeypatch.setattr(FastConnection, "_receive", interrupted)
            with pytest.raises(KeyboardInterrupt):
                env.step(_first_legal(obs["action_mask"]))
            monkeypatch.setattr(FastConnection, "_receive", real)
            obs, _ = env.reset(seed=11)
            fresh = cardgym.make_vec("dcg", 4, seed=11, client=client)
            try:
                fresh_obs, _ = fresh.reset()
                np.testing.assert_array_equal(obs["observation"], fresh_obs["observation"])
                actions = _first_legal(obs["action_mask"])
                np.testing.assert_array_equal(env.step(actions)[0]["observation"], fresh.step(actions)[0]["observation"])
            finally:
                fresh.close()
    finally:
        venv.close()
        pool.close()
