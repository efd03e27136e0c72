"""Gymnasium environments: one game with server-side opponents, seen by one learner seat."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, TypedDict, Union

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .client import Client, OneStep, Session

if TYPE_CHECKING:  # type checkers only: typing_extensions is not a runtime dependency
    from typing_extensions import Unpack

Opponents = Union[str, Sequence[str]]
#: ``illegal_action`` of every env type: ``"terminate"`` (default) ends the episode of the env
#: that got an illegal action, with ``illegal_reward``; ``"raise"`` raises IllegalActionError.
ILLEGAL_ACTION_MODES = ("terminate", "raise")
#: ``learner_seat``: the learner's seat per episode (see docs/protocol.md, "Learner seat").
LEARNER_SEAT_MODES = ("fixed", "alternating", "random")
RENDER_MODES = ["ansi", "human"]

#: Game configs the Python envs use when the caller's config leaves these fields out. dcg's engine
#: default gives seat 0 the vanguard book and seat 1 bastion, and bastion beats vanguard in random
#: play about 95% of the time (docs/books.md, "Seat advantage"); a learner starting from random
#: play would face a 4% win rate, so the envs play mirror matches unless told otherwise.
DEFAULT_CONFIGS: Dict[str, Dict[str, Any]] = {"dcg": {"books": ["vanguard", "vanguard"]}}


def game_config(game: str, config: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    """``config`` with the envs' per-game defaults (DEFAULT_CONFIGS) filled in where it is silent."""
    defaults = DEFAULT_CONFIGS.get(game)
    if not defaults:
        return config
    merged = dict(defaults)
    merged.update(config or {})
    return merged


def check_illegal_action(mode: str) -> str:
    """The server's ``illegalAction`` for a Python ``illegal_action`` mode."""
    if mode not in ILLEGAL_ACTION_MODES:
        raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {mode!r}")
    return "terminate" if mode == "terminate" else "reject"


def check_learner_seat(mode: str) -> str:
    if mode not in LEARNER_SEAT_MODES:
        raise ValueError(f"learner_seat must be one of {LEARNER_SEAT_MODES}, got {mode!r}")
    return mode


def check_render_mode(render_mode: Optional[str]) -> Optional[str]:
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None or one of {RENDER_MODES}, got {render_mode!r}")
    return render_mode


def show(render_mode: Optional[str], text: str) -> Optional[str]:
    """``ansi``: the text; ``human``: printed, None returned (Gymnasium's convention)."""
    if render_mode == "human":
        print(text, end="" if text.endswith("\n") else "\n", flush=True)
        return None
    return text


def random_seed() -> int:
    """A fresh session seed for envs made without one (|seed| < 2^53 on the wire)."""
    return secrets.randbits(52)


def open_client(client: Optional[Client], url: Optional[str]) -> Tuple[Client, bool]:
    """The client to use and whether the env owns it (and so closes it)."""
    if client is not None:
        return client, False
    return Client(url), True


def release_client(owner: Any) -> None:
    """Closes the client ``owner`` owns (and so an embedded server it started), at most once."""
    if getattr(owner, "_owns_client", False):
        owner._owns_client = False
        owner.client.close()


def release(owner: Any) -> None:
    """Closes ``owner``'s server session, then the client it owns: every env's close()."""
    session, owner.session = getattr(owner, "session", None), None
    try:
        if session is not None:
            session.close()
    finally:
        release_client(owner)


def seat_count(client: Client, game: str, config: Optional[Dict[str, Any]]) -> int:
    """The number of seats: ``config["seats"]`` when given, else the game's default."""
    return int((config or {}).get("seats") or client.game(game)["defaultSeats"])


def open_session(
    owner: Any,
    game: str,
    config: Optional[Dict[str, Any]],
    roles: Callable[[Client, Optional[Dict[str, Any]]], List[str]],
    seed: Optional[int],
    client: Optional[Client],
    url: Optional[str],
    **create: Any,
) -> Session:
    """Every env's start: sets ``owner.client`` (and whether ``owner`` owns it), then creates the
    server session ``owner`` drives, with the seat roles ``roles(client, config)`` gives (it may
    raise on bad arguments) and a random seed when ``seed`` is None. On any failure it closes
    ``owner`` (so an embedded server it started does not outlive it) and re-raises.
    """
    owner.client, owner._owns_client = open_client(client, url)
    owner.session = None
    if getattr(owner, "observes_seats_on_demand", False) and getattr(owner.client, "seat_observations", False):
        # Replies carry the acting seat's observation only; the env asks for another seat's when read.
        create.setdefault("observe", "acting")
    try:
        config = game_config(game, config)
        session = owner.client.create_session(
            game, seats=roles(owner.client, config), config=config, seed=random_seed() if seed is None else seed, **create
        )
    except BaseException:
        owner.close()
        raise
    owner.session = session
    return session


def seat_roles(
    client: Client,
    game: str,
    opponents: Opponents,
    config: Optional[Dict[str, Any]],
    seat: int,
) -> List[str]:
    """One role per seat: ``learner`` at ``seat``, the opponents' agent specs elsewhere.

    ``opponents`` is one agent spec for every other seat (``"random"``, ``"mcts:iters=200"``) or a
    list with one spec per other seat, in seat order. The seat count comes from ``config["seats"]``,
    else from the list's length, else from the game's default.
    """
    if isinstance(opponents, str):
        others = [opponents] * (seat_count(client, game, config) - 1)
    else:
        others = [str(o) for o in opponents]
        n = (config or {}).get("seats") or len(others) + 1
        if len(others) != int(n) - 1:
            raise ValueError(f"opponents lists {len(others)} agents but the game has {n} seats ({n - 1} opponents)")
    clients = [o for o in others if o in ("learner", "external")]
    if clients:
        raise ValueError(
            f"opponents are agent specs played by the server ({', '.join(repr(o) for o in clients)} given); "
            "for several client-controlled seats use cardgym.pettingzoo.env(game, seats=[...])"
        )
    if not 0 <= seat <= len(others):
        raise ValueError(f"seat must be in [0, {len(others)}], got {seat}")
    return [*others[:seat], "learner", *others[seat:]]


#: The seat roles a client decides (the rest are agent specs played in the server).
CLIENT_ROLES = ("learner", "external")


def observation_box(spec: Dict[str, Any]) -> spaces.Box:
    """The observation Box of a server spec. Bounds come from the spec when it declares them
    (``observation.low/high``, or ``low/high`` per layout field); otherwise they are unbounded,
    as the protocol's layout (v1) states only names, offsets and lengths."""
    o = spec["observation"]
    size = int(o["size"])
    low = np.full(size, -np.inf, dtype=np.float32)
    high = np.full(size, np.inf, dtype=np.float32)
    if "low" in o or "high" in o:
        low[:] = o.get("low", -np.inf)
        high[:] = o.get("high", np.inf)
    for field in o.get("layout", []):
        at = slice(int(field["offset"]), int(field["offset"]) + int(field["length"]))
        if field.get("low") is not None:
            low[at] = field["low"]
        if field.get("high") is not None:
            high[at] = field["high"]
    return spaces.Box(low, high, shape=(size,), dtype=np.float32)


def observation_space(spec: Dict[str, Any]) -> spaces.Dict:
    return spaces.Dict({"observation": observation_box(spec), "action_mask": spaces.MultiBinary(int(spec["action"]["size"]))})


def single_spaces(session: Session) -> Tuple[spaces.Dict, spaces.Discrete]:
    return observation_space(session.spec), spaces.Discrete(session.action_size)


class EnvArgs(TypedDict, total=False):
    """The keyword options every env type takes (see the README's "Other options on every env")."""

    max_decisions: Optional[int]
    illegal_action: str
    illegal_reward: float
    writable_obs: bool
    render_mode: Optional[str]
    url: Optional[str]
    client: Optional[Client]


class LearnerArgs(EnvArgs, total=False):
    """The options of the envs with one learner seat against server-side opponents."""

    seat: int
    learner_seat: str


class BatchArgs(LearnerArgs, total=False):
    """The options of the batched learner envs: LearnerArgs and each type's own (the Gymnasium
    vector env: ``autoreset_mode``, ``obs_dtype``; the SB3 VecEnv: ``observation``)."""

    autoreset_mode: Any
    obs_dtype: str
    observation: str


class EnvOptions:
    """The options of one env, checked, with their defaults: what ``**options`` of an env's
    constructor gives (``kind`` names the keys it may hold). An unknown key is a TypeError, as for
    any Python keyword argument."""

    def __init__(self, kind: Any, given: Mapping[str, Any]):
        allowed = kind.__required_keys__ | kind.__optional_keys__
        unknown = sorted(set(given) - allowed)
        if unknown:
            raise TypeError(f"unexpected keyword argument {unknown[0]!r} (options: {', '.join(sorted(allowed))})")
        self.max_decisions: Optional[int] = given.get("max_decisions")
        self.illegal_action: str = given.get("illegal_action", "terminate")
        self.server_illegal = check_illegal_action(self.illegal_action)
        self.illegal_reward = float(given.get("illegal_reward", -1.0))
        self.writable_obs: bool = bool(given.get("writable_obs", False))
        self.render_mode = check_render_mode(given.get("render_mode"))
        self.url: Optional[str] = given.get("url")
        self.client: Optional[Client] = given.get("client")
        self.seat: int = given.get("seat", 0)
        self.learner_seat = check_learner_seat(given.get("learner_seat", "fixed"))

    def session_args(self) -> Dict[str, Any]:
        """The create-session fields these options set."""
        return {"max_decisions": self.max_decisions, "illegal_action": self.server_illegal, "illegal_reward": self.illegal_reward}


class SessionEnv:
    """What every env type shares: one server session of ``num_envs`` games, opened from an
    :class:`EnvOptions`, its legal-action masks, its boards (``render``) and its release.

    Subclasses call :meth:`_open` first in their constructor and keep the latest mask in
    ``_mask`` (int8, one row per env when ``batched``)."""

    #: Whether the env holds several games at once (render gives one board per game).
    batched = False
    client: Client
    session: Optional[Session]
    options: EnvOptions
    render_mode: Optional[str]
    num_envs: int = 1

    def _open(
        self,
        game: str,
        config: Optional[Dict[str, Any]],
        seed: Optional[int],
        options: EnvOptions,
        roles: Callable[[Client, Optional[Dict[str, Any]]], List[str]],
        **create: Any,
    ) -> Session:
        self.options = options
        self.game = game
        self.render_mode = options.render_mode
        self.illegal_action = options.illegal_action
        self.illegal_reward = options.illegal_reward
        self.writable_obs = options.writable_obs
        self._mask: Optional[np.ndarray] = None
        self.session = None
        args = {**options.session_args(), **create}
        return open_session(self, game, config, roles, seed, options.client, options.url, **args)

    def _learner_roles(self, opponents: Opponents) -> Callable[[Client, Optional[Dict[str, Any]]], List[str]]:
        """The seat roles of a learner at ``options.seat`` against ``opponents``."""
        return lambda c, cfg: seat_roles(c, self.game, opponents, cfg, self.options.seat)

    def _client_roles(self, seats: Optional[Sequence[str]], too_few: Optional[str] = None) -> Callable[[Client, Optional[Dict[str, Any]]], List[str]]:
        """The seat roles of a multi-agent env: ``seats`` as given, else every seat ``external``;
        the seats the client decides go to ``_client_seats``. With ``too_few`` (the message),
        fewer than two client seats is a ValueError; otherwise a lone client seat becomes the
        ``learner`` (the server runs it in single mode)."""
        self._client_seats: List[int] = []

        def roles(c: Client, cfg: Optional[Dict[str, Any]]) -> List[str]:
            named = [str(s) for s in seats] if seats is not None else ["external"] * seat_count(c, self.game, cfg)
            self._client_seats = [i for i, r in enumerate(named) if r in CLIENT_ROLES]
            if too_few is not None and len(self._client_seats) < 2:
                raise ValueError(too_few)
            if len(self._client_seats) == 1:
                named[self._client_seats[0]] = "learner"
            return named

        return roles

    def _own(self, *arrays: np.ndarray) -> Tuple[np.ndarray, ...]:
        """The arrays as the caller gets them: copies with ``writable_obs``, else read-only views."""
        return tuple(a.copy() for a in arrays) if self.writable_obs else arrays

    def _live(self) -> Session:
        """The env's session; a closed env raises RuntimeError (a check, not an assert, so that it
        still holds under ``python -O``, where a bare None would fail as an AttributeError)."""
        if self.session is None:
            raise RuntimeError(f"the {type(self).__name__} is closed; make a new env")
        return self.session

    def action_masks(self) -> np.ndarray:
        """The current legal-action mask as bools: (A,), of the seat to act in a multi-agent env
        (all False once the game is over), or (N, A) for batched envs."""
        if self._mask is None:
            raise RuntimeError("call reset() first")
        return self._mask.astype(bool)

    def board(self, env: int = 0) -> str:
        """The table of game ``env`` as text (the game's own drawing), whose turn it is and the legal actions."""
        session = self._live()
        return session.render(env)

    def render(self) -> Any:
        """``ansi``: the board as text (one per game when batched); ``human``: printed, None returned."""
        return self._render(self.render_mode)

    def _render(self, mode: Optional[str]) -> Any:
        if mode is None or self.session is None:
            return None
        if not self.batched:
            return show(mode, self.board())
        texts = tuple(self.board(i) for i in range(self.num_envs))
        if mode == "human":
            show("human", "".join(f"--- env {i} ---\n{t}" for i, t in enumerate(texts)))
            return None
        return texts

    def close(self) -> None:
        release(self)

    def __del__(self) -> None:
        # Best effort: an env dropped without close() still releases the embedded server.
        try:
            release_client(self)
        except Exception:
            pass


class MultiAgentSessionEnv(SessionEnv):
    """The constructor of the multi-agent env types (PettingZoo AEC, RLlib multi-agent): one game,
    every client seat an agent (``seats``: one role per seat; default every seat ``external``).
    Subclasses set up their agents and spaces in :meth:`_start`."""

    #: A message when the env needs at least two client seats (see ``_client_roles``); None: any.
    too_few: Optional[str] = None

    def __init__(
        self,
        game: str,
        config: Optional[Dict[str, Any]] = None,
        seed: Optional[int] = None,
        *,
        seats: Optional[Sequence[str]] = None,
        **options: Unpack[EnvArgs],
    ):
        super().__init__()  # the framework's base class (AECEnv, MultiAgentEnv) next in the MRO
        o = EnvOptions(EnvArgs, options)
        self._start(self._open(game, config, seed, o, self._client_roles(seats, self.too_few), num_envs=1))

    def _start(self, session: Session) -> None:
        raise NotImplementedError


class LearnerBatchEnv(SessionEnv):
    """The constructor of the batched learner envs (Gymnasium vector env, SB3 VecEnv): ``num_envs``
    games with the learner at ``seat`` against ``opponents``. A subclass names the options of its
    own (``own_options``, checked and turned into session fields by :meth:`_prepare`) and sets up
    its spaces in :meth:`_start`."""

    batched = True
    #: The BatchArgs keys this env type takes beyond LearnerArgs.
    own_options: Tuple[str, ...] = ()

    def __init__(
        self,
        game: str,
        num_envs: int = 1,
        opponents: Opponents = "random",
        config: Optional[Dict[str, Any]] = None,
        seed: Optional[int] = None,
        **options: Unpack[BatchArgs],
    ):
        given: Dict[str, Any] = dict(options)
        own = {k: given.pop(k) for k in self.own_options if k in given}
        o = EnvOptions(LearnerArgs, given)
        create = self._prepare(own)
        session = self._open(game, config, seed, o, self._learner_roles(opponents), num_envs=num_envs, learner_seat=o.learner_seat, **create)
        self.seat = o.seat
        self._start(session)

    def _prepare(self, own: Dict[str, Any]) -> Dict[str, Any]:
        """Checks this type's own options (those given); returns the session fields they set."""
        return {}

    def _start(self, session: Session) -> None:
        raise NotImplementedError


class CardgymEnv(SessionEnv, gym.Env):
    """One env of ``game`` (a Gymnasium ``Env``) where the learner sits at ``seat`` and the other
    seats are played inside the server by ``opponents``.

    Observation: ``{"observation": float32[O], "action_mask": int8[A]}`` (1 = legal). Action: a
    ``Discrete(A)`` id. ``action_masks()`` gives the mask as bools (sb3-contrib MaskablePPO).
    Reward: the change of the learner's return (±1/0 at the end for the shipped games).

    ``illegal_action``: ``"terminate"`` (default) ends the episode on an illegal action with
    reward ``illegal_reward`` and ``info["illegal_action"] = True`` (what Gymnasium's and RLlib's
    env checkers, which step unmasked random actions, need); ``"raise"`` raises
    :class:`cardgym.IllegalActionError` with the server's message and changes nothing.

    ``learner_seat``: ``"fixed"`` (always ``seat``), ``"alternating"`` or ``"random"`` per episode;
    ``info["learner_seat"]`` tells the seat. ``writable_obs=True`` returns observations the caller
    may modify (copies); by default they are read-only views of the reply.

    Stepping after the episode ended raises ``RuntimeError``: call ``reset()``.

    ``seed``: the session seed used by the first ``reset()`` without a seed (random when None);
    ``reset(seed=s)`` re-seeds. ``client``/``url``: which server (default: the embedded one).
    ``config``: the game's config; for dcg the envs default to mirror books (DEFAULT_CONFIGS).
    ``render_mode``: ``"ansi"`` returns the board as text, ``"human"`` prints it.
    """

    # render_fps: text frames; declared so frame-pacing tools have a value.
    metadata = {"render_modes": RENDER_MODES, "render_fps": 4}

    def __init__(
        self,
        game: str,
        opponents: Opponents = "random",
        config: Optional[Dict[str, Any]] = None,
        seed: Optional[int] = None,
        **options: Unpack[LearnerArgs],
    ):
        o = EnvOptions(LearnerArgs, options)
        session = self._open(game, config, seed, o, self._learner_roles(opponents), num_envs=1, learner_seat=o.learner_seat)
        self.seat = o.seat
        self.observation_space, self.action_space = single_spaces(session)
        self._obs: Optional[np.ndarray] = None
        self._over: Optional[str] = None

    @property
    def spec_info(self) -> Dict[str, Any]:
        """The server's env spec (observation layout, action layout, actionSpecHash)."""
        session = self._live()
        return session.spec

    def _unpack(self, one: OneStep) -> Tuple[Dict[str, np.ndarray], Dict[str, Any]]:
        obs, mask = self._own(one.obs, one.mask)
        self._obs, self._mask = obs, mask
        out: Dict[str, Any] = {"episode_index": one.episode, "episode_step": one.episode_step, "returns": one.returns}
        if one.learner_seat is not None:
            out["learner_seat"] = one.learner_seat
        if one.illegal:
            out["illegal_action"] = True
        return {"observation": obs, "action_mask": mask}, out

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> Tuple[Dict[str, np.ndarray], Dict[str, Any]]:
        super().reset(seed=seed)
        session = self._live()
        obs, info = self._unpack(session.reset_one(seed))
        self._over = None
        return obs, info

    def step(self, action: Any) -> Tuple[Dict[str, np.ndarray], float, bool, bool, Dict[str, Any]]:
        session = self._live()
        if self._mask is None:
            raise RuntimeError("call reset() before step()")
        if self._over is not None:
            raise RuntimeError(f"the episode is over ({self._over}); call reset() before stepping again")
        # step_one: env 0 of the reply read straight from its bytes (the same values as step([action])).
        one = session.step_one(action)
        obs, info = self._unpack(one)
        terminated, truncated = one.terminated, one.truncated
        if terminated or truncated:
            self._over = "terminated" if terminated else "truncated"
            if one.illegal:
                self._over = "terminated by an illegal action"
        return obs, one.reward, terminated, truncated, info

    def action_labels(self) -> List[Dict[str, Any]]:
        """``[{id, label}]`` for every legal action now, sorted by id (a readable form of the mask)."""
        session = self._live()
        labels: List[Dict[str, Any]] = session.mask(labels=True)["labels"][0]
        return labels
