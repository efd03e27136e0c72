"""cardgym: Python envs for the cardgym card-game server.

    import cardgym
    env = cardgym.make("sevens", opponents="random", seed=0)        # gymnasium.Env
    venv = cardgym.make_vec("sevens", num_envs=64, seed=0)          # gymnasium.vector.VectorEnv
    aec = cardgym.pettingzoo.env("sevens", seed=0)                  # PettingZoo AEC env
    sp = cardgym.selfplay.vector_env("sevens", num_envs=64)         # batched self-play, every seat
    sb = cardgym.sb3.vec_env("dcg", num_envs=8)                     # after `import cardgym.sb3`
    cardgym.rllib.env_creator({"game": "dcg"})                      # after `import cardgym.rllib`
    gymnasium.make("cardgym/sevens-v0")                              # after `import cardgym`
    cardgym.onnx.export(policy, "dcg", "models/p.onnx")             # a PyTorch policy as an opponent

With no URL (and no CARDGYM_URL) the package starts the Node server from the repository checkout
(see cardgym.server) and stops it when the last env using it closes.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, Optional

import gymnasium

from . import onnx, pettingzoo, pool, selfplay
from .client import Client, Session, tensor
from .env import CardgymEnv, Opponents
from .errors import CardgymError, IllegalActionError, ServerError, ServerStartError, ServerUnavailable
from .inprocess import InProcessClient
from .pool import EnvPool
from .table import Table
from .vector import CardgymVectorEnv

__version__ = "0.1.0"

__all__ = [
    "CardgymEnv",
    "CardgymError",
    "CardgymVectorEnv",
    "Client",
    "EnvPool",
    "IllegalActionError",
    "InProcessClient",
    "ServerError",
    "ServerStartError",
    "ServerUnavailable",
    "Session",
    "Table",
    "make",
    "make_pool",
    "make_vec",
    "onnx",
    "pettingzoo",
    "pool",
    "register_envs",
    "selfplay",
    "tensor",
]

#: Games registered with Gymnasium at import (no server is contacted then). A game added to the
#: server later is registered by ``register_envs()``, which asks the server for its list.
KNOWN_GAMES = ("sevens", "shephy", "dcg", "blackpoker")


def make(game: str, opponents: Opponents = "random", config: Optional[Dict[str, Any]] = None, seed: Optional[int] = None, **kwargs: Any) -> CardgymEnv:
    """A Gymnasium env of ``game``; see :class:`cardgym.CardgymEnv` for the keyword arguments
    (``seat``, ``max_decisions``, ``illegal_action``, ``url``, ``client``, ``render_mode``)."""
    return CardgymEnv(game, opponents=opponents, config=config, seed=seed, **kwargs)


def make_vec(
    game: str, num_envs: int, opponents: Opponents = "random", config: Optional[Dict[str, Any]] = None, seed: Optional[int] = None, **kwargs: Any
) -> CardgymVectorEnv:
    """A Gymnasium vector env of ``num_envs`` copies of ``game`` in one server session; see
    :class:`cardgym.CardgymVectorEnv`."""
    return CardgymVectorEnv(game, num_envs=num_envs, opponents=opponents, config=config, seed=seed, **kwargs)


def make_pool(game: str, num_envs: int, **kwargs: Any) -> EnvPool:
    """``num_envs`` envs of ``game`` sharded over the server's session workers, with lockstep
    ``step`` and EnvPool-style ``send``/``recv``; see :class:`cardgym.EnvPool`."""
    return EnvPool(game, num_envs, **kwargs)


def env_id(game: str) -> str:
    return f"cardgym/{game}-v0"


def _register(game: str) -> None:
    if env_id(game) in gymnasium.registry:
        return
    gymnasium.register(
        id=env_id(game),
        entry_point="cardgym.env:CardgymEnv",
        vector_entry_point="cardgym.vector:CardgymVectorEnv",
        kwargs={"game": game},
        disable_env_checker=False,
    )


def register_envs(games: Optional[Iterable[str]] = None, client: Optional[Client] = None) -> list:
    """Registers ``cardgym/<game>-v0`` with Gymnasium for ``games``, or for every game the server
    serves (asking ``client``, else the default server). Returns the ids."""
    if games is None:
        own = client is None
        c = client if client is not None else Client()
        try:
            games = [g["id"] for g in c.games()]
        finally:
            if own:
                c.close()
    ids = []
    for game in games:
        _register(game)
        ids.append(env_id(game))
    return ids


register_envs(KNOWN_GAMES)
