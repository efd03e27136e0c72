"""The machine-shared embedded server: the processes of one user on one machine that need the
same server share one, instead of each starting its own (an RLlib run's env runners, a notebook
and a script, several trainers).

How it works:

* **Where.** A private folder (mode 0700, owned by this user): ``$CARDGYM_SHARED_DIR``, else
  ``$XDG_RUNTIME_DIR/cardgym``, else ``<temp dir>/cardgym-<uid>``. In it, one folder per build
  (below), and in that one folder per server it started: ``server.sock`` (the server's Unix
  socket), ``lease.sock`` (its leases) and ``server.log`` (what it printed).
* **Build.** The build key hashes what decides which server runs and how: the checkout's path and
  the size and modification time of every file in its source folders and of npm's lock files
  (for an installed wheel, the bundled server's files), the
  Node.js executable and version, and the server's environment settings (``CARDGYM_TOKEN``,
  ``CARDGYM_DATA_DIR``). Processes share a server only if their keys are equal, and the server
  repeats its key in its greeting, so a client never uses a server of another build.
* **Start.** Under an exclusive file lock (``flock`` on ``lock`` in the build's folder), a process
  connects to the current server's ``lease.sock``; if nothing answers (no server yet, a crashed
  one's stale socket, one shutting down) it starts a new server in a fresh folder, detached (its
  own session, stdin closed, output to ``server.log``) so that it outlives the process that
  started it, and waits until it greets. N processes starting at once make exactly one server.
* **Leases.** Each process holds one connection to ``lease.sock`` while any of its clients uses
  the server. The server counts them; the OS closes a connection however its process ends
  (close(), exit, SIGKILL), so a dead client never keeps a server alive. When the last lease is
  gone the server waits ``CARDGYM_SHARED_GRACE`` seconds (default 5) for a new one, then exits.
  A forked child inherits its parent's lease with the connection (both must end to release it).
* **Pruning.** A process that starts a server first removes the folders of other builds whose
  servers are all gone (no live pid, no lease socket that answers), each only while it holds
  that build's lock, taken without waiting: a folder in use, or one a process of its build is
  locking now, is left.
* **Opt out.** ``CARDGYM_SHARED_SERVER=0`` or ``Client(shared_server=False)``: each process
  starts its own server, stopped when its last client closes. Sharing also needs Unix sockets and
  ``fcntl`` (not on Windows) and the ``unix`` transport; elsewhere, or if the folder is unusable
  (not ours, not writable, path too long), the process starts its own server as before.

Sessions stay isolated: a session is reached only through its id (96 random bits), and no route
lists the ids of other sessions, so a process cannot touch sessions it was not told about.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import secrets
import shutil
import socket
import stat
import subprocess
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Dict, Iterator, List, Mapping, Optional

from .errors import ServerStartError

_log = logging.getLogger("cardgym.server")

#: Changes when the layout or the handshake changes: servers of another layout are never shared.
LAYOUT = "cardgym-shared-1"
DEFAULT_GRACE_SECONDS = 5.0
#: The checkout's folders the server is bundled from or reads at start (card data).
SOURCE_DIRS = ("engine", "env", "agents", "scripts", "cards")
#: The server's settings that come from the environment (scripts/serve.ts): part of the build key.
SERVER_ENVIRONMENT = ("CARDGYM_TOKEN", "CARDGYM_DATA_DIR")
#: Longest socket path we make, leaving room for the fast path's ``.w<i>`` sockets beside it.
_MAX_SOCKET_PATH = 94
#: Largest greeting we read (it is one short line of JSON).
_MAX_HELLO = 4096
#: How long a greeting may take; a server that does not greet in time is treated as unusable.
HELLO_TIMEOUT = 10.0


class NotShareable(Exception):
    """Sharing cannot be used here (the caller starts a server of its own)."""


def wanted(shared: Optional[bool] = None) -> bool:
    """Whether clients that asked for the default server share one across processes: ``shared``
    if given, else ``CARDGYM_SHARED_SERVER`` (on unless 0/false/no/off)."""
    if shared is not None:
        return bool(shared)
    raw = os.environ.get("CARDGYM_SHARED_SERVER", "").strip().lower()
    if raw in ("", "1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"CARDGYM_SHARED_SERVER must be 1 or 0 (true/false, yes/no, on/off), got {raw!r}")


def grace_seconds() -> float:
    raw = os.environ.get("CARDGYM_SHARED_GRACE", "")
    if raw == "":
        return DEFAULT_GRACE_SECONDS
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 86_400:
        raise ValueError(f"CARDGYM_SHARED_GRACE must be seconds between 0 and 86400, got {raw!r}")
    return value


def base_dir() -> Path:
    """The user's folder for shared servers (see the module docstring); not created here."""
    explicit = os.environ.get("CARDGYM_SHARED_DIR")
    if explicit:
        return Path(explicit).expanduser().absolute()
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime):
        try:
            st = os.stat(runtime)
            if stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o077:
                return Path(runtime) / "cardgym"
        except OSError:
            pass
    return Path(tempfile.gettempdir()) / f"cardgym-{os.getuid()}"


def private_dir(path: Path) -> Path:
    """Creates ``path`` (mode 0700) or checks the one there: a real folder of this user, which
    only this user may enter. Raises NotShareable otherwise (another user's folder in /tmp)."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError as e:
        raise NotShareable(f"cannot create {path}: {e}") from None
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        raise NotShareable(f"{path} is not a folder of this user")
    if st.st_mode & 0o077:
        try:
            os.chmod(path, 0o700)
        except OSError as e:
            raise NotShareable(f"cannot make {path} private: {e}") from None
    return path


def build_key(found: Path, node: str, node_version: Optional[str], environ: Optional[Mapping[str, str]] = None) -> str:
    """The build key of the server at ``found`` (a checkout, or the wheel's serve.mjs) run by
    ``node``: equal keys, same server (see the module docstring)."""
    env = os.environ if environ is None else environ
    parts = [LAYOUT, str(found), node, node_version or "?"]
    parts += [f"{name}={env.get(name, '')}" for name in SERVER_ENVIRONMENT]
    if found.name == "serve.mjs":
        files = sorted(p.name for p in found.parent.iterdir() if p.is_file())
        parts += _stats(found.parent, files)
    else:
        parts += _stats(found, _checkout_files(found))
    return hashlib.sha256("\n".join(parts).encode("utf-8", "surrogateescape")).hexdigest()[:24]


def _checkout_files(checkout: Path) -> List[str]:
    """The checkout's files that make its server: every file in the source folders (SOURCE_DIRS
    and any other folder the last bundle was built from) and npm's records of what is installed.
    Not the bundle's own list of inputs: that changes when the bundle is rebuilt, and processes
    started before and after a rebuild of the same sources must agree."""
    folders = set(SOURCE_DIRS)
    for name in _bundle_inputs(checkout) or []:
        top, slash, _ = name.partition("/")
        if slash and top not in ("node_modules", "..", "") and not top.startswith("."):
            folders.add(top)
    files = ["package.json", "package-lock.json", "node_modules/.package-lock.json"]
    for folder in sorted(folders):
        for root, dirs, names in os.walk(checkout / folder):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            rel = os.path.relpath(root, checkout)
            files += [os.path.join(rel, n) for n in sorted(names)]
    return files


def _bundle_inputs(checkout: Path) -> Optional[List[str]]:
    """The files the checkout's cached server bundle was built from (run-bundled.mjs's record)."""
    try:
        record = json.loads((checkout / ".bundle" / "cache" / "serve.json").read_text("utf-8"))
        inputs = record["inputs"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(inputs, list) or len(inputs) > 100_000 or not all(isinstance(i, str) for i in inputs):
        return None
    return inputs


def _stats(root: Path, names: List[str]) -> List[str]:
    out = []
    for name in names:
        try:
            st = os.stat(root / name)
            out.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            out.append(f"{name}:missing")
    return out


#: How often a process takes a build's lock again when the build's folder was pruned meanwhile.
_LOCK_TRIES = 10


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Holds the exclusive lock ``path`` (a build folder's ``lock``). Another process may prune the
    build's folder while this one opens or waits for the lock (_prune_other_builds): a lock on a
    file that is no longer at ``path`` guards nothing, so the folder is made again and the lock
    taken anew."""
    import fcntl

    for _ in range(_LOCK_TRIES):
        private_dir(path.parent)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except FileNotFoundError:
            continue  # the folder was pruned between its making and this open
        except OSError as e:  # a folder we may not write into, a lock that is not a file
            raise NotShareable(f"cannot open the lock file {path}: {e}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            if _is_at(fd, path):
                yield
                return
        finally:
            os.close(fd)  # releases the lock
    raise NotShareable(f"the lock file {path} was removed {_LOCK_TRIES} times while this process took it")


def _is_at(fd: int, path: Path) -> bool:
    """Whether the open file ``fd`` is the file at ``path`` (not one removed or replaced since)."""
    try:
        at, held = os.stat(path), os.fstat(fd)
    except OSError:
        return False
    return (at.st_dev, at.st_ino) == (held.st_dev, held.st_ino)


#: A build folder's name: build_key's 24 hex digits.
_BUILD_NAME = re.compile(r"[0-9a-f]{24}")


def _prune_other_builds(base: Path, keep: str) -> None:
    """Removes the folders of other builds no server runs from any more. Every build leaves one (an
    edited source file is a new build) and nothing else removes it. A folder is removed only while
    this process holds its lock, taken without waiting (a process of that build starting or
    connecting holds it now: the folder stays), and only when none of its servers runs: no live
    pid, no lease socket that answers. Called by a process starting a server, under its own
    build's lock; a process of the pruned build that waited for the lock takes it again (_locked)."""
    import fcntl

    try:
        entries = list(base.iterdir())
    except OSError:
        return
    for entry in entries:
        if entry.name == keep or not _BUILD_NAME.fullmatch(entry.name) or entry.is_symlink() or not entry.is_dir():
            continue
        lock = entry / "lock"
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # held: a process of that build is starting or joining its server now
            if _is_at(fd, lock) and not _any_server_running(entry):
                shutil.rmtree(entry, ignore_errors=True)
                _log.info("removed %s: the folder of another cardgym build, whose servers are all gone", entry)
        finally:
            os.close(fd)


def _any_server_running(build: Path) -> bool:
    """Whether a server of this build folder may still run: a pid in it that is alive (or not ours
    to signal), or a lease socket that answers; a folder that cannot be read counts as running."""
    try:
        instances = [e for e in build.iterdir() if e.is_dir() and not e.is_symlink()]
    except OSError:
        return True
    for instance in instances:
        try:
            os.kill(int((instance / "pid").read_text("ascii")), 0)
            return True
        except ProcessLookupError:
            pass
        except PermissionError:
            return True
        except (OSError, ValueError):
            pass  # no pid: a start that failed
        if _answers(instance / "lease.sock"):
            return True
    return False


def _answers(path: Path) -> bool:
    """Whether something accepts connections on the Unix socket ``path`` (the connection is closed
    at once: a lease given back before any grace counts)."""
    if not path.exists():
        return False
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(HELLO_TIMEOUT)
        sock.connect(str(path))
        return True
    except OSError:
        return False
    finally:
        sock.close()


class SharedServer:
    """A lease on the machine-shared server: ``url`` and ``pid`` as for an EmbeddedServer;
    ``stop()`` gives the lease back (the server exits once no process holds one)."""

    transport = "unix"

    def __init__(self, lease: socket.socket, hello: Mapping[str, Any], repo: Path, node: str, node_version: Optional[str], folder: Path, started: bool):
        self._lease: Optional[socket.socket] = lease
        self.url: str = hello["url"]
        self.pid: int = hello["pid"]
        #: The build key the server greeted with (equal to ours).
        self.build: str = hello["build"]
        self.repo = repo
        self.node = node
        self.node_version = node_version
        #: The folder of this server's sockets and log.
        self.folder = folder
        #: Whether this process started the server (else it joined one already running).
        self.started = started

    @property
    def running(self) -> bool:
        try:
            os.kill(self.pid, 0)
            return True
        except ProcessLookupError:
            return False
        except PermissionError:
            return True

    def stop(self, timeout: float = 0.0) -> None:
        """Gives the lease back (idempotent); the server itself stops when no lease is left."""
        lease, self._lease = self._lease, None
        if lease is not None:
            try:
                lease.close()
            except OSError:
                pass


def _greet(path: Path, key: str) -> Optional[Dict[str, Any]]:
    """Connects to a lease socket and reads the greeting: ``{"socket", "hello"}`` if it is a server
    of build ``key``; None if nothing usable answers (no server, a stale socket, one on its way out).
    Raises NotShareable for a server of another build."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(HELLO_TIMEOUT)
        sock.connect(str(path))
        data = b""
        while b"\n" not in data and len(data) < _MAX_HELLO:
            chunk = sock.recv(_MAX_HELLO)
            if not chunk:
                break
            data += chunk
        line, newline, _ = data.partition(b"\n")
        if not newline:
            raise OSError("no greeting")
        hello = json.loads(line)
    except (OSError, ValueError):
        sock.close()
        return None
    if not _valid_hello(hello):
        sock.close()
        raise NotShareable(f"{path} answered with an unexpected greeting")
    if hello["build"] != key:
        sock.close()
        raise NotShareable(f"the server at {path} (pid {hello['pid']}) runs build {hello['build']!r}, not ours ({key!r})")
    sock.settimeout(None)
    return {"socket": sock, "hello": hello}


def _valid_hello(hello: Any) -> bool:
    return (
        isinstance(hello, dict)
        and hello.get("cardgym") == "lease"
        and isinstance(hello.get("build"), str)
        and isinstance(hello.get("pid"), int)
        and hello["pid"] > 0
        and isinstance(hello.get("url"), str)
        and hello["url"].startswith("unix:/")
    )


def lease(found: Path, repo: Path, program: List[str], node: str, node_version: Optional[str], node_args: List[str], env: Mapping[str, str], start_timeout: float) -> SharedServer:
    """A lease on the shared server for this build, started if none is running. Raises
    NotShareable when sharing cannot be used here, ServerStartError when a server fails to start."""
    key = build_key(found, node, node_version)
    folder = private_dir(private_dir(base_dir()) / key)
    if len(str(folder / "0123456789abcdef" / "server.sock").encode()) > _MAX_SOCKET_PATH:
        raise NotShareable(f"{folder} is too long a path for Unix sockets")
    with _locked(folder / "lock"):
        current = _read_current(folder)
        if current is not None:
            try:
                got = _greet(folder / current / "lease.sock", key)
            except NotShareable as e:
                # Never share a server of another build: start one of our own beside it.
                _log.warning("not sharing the cardgym server: %s; starting another", e)
                got = None
            if got is not None:
                return SharedServer(got["socket"], got["hello"], repo, node, node_version, folder / current, started=False)
        _remove_dead_servers(folder)
        _prune_other_builds(folder.parent, key)
        return _start(folder, key, repo, program, node, node_version, node_args, env, start_timeout)


def _read_current(folder: Path) -> Optional[str]:
    try:
        name = (folder / "current").read_text("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return name if len(name) == 16 and all(c in "0123456789abcdef" for c in name) else None


def _remove_dead_servers(folder: Path) -> None:
    """Removes the folders of servers that are gone (crashed, or exited after their grace)."""
    try:
        entries = list(folder.iterdir())
    except OSError:
        return
    for entry in entries:
        if not entry.is_dir() or entry.is_symlink():
            continue
        try:
            pid = int((entry / "pid").read_text("ascii"))
            os.kill(pid, 0)
            continue  # still running (on its way out, or of a build we did not share)
        except ProcessLookupError:
            pass
        except PermissionError:
            continue
        except (OSError, ValueError):
            pass  # no pid: a start that failed
        shutil.rmtree(entry, ignore_errors=True)


def _start(folder: Path, key: str, repo: Path, program: List[str], node: str, node_version: Optional[str], node_args: List[str], env: Mapping[str, str], start_timeout: float) -> SharedServer:
    name = secrets.token_hex(8)
    instance = folder / name
    try:
        os.mkdir(instance, 0o700)
    except OSError as e:  # a build folder we may not write into
        raise NotShareable(f"cannot create {instance}: {e}") from None
    lease_path = instance / "lease.sock"
    grace_ms = round(grace_seconds() * 1000)
    args = [node, *node_args, *program, "--socket", str(instance / "server.sock"), "--lease-socket", str(lease_path)]
    args += ["--lease-grace-ms", str(grace_ms), "--build-id", key, "--quiet"]
    log_path = instance / "server.log"
    _log.info("starting the shared cardgym server with Node %s (%s) from %s in %s", node_version or "of unknown version", node, repo, instance)
    with open(log_path, "ab") as log:
        try:
            process = subprocess.Popen(args, cwd=str(repo), env=dict(env), stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
        except OSError as e:
            shutil.rmtree(instance, ignore_errors=True)
            raise ServerStartError(f"cannot run {node!r} for the shared cardgym server: {e}") from None
    (instance / "pid").write_text(str(process.pid), "ascii")
    # Reaps the server if it ends while this process still runs (else the OS's init does).
    threading.Thread(target=process.wait, daemon=True).start()
    deadline = time.monotonic() + start_timeout
    while True:
        got = _greet(lease_path, key) if lease_path.exists() else None
        if got is not None:
            break
        if process.poll() is not None or time.monotonic() > deadline:
            why = f"exited with code {process.returncode}" if process.poll() is not None else f"did not listen within {start_timeout:g} s"
            if process.poll() is None:
                process.kill()
            output = _tail(log_path)
            raise ServerStartError(f"the shared cardgym server ({' '.join(args)} in {repo}, Node {node_version or '?'} at {node}) {why}:\n{output}")
        time.sleep(0.02)
    tmp = folder / f".current.{name}"
    tmp.write_text(name, "ascii")
    os.replace(tmp, folder / "current")
    return SharedServer(got["socket"], got["hello"], repo, node, node_version, instance, started=True)


def _tail(path: Path, lines: int = 20) -> str:
    try:
        text = path.read_text("utf-8", errors="replace").splitlines()
    except OSError:
        return "(no output)"
    return "\n".join(text[-lines:]) or "(no output)"
