from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hang_guard import hang_guard

import cardgym
from cardgym.server import wait_gone


def test_tensors_are_zero_copy_numpy_views(client):
    s = client.create_session("sevens", num_envs=4, seed=0)
    try:
        b = s.reset()
        obs = b["obs"]
        assert obs.dtype == np.float32 and obs.shape == (4, s.observation_size)
        assert not obs.flags.writeable and not obs.flags.owndata  # a view of the reply bytes
        assert b["mask"].dtype == np.uint8 and b["terminated"].dtype == np.bool_
        assert b["info"]["returns"].shape == (4, s.num_seats)
    finally:
        s.close()


def test_tensor_decoding_of_json_and_msgpack_forms():
    raw = np.arange(6, dtype="<i4")
    a = cardgym.tensor({"dtype": "int32", "shape": [2, 3], "data": raw.tobytes()})
    b = cardgym.tensor({"dtype": "int32", "shape": [2, 3], "data": raw.tolist()})
    assert np.array_equal(a, raw.reshape(2, 3)) and np.array_equal(a, b)


def test_one_keep_alive_connection_is_reused(client):
    client.health()
    sock = client._conn.sock
    for _ in range(20):
        client.health()
    assert client._conn.sock is sock


def test_unreachable_server_raises_a_clear_error():
    c = cardgym.Client("http://127.0.0.1:9")  # discard port: nothing listens there
    with pytest.raises(cardgym.ServerUnavailable) as err:
        c.games()
    assert "127.0.0.1:9" in str(err.value) and "npm start" in str(err.value)
    assert isinstance(err.value, ConnectionError)
    c.close()


def test_a_body_over_the_limit_is_reported_as_body_too_large(client):
    # The server refuses on the declared length and closes before reading the body: the client
    # must read its 413 rather than report the broken pipe as a dead server.
    for size in (2_000_000, 50_000_000):
        with pytest.raises(cardgym.ServerError) as err:
            client.request("POST", "/v1/sessions", {"game": "sevens", "pad": "x" * size}, plain=True)
        assert err.value.code == "body_too_large" and err.value.status == 413
    assert client.health()["ok"] is True


@pytest.mark.skipif(sys.platform == "win32", reason="SIGSTOP is POSIX")
def test_an_unresponsive_embedded_server_is_not_told_to_leave_the_url_unset():
    # The URL was unset already (cardgym started this server): the advice must not say to unset it.
    # The 1 s timeout is what the stopped server must run into; before that, a loaded machine may
    # need more than 1 s to answer, so the health check retries until it answers.
    c = cardgym.Client(private_server=True, timeout=1.0)
    try:
        health = None
        for _ in range(int(hang_guard())):
            try:
                health = c.health()
                break
            except cardgym.ServerUnavailable:
                continue
        assert health is not None and health["ok"] is True
        os.kill(c.server.pid, signal.SIGSTOP)
        try:
            with pytest.raises(cardgym.ServerUnavailable) as err:
                c.games()
        finally:
            os.kill(c.server.pid, signal.SIGCONT)
        text = str(err.value)
        assert "leave the URL unset" not in text and "embedded" in text and str(c.server.pid) in text
    finally:
        c.close()


def test_bad_url_is_refused():
    with pytest.raises(ValueError):
        cardgym.Client("ftp://example/")


def test_unknown_session_error(client):
    with pytest.raises(cardgym.ServerError) as err:
        client.request("POST", "/v1/sessions/nope/step", {"actions": [0]})
    assert err.value.code == "unknown_session" and err.value.status == 404


def test_step_before_reset_is_refused_by_the_server(client):
    s = client.create_session("sevens", seed=0)
    try:
        with pytest.raises(cardgym.ServerError) as err:
            s.step([0])
        assert err.value.code == "reset_required" and err.value.status == 409
    finally:
        s.close()


def test_private_server_stops_on_close():
    c = cardgym.Client(private_server=True)
    pid = c.server.pid
    assert c.health()["ok"] is True
    c.close()
    assert wait_gone(pid, timeout=hang_guard()), f"server pid {pid} still alive after close()"
    with pytest.raises(cardgym.ServerUnavailable):
        c.health()


def run_python(code: str, **environ: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "CARDGYM_URL"}
    env.update(environ)
    # The code names its hang guard HANG_GUARD_S (seconds).
    code = textwrap.dedent(code).replace("HANG_GUARD_S", repr(hang_guard()))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=hang_guard(600))
    assert out.returncode == 0, out.stderr
    return out.stdout


# These three are about a server of the process's own (CARDGYM_SHARED_SERVER=0); the server
# shared between processes has its own tests (test_shared_server.py).
PROCESS_SERVER = {"CARDGYM_SHARED_SERVER": "0"}


def test_closing_the_env_stops_the_embedded_server():
    # A fresh interpreter, as a user's script: no URL, so cardgym starts the server itself.
    out = run_python(
        """
        import cardgym
        from cardgym.server import wait_gone
        env = cardgym.make("sevens", seed=0)
        env.reset()
        pid = env.client.server.pid
        print(pid)
        env.close()
        print(wait_gone(pid, timeout=HANG_GUARD_S))
        """,
        **PROCESS_SERVER,
    )
    pid, gone = out.split()
    assert gone == "True"
    assert wait_gone(int(pid), timeout=1)


def test_the_embedded_server_is_shared_until_the_last_env_closes():
    out = run_python(
        """
        import cardgym, gymnasium
        from cardgym.server import wait_gone
        a = cardgym.make("sevens", seed=0)
        b = gymnasium.make("cardgym/shephy-v0")
        v = cardgym.make_vec("sevens", 4)
        pids = {a.client.server.pid, b.unwrapped.client.server.pid, v.client.server.pid}
        assert len(pids) == 1, pids
        pid = pids.pop()
        a.close(); b.close()
        print(wait_gone(pid, timeout=0.5))
        v.reset(); v.close()
        print(wait_gone(pid, timeout=HANG_GUARD_S), pid)
        """,
        **PROCESS_SERVER,
    )
    alive_after_two, gone_after_last, pid = out.split()
    assert alive_after_two == "False" and gone_after_last == "True"


def test_server_is_stopped_at_interpreter_exit_without_close():
    out = run_python(
        """
        import cardgym
        env = cardgym.make("sevens", seed=0)
        print(env.client.server.pid)
        """,
        **PROCESS_SERVER,
    )
    assert wait_gone(int(out.strip()), timeout=hang_guard())


def test_embedded_server_start_error_is_clear(tmp_path):
    with pytest.raises(cardgym.ServerStartError) as err:
        cardgym.Client(private_server=True, repo=str(tmp_path))
    assert "scripts/serve.ts" in str(err.value)


def test_a_connection_closed_while_idle_is_replaced_before_sending(client):
    import socket

    s = client.create_session("sevens", seed=0)
    try:
        client._conn.sock.shutdown(socket.SHUT_RDWR)  # as if the server dropped the idle connection
        client._conn.last_used -= 60  # ... after a minute without requests
        s.reset()  # a POST: not retried, so this only works if the dead connection is noticed first
        assert client.health()["ok"] is True
    finally:
        s.close()


def test_a_connection_in_steady_use_is_not_probed_before_each_request(client, monkeypatch):
    import cardgym.http as http

    probes = []
    real = http.select.select
    monkeypatch.setattr(http.select, "select", lambda *a: probes.append(1) or real(*a))
    client.health()
    for _ in range(20):
        client.health()
    assert probes == []  # no syscall per step in a training loop
    client._conn.last_used -= 60
    client.health()
    assert len(probes) == 1  # an idle connection is checked before it is reused


def test_actions_must_be_integers(client):
    s = client.create_session("sevens", seed=0)
    try:
        s.reset()
        with pytest.raises(TypeError):
            s.step([1.5])
        with pytest.raises(TypeError):
            s.step(np.array([1.0]))
    finally:
        s.close()


def test_importing_cardgym_starts_no_server():
    out = run_python(
        """
        import gymnasium, cardgym, cardgym.server as server
        assert "cardgym/sevens-v0" in gymnasium.registry
        print(server.shared_server() is None)
        """
    )
    assert out.strip() == "True"


@pytest.mark.skipif(not hasattr(__import__("socket"), "AF_UNIX"), reason="no Unix domain sockets on this platform")
def test_the_embedded_server_listens_on_a_private_unix_socket():
    import stat

    c = cardgym.Client(private_server=True)
    try:
        assert c.server.transport == "unix" and c.url.startswith("unix:/")
        path = c.url[len("unix:") :]
        assert stat.S_ISSOCK(os.stat(path).st_mode)
        # The folder is ours alone: other users cannot reach the socket.
        assert stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode) == 0o700
        env = cardgym.make("sevens", client=c, seed=3)
        obs, _ = env.reset()
        obs, reward, terminated, truncated, _ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        assert obs["observation"].shape == (env.observation_space["observation"].shape[0],)
        env.close()
        # Another client reaches the same server by its unix: URL.
        other = cardgym.Client(c.url)
        assert other.health()["ok"] is True
        other.close()
    finally:
        c.close()
    assert not os.path.exists(os.path.dirname(path)), "the socket folder is removed when the server stops"


def test_unix_and_tcp_transports_give_identical_observations():
    def stream(client):
        env = cardgym.make("sevens", client=client, seed=11)
        obs, _ = env.reset()
        out = [obs["observation"].copy()]
        for _ in range(30):
            obs, _, te, tr, _ = env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
            out.append(obs["observation"].copy())
            if te or tr:
                obs, _ = env.reset()
        env.close()
        return np.stack(out)

    tcp = cardgym.Client(private_server=True, transport="tcp")
    try:
        assert tcp.url.startswith("http://127.0.0.1:")
        a = stream(tcp)
    finally:
        tcp.close()
    unix = cardgym.Client(private_server=True)
    try:
        b = stream(unix)
    finally:
        unix.close()
    assert np.array_equal(a, b)


def test_unix_socket_urls_are_checked():
    with pytest.raises(ValueError, match="absolute path"):
        cardgym.Client("unix:relative.sock")
    with pytest.raises(ValueError, match="private_server"):
        cardgym.Client("http://127.0.0.1:9", transport="tcp")
    c = cardgym.Client("unix:///nonexistent/cardgym.sock")
    assert c.url == "unix:/nonexistent/cardgym.sock"
    with pytest.raises(cardgym.ServerUnavailable) as err:
        c.health()
    assert "/nonexistent/cardgym.sock" in str(err.value)
    c.close()


def test_create_body_writes_every_option_under_its_wire_name_in_order():
    from cardgym.client import create_body

    body = create_body(
        "sevens", seats=("learner", "random"), config={"numPlayers": 3}, num_envs=2, seed=5, max_decisions=9,
        obs_dtype="uint8", autoreset="same-step", learner_seat="random", illegal_action="terminate",
        illegal_reward=-2, observe="acting",
    )
    assert list(body.items()) == [
        ("game", "sevens"), ("numEnvs", 2), ("seed", 5), ("obsDtype", "uint8"), ("autoreset", "same-step"),
        ("learnerSeat", "random"), ("illegalAction", "terminate"), ("illegalReward", -2.0), ("observe", "acting"),
        ("seats", ["learner", "random"]), ("config", {"numPlayers": 3}), ("maxDecisions", 9),
    ]
    assert create_body("dcg") == {"game": "dcg", "numEnvs": 1, "seed": 0}
    assert create_body("dcg", config={}, obs_dtype="float32", observe=None) == {"game": "dcg", "numEnvs": 1, "seed": 0}


def test_a_misspelt_session_option_is_a_type_error_before_any_request(client, monkeypatch):
    requests = []
    monkeypatch.setattr(client, "request", lambda *args, **kwargs: requests.append(args))
    with pytest.raises(TypeError, match="unexpected keyword argument 'num_env'"):
        client.create_session("sevens", num_env=4)
    assert requests == []


def test_session_close_is_idempotent_and_says_so(client):
    s = client.create_session("sevens", seed=0)
    assert not s.closed
    s.close()
    s.close()
    assert s.closed
