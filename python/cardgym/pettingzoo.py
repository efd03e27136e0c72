"""PettingZoo AEC environments: every client seat is an agent ``player_<seat>``.

``env(game, ...)`` returns the AEC env wrapped in PettingZoo's OrderEnforcingWrapper;
``raw_env(game, ...)`` the bare one.

There is no Parallel API env: every game here is turn-based with exactly one seat to act at a time
(the server names it per reply), so a parallel step would ask every agent for an action of which
all but one are thrown away, and the acting order (passes, extra turns, events) is not a fixed
cycle. Use the AEC env for multi-agent work and ``cardgym.make_vec`` to batch a single learner.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from .client import Session
from .env import RENDER_MODES, MultiAgentSessionEnv, observation_space


class CardgymAECEnv(MultiAgentSessionEnv, AECEnv):
    """An AEC env of ``game``: one agent per client seat, named ``player_<seat>``.

    ``seats``: one role per seat; ``"external"`` (or ``"learner"``) seats are agents of this env,
    anything else is an agent spec played inside the server (``"random"``...). Default: every seat
    of the game's default count (or ``config["seats"]``) is external.

    Observations: ``{"observation": float32[O], "action_mask": int8[A]}`` for each agent from its
    own view; the mask is the legal actions when that agent is to act, else all zeros. Rewards:
    each seat's change of return. When the game ends every agent is terminated (or truncated, with
    ``max_decisions``), as in PettingZoo's classic games.

    ``illegal_action``: ``"terminate"`` (default) ends the game on an illegal action, the acting
    agent getting ``illegal_reward`` and ``infos[agent]["illegal_action"] = True``; ``"raise"``
    raises :class:`cardgym.IllegalActionError` and changes nothing. ``render_mode``: ``"ansi"``
    returns the board as text, ``"human"`` prints it. ``writable_obs=True``: observations are
    copies the caller may modify (default: read-only views of the reply).
    """

    #: With a client whose sessions give any seat's observation on demand (the in-process
    #: runtime), replies carry the acting seat's only and observe() asks for the others.
    observes_seats_on_demand = True

    def _start(self, session: Session) -> None:
        self._on_demand = getattr(session, "observe", "all") == "acting"
        self.metadata: Dict[str, Any] = {"name": f"cardgym_{self.game}_v0", "render_modes": RENDER_MODES, "render_fps": 4, "is_parallelizable": False}
        self._single = session.mode == "single"
        self.possible_agents = [f"player_{s}" for s in self._client_seats]
        self._agent_of_seat = {s: a for s, a in zip(self._client_seats, self.possible_agents)}
        self._seat_of = {a: s for s, a in self._agent_of_seat.items()}
        # One space object per agent (PettingZoo seeds them per agent).
        self.observation_spaces = {a: observation_space(session.spec) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(session.action_size) for a in self.possible_agents}
        self.agents: List[str] = []
        self._batch: Optional[Dict[str, Any]] = None
        self._zero_mask = np.zeros(session.action_size, dtype=np.int8)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def _acting_agent(self, b: Dict[str, Any]) -> Optional[str]:
        seat = int(b["seat"][0])
        return self._agent_of_seat.get(seat) if seat >= 0 else None

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> None:
        session = self._live()
        b = session.reset(seed)
        self._batch, self._mask = b, b["mask"][0].view(np.int8)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: Dict[str, Dict[str, Any]] = {a: {} for a in self.agents}
        agent = self._acting_agent(b)
        assert agent is not None, "the server reset to a row with no client seat to act"
        self.agent_selection = agent

    def observe(self, agent: str) -> Dict[str, np.ndarray]:
        b = self._batch
        assert b is not None, "call reset() first"
        seat = self._seat_of[agent]
        acting = int(b["seat"][0]) == seat
        if self._single:
            obs = b["obs"][0]
        elif self._on_demand:
            obs = b["obs"][0] if acting else self.session.observation(0, seat)  # type: ignore[union-attr]
        else:
            obs = b["obs"][0, seat]
        mask = b["mask"][0].view(np.int8) if acting else self._zero_mask.copy()
        obs, mask = self._own(obs, mask)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: Optional[int]) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        session = self._live()
        if action is None:
            raise ValueError(f"{agent} is to act and must be given an action, not None")
        b = session.step([action])
        self._batch, self._mask = b, b["mask"][0].view(np.int8)
        reward = b["reward"][0].tolist()
        self._cumulative_rewards[agent] = 0.0
        if self._single:
            self.rewards = {a: reward for a in self.agents}
        else:
            seat_of = self._seat_of
            self.rewards = {a: reward[seat_of[a]] for a in self.agents}
        terminated, truncated = bool(b["terminated"][0]), bool(b["truncated"][0])
        if terminated or truncated:
            self.terminations = {a: terminated for a in self.agents}
            self.truncations = {a: truncated and not terminated for a in self.agents}
            # Every agent is done; each is stepped once with None (PettingZoo's dead-agent step).
        else:
            nxt = self._acting_agent(b)
            assert nxt is not None, "the server named no client seat to act on a live row"
            self.agent_selection = nxt
        self.infos = {a: {} for a in self.agents}
        illegal = b["info"].get("illegal")
        if illegal is not None and bool(illegal[0]):
            self.infos[agent] = {"illegal_action": True}
        self._accumulate_rewards()

    def action_mask(self, agent: Optional[str] = None) -> np.ndarray:
        """The legal actions of ``agent`` (default: the one to act) as bools."""
        return self.observe(agent or self.agent_selection)["action_mask"].astype(bool)


def raw_env(game: str, **kwargs: Any) -> CardgymAECEnv:
    """The bare AEC env (see :class:`CardgymAECEnv` for the arguments)."""
    return CardgymAECEnv(game, **kwargs)


def env(game: str, **kwargs: Any):
    """The AEC env of ``game`` in PettingZoo's OrderEnforcingWrapper (step before reset raises)."""
    return OrderEnforcingWrapper(CardgymAECEnv(game, **kwargs))
