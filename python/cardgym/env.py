"""Gymnasium environments: one game with server-side opponents, seen by one learner seat."""

from __future__ import annotations

import secrets
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .client import Client, Session
from .errors import IllegalActionError

Opponents = Union[str, Sequence[str]]
ILLEGAL_ACTION_MODES = ("raise", "terminate")


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
        n = (config or {}).get("seats") or client.game(game)["defaultSeats"]
        others = [opponents] * (int(n) - 1)
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

    ``illegal_action``: ``"raise"`` (default) raises :class:`cardgym.IllegalActionError` with the
    server's message and changes nothing, so the env keeps going; ``"terminate"`` ends the episode
    instead with reward ``illegal_reward`` and ``info["illegal_action"] = True`` (for agents that
    do not use the mask, and for checkers that step random unmasked actions).

    ``seed``: the session seed used by the first ``reset()`` without a seed (random when None);
    ``reset(seed=s)`` re-seeds. ``client``/``url``: which server (default: the embedded one).
    """

    # render_fps: ansi frames are text snapshots; declared so frame-pacing tools have a value.
    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        game: str,
        opponents: Opponents = "random",
        config: Optional[Dict[str, Any]] = None,
        seed: Optional[int] = None,
        *,
        seat: int = 0,
        max_decisions: Optional[int] = None,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        render_mode: Optional[str] = None,
        url: Optional[str] = None,
        client: Optional[Client] = None,
    ):
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.game = game
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.client, self._owns_client = open_client(client, url)
        self.session: Optional[Session] = None
        try:
            seats = seat_roles(self.client, game, opponents, config, seat)
            self.session = self.client.create_session(
                game, seats=seats, config=config, num_envs=1, seed=random_seed() if seed is None else seed, max_decisions=max_decisions
            )
        except BaseException:
            self.close()
            raise
        self.seat = seat
        self.observation_space, self.action_space = single_spaces(self.session)
        self._obs: Optional[np.ndarray] = None
        self._mask: Optional[np.ndarray] = None

    @property
    def spec_info(self) -> Dict[str, Any]:
        """The server's env spec (observation layout, action layout, actionSpecHash)."""
        assert self.session is not None
        return self.session.spec

    def _unpack(self, b: Dict[str, Any]) -> Tuple[Dict[str, np.ndarray], Dict[str, Any]]:
        self._obs = b["obs"][0]
        self._mask = b["mask"][0].view(np.int8)
        info = b["info"]
        return (
            {"observation": self._obs, "action_mask": self._mask},
            {
                "episode_index": int(info["episode"][0]),
                "episode_step": int(info["episodeStep"][0]),
                "returns": info["returns"][0],
            },
        )

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None):
        super().reset(seed=seed)
        assert self.session is not None, "the env is closed"
        obs, info = self._unpack(self.session.reset(seed))
        return obs, info

    def step(self, action):
        assert self.session is not None, "the env is closed"
        try:
            b = self.session.step([action])
        except IllegalActionError as e:
            if self.illegal_action == "raise":
                raise
            assert self._obs is not None and self._mask is not None, "step() before reset()"
            obs = {"observation": self._obs.copy(), "action_mask": self._mask.copy()}
            return obs, self.illegal_reward, True, False, {"illegal_action": True, "error": e.message}
        obs, info = self._unpack(b)
        return obs, float(b["reward"][0]), bool(b["terminated"][0]), bool(b["truncated"][0]), info

    def action_masks(self) -> np.ndarray:
        """The current legal-action mask as bools, shape (A,) (all False once the episode ended)."""
        if self._mask is None:
            raise RuntimeError("call reset() first")
        return self._mask.astype(bool)

    def action_labels(self) -> List[Dict[str, Any]]:
        """``[{id, label}]`` for every legal action now, sorted by id (a readable form of the mask)."""
        assert self.session is not None, "the env is closed"
        return self.session.mask(labels=True)["labels"][0]

    def render(self) -> Optional[str]:
        if self.render_mode != "ansi" or self.session is None or self._mask is None:
            return None
        legal = ", ".join(f"{a['id']}:{a['label']}" for a in self.action_labels())
        return f"{self.game} (learner seat {self.seat}); legal actions: {legal or 'none (episode over)'}\n"

    def close(self) -> None:
        release(self)

    def __del__(self):
        # Best effort: an env dropped without close() still releases the embedded server.
        try:
            release_client(self)
        except Exception:
            pass
