"""The embedded server must not outlive its Python parent, however the parent dies."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hang_guard import hang_guard

# "thread": the parent starts its server from a non-main thread: server.py then skips Linux's
# PR_SET_PDEATHSIG, so only the stdin pipe (--exit-on-stdin-eof) can tell the server that the
# parent is gone, which is what happens on macOS and Windows. "main": the usual case on Linux,
# where the parent's death both closes the pipe and sends the server SIGTERM.
PARENT = r"""
import sys, threading, time
sys.path.insert(0, sys.argv[1])
from cardgym.server import EmbeddedServer
box = []
if sys.argv[2] == "thread":
    t = threading.Thread(target=lambda: box.append(EmbeddedServer(transport="unix")))
    t.start(); t.join()
else:
    box.append(EmbeddedServer(transport="unix"))
    # A parent at work: a thread of its own steps a session, so the server is busy when it dies.
    import numpy as np
    from cardgym import Client
    session = Client(box[0].url).create_session("dcg", num_envs=256, seed=1)
    first = session.reset()
    def work(b=first):
        while True:
            b = session.step(b["mask"].argmax(axis=1))
    threading.Thread(target=work, daemon=True).start()
print(box[0].pid, box[0]._socket_dir, flush=True)
time.sleep(600)
"""


def _exited(pid: int) -> bool:
    """True when no process has this pid, or it is a zombie nobody reaped yet (it has exited)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    status = Path(f"/proc/{pid}/status")
    try:
        return any(line.split()[1] == "Z" for line in status.read_text().splitlines() if line.startswith("State:"))
    except OSError:
        return False


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX; Windows closes the pipe the same way on TerminateProcess")
@pytest.mark.parametrize("started_from", ["thread", "main"])
def test_server_exits_when_its_parent_is_killed(started_from: str) -> None:
    package_root = str(Path(__file__).resolve().parents[1])
    parent = subprocess.Popen([sys.executable, "-c", PARENT, package_root, started_from], stdout=subprocess.PIPE, text=True)
    server_pid = 0
    try:
        assert parent.stdout is not None
        line = parent.stdout.readline().strip()
        pid, _, socket_dir = line.partition(" ")
        assert pid.isdigit() and socket_dir.startswith("/"), f"parent did not report a server pid and socket folder: {line!r}"
        server_pid = int(pid)
        assert os.path.isdir(socket_dir)
        assert not _exited(server_pid)
        parent.send_signal(signal.SIGKILL)
        parent.wait(hang_guard())
        deadline = time.monotonic() + hang_guard()
        while time.monotonic() < deadline and not _exited(server_pid):
            time.sleep(0.05)
        assert _exited(server_pid), "the server outlived its SIGKILLed parent"
        deadline = time.monotonic() + hang_guard()
        while time.monotonic() < deadline and os.path.exists(socket_dir):
            time.sleep(0.05)
        assert not os.path.exists(socket_dir), "the server left its private socket folder behind"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait(hang_guard())
        if parent.stdout is not None:
            parent.stdout.close()
        if server_pid and not _exited(server_pid):
            os.kill(server_pid, signal.SIGKILL)
