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
from cardgym.fastpath import OP_STEP, FastConnection, FastPathBroken


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


def _same_value(a, b, where: str) -> None:
    """Equal as the env hands them out: same Python type, and for arrays the same dtype, shape,
    bytes and writeability."""
    assert type(a) is type(b), f"{where}: {type(a)} != {type(b)}"
    if isinstance(a, np.ndarray):
        assert (a.dtype, a.shape, a.flags.writeable) == (b.dtype, b.shape, b.flags.writeable), where
        assert a.tobytes() == b.tobytes(), where
    else:
        assert a == b, where


@pytest.mark.parametrize("fast_path", [True, False])
def test_one_env_steps_read_from_the_reply_bytes_equal_the_decoded_reply(game, fast_path, client, monkeypatch):
    """cardgym.make's env reads env 0 of each reply straight from its bytes (Session.step_one /
    reset_one) instead of decoding every tensor. Every reply of a few episodes (learner seat
    alternating, an illegal action ending one episode) gives exactly what the whole decoded reply
    gives, over the fast path and over HTTP, and no reply fell back to the whole decode."""
    import cardgym.client as cc

    real = cc._wire_one_step
    checked = []

    def compared(raw):
        one = real(raw)
        assert one is not None, "a one-env reply fell back to the whole decode"
        whole = cc.one_step(cc._decode(raw))
        for field in cc.OneStep._fields:
            _same_value(getattr(one, field), getattr(whole, field), field)
        checked.append(one.illegal)
        return one

    monkeypatch.setattr(cc, "_wire_one_step", compared)
    c = client if fast_path else cardgym.Client(client.url, fast_path=False)
    env = cardgym.make(game, client=c, seed=7, learner_seat="alternating", max_decisions=60)
    # Over the fast path such a session asks for the fixed layout (test below); msgpack replies
    # are what it reads when a session does not fit that layout.
    env.unwrapped.session._layout = 0
    try:
        assert (env.unwrapped.session.fast is not None) == fast_path
        rng = np.random.default_rng(3)
        obs, info = env.reset()
        episodes = 0
        while episodes < 3:
            mask = obs["action_mask"]
            assert mask.dtype == np.int8 and not obs["observation"].flags.writeable
            illegal = np.flatnonzero(mask == 0)
            action = int(illegal[0]) if episodes == 1 and illegal.size else int(rng.choice(np.flatnonzero(mask)))
            obs, reward, terminated, truncated, info = env.step(action)
            assert type(reward) is float and type(terminated) is bool and type(truncated) is bool
            if terminated or truncated:
                episodes += 1
                obs, info = env.reset()
        assert len(checked) > 3 and any(checked), "no reply of an illegal action was compared"
    finally:
        env.close()
        if c is not client:
            c.close()


def test_one_env_steps_in_the_fixed_layout_equal_http(game, client, http_client, monkeypatch):
    """Over the fast path, cardgym.make's env asks for its replies in the fixed layout
    (env/reply-layout.ts) and reads them without msgpack. Played beside the same env over HTTP
    (learner seat alternating, an illegal action ending an episode, truncations), every step
    and reset gives the same OneStep fields (values, types, dtypes, read-only flags) and the
    same env outputs, and every reply was read from the layout (test/server/fast-path.test.ts
    checks the layout's bytes against HTTP's msgpack tensors and the state hashes)."""
    import cardgym.client as cc

    read = []
    real = cc._laid_out_one_step
    monkeypatch.setattr(cc, "_laid_out_one_step", lambda buf: read.append(1) or real(buf))
    fast = cardgym.make(game, client=client, seed=7, learner_seat="alternating", max_decisions=40)
    http = cardgym.make(game, client=http_client, seed=7, learner_seat="alternating", max_decisions=40)
    fs, hs = fast.unwrapped.session, http.unwrapped.session
    assert fs.fast is not None and fs._layout and hs.fast is None
    try:
        rng = np.random.default_rng(4)
        a, b = fs.reset_one(3), hs.reset_one(3)
        episodes, illegal, replies = 0, False, 1
        while episodes < 5:
            for field in cc.OneStep._fields:
                _same_value(getattr(a, field), getattr(b, field), field)
            if a.terminated or a.truncated:
                episodes += 1
                a, b = fs.reset_one(None), hs.reset_one(None)
            else:
                bad = np.flatnonzero(a.mask == 0)
                action = int(bad[0]) if episodes == 1 and bad.size else int(rng.choice(np.flatnonzero(a.mask)))
                a, b = fs.step_one(action), hs.step_one(action)
                illegal |= a.illegal
            replies += 1
        assert illegal, "no reply of an illegal action was compared"
        assert len(read) == replies, "a reply was not read from the fixed layout"
        # The env on top gives the same outputs too.
        def same_output(x, y, where):
            for p, q in zip(x, y):
                if isinstance(p, dict):
                    assert p.keys() == q.keys(), where
                    for k in p:
                        _same_value(p[k], q[k], f"{where} {k}")
                else:
                    _same_value(p, q, where)

        x, y = fast.reset(seed=11), http.reset(seed=11)
        for step in range(30):
            same_output(x, y, f"env step {step}")
            action = int(rng.choice(np.flatnonzero(x[0]["action_mask"])))
            x, y = fast.step(action), http.step(action)
            same_output(x, y, f"env step {step}")
            if x[2] or x[3]:
                x, y = fast.reset(), http.reset()
    finally:
        fast.close()
        http.close()


def test_one_env_sessions_that_do_not_fit_the_layout_read_msgpack(client, http_client):
    """A one-env session asking for the layout when its batches do not fit it (same-step
    autoreset, uint8 observations) gets msgpack replies and reads them as before: the same values
    as HTTP's."""
    import cardgym.client as cc

    for options in ({"autoreset": "same-step"}, {"obs_dtype": "uint8"}):
        f = client.create_session("sevens", seed=2, **options)
        h = http_client.create_session("sevens", seed=2, **options)
        f._layout = cc.FLAG_LAYOUT  # asked for anyway: the server answers in msgpack
        try:
            rng = np.random.default_rng(1)
            a, b = f.reset_one(5), h.reset_one(5)
            for _ in range(60):
                for field in cc.OneStep._fields:
                    _same_value(getattr(a, field), getattr(b, field), f"{options} {field}")
                if a.terminated or a.truncated:
                    a, b = f.reset_one(None), h.reset_one(None)
                    continue
                action = int(rng.choice(np.flatnonzero(a.mask)))
                a, b = f.step_one(action), h.step_one(action)
        finally:
            f.close()
            h.close()


def test_one_env_step_refuses_what_step_refuses(client):
    """step_one's refusals are step([action])'s: the same exception, code and message."""
    s = client.create_session("sevens", seed=1)
    try:
        s.reset_one(seed=2)
        for bad in (1.0, 2**40, -(2**31) - 1, 9999, -1):
            with pytest.raises(Exception) as one:
                s.step_one(bad)  # type: ignore[arg-type]
            with pytest.raises(Exception) as whole:
                s.step([bad])  # type: ignore[list-item]
            assert type(one.value) is type(whole.value), bad
            if isinstance(one.value, cardgym.ServerError):
                assert (one.value.code, one.value.status, one.value.message) == (whole.value.code, whole.value.status, whole.value.message)
        # The session and its connection are fine after refusals.
        assert s.fast is not None and not s.fast.closed
        one = s.step_one(int(np.flatnonzero(s.reset_one(seed=2).mask)[0]))
        assert one.episode_step > 0 and not one.illegal
    finally:
        s.close()


def _silent_server(path: str) -> socket.socket:
    """A fast-path socket that accepts the attach of any key, then never answers: what a stuck
    worker looks like to the client."""
    import threading

    import msgpack

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(1)

    def serve() -> None:
        while True:  # one connection after another, until the listener is closed
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                n = struct.unpack("<I", conn.recv(4, socket.MSG_WAITALL))[0]
                conn.recv(n, socket.MSG_WAITALL)
                body = msgpack.packb({"session": "s"})
                conn.sendall(struct.pack("<IBxH", 4 + len(body), 0, 200) + body)
                while conn.recv(4096):
                    pass  # read whatever comes, answer nothing

    threading.Thread(target=serve, daemon=True).start()
    return listener


def test_a_step_past_the_timeout_raises_socket_timeout_and_drops_the_connection(tmp_path):
    """The connection's timeout is the kernel's (SO_RCVTIMEO / SO_SNDTIMEO on a blocking socket,
    not Python's socket timeout, which polls before every call): a reply that does not come in
    time still raises socket.timeout, as with settimeout, and the connection is closed."""
    path = str(tmp_path / "s.sock")
    listener = _silent_server(path)
    try:
        conn = FastConnection(path, "key", 0.3)
        assert conn.sock is not None and conn.sock.gettimeout() is None  # blocking: no poll per call
        sec, usec = struct.unpack("@ll", conn.sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, struct.calcsize("@ll")))
        assert (sec, usec) != (0, 0)
        with pytest.raises(socket.timeout):
            conn.step_one(0)
        assert conn.closed
        # The split request (send, then receive its reply) the same way.
        split = FastConnection(path, "key", 0.3)
        split.send(OP_STEP, b"")
        with pytest.raises(socket.timeout):
            split.receive()
        assert split.closed
    finally:
        listener.close()
