"""A Gymnasium vector env: ``num_envs`` envs of one game in ONE server session, all stepped in one
request per ``step()``."""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Union

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .client import Client, Session
from .env import Opponents, open_client, random_seed, release, seat_roles, single_spaces


class CardgymVectorEnv(VectorEnv):
    """``num_envs`` copies of ``game`` with the learner at ``seat`` and ``opponents`` in the server.

    Autoreset follows the server and Gymnasium's default, ``AutoresetMode.NEXT_STEP``: the step
    that ends env i's episode returns its last observation with ``terminations[i]`` or
    ``truncations[i]`` set; the next step ignores env i's action and returns the first
    observation of its new episode (reward 0, flags clear).

    Observations: ``{"observation": float32[N, O], "action_mask": int8[N, A]}``. On a row whose
    episode just ended, the server's mask is all zeros (nothing is legal); this env reports
    ``[1, 0, 0, ...]`` there instead, i.e. "send 0, it is ignored", so that masked sampling never
    sees an empty row. ``observation`` views the reply buffer: it is read-only (copy to write).
    ``obs_dtype`` (``"float32"``, ``"float16"``, ``"uint8"``, ``"bits"``) makes the replies lighter
    (see :meth:`cardgym.Client.create_session`); observations are still float32 here, decoded on
    arrival (exactly the same values for uint8 and bits).

    infos: ``episode_index`` (episodes started by each env), ``episode_step`` (decisions in the
    current episode) and ``returns`` ([N, seats], the game's cumulative returns), each with its
    ``_key`` mask (always all True).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        game: str,
        num_envs: int = 1,
        opponents: Opponents = "random",
        config: Optional[Dict[str, Any]] = None,
        seed: Optional[int] = None,
        *,
        seat: int = 0,
        max_decisions: Optional[int] = None,
        url: Optional[str] = None,
        client: Optional[Client] = None,
        render_mode: Optional[str] = None,
        obs_dtype: str = "float32",
    ):
        if render_mode is not None:
            raise ValueError("cardgym vector envs have no render modes")
        self.game = game
        self.render_mode = None
        self.client, self._owns_client = open_client(client, url)
        self.session: Optional[Session] = None
        try:
            seats = seat_roles(self.client, game, opponents, config, seat)
            self.session = self.client.create_session(
                game,
                seats=seats,
                config=config,
                num_envs=num_envs,
                seed=random_seed() if seed is None else seed,
                max_decisions=max_decisions,
                obs_dtype=obs_dtype,
            )
        except BaseException:
            self.close()
            raise
        self.num_envs = self.session.num_envs
        self.seat = seat
        self.single_observation_space, self.single_action_space = single_spaces(self.session)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, self.session.action_size))
        self._mask: Optional[np.ndarray] = None
        self._all = np.ones(self.num_envs, dtype=bool)

    def _unpack(self, b: Dict[str, Any]):
        terminated = b["terminated"].copy()
        truncated = b["truncated"].copy()
        mask = b["mask"].view(np.int8)
        done = terminated | truncated
        if done.any():
            mask = mask.copy()
            mask[done, 0] = 1
        self._mask = mask
        info = b["info"]
        infos = {
            "episode_index": info["episode"],
            "_episode_index": self._all.copy(),
            "episode_step": info["episodeStep"],
            "_episode_step": self._all.copy(),
            "returns": info["returns"],
            "_returns": self._all.copy(),
        }
        obs = {"observation": b["obs"], "action_mask": mask}
        return obs, b["reward"].copy(), terminated, truncated, infos

    def reset(self, *, seed: Optional[Union[int, Sequence[Optional[int]]]] = None, options: Optional[Dict[str, Any]] = None):
        """``seed``: an int re-seeds the whole session (env i then derives its own streams from it,
        see docs/protocol.md); per-env seed lists are not supported (the server seeds per session)."""
        assert self.session is not None, "the env is closed"
        one: Optional[int]
        if seed is None or isinstance(seed, int):
            one = seed
        elif all(s is None for s in seed):
            one = None
        elif len(set(seed)) == 1:
            one = seed[0]
        else:
            raise ValueError("cardgym vector envs take one seed for the whole session (an int), not one per env")
        super().reset(seed=one)
        obs, _, _, _, infos = self._unpack(self.session.reset(one))
        return obs, infos

    def step(self, actions):
        assert self.session is not None, "the env is closed"
        return self._unpack(self.session.step(np.asarray(actions).reshape(self.num_envs)))

    def action_masks(self) -> np.ndarray:
        """The current masks as bools, shape (N, A) (done rows: only action 0, which is ignored)."""
        if self._mask is None:
            raise RuntimeError("call reset() first")
        return self._mask.astype(bool)

    def close_extras(self, **kwargs: Any) -> None:
        release(self)
