"""An EnvPool-style vector env: ``num_envs`` envs of one game split into shards (one server session
each, placed on different session workers, so one trainer uses every core), stepped either in
lockstep (``step``) or asynchronously (``send`` / ``recv``): the trainer sends actions for the
shards it has observations of and computes on the first ones back while the others still step.
"""

from __future__ import annotations

import os
import select
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from .client import Client, Session
from .env import Opponents, check_illegal_action, game_config, open_client, random_seed, release_client, seat_roles


class EnvPool:
    """``num_envs`` envs of ``game`` (learner at ``seat``, ``opponents`` in the server) in ``shards``
    sessions of ``num_envs // shards`` envs each.

    ``shards`` defaults to the machine's cores, or the most of them that divide ``num_envs`` (the
    embedded server runs one session worker per core and places each new session on the least
    loaded one). Env ``i`` is env ``i % size`` of
    shard ``i // size`` and plays exactly what ``cardgym.make(seed=seed + i)`` plays.

    ``step(actions)`` steps every env (shards in parallel on the server) and returns
    ``(obs, rewards, terminations, truncations, infos)`` as :class:`cardgym.CardgymVectorEnv`
    does (next-step autoreset; a finished row's mask is ``[1, 0, ...]``, "send 0, it is ignored").

    Asynchronous use (EnvPool's): ``reset()``, then repeatedly ``recv()``, which returns the first
    ``batch_size`` envs whose step (or reset) is done, with ``infos["env_id"]`` naming them, and
    ``send(actions, env_id)`` for exactly those envs. ``batch_size`` (default ``num_envs``) must
    be a multiple of the shard size: a shard is stepped as a whole.
    """

    def __init__(
        self,
        game: str,
        num_envs: int,
        *,
        shards: Optional[int] = None,
        batch_size: Optional[int] = None,
        opponents: Opponents = "random",
        config: Optional[Dict[str, Any]] = None,
        seed: Optional[int] = None,
        seat: int = 0,
        max_decisions: Optional[int] = None,
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        obs_dtype: str = "float32",
        client: Optional[Client] = None,
        url: Optional[str] = None,
    ):
        if shards is None:
            # One shard per core, as many as divide num_envs evenly.
            shards = max(d for d in range(1, min(num_envs, os.cpu_count() or 1) + 1) if num_envs % d == 0) if num_envs >= 1 else 1
        if num_envs < 1 or shards < 1 or num_envs % shards:
            raise ValueError(f"num_envs ({num_envs}) must be a positive multiple of shards ({shards})")
        self.num_envs = num_envs
        self.shard_size = num_envs // shards
        self.batch_size = num_envs if batch_size is None else int(batch_size)
        if self.batch_size < 1 or self.batch_size > num_envs or self.batch_size % self.shard_size:
            raise ValueError(f"batch_size ({self.batch_size}) must be a multiple of the shard size ({self.shard_size}) up to num_envs")
        server_illegal = check_illegal_action(illegal_action)
        self.client, self._owns_client = open_client(client, url)
        self.sessions: List[Session] = []
        try:
            config = game_config(game, config)
            roles = seat_roles(self.client, game, opponents, config, seat)
            base = random_seed() if seed is None else int(seed)
            for k in range(shards):
                self.sessions.append(
                    self.client.create_session(
                        game, seats=roles, config=config, num_envs=self.shard_size, seed=base + k * self.shard_size,
                        max_decisions=max_decisions, obs_dtype=obs_dtype, illegal_action=server_illegal, illegal_reward=illegal_reward,
                    )
                )
        except BaseException:
            self.close()
            raise
        self.observation_size = self.sessions[0].observation_size
        self.action_size = self.sessions[0].action_size
        #: Shards whose reply is here (reset or step) and not yet handed out by recv.
        self._ready: List[Tuple[int, Dict[str, Any]]] = []
        #: Shards with a step in flight.
        self._in_flight: Dict[int, Session] = {}

    # ------------------------------------------------------------------ lockstep

    def reset(self, seed: Optional[int] = None) -> Tuple[Dict[str, np.ndarray], Dict[str, Any]]:
        """Restarts every env (``seed``: env i gets ``seed + i``); returns every env's first
        observation, in env order. For asynchronous use, follow with ``recv()``. Steps still in
        flight (sent and not received, or a ``step`` cut off by Ctrl-C) are received and dropped first."""
        self._check_open()
        while self._in_flight:
            k = next(iter(self._in_flight))
            self._in_flight.pop(k).recv_step()
        replies = [s.reset(None if seed is None else seed + k * self.shard_size) for k, s in enumerate(self.sessions)]
        self._ready = list(enumerate(replies))
        obs, _, _, _, infos = self._merge(self._ready)
        return obs, infos

    def step(self, actions: Any) -> Tuple[Dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, Dict[str, Any]]:
        """Steps every env: shards are sent first, then read, so they run in parallel on the server."""
        self.send(actions, np.arange(self.num_envs))
        replies = sorted(self._wait(len(self.sessions)), key=lambda r: r[0])
        return self._merge(replies)

    # ------------------------------------------------------------------ asynchronous

    def send(self, actions: Any, env_id: Any) -> None:
        """Sends ``actions[j]`` to env ``env_id[j]``; ``env_id`` must cover whole shards (as
        ``recv`` hands them out). Returns without waiting for the steps."""
        self._check_open()
        acts = np.asarray(actions).reshape(-1)
        ids = np.asarray(env_id, dtype=np.int64).reshape(-1)
        if acts.shape != ids.shape:
            raise ValueError(f"{acts.size} actions for {ids.size} env ids")
        order = np.argsort(ids, kind="stable")
        ids, acts = ids[order], acts[order]
        if ids.size % self.shard_size or ids.size == 0:
            raise ValueError(f"env_id must cover whole shards of {self.shard_size} envs")
        for start in range(0, ids.size, self.shard_size):
            shard_ids = ids[start : start + self.shard_size]
            k = int(shard_ids[0]) // self.shard_size
            if not (0 <= k < len(self.sessions)) or not np.array_equal(shard_ids, np.arange(k * self.shard_size, (k + 1) * self.shard_size)):
                raise ValueError(f"env_id must cover whole shards of {self.shard_size} envs (envs {shard_ids[0]}..)")
            if k in self._in_flight:
                raise RuntimeError(f"shard {k} already has a step in flight")
        self._ready = [(k, r) for k, r in self._ready if k not in {int(ids[s]) // self.shard_size for s in range(0, ids.size, self.shard_size)}]
        for start in range(0, ids.size, self.shard_size):
            k = int(ids[start]) // self.shard_size
            session = self.sessions[k]
            session.send_step(acts[start : start + self.shard_size])
            self._in_flight[k] = session

    def recv(self) -> Tuple[Dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, Dict[str, Any]]:
        """The first ``batch_size`` envs whose step (or reset) is done, as ``step`` returns them,
        with ``infos["env_id"]``; rewards, flags and infos of a reset batch are zeros / its own."""
        self._check_open()
        shards = self.batch_size // self.shard_size
        have = self._ready[:shards]
        self._ready = self._ready[shards:]
        if len(have) < shards:
            if len(have) + len(self._in_flight) < shards:
                raise RuntimeError("fewer envs are stepping than batch_size: send() actions for the last batch first")
            have += self._wait(shards - len(have))
        return self._merge(have)

    def _check_open(self) -> None:
        if not self.sessions:
            raise RuntimeError("the EnvPool is closed; make a new one")

    def _wait(self, count: int) -> List[Tuple[int, Dict[str, Any]]]:
        """Receives the first ``count`` in-flight shards to answer."""
        out: List[Tuple[int, Dict[str, Any]]] = []
        while len(out) < count:
            ready = [k for k, s in self._in_flight.items() if s.fileno() < 0]
            if not ready:
                by_fd = {s.fileno(): k for k, s in self._in_flight.items()}
                readable, _, _ = select.select(list(by_fd), [], [])
                ready = [by_fd[fd] for fd in readable]
            for k in ready[: count - len(out)]:
                session = self._in_flight.pop(k)
                out.append((k, session.recv_step()))
        return out

    def _merge(self, replies: List[Tuple[int, Dict[str, Any]]]) -> Tuple[Dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, Dict[str, Any]]:
        cat = np.concatenate
        obs = cat([b["obs"] for _, b in replies])
        mask = cat([b["mask"] for _, b in replies]).view(np.int8)
        terminated = cat([b["terminated"] for _, b in replies])
        truncated = cat([b["truncated"] for _, b in replies])
        done = terminated | truncated
        if done.any():
            mask[done, 0] = 1  # concatenate made a copy: "send 0, it is ignored" on finished rows
        env_id = cat([np.arange(k * self.shard_size, (k + 1) * self.shard_size, dtype=np.int32) for k, _ in replies])
        infos = {
            "env_id": env_id,
            "episode_index": cat([b["info"]["episode"] for _, b in replies]),
            "episode_step": cat([b["info"]["episodeStep"] for _, b in replies]),
            "returns": cat([b["info"]["returns"] for _, b in replies]),
        }
        if all("illegal" in b["info"] for _, b in replies):
            infos["illegal_action"] = cat([b["info"]["illegal"] for _, b in replies])
        return {"observation": obs, "action_mask": mask}, cat([b["reward"] for _, b in replies]), terminated, truncated, infos

    def close(self) -> None:
        """Deletes the sessions; closes the client if the pool made it. Idempotent."""
        sessions, self.sessions = self.sessions, []
        try:
            for s in sessions:
                s.close()
        finally:
            release_client(self)

    def __enter__(self) -> EnvPool:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


__all__ = ["EnvPool"]
