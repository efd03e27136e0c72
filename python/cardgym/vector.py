"""A Gymnasium vector env: ``num_envs`` envs of one game in ONE server session, all stepped in one
request per ``step()``."""

from __future__ import annotations

import operator
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union, cast

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .client import Session
from .env import LearnerBatchEnv, release, single_spaces

Seed = Union[int, Sequence[Optional[int]], None]


def seed_request(seed: Seed, num_envs: int) -> Dict[str, Any]:
    """Gymnasium's vector seeding as a reset request: an int gives env i ``seed + i``; a list gives
    one seed (or None: not re-seeded) per env; None re-seeds nothing."""
    if seed is None:
        return {}
    if isinstance(seed, (list, tuple, np.ndarray)):
        seeds = [None if s is None else int(s) for s in seed]
        if len(seeds) != num_envs:
            raise ValueError(f"seed lists {len(seeds)} seeds for {num_envs} envs")
        if all(s is None for s in seeds):
            return {}
        return {"seeds": seeds}
    return {"seed": operator.index(cast(int, seed))}


class CardgymVectorEnv(LearnerBatchEnv, VectorEnv):
    """``num_envs`` copies of ``game`` with the learner at ``seat`` and ``opponents`` in the server.

    Seeding follows Gymnasium's vector envs: ``make_vec(seed=s)`` (or ``reset(seed=s)``) gives env
    i the seed ``s + i``, so env i plays exactly what ``cardgym.make(seed=s + i)`` plays (a
    ``SyncVectorEnv`` of those is identical step for step); ``reset(seed=[s0, s1, ...])`` seeds
    each env (None: not re-seeded).

    Autoreset (``autoreset_mode``): ``AutoresetMode.NEXT_STEP`` (default) — the step that ends
    env i's episode returns its last observation with ``terminations[i]`` or ``truncations[i]``
    set; the next step ignores env i's action and returns the first observation of its new
    episode (reward 0, flags clear). ``AutoresetMode.SAME_STEP`` — the step that ends an episode
    already returns the next one's first observation; the ended episode's last observation is in
    ``infos["final_obs"]`` (and ``infos["final_info"]``), as Gymnasium's vectorizers do.

    Observations: ``{"observation": float32[N, O], "action_mask": int8[N, A]}``. On a row whose
    episode just ended (next-step mode), the server's mask is all zeros (nothing is legal); this
    env reports ``[1, 0, 0, ...]`` there instead, i.e. "send 0, it is ignored", so that masked
    sampling never sees an empty row. That row is the one difference from a ``SyncVectorEnv`` of
    single envs, whose terminal mask stays all zero. Observations view the reply buffer and are
    read-only unless ``writable_obs=True``.

    ``illegal_action``: ``"terminate"`` (default: that env's episode ends with ``illegal_reward``,
    ``infos["illegal_action"][i]`` True) or ``"raise"``. ``learner_seat``: ``"fixed"``,
    ``"alternating"`` or ``"random"`` per episode (``infos["learner_seat"]``).
    ``obs_dtype`` (``"float32"``, ``"float16"``, ``"uint8"``, ``"bits"``) makes the replies lighter
    (see :meth:`cardgym.Client.create_session`); observations are still float32 here, decoded on
    arrival (exactly the same values for uint8 and bits).

    infos: ``episode_index`` (episodes started by each env), ``episode_step`` (decisions in the
    current episode), ``returns`` ([N, seats], the game's cumulative returns) and
    ``learner_seat``, each with its ``_key`` mask (always all True).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["ansi", "human"]}

    own_options = ("autoreset_mode", "obs_dtype")

    def _prepare(self, own: Dict[str, Any]) -> Dict[str, Any]:
        mode = AutoresetMode(own.get("autoreset_mode", AutoresetMode.NEXT_STEP))
        if mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
            raise ValueError(f"autoreset_mode must be NEXT_STEP or SAME_STEP, got {mode}")
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        return {"obs_dtype": own.get("obs_dtype", "float32"), "autoreset": "same-step" if mode == AutoresetMode.SAME_STEP else "next-step"}

    def _start(self, session: Session) -> None:
        self.num_envs = session.num_envs
        self.single_observation_space, self.single_action_space = single_spaces(session)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, session.action_size))
        self._all = np.ones(self.num_envs, dtype=bool)

    def _infos(self, b: Dict[str, Any]) -> Dict[str, Any]:
        info = b["info"]
        infos: Dict[str, Any] = {}
        for key, wire in (("episode_index", "episode"), ("episode_step", "episodeStep"), ("returns", "returns"), ("learner_seat", "learnerSeat"), ("illegal_action", "illegal")):
            if wire in info:
                infos[key] = info[wire]
                infos[f"_{key}"] = self._all.copy()
        return infos

    def _unpack(self, b: Dict[str, Any]) -> Tuple[Dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, Dict[str, Any]]:
        terminated = b["terminated"].copy()
        truncated = b["truncated"].copy()
        mask, obs_rows = self._own(b["mask"].view(np.int8), b["obs"])
        done = terminated | truncated
        if done.any() and "final" not in b:
            mask = mask if self.writable_obs else mask.copy()
            mask[done, 0] = 1
        self._mask = mask
        infos = self._infos(b)
        final = b.get("final")
        if final is not None and done.any():
            # Gymnasium's SAME_STEP convention: final_obs / final_info, per env, where an episode ended.
            final_obs = np.empty(self.num_envs, dtype=object)
            final_info = np.empty(self.num_envs, dtype=object)
            zero = np.zeros(self.session.action_size if self.session else 0, dtype=np.int8)
            for j, i in enumerate(final["envs"]):
                final_obs[i] = {"observation": final["obs"][j].copy(), "action_mask": zero.copy()}
                final_info[i] = {"returns": final["returns"][j].copy(), "episode_step": int(final["episodeStep"][j])}
            infos["final_obs"], infos["_final_obs"] = final_obs, done.copy()
            infos["final_info"], infos["_final_info"] = final_info, done.copy()
        obs = {"observation": obs_rows, "action_mask": mask}
        return obs, b["reward"].copy(), terminated, truncated, infos

    def reset(self, *, seed: Seed = None, options: Optional[Dict[str, Any]] = None) -> Tuple[Dict[str, np.ndarray], Dict[str, Any]]:
        """``seed``: an int re-seeds env i with ``seed + i``; a list gives one seed per env (None:
        that env's stream goes on); see docs/protocol.md."""
        session = self._live()
        request = seed_request(seed, self.num_envs)
        super().reset(seed=seed if isinstance(seed, int) else None)
        obs, _, _, _, infos = self._unpack(session.reset(request.get("seed"), seeds=request.get("seeds")))
        return obs, infos

    def step(self, actions: Any) -> Tuple[Dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, Dict[str, Any]]:
        session = self._live()
        return self._unpack(session.step(np.asarray(actions).reshape(self.num_envs)))

    # VectorEnv's close (it marks the env closed, then calls close_extras), not SessionEnv's.
    close = VectorEnv.close

    def close_extras(self, **kwargs: Any) -> None:
        release(self)


__all__: List[str] = ["CardgymVectorEnv", "seed_request"]
