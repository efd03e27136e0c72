"""A Stable-Baselines3 ``VecEnv`` that steps all its envs in one server request.

    from sb3_contrib import MaskablePPO
    import cardgym.sb3
    venv = cardgym.sb3.vec_env("dcg", num_envs=8, seed=0)
    model = MaskablePPO("MlpPolicy", venv).learn(100_000)

SB3's conventions, exactly: the step in which env i's episode ends already returns the first
observation of its next episode (the server's same-step autoreset), ``dones[i]`` is True,
``infos[i]["terminal_observation"]`` holds the ended episode's last observation and
``infos[i]["TimeLimit.truncated"]`` says whether it was cut by ``max_decisions``;
``infos[i]["episode"] = {"r", "l", "t"}`` (what SB3's Monitor would add) reports the learner's
total reward and decisions. ``action_masks()`` (and ``env_method("action_masks")``) give the
legal actions for sb3-contrib's MaskablePPO. ``seed(s)`` then ``reset()`` seeds env i with
``s + i``, as SB3 does.

Stable-Baselines3 needs PyTorch; without it this module still imports (the class then derives
from a stand-in with SB3's VecEnv interface), so the conventions are testable without torch.
"""

from __future__ import annotations

import time
from typing import Any, Dict, List, Optional, Sequence, Type, Union

import numpy as np
from gymnasium import spaces

from .client import Session
from .env import LearnerBatchEnv, observation_box, observation_space

Indices = Union[None, int, Sequence[int]]

try:  # pragma: no cover - which branch runs depends on the environment
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv as _Base

    HAVE_SB3 = True
except ImportError:  # no stable-baselines3 (or no torch): a stand-in with the same interface
    HAVE_SB3 = False

    class _Base:  # type: ignore[no-redef]
        """The part of SB3's ``VecEnv`` base class this module relies on (SB3 2.x)."""

        def __init__(self, num_envs: int, observation_space: spaces.Space, action_space: spaces.Space):
            self.num_envs = num_envs
            self.observation_space = observation_space
            self.action_space = action_space
            self.reset_infos: List[Dict[str, Any]] = [{} for _ in range(num_envs)]
            self._seeds: List[Optional[int]] = [None for _ in range(num_envs)]
            self._options: List[Dict[str, Any]] = [{} for _ in range(num_envs)]

        def step(self, actions: np.ndarray) -> Any:
            self.step_async(actions)  # type: ignore[attr-defined]
            return self.step_wait()  # type: ignore[attr-defined]

        def seed(self, seed: Optional[int] = None) -> Sequence[Optional[int]]:
            if seed is None:
                seed = int(np.random.randint(0, np.iinfo(np.uint32).max, dtype=np.uint32))
            self._seeds = [seed + idx for idx in range(self.num_envs)]
            return self._seeds

        def _reset_seeds(self) -> None:
            self._seeds = [None for _ in range(self.num_envs)]

        def _reset_options(self) -> None:
            self._options = [{} for _ in range(self.num_envs)]

        def set_options(self, options: Optional[Union[List[Dict[str, Any]], Dict[str, Any]]] = None) -> None:
            if options is None:
                options = {}
            self._options = options if isinstance(options, list) else [options] * self.num_envs

        @property
        def unwrapped(self) -> Any:
            return self


class CardgymVecEnv(LearnerBatchEnv, _Base):
    """``num_envs`` envs of ``game``, the learner at ``seat`` against ``opponents``, as an SB3
    ``VecEnv`` (see the module doc for the conventions).

    ``observation``: ``"flat"`` (default: the observation vector, for ``"MlpPolicy"``) or
    ``"dict"`` (``{"observation", "action_mask"}`` like the Gymnasium envs, for
    ``"MultiInputPolicy"``). ``illegal_action``: ``"terminate"`` (default) or ``"raise"``;
    ``learner_seat``: ``"fixed"``, ``"alternating"`` or ``"random"`` per episode. Observations are
    fresh arrays every step (SB3 may keep them).
    """

    own_options = ("observation",)

    def _prepare(self, own: Dict[str, Any]) -> Dict[str, Any]:
        observation = own.get("observation", "flat")
        if observation not in ("flat", "dict"):
            raise ValueError(f"observation must be 'flat' or 'dict', got {observation!r}")
        self.observation_kind = observation
        return {"autoreset": "same-step"}

    def _start(self, session: Session) -> None:
        n = session.num_envs
        obs_space: spaces.Space = observation_box(session.spec) if self.observation_kind == "flat" else observation_space(session.spec)
        _Base.__init__(self, n, obs_space, spaces.Discrete(session.action_size))
        self.metadata = {"render_modes": ["ansi", "human"]}
        self._actions: Optional[np.ndarray] = None
        self._mask = np.zeros((n, session.action_size), dtype=np.int8)
        self._ep_reward = np.zeros(n, dtype=np.float64)
        self._ep_length = np.zeros(n, dtype=np.int64)
        self._ep_start = np.full(n, time.time())

    # ------------------------------------------------------------------ observations

    def _obs(self, rows: np.ndarray, mask: np.ndarray) -> Any:
        if self.observation_kind == "flat":
            return rows.copy()
        return {"observation": rows.copy(), "action_mask": mask.astype(np.int8)}

    def _one(self, row: np.ndarray) -> Any:
        """A single env's observation (terminal_observation), in this env's observation format."""
        if self.observation_kind == "flat":
            return row.copy()
        session = self._live()
        return {"observation": row.copy(), "action_mask": np.zeros(session.action_size, dtype=np.int8)}

    # ------------------------------------------------------------------ VecEnv API

    def reset(self) -> Any:
        session = self._live()
        seeds = list(self._seeds)
        b = session.reset(seeds=seeds) if any(s is not None for s in seeds) else session.reset()
        self._reset_seeds()
        if hasattr(self, "_reset_options"):
            self._reset_options()
        self._mask = b["mask"].view(np.int8)
        self._ep_reward[:] = 0
        self._ep_length[:] = 0
        self._ep_start[:] = time.time()
        info = b["info"]
        self.reset_infos = [{"learner_seat": int(info["learnerSeat"][i])} for i in range(self.num_envs)]
        return self._obs(b["obs"], b["mask"])

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self) -> Any:
        session = self._live()
        if self._actions is None:
            raise RuntimeError("step_async() must come before step_wait()")
        actions, self._actions = self._actions, None
        b = session.step(actions)
        rewards = b["reward"].astype(np.float32)
        terminated = b["terminated"].astype(bool)
        truncated = b["truncated"].astype(bool)
        dones = terminated | truncated
        self._mask = b["mask"].view(np.int8)
        self._ep_reward += rewards
        self._ep_length += 1
        info = b["info"]
        illegal = info.get("illegal")
        infos: List[Dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            final = b["final"]
            now = time.time()
            for j, i in enumerate(final["envs"]):
                infos[i]["terminal_observation"] = self._one(final["obs"][j])
                infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
                infos[i]["episode"] = {"r": float(self._ep_reward[i]), "l": int(self._ep_length[i]), "t": round(now - self._ep_start[i], 6)}
                infos[i]["learner_seat"] = int(final["learnerSeat"][j])
                if illegal is not None and bool(illegal[i]):
                    infos[i]["illegal_action"] = True
                self._ep_reward[i] = 0
                self._ep_length[i] = 0
                self._ep_start[i] = now
        return self._obs(b["obs"], b["mask"]), rewards, dones, infos

    def _indices(self, indices: Indices) -> List[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def get_attr(self, attr_name: str, indices: Indices = None) -> List[Any]:
        """The attribute, once per env: every env of the session shares this object's attributes."""
        value = getattr(self, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Indices = None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: Indices = None, **method_kwargs: Any) -> List[Any]:
        """``action_masks`` gives each env's own mask; any other method runs once on this VecEnv
        (the envs live in one server session) and its result is repeated per env."""
        rows = self._indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in rows]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in rows]

    def env_is_wrapped(self, wrapper_class: Type[Any], indices: Indices = None) -> List[bool]:
        return [False for _ in self._indices(indices)]

    def get_images(self) -> Sequence[Optional[np.ndarray]]:
        return [None for _ in range(self.num_envs)]

    def render(self, mode: Optional[str] = None) -> Optional[Any]:
        """``ansi``: one board text per env; ``human``: prints them."""
        return self._render(mode or self.render_mode)


def vec_env(game: str, num_envs: int = 1, **kwargs: Any) -> CardgymVecEnv:
    """A :class:`CardgymVecEnv` (keyword arguments as there)."""
    return CardgymVecEnv(game, num_envs, **kwargs)


def policy_logits_module(model: Any) -> Any:
    """A ``torch.nn.Module`` mapping float32 observations [batch, obsSize] to the raw action logits
    of ``model``'s policy (sb3-contrib's MaskablePPO, or SB3's PPO / A2C with a Discrete action
    space and a flat Box observation, as ``cardgym.sb3.vec_env`` gives): the policy's features
    extractor, its actor network and its action head, without the mask (the ``onnx`` agent masks).
    The module shares the policy's parameters."""
    import torch

    policy = model.policy if hasattr(model, "policy") else model
    if not isinstance(policy.observation_space, spaces.Box) or len(policy.observation_space.shape) != 1:
        raise ValueError(f"the policy's observations must be a flat Box (MlpPolicy on cardgym.sb3.vec_env), not {policy.observation_space}")
    if not isinstance(policy.action_space, spaces.Discrete):
        raise ValueError(f"the policy's actions must be Discrete, not {policy.action_space}")

    class PolicyLogits(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.policy = policy

        def forward(self, obs: Any) -> Any:
            features = self.policy.extract_features(obs, self.policy.pi_features_extractor)
            return self.policy.action_net(self.policy.mlp_extractor.forward_actor(features))

    return PolicyLogits()


def export_onnx(model: Any, game: str, path: Any, **kwargs: Any) -> Dict[str, Any]:
    """Exports ``model``'s policy (see :func:`policy_logits_module`) with :func:`cardgym.onnx.export`
    to ``path``, for the ``onnx`` agent (``onnx:path=...``) in the arena, server sessions and
    live tables; keyword arguments and the returned report are ``cardgym.onnx.export``'s."""
    from . import onnx as cardgym_onnx

    module = policy_logits_module(model)
    device = next(module.parameters()).device
    module.to("cpu")
    try:
        return cardgym_onnx.export(module, game, path, **kwargs)
    finally:
        module.to(device)


__all__: List[str] = ["CardgymVecEnv", "HAVE_SB3", "export_onnx", "policy_logits_module", "vec_env"]
