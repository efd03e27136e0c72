"""Batched self-play: ``num_envs`` games where the caller plays every seat, all stepped in one
request (the server's multi-agent mode with same-step autoreset).

    venv = cardgym.selfplay.vector_env("sevens", num_envs=64, seed=0)
    obs, infos = venv.reset()
    while training:
        actions = policy(obs["observation"], obs["action_mask"])      # one action per env
        obs, rewards, terminations, truncations, infos = venv.step(actions)

A PettingZoo-style vector API for turn-based games: each env has one agent to act at a time
(``venv.agent_selection[i]``, a seat index; ``venv.possible_agents[seat]`` is its PettingZoo
name), and one request decides for the acting agent of every env, where the AEC env
(:mod:`cardgym.pettingzoo`) needs one round trip per decision.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

import numpy as np
from gymnasium import spaces

from .client import Client
from .env import EnvArgs, EnvOptions, SessionEnv, observation_space, seat_count
from .vector import Seed, seed_request

if TYPE_CHECKING:
    from typing_extensions import Unpack


class SelfPlayVectorEnv(SessionEnv):
    """``num_envs`` envs of ``game`` with every seat played by the caller (a shared policy, or one
    per seat), stepped together.

    ``reset()`` and ``step()`` return ``obs = {"observation": float32[N, O], "action_mask":
    int8[N, A]}``, the view and legal actions of the agent to act in each env (its seat is
    ``agent_selection[i]`` and ``infos["agent"]``). ``step(actions)`` takes one action id per env,
    for that env's acting agent, and returns ``rewards`` float32[N, S] (every seat's reward since
    the previous step, so a seat that is not acting still gets its share when another seat's move
    scores), ``terminations``/``truncations`` bool[N].

    Autoreset is same-step: when env i's game ends in a step, its row already holds the next
    game's first decision. The ended games are listed in ``infos["final_envs"]`` (int32[K], the
    envs where ``terminations | truncations``), with ``infos["final_obs"]`` float32[K, S, O] every
    seat's last observation, ``infos["final_returns"]`` [K, S] and ``infos["final_episode_step"]``
    [K]. Only the acting seat's observation crosses the wire each step (the server's
    ``observe: "acting"``), which is what makes a step of 64 games cheap.

    Seeding as :class:`cardgym.CardgymVectorEnv`: env i gets ``seed + i``; a list seeds each env.
    ``illegal_action``: ``"terminate"`` (default; the acting seat gets ``illegal_reward``,
    ``infos["illegal_action"][i]`` True) or ``"raise"``. ``render_mode``: ``"ansi"`` gives one
    board per env, ``"human"`` prints them. ``writable_obs=True`` returns copies.
    """

    metadata = {"render_modes": ["ansi", "human"], "autoreset_mode": "same-step"}

    batched = True

    def __init__(
        self,
        game: str,
        num_envs: int = 1,
        config: Optional[Dict[str, Any]] = None,
        seed: Optional[int] = None,
        **options: Unpack[EnvArgs],
    ):
        def roles(c: Client, cfg: Optional[Dict[str, Any]]) -> List[str]:
            n_seats = seat_count(c, game, cfg)
            if n_seats < 2:
                raise ValueError(f"self-play needs at least 2 seats; {game} is played by {n_seats}")
            return ["external"] * n_seats

        o = EnvOptions(EnvArgs, options)
        session = self._open(game, config, seed, o, roles, num_envs=num_envs, autoreset="same-step", observe="acting")
        self.num_envs = session.num_envs
        self.num_agents = session.num_seats
        self.possible_agents = [f"player_{s}" for s in range(self.num_agents)]
        self.single_observation_space: spaces.Dict = observation_space(session.spec)
        self.single_action_space = spaces.Discrete(session.action_size)
        self.agent_selection = np.zeros(self.num_envs, dtype=np.int32)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.single_observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self.single_action_space

    def _unpack(self, b: Dict[str, Any]) -> Tuple[Dict[str, np.ndarray], Dict[str, Any]]:
        seat = b["seat"]
        if (seat < 0).any():
            raise RuntimeError("the server left an env with no seat to act (same-step sessions never should)")
        self.agent_selection = seat.copy()
        obs, mask = self._own(b["obs"], b["mask"].view(np.int8))
        self._mask = mask
        info = b["info"]
        infos: Dict[str, Any] = {
            "agent": self.agent_selection,
            "episode_index": info["episode"],
            "episode_step": info["episodeStep"],
            "returns": info["returns"],
        }
        if "illegal" in info:
            infos["illegal_action"] = info["illegal"]
        final = b.get("final")
        if final is not None:
            infos["final_envs"] = final["envs"]
            infos["final_obs"] = final["obs"]
            infos["final_returns"] = final["returns"]
            infos["final_episode_step"] = final["episodeStep"]
        return {"observation": obs, "action_mask": mask}, infos

    def reset(self, *, seed: Seed = None, options: Optional[Dict[str, Any]] = None) -> Tuple[Dict[str, np.ndarray], Dict[str, Any]]:
        session = self._live()
        request = seed_request(seed, self.num_envs)
        return self._unpack(session.reset(request.get("seed"), seeds=request.get("seeds")))

    def step(self, actions: Any) -> Tuple[Dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, Dict[str, Any]]:
        session = self._live()
        if self._mask is None:
            raise RuntimeError("call reset() before step()")
        b = session.step(np.asarray(actions).reshape(self.num_envs))
        obs, infos = self._unpack(b)
        return obs, b["reward"].copy(), b["terminated"].copy(), b["truncated"].copy(), infos

    def __enter__(self) -> SelfPlayVectorEnv:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def vector_env(game: str, num_envs: int = 1, **kwargs: Any) -> SelfPlayVectorEnv:
    """A :class:`SelfPlayVectorEnv` of ``num_envs`` games of ``game`` (keyword arguments as there)."""
    return SelfPlayVectorEnv(game, num_envs, **kwargs)


__all__: List[str] = ["SelfPlayVectorEnv", "vector_env"]
