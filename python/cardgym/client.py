"""HTTP + msgpack client of the cardgym server (the wire contract is docs/protocol.md)."""

from __future__ import annotations

import json
import operator
import os
import socket
import struct
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple, TypedDict, Union
from urllib.parse import quote, urlsplit

import msgpack
import numpy as np

from .errors import ServerError, ServerUnavailable, server_error
from .fastpath import FLAG_LAYOUT, OP_STEP, FastConnection, FastPathBroken, LaidOut
from .http import Connection, unix_socket_path
from .server import Server, acquire_shared, release_shared, start_private, stop_private

if TYPE_CHECKING:
    from typing_extensions import Unpack

_DTYPES: Dict[str, Any] = {"float32": np.dtype("<f4"), "float16": np.dtype("<f2"), "int32": np.dtype("<i4"), "uint8": np.dtype("u1"), "bool": np.dtype("?")}
_MSGPACK = "application/msgpack"


def tensor(t: Mapping[str, Any]) -> np.ndarray:
    """A wire tensor ``{dtype, shape, data}`` as a numpy array viewing the reply bytes (no copy;
    read-only, ``.copy()`` it to write)."""
    data = t["data"]
    dtype = _DTYPES[t["dtype"]]
    if isinstance(data, (bytes, bytearray, memoryview)):
        return np.frombuffer(data, dtype=dtype).reshape(t["shape"])
    return np.asarray(data, dtype=dtype).reshape(t["shape"])  # JSON replies carry plain lists


def _decode(value: Any) -> Any:
    """Replaces every tensor in a reply by a numpy array, recursively."""
    if isinstance(value, dict):
        if "data" in value and "shape" in value and value.get("dtype") in _DTYPES:
            return tensor(value)
        return {k: _decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


def _tensor_hook(value: Dict[Any, Any]) -> Any:
    """msgpack's ``object_hook`` for replies: a tensor map as its numpy array, other maps as
    they are. What :func:`_decode` does after the whole reply is built, done while msgpack
    decodes it (one call per map instead of a walk over every value)."""
    if "data" in value and "shape" in value and value.get("dtype") in _DTYPES:
        return tensor(value)
    return value


def _plain(value: Any) -> Any:
    """numpy scalars/arrays -> Python ints/floats/lists (the server refuses msgpack extensions)."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


class _ClosesOnce:
    """``close()`` runs the subclass's ``_release()`` once; later calls do nothing."""

    _closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._release()

    def _release(self) -> None:
        raise NotImplementedError


class Client(_ClosesOnce):
    """A connection to one cardgym server.

    ``Client()`` uses ``CARDGYM_URL`` when set, else the embedded server: the one shared by this
    user's processes on this machine (started by the first, stopped a few seconds after the last
    one is done; see cardgym.shared_server), or with ``shared_server=False`` or
    ``CARDGYM_SHARED_SERVER=0`` one of this process's own (started on first use, shared by the
    clients of this process, stopped when the last one closes); ``Client(url)``
    connects to a running server (``npm start``): ``http://host:port``, or ``unix:/path`` for one
    started with ``npm start -- --socket /path``. ``private_server=True`` starts a server owned by
    this client alone (whatever CARDGYM_URL says). An embedded server listens on a Unix socket in a
    private temp folder (several times cheaper per request than TCP loopback), or on a free
    loopback port where Unix sockets are missing; ``transport="tcp"`` (private servers) or
    ``CARDGYM_TRANSPORT=tcp`` picks TCP. The bearer token comes from ``token`` or ``CARDGYM_TOKEN``.

    ``fast_path``: over a Unix socket (the embedded server's default), sessions reset and step over
    the server's fast path (cardgym.fastpath: framed requests straight to the session's worker, the
    same replies as HTTP at a fraction of the cost) unless ``fast_path=False`` or
    ``CARDGYM_FAST_PATH=0``; a server without one is used over HTTP.

    One HTTP/1.1 keep-alive connection per client (see cardgym.http); requests are serialised by
    a lock, so share a client between threads only if they may wait on each other. Error replies raise :class:`cardgym.ServerError` (``.code``, ``.status``,
    ``.message``); a server that cannot be reached raises :class:`cardgym.ServerUnavailable`.
    """

    def __init__(
        self,
        url: Optional[str] = None,
        *,
        token: Optional[str] = None,
        timeout: float = 120.0,
        repo: Optional[str] = None,
        private_server: bool = False,
        transport: Optional[str] = None,
        fast_path: Optional[bool] = None,
        shared_server: Optional[bool] = None,
    ):
        self.server: Optional[Server] = None
        self._shared = False
        self._closed = False
        #: Size in bytes of the last reply body (benches and tests compare wire sizes with it).
        self.last_reply_bytes = 0
        if private_server:
            if url is not None:
                raise ValueError("pass either url or private_server=True, not both")
            self.server = start_private(repo, transport)
            url = self.server.url
        else:
            if transport is not None:
                raise ValueError("transport= applies to a private_server=True server (the shared one follows CARDGYM_TRANSPORT)")
            url = url or os.environ.get("CARDGYM_URL") or None
            if url is None:
                self.server = acquire_shared(repo, shared_server)
                self._shared = True
                url = self.server.url
        self._socket_path: Optional[str] = unix_socket_path(url)
        if self._socket_path is not None:
            self.url = f"unix:{self._socket_path}"
            self._host = "localhost"
            self._port = 0
        else:
            parts = urlsplit(url if "://" in url else f"http://{url}")
            if parts.scheme != "http" or not parts.hostname:
                raise ValueError(f"cardgym server URL must look like http://host:port or unix:/path/to/socket, got {url!r}")
            self.url = f"http://{parts.netloc}"
            self._host = parts.hostname
            self._port = parts.port or 80
        self._timeout = timeout
        if fast_path is None:
            fast_path = os.environ.get("CARDGYM_FAST_PATH", "1").strip().lower() not in ("0", "false", "no", "off")
        #: Whether sessions of this client use the fast path when the server offers one.
        self.fast_path = bool(fast_path) and self._socket_path is not None
        token = token if token is not None else os.environ.get("CARDGYM_TOKEN")
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        self._get_headers = f"Accept: {_MSGPACK}\r\n{auth}".encode("latin-1")
        self._headers = self._get_headers + f"Content-Type: {_MSGPACK}\r\n".encode("ascii")
        self._conn: Optional[Connection] = None
        self._lock = threading.Lock()

    # ---------------------------------------------------------------- transport

    def _connection(self) -> Connection:
        conn = self._conn
        if conn is None:
            conn = self._conn = Connection(self._host, self._port, self._timeout, unix_path=self._socket_path)
        elif conn.sock is not None and conn.stale():
            # A keep-alive connection the server closed while idle reads as EOF: reconnect before
            # sending rather than fail half-way through a request.
            conn.close()
        if conn.sock is None:
            try:
                conn.connect()
            except OSError as e:
                raise ServerUnavailable(self._unreachable(e)) from None
        return conn

    def _unreachable(self, e: BaseException) -> str:
        where = f"the cardgym server at {self.url}"
        if self.server is not None and not self.server.running:
            return f"{where} (embedded, pid {self.server.pid}) has exited ({e})"
        if self.server is not None:
            return f"cannot reach {where} (embedded, pid {self.server.pid}): {e}"
        return f"cannot reach {where}: {e}. Is it running? Start one with `npm start`, or leave the URL unset to let cardgym start its own."

    def request(self, method: str, path: str, body: Any = None, *, plain: bool = False, decode: bool = True) -> Any:
        """Sends one request and returns the decoded reply (tensors as numpy arrays; with
        ``decode=False`` as the wire's ``{dtype, shape, data}`` maps). ``body`` may hold numpy
        values (converted); ``plain=True`` says it holds none (skips the walk)."""
        if self._closed:
            raise ServerUnavailable("this cardgym client is closed")
        payload = None if body is None else msgpack.packb(body if plain else _plain(body))
        headers = self._get_headers if payload is None else self._headers
        with self._lock:
            # GETs are safe to retry once on a connection that broke; other methods are not (the
            # server may have applied them), so their failure is reported as it is.
            attempts = 2 if method == "GET" else 1
            for attempt in range(attempts):
                conn = self._connection()
                try:
                    status, reply_headers, data = conn.request(method, path, headers, payload)
                    break
                except OSError as e:
                    conn.close()
                    if attempt + 1 == attempts:
                        what = "timed out" if isinstance(e, socket.timeout) else str(e) or type(e).__name__
                        raise ServerUnavailable(f"{method} {path}: {self._unreachable(OSError(what))}") from None
                except BaseException:
                    # Interrupted mid-reply (Ctrl-C): the rest of the reply would be read as the
                    # next one, so drop the connection.
                    conn.close()
                    raise
        self.last_reply_bytes = len(data)
        ctype = reply_headers.get("content-type", "")
        try:
            if "json" in ctype:
                reply = json.loads(data)
            else:
                reply = msgpack.unpackb(data)
        except Exception as e:
            raise ServerError(status, "bad_reply", f"undecodable {ctype or 'reply'} ({e}): {bytes(data[:200])!r}") from None
        if status >= 400:
            raise server_error(status, reply)
        return _decode(reply) if decode else reply

    def _release(self) -> None:
        """Closes the connection; stops the embedded server if this was its last user."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self.server is not None:
            if self._shared:
                release_shared(self.server)
            else:
                stop_private(self.server)

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        how = f", embedded pid {self.server.pid}" if self.server is not None else ""
        return f"<cardgym.Client {self.url}{how}{' closed' if self._closed else ''}>"

    # Envs keep their client in their EnvSpec kwargs, which gymnasium deep-copies; a client is a
    # handle on a live connection, so copies share it, and pickles reconnect by URL.
    def __deepcopy__(self, memo):
        return self

    def __copy__(self):
        return self

    def __reduce__(self):
        return (_reconnect, (self.url,))

    # ---------------------------------------------------------------- routes

    def health(self) -> Dict[str, Any]:
        return self.request("GET", "/healthz")

    def metrics(self) -> Dict[str, Any]:
        return self.request("GET", "/metrics")

    def games(self) -> List[Dict[str, Any]]:
        """The served games: ``[{id, title, minSeats, maxSeats, defaultSeats, observationSize, actionSize, ...}]``."""
        return self.request("GET", "/v1/games")["games"]

    def game(self, game: str) -> Dict[str, Any]:
        for info in self.games():
            if info["id"] == game:
                return info
        known = ", ".join(g["id"] for g in self.games())
        raise ServerError(404, "unknown_game", f"no game {game!r} on {self.url}; served games: {known}")

    def spec(self, game: str) -> Dict[str, Any]:
        return self.request("GET", f"/v1/games/{quote(game, safe='')}/spec")

    def create_session(self, game: str, *, decode_obs: bool = True, **options: Unpack[SessionOptions]) -> Session:
        """Creates a session of ``num_envs`` copies of ``game`` (see POST /v1/sessions).

        ``obs_dtype`` picks how observations travel: ``"float32"``, ``"float16"``, ``"uint8"`` or
        ``"bits"`` (the last two only for games whose spec makes every value a small fraction,
        e.g. sevens; see docs/protocol.md). With ``decode_obs`` (default) the session's replies
        carry float32 ``obs`` as with ``"float32"`` (uint8 and bits decode to exactly the same
        values); without it ``obs`` is the wire array and :meth:`Session.decode_obs` decodes it.

        ``autoreset``: ``"next-step"`` (default) or ``"same-step"``; ``learner_seat``: ``"fixed"``
        (default), ``"alternating"`` or ``"random"``; ``illegal_action``: ``"reject"`` (default)
        or ``"terminate"``, with ``illegal_reward`` (default -1); ``observe`` (multi mode):
        ``"all"`` (default) or ``"acting"``."""
        body = create_body(game, **options)
        return Session(self, self.request("POST", "/v1/sessions", body), decode_obs=decode_obs)


class SessionOptions(TypedDict, total=False):
    """The keyword options of :meth:`Client.create_session` (and :func:`create_body`), declared once.

    Defaults: ``num_envs`` 1, ``seed`` 0, ``obs_dtype`` ``"float32"``; the others are left to the
    server when not given (see POST /v1/sessions in docs/protocol.md)."""

    seats: Optional[Sequence[str]]
    config: Optional[Mapping[str, Any]]
    num_envs: int
    seed: int
    max_decisions: Optional[int]
    obs_dtype: str
    autoreset: Optional[str]
    learner_seat: Optional[str]
    illegal_action: Optional[str]
    illegal_reward: Optional[float]
    observe: Optional[str]


def _as_is(value: Any) -> Any:
    return value


#: The options that go into the body when given (not None), in body order: name, wire name, conversion.
_WIRE_OPTIONS: Tuple[Tuple[str, str, Any], ...] = (
    ("autoreset", "autoreset", _as_is),
    ("learner_seat", "learnerSeat", _as_is),
    ("illegal_action", "illegalAction", _as_is),
    ("illegal_reward", "illegalReward", float),
    ("observe", "observe", _as_is),
    ("seats", "seats", list),
)


def create_body(game: str, **options: Unpack[SessionOptions]) -> Dict[str, Any]:
    """The create-session body (POST /v1/sessions) of :meth:`Client.create_session`'s arguments.

    An option that is not one of :class:`SessionOptions` is a TypeError, as for any function."""
    unknown = sorted(set(options) - set(SessionOptions.__annotations__))
    if unknown:
        raise TypeError(f"create_session() got an unexpected keyword argument {', '.join(map(repr, unknown))}")
    body: Dict[str, Any] = {"game": game, "numEnvs": int(options.get("num_envs", 1)), "seed": int(options.get("seed", 0))}
    obs_dtype = options.get("obs_dtype", "float32")
    if obs_dtype != "float32":
        body["obsDtype"] = obs_dtype
    for name, wire, convert in _WIRE_OPTIONS:
        value = options.get(name)
        if value is not None:
            body[wire] = convert(value)
    config = options.get("config")
    if config:
        body["config"] = dict(config)
    max_decisions = options.get("max_decisions")
    if max_decisions is not None:
        body["maxDecisions"] = int(max_decisions)
    return body


def reset_body(seed: Optional[int], seeds: Optional[Sequence[Optional[int]]], envs: Optional[Sequence[int]]) -> Dict[str, Any]:
    """The body of a reset (POST /v1/sessions/:id/reset): see :meth:`Session.reset`."""
    body: Dict[str, Any] = {}
    if seed is not None:
        body["seed"] = operator.index(seed)
    if seeds is not None:
        body["seeds"] = [None if s is None else operator.index(s) for s in seeds]
    if envs is not None:
        body["envs"] = [operator.index(i) for i in envs]
    return body

def _obs_plan(spec: Mapping[str, Any], wire: Mapping[str, Any]) -> Any:
    """Per-feature float32 denominators, and for ``bits`` the feature indices packed as bits,
    the others, and the packed bytes per row (see docs/protocol.md, obsDtype)."""
    steps = wire.get("steps")
    if steps is None:
        return None
    layout = spec["observation"]["layout"]
    denominators = np.ones(int(spec["observation"]["size"]), dtype=np.float32)
    bits: List[int] = []
    rest: List[int] = []
    for f, d in zip(layout, steps):
        feats = range(int(f["offset"]), int(f["offset"]) + int(f["length"]))
        denominators[f["offset"] : f["offset"] + f["length"]] = d
        binary = d == 1 and f.get("high") is not None and f["high"] <= 1
        (bits if wire["dtype"] == "bits" and binary else rest).extend(feats)
    return denominators, np.array(bits, dtype=np.intp), np.array(rest, dtype=np.intp), int(wire.get("bitBytes") or 0)


def _int32_actions(actions: np.ndarray) -> np.ndarray:
    """Actions as the fast path's int32 frame. Ids beyond int32 are refused as the HTTP route's
    schema refuses them (never wrapped around into another id)."""
    flat = actions.reshape(-1)
    if flat.dtype != np.int32 and flat.size and (flat.max() > 2**31 - 1 or flat.min() < -(2**31)):
        raise ServerError(400, "invalid_body", "actions must be 32-bit integers")
    return flat.astype("<i4", copy=False)


class OneStep(NamedTuple):
    """Env 0 of a reset or step reply, as a one-env learner (cardgym.make) hands it out:
    :meth:`SessionInfo.step_one` and :meth:`SessionInfo.reset_one`."""

    #: float32 [observation_size], a read-only view of the reply bytes.
    obs: np.ndarray
    #: int8 [action_size] (1 = legal), a read-only view of the reply bytes.
    mask: np.ndarray
    reward: float
    terminated: bool
    truncated: bool
    episode: int
    episode_step: int
    #: float32 [num_seats]: each seat's return so far.
    returns: np.ndarray
    #: The learner's seat (single mode), else None.
    learner_seat: Optional[int]
    #: Whether the step was an illegal action that ended the episode (illegal_action="terminate").
    illegal: bool


def one_step(b: Mapping[str, Any]) -> OneStep:
    """Env 0 of a decoded reply batch (:meth:`Session.step`'s dict of arrays)."""
    info = b["info"]
    return OneStep(
        b["obs"][0],
        b["mask"][0].view(np.int8),
        float(b["reward"][0]),
        bool(b["terminated"][0]),
        bool(b["truncated"][0]),
        int(info["episode"][0]),
        int(info["episodeStep"][0]),
        info["returns"][0],
        int(info["learnerSeat"][0]) if "learnerSeat" in info else None,
        "illegal" in info and bool(info["illegal"][0]),
    )


_F32, _I32 = struct.Struct("<f"), struct.Struct("<i")


def _wire_one_step(b: Mapping[str, Any]) -> Optional[OneStep]:
    """:func:`one_step` of a reply still in wire form (tensors as ``{dtype, shape, data}`` maps),
    reading env 0's values straight from the bytes: three numpy views instead of the fifteen
    arrays of a decoded reply. None when the reply is not the one-env msgpack form this expects
    (the caller then decodes it whole)."""
    try:
        obs, mask, reward, terminated, truncated = b["obs"], b["mask"], b["reward"], b["terminated"], b["truncated"]
        info = b["info"]
        episode, episode_step, returns = info["episode"], info["episodeStep"], info["returns"]
        seat, illegal = info.get("learnerSeat"), info.get("illegal")
        if not (
            obs["dtype"] == "float32"
            and mask["dtype"] == "uint8"
            and reward["dtype"] == "float32"
            and terminated["dtype"] == truncated["dtype"] == "bool"
            and episode["dtype"] == episode_step["dtype"] == "int32"
            and returns["dtype"] == "float32"
            and (seat is None or seat["dtype"] == "int32")
            and (illegal is None or illegal["dtype"] == "bool")
            and len(obs["shape"]) == len(mask["shape"]) == len(returns["shape"]) == 2
            and len(reward["shape"]) == 1
            and obs["shape"][0] == mask["shape"][0] == returns["shape"][0] == reward["shape"][0] == 1
        ):
            return None
        return OneStep(
            np.frombuffer(obs["data"], _DTYPES["float32"]),
            np.frombuffer(mask["data"], np.int8),
            _F32.unpack_from(reward["data"])[0],
            terminated["data"][0] != 0,
            truncated["data"][0] != 0,
            _I32.unpack_from(episode["data"])[0],
            _I32.unpack_from(episode_step["data"])[0],
            np.frombuffer(returns["data"], _DTYPES["float32"]),
            None if seat is None else _I32.unpack_from(seat["data"])[0],
            illegal is not None and illegal["data"][0] != 0,
        )
    except (KeyError, TypeError, IndexError, struct.error):
        return None


#: The fixed layout's header (env/reply-layout.ts): step, flags, envs, seats, observation floats,
#: reward floats, action size, 0; then env 0's seat, episode, episodeStep and learnerSeat when N = 1.
_LAYOUT_HEAD = struct.Struct("<8i4i")


def _laid_out_one_step(buf: bytes) -> Optional[OneStep]:
    """:func:`one_step` of a one-env single-mode reply in the fast path's fixed layout
    (env/reply-layout.ts), read from its bytes: the same values, types and dtypes as the msgpack
    reply gives. None when the reply is not that (the caller then asks again without the layout)."""
    _, flags, n, seats, obs_floats, reward_floats, actions, _, _, episode, episode_step, learner_seat = _LAYOUT_HEAD.unpack_from(buf)
    if n != 1 or flags & 1 or reward_floats != 1:
        return None
    returns_at = _LAYOUT_HEAD.size + 4
    obs_at = returns_at + 4 * seats
    tail = obs_at + 4 * obs_floats
    return OneStep(
        np.frombuffer(buf, _DTYPES["float32"], obs_floats, obs_at),
        np.frombuffer(buf, np.int8, actions, tail + 3),
        _F32.unpack_from(buf, _LAYOUT_HEAD.size)[0],
        buf[tail] != 0,
        buf[tail + 1] != 0,
        episode,
        episode_step,
        np.frombuffer(buf, _DTYPES["float32"], seats, returns_at),
        learner_seat,
        bool(flags & 2) and buf[tail + 2] != 0,
    )


def _reconnect(url: str) -> Client:
    return Client(url)


Actions = Union[Sequence[int], np.ndarray]


class SessionInfo:
    """What a session is, from its create reply: game, mode, seats, counts, config, spec and the
    observation wire form (shared by :class:`Session` and the in-process session)."""

    game: str
    mode: str
    autoreset: str
    learner_seat: str
    seats: List[str]
    num_seats: int
    num_envs: int
    config: Dict[str, Any]
    spec: Dict[str, Any]
    observation_size: int
    action_size: int
    obs_wire: Dict[str, Any]
    obs_dtype: str

    def _describe(self, created: Mapping[str, Any]) -> None:
        self.game = created["game"]
        self.mode = created["mode"]
        self.autoreset = created.get("autoreset", "next-step")
        self.learner_seat = created.get("learnerSeat", "fixed")
        self.seats = list(created["seats"])
        self.num_seats = int(created["numSeats"])
        self.num_envs = int(created["numEnvs"])
        self.config = created["config"]
        self.spec = created["spec"]
        self.observation_size = int(self.spec["observation"]["size"])
        self.action_size = int(self.spec["action"]["size"])
        self.obs_wire = created.get("obsWire") or {"dtype": "float32"}
        self.obs_dtype = self.obs_wire["dtype"]

    def step(self, actions: Actions) -> Dict[str, Any]:
        raise NotImplementedError

    def reset(self, seed: Optional[int] = None) -> Dict[str, Any]:
        raise NotImplementedError

    def step_one(self, action: Any) -> OneStep:
        """Steps a one-env session with ``action`` and returns env 0 of the reply."""
        return one_step(self.step([operator.index(action)]))

    def reset_one(self, seed: Optional[int] = None) -> OneStep:
        """Resets a one-env session (``seed`` as :meth:`Session.reset`'s) and returns env 0."""
        return one_step(self.reset(seed))


class Session(SessionInfo, _ClosesOnce):
    """One server session: ``num_envs`` envs of one game stepped together.

    ``reset()`` and ``step()`` return the reply batch as a dict of numpy arrays: ``obs``, ``mask``,
    ``reward``, ``terminated``, ``truncated``, ``seat``, ``step``, ``mode`` and ``info``
    (``episode``, ``episodeStep``, ``returns``); shapes are in docs/protocol.md.
    """

    def __init__(self, client: Client, created: Dict[str, Any], decode_obs: bool = True):
        self.client = client
        self.id: str = created["session"]
        self._describe(created)
        self._decode = decode_obs and self.obs_dtype != "float32"
        self._obs_plan = _obs_plan(self.spec, self.obs_wire)
        self._path = f"/v1/sessions/{quote(self.id, safe='')}"
        self._closed = False
        #: The fast-path connection resets and steps go over, or None (HTTP).
        self.fast: Optional[FastConnection] = self._open_fast_path() if client.fast_path else None
        #: A step sent by send_step and not yet received: None, or the reply itself when over HTTP.
        self._pending: Optional[Tuple[bool, Optional[Dict[str, Any]]]] = None
        #: step_one/reset_one ask the fast path for replies in its fixed layout (read without msgpack):
        #: one env, single mode, float32 observations, next-step autoreset.
        self._layout = FLAG_LAYOUT if (self.num_envs == 1 and self.mode == "single" and self.obs_dtype == "float32" and self.autoreset == "next-step") else 0

    def _open_fast_path(self) -> Optional[FastConnection]:
        """Asks the server for the session's fast path; None when it has none (HTTP then)."""
        try:
            grant = self.client.request("POST", f"{self._path}/fast-path")
        except ServerError as e:
            if e.code in ("not_found", "fast_path_off", "fast_path_unavailable"):
                return None
            raise
        self._fast_grant: Tuple[str, str] = (grant["socket"], grant["key"])
        try:
            return FastConnection(grant["socket"], grant["key"], self.client._timeout, _tensor_hook)
        except FastPathBroken:
            return None

    def _live_fast(self) -> FastConnection:
        """The fast-path connection, attached again if this client dropped it mid-request.

        A request cut off on this side (a KeyboardInterrupt during a step, say) leaves the stream
        out of step, so the connection closes itself; the session is fine, but it stays bound to
        the fast path (HTTP steps get 409 ``session_attached``). So a new connection attaches with
        the same key. The server frees the session from the old connection once it has finished
        the request that was cut off, and refuses the attach as ``session_busy`` until then, so
        that refusal is tried again, up to the client's timeout."""
        fast = self.fast
        assert fast is not None
        if not fast.closed:
            return fast
        path, key = self._fast_grant
        deadline = time.monotonic() + self.client._timeout
        delay = 0.002
        while True:
            try:
                fast = self.fast = FastConnection(path, key, self.client._timeout, _tensor_hook)
                return fast
            except FastPathBroken as e:
                if e.code != "session_busy" or time.monotonic() > deadline:
                    self.fast = None
                    raise self._broken(e) from None
            time.sleep(delay)
            delay = min(2 * delay, 0.05)

    def _fast(self, call: Any, reattach: bool = True) -> Dict[str, Any]:
        """One fast-path request; errors raise as over HTTP, a broken connection as what the server says of the session."""
        fast = self._live_fast() if reattach else self.fast
        assert fast is not None
        try:
            kind, status, reply = call(fast)
        except OSError as e:
            self.fast = None
            raise self._broken(e) from None
        self.client.last_reply_bytes = fast.last_reply_bytes
        if kind != 0:
            raise server_error(status, reply)
        return reply  # its tensors were decoded as it was read (_tensor_hook), unless call asked otherwise

    def _broken(self, e: OSError) -> Exception:
        """Why a fast-path connection broke: the session's quarantine (a step past the budget), else unreachable."""
        try:
            info = self.client.request("GET", self._path)
        except (ServerError, ServerUnavailable) as err:
            return err
        q = info.get("quarantine")
        if info.get("status") == "quarantined" and isinstance(q, dict):
            return ServerError(503 if q.get("code") == "step_timeout" else 500, str(q.get("code")), str(q.get("message")))
        what = "timed out" if isinstance(e, socket.timeout) else str(e) or type(e).__name__
        return ServerUnavailable(f"the fast-path connection of session {self.id} broke: {what}")

    def decode_obs(self, obs: np.ndarray) -> np.ndarray:
        """A reply's ``obs`` in this session's wire dtype as float32 [..., observation_size]."""
        if self.obs_dtype == "float32":
            return obs
        if self.obs_dtype == "float16":
            return obs.astype(np.float32)
        denominators, bits, rest, bit_bytes = self._obs_plan
        if self.obs_dtype == "uint8":
            return obs.astype(np.float32) / denominators
        rows = obs.reshape(-1, obs.shape[-1])
        out = np.empty((rows.shape[0], self.observation_size), dtype=np.float32)
        out[:, bits] = np.unpackbits(rows[:, :bit_bytes], axis=1, count=len(bits), bitorder="little")
        out[:, rest] = rows[:, bit_bytes:].astype(np.float32) / denominators[rest]
        return out.reshape(obs.shape[:-1] + (self.observation_size,))

    def _decoded(self, reply: Dict[str, Any]) -> Dict[str, Any]:
        if self._decode:
            reply["obs"] = self.decode_obs(reply["obs"])
            final = reply.get("final")
            if isinstance(final, dict) and "obs" in final:
                final["obs"] = self.decode_obs(final["obs"])
        return reply

    def reset(
        self,
        seed: Optional[int] = None,
        *,
        seeds: Optional[Sequence[Optional[int]]] = None,
        envs: Optional[Sequence[int]] = None,
    ) -> Dict[str, Any]:
        """Restarts every env, or the envs listed in ``envs``. ``seed``: env i is re-seeded with
        ``seed + i``; ``seeds``: one seed (or None: not re-seeded) per env restarted."""
        body = reset_body(seed, seeds, envs)
        if self.fast is not None:
            return self._decoded(self._fast(lambda f: f.reset(body)))
        return self._decoded(self.client.request("POST", f"{self._path}/reset", body, plain=True))

    def _one(self, fast: Callable[[FastConnection], Any], route: str, body: Any) -> OneStep:
        """A one-env reply read by :func:`_wire_one_step` (over the fast path with ``fast``, else
        HTTP's ``route``); decoded whole when it is not in that form."""
        if self.fast is not None:
            raw = self._fast(fast)
            if isinstance(raw, LaidOut):
                laid = _laid_out_one_step(raw)
                if laid is None:
                    raise ServerError(500, "internal_error", "a fast-path reply in the fixed layout is not a one-env single-mode batch")
                return laid
        else:
            raw = self.client.request("POST", f"{self._path}/{route}", body, plain=True, decode=False)
        one = _wire_one_step(raw) if not self._decode else None
        return one if one is not None else one_step(self._decoded(_decode(raw)))

    def step_one(self, action: Any) -> OneStep:
        """:meth:`step` of a one-env session with ``action``, returning env 0 of the reply without
        decoding the rest (what cardgym.make's env reads; the same values)."""
        a = operator.index(action)  # refuses floats rather than truncating
        if self.num_envs != 1:
            return one_step(self.step([a]))
        if self.fast is not None and not -(2**31) <= a < 2**31:
            raise ServerError(400, "invalid_body", "actions must be 32-bit integers")
        return self._one(lambda f: f.step_one(a, decode=False, flags=self._layout), "step", {"actions": [a]})

    def reset_one(self, seed: Optional[int] = None) -> OneStep:
        """:meth:`reset` of a one-env session, returning env 0 of the reply as :meth:`step_one`."""
        if self.num_envs != 1:
            return one_step(self.reset(seed))
        body = reset_body(seed, None, None)
        return self._one(lambda f: f.reset(body, decode=False, flags=self._layout), "reset", body)

    def render(self, env: int = 0) -> str:
        """A readable picture of env ``env``'s table, whose turn it is and the legal actions."""
        return str(self.client.request("GET", f"{self._path}/render?env={operator.index(env)}")["text"])

    def step(self, actions: Actions) -> Dict[str, Any]:
        if isinstance(actions, np.ndarray):
            if not (np.issubdtype(actions.dtype, np.integer) or actions.dtype == np.bool_):
                raise TypeError(f"actions must be integer action ids, got an array of {actions.dtype}")
            if self.fast is not None:
                return self._decoded(self._fast(lambda f: f.step(_int32_actions(actions))))
            actions = actions.astype(np.int64, copy=False).reshape(-1).tolist()
        else:
            actions = [operator.index(a) for a in actions]  # refuses floats rather than truncating
            if self.fast is not None:
                if len(actions) == 1:
                    # One env (cardgym.make's step): its frame is packed at once, without numpy.
                    action = actions[0]
                    if not -(2**31) <= action < 2**31:
                        raise ServerError(400, "invalid_body", "actions must be 32-bit integers")
                    return self._decoded(self._fast(lambda f: f.step_one(action)))
                return self._decoded(self._fast(lambda f: f.step(_int32_actions(np.asarray(actions, dtype=np.int64)))))
        return self._decoded(self.client.request("POST", f"{self._path}/step", {"actions": actions}, plain=True))

    def send_step(self, actions: Actions) -> None:
        """Sends a step and returns at once; :meth:`recv_step` returns its reply. The server steps
        the session meanwhile, so the caller's own work overlaps it (over HTTP, without a fast
        path, the step runs here and recv_step just returns it). One step in flight per session."""
        if self._pending is not None:
            raise RuntimeError("this session has a step in flight: recv_step() it first")
        if self.fast is None:
            self._pending = (False, self.step(actions))
            return
        flat = np.asarray(actions)
        if not (np.issubdtype(flat.dtype, np.integer) or flat.dtype == np.bool_):
            raise TypeError(f"actions must be integer action ids, got an array of {flat.dtype}")
        payload = _int32_actions(flat).tobytes()
        fast = self._live_fast()
        try:
            fast.send(OP_STEP, payload)
        except OSError as e:
            self.fast = None
            raise self._broken(e) from None
        self._pending = (True, None)

    def recv_step(self) -> Dict[str, Any]:
        """The reply of the step :meth:`send_step` sent (waits for it)."""
        pending, self._pending = self._pending, None
        if pending is None:
            raise RuntimeError("no step in flight: send_step() first")
        over_fast, reply = pending
        if not over_fast:
            assert reply is not None
            return reply
        return self._decoded(self._fast(lambda f: f.receive(), reattach=False))

    def fileno(self) -> int:
        """The fast-path socket's descriptor, readable when a sent step's reply is arriving (for
        select over several sessions); -1 over HTTP."""
        return self.fast.fileno() if self.fast is not None else -1

    def mask(self, labels: bool = False) -> Dict[str, Any]:
        return self.client.request("GET", f"{self._path}/mask" + ("?labels=true" if labels else ""))

    def info(self) -> Dict[str, Any]:
        return self.client.request("GET", self._path)

    def _release(self) -> None:
        """Deletes the session on the server (ignored if the server or session is already gone)."""
        if self.fast is not None:
            self.fast.close()
            self.fast = None
        if self.client.closed:
            return
        try:
            self.client.request("DELETE", self._path)
        except ServerUnavailable:
            pass
        except ServerError as e:
            if e.code not in ("session_gone", "unknown_session", "shutting_down"):
                raise
