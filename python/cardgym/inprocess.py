"""In-process sessions: the engine runs inside this Python process, in SpiderMonkey (PythonMonkey),
with no server and no socket.

``InProcessClient()`` stands in for :class:`cardgym.Client` where an env takes ``client=``::

    env = cardgym.pettingzoo.env("sevens", client=cardgym.InProcessClient(), seed=0)

Its sessions are the server's learning sessions (the same TypeScript code, bundled into one
script), so the same seeds and actions give the same observations, masks, rewards and state hashes
as the server; what they save is the round trip to another process on every reset and step, which
is what an AEC env (one decision per step) pays most. They offer float32 observations, next-step
and same-step autoreset (``cardgym.selfplay.vector_env`` runs on them), agents that need no model
file (``random``, ``mcts``, the computer players; ``onnx`` seats need the server). Replies are
read-only numpy views, as the server's.

The bundle is built from the checkout's engine at first use in a process (``node
scripts/build/inprocess.mjs``, under a second), or taken from an installed wheel, where ``npm run
build:wheel`` put it beside the bundled server. Needs the ``inprocess`` extra (``pythonmonkey``).
"""

from __future__ import annotations

import json
import operator
import struct
import subprocess
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence

import numpy as np

from .client import Actions, OneStep, SessionInfo, SessionOptions, _laid_out_one_step, create_body, one_step, reset_body
from .errors import ServerError, ServerStartError, server_error
from .server import _find_server, find_node, node_environment

if TYPE_CHECKING:
    from typing_extensions import Unpack

#: The bundle an installed wheel ships (``npm run build:wheel``).
BUNDLED = Path(__file__).resolve().parent / "_server" / "dist" / "inprocess.js"

_HEADER = struct.Struct("=8i")
_lock = threading.Lock()
_api: Any = None


def bundle_path(repo: Optional[str] = None) -> Path:
    """The in-process bundle: built now from the checkout the server would run from, else the
    wheel's (see the module docstring)."""
    found = _find_server(repo)
    if found.suffix == ".mjs":  # the wheel's bundled server
        if not BUNDLED.is_file():
            raise ServerStartError(f"this cardgym package has no in-process bundle ({BUNDLED})")
        return BUNDLED
    done = subprocess.run(
        [find_node(), "scripts/build/inprocess.mjs"], cwd=found, capture_output=True, text=True, timeout=300, env=node_environment()
    )
    if done.returncode != 0:
        raise ServerStartError(f"building the in-process bundle in {found} failed: {done.stderr.strip()[-2000:]}")
    return Path(done.stdout.strip().splitlines()[-1])


def runtime(repo: Optional[str] = None) -> Any:
    """The bundle's ``api`` object, loaded once per process."""
    global _api
    with _lock:
        if _api is None:
            try:
                import pythonmonkey
            except ImportError as e:
                raise ImportError("in-process sessions need PythonMonkey: pip install 'cardgym[inprocess]'") from e
            pythonmonkey.eval(bundle_path(repo).read_text(encoding="utf-8"))
            _api = pythonmonkey.eval("CardgymInProcess.api")
        return _api


def _checked(reply: Any) -> Any:
    """A reply of the bundle, or the ServerError (IllegalActionError...) its error JSON names."""
    if isinstance(reply, str) and reply.startswith('{"error"'):
        body = json.loads(reply)
        raise server_error(int(body["error"].get("status", 500)), body)
    return reply


_I32, _F32, _U8, _BOOL = np.dtype("=i4"), np.dtype("=f4"), np.dtype("u1"), np.dtype("?")
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


class _Layout:
    """Where each array of a session's batch lies in the bundle's reply (env/inprocess.ts): fixed
    by the session's env and seat counts, mode and observe setting."""

    def __init__(self, s: InProcessSession):
        n, seats, o = s.num_envs, s.num_seats, s.observation_size
        self.n = n
        self.single = s.mode == "single"
        rows = n if self.single or s.observe == "acting" else n * seats
        reward = n if self.single else n * seats
        self.obs_shape = (n, o) if rows == n else (n, seats, o)
        self.reward_shape = (n,) if self.single else (n, seats)
        self.returns_shape = (n, seats)
        self.mask_shape = (n, s.action_size)
        self.seat, self.episode, self.episode_step, self.learner_seat = (4 * (8 + k * n) for k in range(4))
        self.reward = 4 * (8 + 4 * n)
        self.returns = self.reward + 4 * reward
        self.obs = self.returns + 4 * n * seats
        self.terminated = self.obs + 4 * rows * o
        self.truncated = self.terminated + n
        self.illegal = self.truncated + n
        self.mask = self.illegal + n
        #: Same-step final rows, after the mask at the next multiple of 4 (their count is in the header).
        self.final = (self.mask + n * s.action_size + 3) & ~3
        self.final_obs_row = (o,) if self.single else (seats, o)
        self.seats = seats


def _final_rows(L: _Layout, buf: bytes, k: int) -> Dict[str, np.ndarray]:
    """A same-step step's ``final`` rows (``k`` ended episodes) as the server's reply has them."""
    returns = L.final + 12 * k
    final: Dict[str, np.ndarray] = {
        "envs": np.ndarray(k, _I32, buf, L.final),
        "obs": np.ndarray((k, *L.final_obs_row), _F32, buf, returns + 4 * k * L.seats),
        "returns": np.ndarray((k, L.seats), _F32, buf, returns),
        "episodeStep": np.ndarray(k, _I32, buf, L.final + 4 * k),
    }
    if L.single:
        final["learnerSeat"] = np.ndarray(k, _I32, buf, L.final + 8 * k)
    return final


class InProcessClient:
    """What the envs use of :class:`cardgym.Client`, served by the engine in this process.
    ``repo``: the checkout to build the engine from (as for the embedded server)."""

    fast_path = False
    #: Its sessions give any seat's observation on demand (InProcessSession.observation), so a
    #: multi-agent env may ask for replies with the acting seat's observation only.
    seat_observations = True

    def __init__(self, repo: Optional[str] = None):
        self._api = runtime(repo)
        self._games: List[Dict[str, Any]] = json.loads(self._api.games())
        self.closed = False

    def games(self) -> List[Dict[str, Any]]:
        return self._games

    def game(self, game: str) -> Dict[str, Any]:
        for info in self._games:
            if info["id"] == game:
                return info
        known = ", ".join(g["id"] for g in self._games)
        raise ServerError(404, "unknown_game", f"no game {game!r} in process; games: {known}")

    def create_session(self, game: str, *, decode_obs: bool = True, **options: Unpack[SessionOptions]) -> InProcessSession:
        """As :meth:`cardgym.Client.create_session` (float32 observations only)."""
        created = json.loads(_checked(self._api.create(json.dumps(create_body(game, **options)))))
        return InProcessSession(self._api, created)

    def close(self) -> None:
        self.closed = True


class InProcessSession(SessionInfo):
    """One in-process session: ``reset()`` and ``step()`` return the batch as the server's
    :class:`cardgym.Session` does (the same keys, dtypes and shapes)."""

    def __init__(self, api: Any, created: Dict[str, Any]):
        self._api = api
        self.handle: int = int(created["handle"])
        # The bundle's functions, looked up once (a lookup through the proxy costs about a call),
        # and the session's reply buffer, which every call writes into and _copy reads.
        self._reset, self._step, self._observe, self._step_written = api.reset, api.step, api.observe, api.stepWritten
        self._buffer: memoryview = _checked(api.buffer(self.handle))
        self.id = str(self.handle)
        self._describe(created)
        #: The session's action buffer in the bundle (int32 per env): a step of several envs writes
        #: its ids there instead of passing a list, which PythonMonkey converts element by element.
        self._actions: np.ndarray = np.ndarray(self.num_envs, _I32, _checked(api.actions(self.handle)))
        self.observe: str = created["observe"]
        self._layout = _Layout(self)
        self.fast = None
        self._closed = False

    def reset(self, seed: Optional[int] = None, *, seeds: Optional[Sequence[Optional[int]]] = None, envs: Optional[Sequence[int]] = None) -> Dict[str, Any]:
        body = reset_body(seed, seeds, envs)
        return self._batch(self._reset(self.handle, json.dumps(body) if body else None))

    def step(self, actions: Actions) -> Dict[str, Any]:
        if isinstance(actions, np.ndarray):
            if not (np.issubdtype(actions.dtype, np.integer) or actions.dtype == np.bool_):
                raise TypeError(f"actions must be integer action ids, got an array of {actions.dtype}")
            flat = actions.reshape(-1)
        else:
            ids = [operator.index(a) for a in actions]  # refuses floats rather than truncating
            if len(ids) != self.num_envs or len(ids) == 1 or not all(_INT32_MIN <= a <= _INT32_MAX for a in ids):
                return self._batch(self._step(self.handle, ids[0] if len(ids) == 1 else ids))
            flat = np.array(ids, dtype=np.int64)
        if flat.size == self.num_envs > 1 and (flat.dtype == _I32 or (flat.min() >= _INT32_MIN and flat.max() <= _INT32_MAX)):
            self._actions[:] = flat
            return self._batch(self._step_written(self.handle))
        # One env, a wrong count or ids beyond int32: the bundle's step checks and refuses them as the server does.
        ids = flat.tolist()
        return self._batch(self._step(self.handle, ids[0] if len(ids) == 1 else ids))

    def step_one(self, action: Any) -> OneStep:
        """Steps a one-env session with ``action``; env 0 of the reply, read from its bytes by the
        reader of the fast path's fixed layout (the same layout)."""
        return self._one(self._step(self.handle, operator.index(action)))

    def reset_one(self, seed: Optional[int] = None) -> OneStep:
        body = reset_body(seed, None, None)
        return self._one(self._reset(self.handle, json.dumps(body) if body else None))

    def _one(self, length: Any) -> OneStep:
        buf = self._copy(length)
        one = _laid_out_one_step(buf) if self.num_envs == 1 else None
        return one if one is not None else one_step(self._views(buf))

    def _copy(self, length: Any) -> bytes:
        """The reply a call wrote into the buffer (its length, or the error JSON it returned)."""
        return self._buffer[: int(_checked(length))].tobytes()

    def _batch(self, length: Any) -> Dict[str, Any]:
        return self._views(self._copy(length))

    def _views(self, buf: bytes) -> Dict[str, Any]:
        """The batch of the bundle's layout (env/inprocess.ts) as numpy views of a copy of its bytes."""
        header = _HEADER.unpack_from(buf)
        step, flags = header[0], header[1]
        L = self._layout
        info: Dict[str, Any] = {
            "episode": np.ndarray(L.n, _I32, buf, L.episode),
            "episodeStep": np.ndarray(L.n, _I32, buf, L.episode_step),
            "returns": np.ndarray(L.returns_shape, _F32, buf, L.returns),
        }
        if L.single:
            info["learnerSeat"] = np.ndarray(L.n, _I32, buf, L.learner_seat)
        if flags & 2:
            info["illegal"] = np.ndarray(L.n, _BOOL, buf, L.illegal)
        reply = {
            "step": step,
            "mode": self.mode,
            "obs": np.ndarray(L.obs_shape, _F32, buf, L.obs),
            "mask": np.ndarray(L.mask_shape, _U8, buf, L.mask),
            "reward": np.ndarray(L.reward_shape, _F32, buf, L.reward),
            "terminated": np.ndarray(L.n, _BOOL, buf, L.terminated),
            "truncated": np.ndarray(L.n, _BOOL, buf, L.truncated),
            "seat": np.ndarray(L.n, _I32, buf, L.seat),
            "info": info,
        }
        if flags & 4:
            reply["final"] = _final_rows(L, buf, header[7])
        return reply

    def observation(self, env: int, seat: int) -> np.ndarray:
        """Seat ``seat``'s observation of env ``env`` now: the row an ``observe="all"`` reply
        carries for it (zeros for a seat an agent plays)."""
        return np.frombuffer(self._copy(self._observe(self.handle, operator.index(env), operator.index(seat))), np.float32)

    def mask(self, labels: bool = False) -> Dict[str, Any]:
        """The server's ``GET .../mask``: ``step``, ``mask`` (uint8, envs x actions), ``seat``
        (int32, each env's acting seat) and, with ``labels=True``, ``labels`` (each env's
        ``[{id, label}]`` of its legal actions, by id)."""
        reply = json.loads(_checked(self._api.mask(self.handle, bool(labels))))
        out: Dict[str, Any] = {
            "step": reply["step"],
            "mask": np.array(reply["mask"], dtype=_U8).reshape(self._layout.mask_shape),
            "seat": np.array(reply["seat"], dtype=_I32),
        }
        if labels:
            out["labels"] = reply["labels"]
        return out

    def render(self, env: int = 0) -> str:
        return str(json.loads(_checked(self._api.render(self.handle, operator.index(env))))["text"])

    def hashes(self) -> List[Optional[str]]:
        """Each env's canonical state hash (None before the first reset)."""
        return list(json.loads(_checked(self._api.hashes(self.handle))))

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._api.close(self.handle)


__all__ = ["InProcessClient", "InProcessSession", "bundle_path", "runtime"]
