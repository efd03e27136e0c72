"""The embedded server shared by the processes of one user: one server for many processes, started
once however many start together, alive while any holds a lease (even after the process that
started it is gone), gone after the last one (also a SIGKILLed one), recovered after a crash, and
never shared across builds. Each test uses a folder of its own (CARDGYM_SHARED_DIR) and a zero
grace (CARDGYM_SHARED_GRACE), and waits on processes, never on the clock."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Dict, Iterator, List, Optional

import pytest
from hang_guard import hang_guard

import cardgym

pytestmark = pytest.mark.skipif(sys.platform == "win32" or not hasattr(socket, "AF_UNIX"), reason="the shared server needs Unix sockets and flock")

# A client process driven line by line: each command answers one line.
CHILD = r"""
import sys
import cardgym
print("ready", flush=True)
env = None
for line in sys.stdin:
    cmd = line.split()
    if cmd[0] == "make":
        env = cardgym.make("sevens", seed=0)
        env.reset()
        server = env.client.server
        print(server.pid, getattr(server, "started", "-"), env.session.id, env.client.url, flush=True)
    elif cmd[0] == "step":
        obs, _ = env.reset()
        env.step(int(obs["action_mask"].nonzero()[0][0]))
        print("ok", flush=True)
    elif cmd[0] == "close":
        env.close()
        print("closed", flush=True)
"""


class ClientProcess:
    """A Python process using cardgym, answering one line per command (see CHILD)."""

    def __init__(self, folder: str, **environ: str):
        env = {k: v for k, v in os.environ.items() if k not in ("CARDGYM_URL", "CARDGYM_SHARED_SERVER")}
        env.update({"CARDGYM_SHARED_DIR": folder, "CARDGYM_SHARED_GRACE": "0", **environ})
        self.process = subprocess.Popen([sys.executable, "-c", CHILD], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self._lines: queue.Queue[Optional[str]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        assert self._next() == "ready"

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line.strip())
        self._lines.put(None)

    def _next(self) -> str:
        try:
            line = self._lines.get(timeout=hang_guard())
        except queue.Empty:
            raise AssertionError("hang guard: the client process did not answer") from None
        if line is None:
            assert self.process.stderr is not None
            raise AssertionError(f"the client process exited: {self.process.stderr.read()}")
        return line

    def send(self, command: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()

    def ask(self, command: str) -> str:
        self.send(command)
        return self._next()

    def make(self) -> Dict[str, str]:
        pid, started, session, url = self.ask("make").split()
        return {"pid": pid, "started": started, "session": session, "url": url}

    def exit(self) -> None:
        """Ends the process normally (stdin closed: the loop ends, the interpreter exits)."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(hang_guard())

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(hang_guard())


def exited(pid: int) -> bool:
    """True when no process has this pid, or it is a zombie nobody reaped yet (it has exited)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        return any(line.split()[1] == "Z" for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("State:"))
    except OSError:
        return False


def wait_exited(pid: int) -> bool:
    """Waits (up to the hang guard) for a process to end; True if it did."""
    deadline = time.monotonic() + hang_guard()
    while not exited(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return exited(pid)


@pytest.fixture
def folder() -> Iterator[str]:
    # Short: the sockets' paths must fit in a Unix socket address.
    path = tempfile.mkdtemp(prefix="cgs-")
    yield path
    for pid_file in Path(path).glob("*/*/pid"):
        pid = int(pid_file.read_text())
        if not exited(pid):
            os.kill(pid, signal.SIGKILL)
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def spawn(folder: str) -> Iterator:
    made: List[ClientProcess] = []

    def start(**environ: str) -> ClientProcess:
        c = ClientProcess(folder, **environ)
        made.append(c)
        return c

    yield start
    for c in made:
        if c.process.poll() is None:
            c.kill()


def test_two_processes_share_one_server_which_outlives_its_starter_and_exits_after_the_last(spawn) -> None:
    a, b = spawn(), spawn()
    first, second = a.make(), b.make()
    assert first["pid"] == second["pid"], "the second process started a server of its own"
    assert (first["started"], second["started"]) == ("True", "False")
    assert first["url"] == second["url"]
    pid = int(first["pid"])
    # The process that started the server ends; the other keeps using it.
    a.ask("close")
    a.exit()
    assert b.ask("step") == "ok"
    assert not exited(pid)
    b.ask("close")
    assert wait_exited(pid), "the shared server outlived its last client"
    b.exit()


def test_a_sigkilled_client_releases_its_lease(spawn) -> None:
    a, b = spawn(), spawn()
    first, second = a.make(), b.make()
    assert first["pid"] == second["pid"]
    pid = int(first["pid"])
    b.kill()  # no close(), no atexit: only the OS can release its lease
    assert a.ask("step") == "ok"
    # The starter closes its env but its process lives on: only the leases can end the server.
    a.ask("close")
    assert wait_exited(pid), "a SIGKILLed client's lease kept the shared server alive"
    a.exit()


def test_a_crashed_servers_stale_socket_is_recovered(spawn, folder: str) -> None:
    a = spawn()
    first = a.make()
    crashed = int(first["pid"])
    os.kill(crashed, signal.SIGKILL)  # leaves server.sock and lease.sock behind, and `current` naming them
    assert wait_exited(crashed)
    stale = [p for p in Path(folder).glob("*/*/lease.sock")]
    assert stale, "the killed server's lease socket should still be there"
    b, c = spawn(), spawn()
    second, third = b.make(), c.make()
    assert second["pid"] != first["pid"] and second["started"] == "True"
    assert third["pid"] == second["pid"], "after recovery the new server is shared again"
    assert c.ask("step") == "ok"
    assert not any(p.exists() for p in stale), "the crashed server's folder was not cleaned up"


def test_four_processes_starting_at_once_make_exactly_one_server(spawn) -> None:
    clients = [spawn() for _ in range(4)]  # each has imported cardgym and waits
    for c in clients:
        c.send("make")  # all four ask at once
    replies = [c._next().split() for c in clients]
    pids = {r[0] for r in replies}
    assert len(pids) == 1, f"{len(pids)} servers for 4 processes"
    assert sorted(r[1] for r in replies) == ["False", "False", "False", "True"]
    for c in clients:
        assert c.ask("step") == "ok"
        c.ask("close")
    assert wait_exited(int(pids.pop()))


def test_a_server_of_another_build_is_not_shared(spawn, folder: str) -> None:
    from cardgym import server, shared_server

    node = server.find_node()
    key = shared_server.build_key(server._find_server(None), node, server.node_version(node))
    # A server of another build where ours would be: it greets with its build id.
    impostor = Path(folder) / key / ("ab" * 8)
    impostor.mkdir(parents=True, mode=0o700)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(impostor / "lease.sock"))
    listener.listen(8)
    greeted: List[int] = []

    def greet() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            hello = {"cardgym": "lease", "build": "another-build", "pid": os.getpid(), "url": f"unix:{impostor}/server.sock"}
            conn.sendall((json.dumps(hello) + "\n").encode())
            greeted.append(1)
            conn.close()

    threading.Thread(target=greet, daemon=True).start()
    (Path(folder) / key / "current").write_text("ab" * 8)
    try:
        a, b = spawn(), spawn()
        first = a.make()
        assert greeted, "the client did not ask the server that was there"
        assert first["pid"] != str(os.getpid()) and first["started"] == "True"
        assert a.ask("step") == "ok"
        assert b.make()["pid"] == first["pid"], "the server started beside the other build's is shared"
        # A different server setting is a different build: its own server.
        c = spawn(CARDGYM_DATA_DIR=os.path.join(folder, "data"))
        assert c.make()["pid"] != first["pid"]
    finally:
        listener.close()


def test_the_opt_out_starts_a_server_of_the_process_own(spawn) -> None:
    a, b, c = spawn(), spawn(CARDGYM_SHARED_SERVER="0"), spawn()
    first, own, third = a.make(), b.make(), c.make()
    assert own["pid"] != first["pid"] and own["started"] == "-"  # an EmbeddedServer of its own
    assert third["pid"] == first["pid"]
    own_pid = int(own["pid"])
    b.ask("close")
    assert wait_exited(own_pid), "the opted-out process's own server did not stop with its last client"


def test_the_client_argument_opts_out(folder: str, monkeypatch) -> None:
    monkeypatch.setenv("CARDGYM_SHARED_DIR", folder)
    monkeypatch.delenv("CARDGYM_URL", raising=False)
    with cardgym.Client(shared_server=False) as own:
        assert isinstance(own.server, cardgym.server.EmbeddedServer)
        assert not list(Path(folder).iterdir()), "an opted-out client touched the shared folder"


def test_sessions_of_other_processes_cannot_be_found(spawn) -> None:
    a, b = spawn(), spawn()
    made = a.make()
    assert b.make()["url"] == made["url"]
    # Another client of the same server (as b is): it can reach a's session only by its id.
    with cardgym.Client(made["url"]) as other:
        # Nothing another client can ask lists the sessions of others.
        for path in ("/healthz", "/metrics", "/v1/games"):
            assert made["session"] not in json.dumps(other.request("GET", path), default=str)
        with pytest.raises(cardgym.ServerError) as err:
            other.request("GET", "/v1/sessions")
        assert err.value.status == 404
        with pytest.raises(cardgym.ServerError) as err:
            other.request("GET", "/v1/sessions/" + "A" * 16)
        assert err.value.status == 404
    # The fast path's worker sockets sit beside the server's: attaching needs the key the server
    # hands out for a session id, so a made-up key (or the id itself) is refused.
    from cardgym.fastpath import FastConnection, FastPathBroken

    workers = sorted(Path(made["url"][len("unix:") :]).parent.glob("server.sock.w*"))
    assert workers, "the shared server serves no fast path"
    for path in workers:
        for key in ("A" * 22, made["session"]):
            with pytest.raises(FastPathBroken, match="attach refused"):
                FastConnection(str(path), key, hang_guard())
    assert a.ask("step") == "ok"


def test_the_build_key_follows_the_sources_and_not_whether_they_were_built(tmp_path: Path) -> None:
    from cardgym.shared_server import build_key

    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "serve.ts").write_text("serve")
    (tmp_path / "engine" / "core").mkdir(parents=True)
    (tmp_path / "engine" / "core" / "rules.ts").write_text("a")
    (tmp_path / "package.json").write_text("{}")

    def key(**environ: str) -> str:
        return build_key(tmp_path, "/usr/bin/node", environ.pop("version", "v22.13.0"), environ)

    before = key()
    # Building the bundle (what the first server start does) leaves the key as it was: processes
    # started before and after a build of the same sources share one server.
    (tmp_path / ".bundle" / "cache").mkdir(parents=True)
    (tmp_path / ".bundle" / "cache" / "serve.json").write_text(json.dumps({"key": "k", "inputs": ["scripts/serve.ts", "engine/core/rules.ts"], "files": []}))
    assert key() == before
    os.utime(tmp_path / "engine" / "core" / "rules.ts", ns=(1, 1))  # a source changed
    changed = key()
    assert changed != before
    (tmp_path / "engine" / "core" / "new.ts").write_text("b")  # a source added
    assert key() != changed
    assert key(version="v24.0.0") != key()
    assert key(CARDGYM_TOKEN="secret-token") != key()


def _build_folder(folder: str) -> Path:
    from cardgym import server, shared_server

    node = server.find_node()
    return Path(folder) / shared_server.build_key(server._find_server(None), node, server.node_version(node))


def test_a_build_folder_whose_lock_cannot_be_opened_falls_back_to_a_server_of_the_process_own(spawn, folder: str) -> None:
    # A lock that cannot be opened (here a folder where the lock file should be: refused even to
    # root, as a build folder without write permission is refused to its user) must not fail
    # make(): the process starts its own server and says why.
    (_build_folder(folder) / "lock").mkdir(parents=True, mode=0o700)
    a = spawn()
    made = a.make()
    assert made["started"] == "-", "expected a server of the process's own (an EmbeddedServer)"
    assert a.ask("step") == "ok"
    a.ask("close")
    a.exit()
    assert a.process.stderr is not None
    assert "cannot share the cardgym server between processes (cannot open the lock file" in a.process.stderr.read()


def test_a_build_folder_where_no_server_folder_can_be_made_is_not_shareable(folder: str, monkeypatch) -> None:
    # The build folder can be locked but not written into (mode 0500 for its user; root ignores
    # modes, so the refusal is simulated): NotShareable, which the client turns into a server of
    # its own, never a PermissionError out of make().
    from cardgym import server, shared_server

    monkeypatch.setenv("CARDGYM_SHARED_DIR", folder)
    build = _build_folder(folder)
    build.mkdir(mode=0o700)
    real_mkdir = os.mkdir

    def refuse(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if Path(path).parent == build:
            raise PermissionError(13, "Permission denied", str(path))
        return real_mkdir(path, *args, **kwargs)

    monkeypatch.setattr(os, "mkdir", refuse)
    found = server._find_server(None)
    node = server.find_node()
    repo, program = server._server_program(found)
    with pytest.raises(shared_server.NotShareable, match="Permission denied"):
        shared_server.lease(found, repo, program, node, server.node_version(node), list(server.SERVER_NODE_FLAGS), server.node_environment(), server.START_TIMEOUT)
    assert [p.name for p in build.iterdir()] == ["lock"], "nothing but the lock may be left in the build folder"


def _plant_build(base: Path, name: str, pid: Optional[int], lease_socket: bool = False) -> Path:
    """A build folder as a server of that build leaves it: its lock, `current` and one server
    folder with its pid (none: a start that failed), log and, if asked, a listening lease socket."""
    build = base / name
    instance = build / ("0f" * 8)
    instance.mkdir(parents=True, mode=0o700)
    (build / "lock").touch()
    (build / "current").write_text("0f" * 8)
    (instance / "server.log").write_text("a server's output\n")
    if pid is not None:
        (instance / "pid").write_text(str(pid))
    return build


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait(hang_guard())
    return p.pid


def test_starting_a_server_prunes_the_folders_of_other_builds_whose_servers_are_gone(spawn, folder: str) -> None:
    import fcntl

    base = Path(folder)
    alive = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        stale = _plant_build(base, "a1" * 12, _dead_pid())
        failed_start = _plant_build(base, "a2" * 12, None)
        running = _plant_build(base, "b1" * 12, alive.pid)
        # A server whose pid file is wrong but whose lease socket answers is still running.
        answering = _plant_build(base, "b2" * 12, _dead_pid())
        listener.bind(str(answering / ("0f" * 8) / "lease.sock"))
        listener.listen(1)
        # A process of that build is starting or joining its server now: it holds the lock.
        locking = _plant_build(base, "b3" * 12, _dead_pid())
        held = os.open(locking / "lock", os.O_RDWR)
        fcntl.flock(held, fcntl.LOCK_EX)
        not_a_build = base / "notes"
        not_a_build.mkdir()
        a = spawn()
        assert a.make()["started"] == "True"
        os.close(held)
        left = sorted(p.name for p in base.iterdir())
        assert not stale.exists() and not failed_start.exists(), f"stale build folders left: {left}"
        for kept in (running, answering, locking, not_a_build):
            assert kept.exists(), f"{kept.name} was removed"
        assert (running / ("0f" * 8) / "server.log").exists()
        assert _build_folder(folder).exists(), "the new server's own folder"
        assert a.ask("step") == "ok"
    finally:
        listener.close()
        # The folder fixture kills the pids it finds: not these, whose numbers may be reused by now.
        for planted in Path(folder).glob("[ab]?" * 12 + "/*/pid"):
            planted.unlink()
        assert alive.stdin is not None
        alive.stdin.close()
        alive.wait(hang_guard())


def test_a_process_whose_build_folder_is_pruned_while_it_takes_the_lock_takes_it_again(folder: str, monkeypatch) -> None:
    # The pruner removes the folder between this process's open of the lock and its flock: the
    # lock it then holds is on a removed file and guards nothing; it must hold the one at the path.
    import fcntl

    from cardgym import shared_server

    build = Path(folder) / ("c1" * 12)
    build.mkdir(mode=0o700)
    real_flock = fcntl.flock
    pruned: List[int] = []

    def prune_first(fd: int, op: int) -> None:
        if not pruned:
            pruned.append(fd)
            shutil.rmtree(build)
        real_flock(fd, op)

    monkeypatch.setattr(fcntl, "flock", prune_first)
    with shared_server._locked(build / "lock"):
        monkeypatch.setattr(fcntl, "flock", real_flock)
        assert pruned and (build / "lock").exists(), "the folder and its lock were not made again"
        other = os.open(build / "lock", os.O_RDWR)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(other)
