"""Env creators for Ray RLlib, single-agent and multi-agent, with action masks under RLlib's keys.

    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.tune.registry import register_env
    import cardgym.rllib
    register_env("cardgym-dcg", cardgym.rllib.env_creator)
    config = PPOConfig().environment("cardgym-dcg", env_config={"game": "dcg"}).env_runners(num_env_runners=2)

Observations are ``{"observations": float32[O], "action_mask": float32[A]}`` (1.0 = legal), the
keys RLlib's action-masking RLModule reads. ``env_config`` keys: ``game`` (required), and
optionally ``opponents``, ``config``, ``seed``, ``seat``, ``learner_seat``, ``max_decisions``,
``illegal_action``, ``illegal_reward``, ``url`` (single agent); ``game``, ``config``, ``seed``,
``seats``, ``max_decisions``, ``illegal_action``, ``illegal_reward``, ``url`` (multi-agent).
When the config is RLlib's ``EnvContext``, each env runner and vector slot gets its own seed:
``seed + 1000 * worker_index + vector_index``.

Each env owns its client; with no ``url`` the env runner processes share one embedded server
(the first starts it; ``CARDGYM_SHARED_SERVER=0`` gives each its own), or all use one started
with ``npm start`` (``url``).
Ray is optional: without it the multi-agent env derives from a stand-in with RLlib's
``MultiAgentEnv`` interface, so the contract is testable without Ray.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Tuple

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .client import Session
from .env import CardgymEnv, MultiAgentSessionEnv, observation_box

try:  # pragma: no cover - depends on the environment
    from ray.rllib.env.multi_agent_env import MultiAgentEnv as _MultiAgentBase

    HAVE_RLLIB = True
except ImportError:
    HAVE_RLLIB = False

    class _MultiAgentBase:  # type: ignore[no-redef]
        """The part of RLlib's ``MultiAgentEnv`` interface the env implements (RLlib 2.x, new API stack)."""

        observation_spaces: Dict[str, spaces.Space]
        action_spaces: Dict[str, spaces.Space]
        agents: List[str]
        possible_agents: List[str]

        def __init__(self) -> None:
            pass

        def get_observation_space(self, agent_id: str) -> spaces.Space:
            return self.observation_spaces[agent_id]

        def get_action_space(self, agent_id: str) -> spaces.Space:
            return self.action_spaces[agent_id]

        @property
        def num_agents(self) -> int:
            return len(self.agents)


def rllib_observation_space(spec: Dict[str, Any]) -> spaces.Dict:
    size = int(spec["action"]["size"])
    return spaces.Dict({"observations": observation_box(spec), "action_mask": spaces.Box(0.0, 1.0, shape=(size,), dtype=np.float32)})


def _seed_of(config: Mapping[str, Any]) -> Optional[int]:
    seed = config.get("seed")
    if seed is None:
        return None
    worker = int(getattr(config, "worker_index", 0) or 0)
    vector = int(getattr(config, "vector_index", 0) or 0)
    return int(seed) + 1000 * worker + vector


def _convert(obs: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]:
    return {"observations": np.array(obs["observation"], dtype=np.float32), "action_mask": obs["action_mask"].astype(np.float32)}


class RLlibEnv(gym.Env):
    """A :class:`cardgym.CardgymEnv` with RLlib's observation keys (``observations``,
    ``action_mask``); every other argument as there."""

    metadata = CardgymEnv.metadata

    def __init__(self, game: str, **kwargs: Any):
        self.env = CardgymEnv(game, **kwargs)
        self.game = game
        self.render_mode = self.env.render_mode
        assert self.env.session is not None
        self.observation_space = rllib_observation_space(self.env.session.spec)
        self.action_space = self.env.action_space

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> Tuple[Dict[str, np.ndarray], Dict[str, Any]]:
        super().reset(seed=seed)
        obs, info = self.env.reset(seed=seed, options=options)
        return _convert(obs), info

    def step(self, action: Any) -> Tuple[Dict[str, np.ndarray], float, bool, bool, Dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        return _convert(obs), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self.env.action_masks()

    def render(self) -> Optional[str]:
        return self.env.render()

    def close(self) -> None:
        self.env.close()


class RLlibMultiAgentEnv(MultiAgentSessionEnv, _MultiAgentBase):
    """A turn-based multi-agent env of ``game`` for RLlib: every seat is an agent ``player_<seat>``
    (or the client seats of ``seats``, the rest played in the server).

    ``reset()`` and ``step()`` return an observation only for the agent to act next (RLlib's
    turn-based convention); ``step({agent: action})`` takes that agent's action. Every ``step()``
    reports every agent's reward, zero included: RLlib's episode requires a reward for an agent
    that acted and gets its next observation in the same step (an agent with several decisions in
    a row), and sums the rewards of agents not observed until they next act. When the game ends
    every agent gets its final observation and ``terminateds``/``truncateds`` hold every agent and
    ``"__all__"``.
    """

    metadata = {"render_modes": ["ansi", "human"]}

    too_few = "a multi-agent env needs at least 2 client seats; use cardgym.rllib.env_creator for one learner"

    def _start(self, session: Session) -> None:
        self.possible_agents = [f"player_{s}" for s in self._client_seats]
        self.agents = list(self.possible_agents)
        self._seat_of = {a: s for a, s in zip(self.possible_agents, self._client_seats)}
        self._agent_of = {s: a for a, s in self._seat_of.items()}
        space = rllib_observation_space(session.spec)
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(session.action_size) for a in self.possible_agents}
        # Kept for RLlib versions that read the single (shared) spaces.
        self.observation_space = space
        self.action_space = self.action_spaces[self.possible_agents[0]]
        self._acting: Optional[str] = None

    def _obs_of(self, b: Dict[str, Any], agent: str, acting: bool) -> Dict[str, np.ndarray]:
        o = b["obs"][0, self._seat_of[agent]]
        mask = b["mask"][0].astype(np.float32) if acting else np.zeros(self.session.action_size if self.session else 0, dtype=np.float32)
        return {"observations": np.array(o, dtype=np.float32), "action_mask": mask}

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> Tuple[Dict[str, Any], Dict[str, Any]]:
        session = self._live()
        b = session.reset(seed)
        self._mask = b["mask"][0].view(np.int8)
        self.agents = list(self.possible_agents)
        agent = self._agent_of[int(b["seat"][0])]
        self._acting = agent
        return {agent: self._obs_of(b, agent, True)}, {agent: {}}

    def step(self, action_dict: Dict[str, Any]) -> Tuple[Dict[str, Any], Dict[str, float], Dict[str, bool], Dict[str, bool], Dict[str, Any]]:
        session = self._live()
        if self._acting is None:
            raise RuntimeError("the episode is over; call reset() before stepping again")
        if self._acting not in action_dict:
            raise ValueError(f"{self._acting} is to act; got actions for {sorted(action_dict)}")
        b = session.step([action_dict[self._acting]])
        self._mask = b["mask"][0].view(np.int8)
        reward = b["reward"][0]
        rewards = {a: float(reward[s]) for a, s in self._seat_of.items()}
        terminated, truncated = bool(b["terminated"][0]), bool(b["truncated"][0])
        if terminated or truncated:
            obs = {a: self._obs_of(b, a, False) for a in self.possible_agents}
            infos: Dict[str, Any] = {a: {} for a in self.possible_agents}
            illegal = b["info"].get("illegal")
            if illegal is not None and bool(illegal[0]):
                infos[self._acting] = {"illegal_action": True}
            # `agents` stays the full list: RLlib's checker matches the final observations against it.
            self._acting = None
            done = {a: terminated for a in self.possible_agents}
            done["__all__"] = terminated
            cut = {a: truncated and not terminated for a in self.possible_agents}
            cut["__all__"] = truncated and not terminated
            return obs, rewards, done, cut, infos
        agent = self._agent_of[int(b["seat"][0])]
        self._acting = agent
        return {agent: self._obs_of(b, agent, True)}, rewards, {"__all__": False}, {"__all__": False}, {agent: {}}


_SINGLE_KEYS = ("opponents", "config", "seat", "learner_seat", "max_decisions", "illegal_action", "illegal_reward", "url", "render_mode")
_MULTI_KEYS = ("config", "seats", "max_decisions", "illegal_action", "illegal_reward", "url", "render_mode")


def env_creator(env_config: Mapping[str, Any]) -> RLlibEnv:
    """RLlib env creator for one learner (``register_env(name, env_creator)``); see the module doc."""
    if "game" not in env_config:
        raise ValueError("env_config needs 'game'")
    kwargs = {k: env_config[k] for k in _SINGLE_KEYS if k in env_config}
    return RLlibEnv(str(env_config["game"]), seed=_seed_of(env_config), **kwargs)


def multi_agent_env_creator(env_config: Mapping[str, Any]) -> RLlibMultiAgentEnv:
    """RLlib env creator for self-play / several learners (a ``MultiAgentEnv``); see the module doc."""
    if "game" not in env_config:
        raise ValueError("env_config needs 'game'")
    kwargs = {k: env_config[k] for k in _MULTI_KEYS if k in env_config}
    return RLlibMultiAgentEnv(str(env_config["game"]), seed=_seed_of(env_config), **kwargs)


__all__: List[str] = ["HAVE_RLLIB", "RLlibEnv", "RLlibMultiAgentEnv", "env_creator", "multi_agent_env_creator", "rllib_observation_space"]
