"""Gymnasium environments: one game with server-side opponents, seen by one learner seat."""

from __future__ import annotations

import secrets
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .client import Client, Session

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


class CardgymEnv(gym.Env):
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
        *,
        seat: int = 0,
        learner_seat: str = "fixed",
        max_decisions: Optional[int] = None,
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        writable_obs: bool = False,
        render_mode: Optional[str] = None,
        url: Optional[str] = None,
        client: Optional[Client] = None,
    ):
        server_illegal = check_illegal_action(illegal_action)
        check_learner_seat(learner_seat)
        self.render_mode = check_render_mode(render_mode)
        self.game = game
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.writable_obs = writable_obs
        self.client: Client
        self.session: Optional[Session] = None
        session = open_session(
            self, game, config, lambda c, cfg: seat_roles(c, game, opponents, cfg, seat), seed, client, url,
            num_envs=1, max_decisions=max_decisions, learner_seat=learner_seat, illegal_action=server_illegal,
            illegal_reward=self.illegal_reward,
        )
        self.seat = seat
        self.observation_space, self.action_space = single_spaces(session)
        self._obs: Optional[np.ndarray] = None
        self._mask: Optional[np.ndarray] = None
        self._over: Optional[str] = None

    @property
    def spec_info(self) -> Dict[str, Any]:
        """The server's env spec (observation layout, action layout, actionSpecHash)."""
        assert self.session is not None
        return self.session.spec

    def _unpack(self, b: Dict[str, Any]) -> Tuple[Dict[str, np.ndarray], Dict[str, Any]]:
        obs = b["obs"][0]
        mask = b["mask"][0].view(np.int8)
        if self.writable_obs:
            obs, mask = obs.copy(), mask.copy()
        self._obs, self._mask = obs, mask
        info = b["info"]
        out: Dict[str, Any] = {
            "episode_index": int(info["episode"][0]),
            "episode_step": int(info["episodeStep"][0]),
            "returns": info["returns"][0],
        }
        if "learnerSeat" in info:
            out["learner_seat"] = int(info["learnerSeat"][0])
        if "illegal" in info and bool(info["illegal"][0]):
            out["illegal_action"] = True
        return {"observation": obs, "action_mask": mask}, out

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> Tuple[Dict[str, np.ndarray], Dict[str, Any]]:
        super().reset(seed=seed)
        assert self.session is not None, "the env is closed"
        obs, info = self._unpack(self.session.reset(seed))
        self._over = None
        return obs, info

    def step(self, action: Any) -> Tuple[Dict[str, np.ndarray], float, bool, bool, Dict[str, Any]]:
        assert self.session is not None, "the env is closed"
        if self._mask is None:
            raise RuntimeError("call reset() before step()")
        if self._over is not None:
            raise RuntimeError(f"the episode is over ({self._over}); call reset() before stepping again")
        b = self.session.step([action])
        obs, info = self._unpack(b)
        terminated, truncated = bool(b["terminated"][0]), bool(b["truncated"][0])
        if terminated or truncated:
            self._over = "terminated" if terminated else "truncated"
            if info.get("illegal_action"):
                self._over = "terminated by an illegal action"
        return obs, float(b["reward"][0]), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The current legal-action mask as bools, shape (A,) (all False once the episode ended)."""
        if self._mask is None:
            raise RuntimeError("call reset() first")
        return self._mask.astype(bool)

    def action_labels(self) -> List[Dict[str, Any]]:
        """``[{id, label}]`` for every legal action now, sorted by id (a readable form of the mask)."""
        assert self.session is not None, "the env is closed"
        labels: List[Dict[str, Any]] = self.session.mask(labels=True)["labels"][0]
        return labels

    def board(self) -> str:
        """The table as text (the game's own drawing), whose turn it is and the legal actions."""
        assert self.session is not None, "the env is closed"
        return self.session.render(0)

    def render(self) -> Optional[str]:
        if self.render_mode is None or self.session is None:
            return None
        return show(self.render_mode, self.board())

    def close(self) -> None:
        release(self)

    def __del__(self) -> None:
        # Best effort: an env dropped without close() still releases the embedded server.
        try:
            release_client(self)
        except Exception:
            pass
