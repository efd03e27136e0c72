"""Evaluate a policy the way the arena (``npm run arena``) does, so that an RL figure and an arena
figure compare.

    from cardgym.evaluate import evaluate
    result = evaluate(lambda obs, mask: int(policy(obs, mask)), "dcg", opponent="random", games=200)
    print(result)   # dcg, policy vs random: 170-0-30 in 200 games, win rate 85.0% [79.4%, 89.3%] ...

The arena plays the game's own default config (for dcg: vanguard against bastion), while the
Python envs default dcg to a mirror match (``cardgym.env.DEFAULT_CONFIGS``). ``evaluate`` uses the
arena's: ``config`` goes to the server as given, with none of the envs' defaults. The seats
alternate from game to game, as the arena swaps them, and a game is scored as the arena scores it:
against opponents, a win when the policy's return beats the opponents' mean return, a draw when
equal; in a solitaire, a win when its return is at least 1. The result names the config the server
used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Optional, Tuple

import numpy as np

from .client import Client
from .env import open_client

#: ``policy(observation, action_mask) -> action``: observation float32[O], mask bool[A].
Policy = Callable[[np.ndarray, np.ndarray], int]


def wilson(wins: int, games: int, z: float = 1.959964) -> Tuple[float, float]:
    """The Wilson score interval of ``wins`` in ``games`` (95% by default), as the arena's."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return (0.0 if wins <= 0 else max(0.0, centre - half)), (1.0 if wins >= games else min(1.0, centre + half))


@dataclass
class Evaluation:
    game: str
    opponent: str
    games: int
    wins: int
    draws: int
    losses: int
    #: The config the server played (every field, defaults filled in).
    config: Dict[str, Any] = field(default_factory=dict)

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> Tuple[float, float]:
        """The 95% Wilson interval of the win rate (draws are not wins)."""
        return wilson(self.wins, self.games)

    def __str__(self) -> str:
        low, high = self.interval
        return (
            f"{self.game}, policy vs {self.opponent}: {self.wins}-{self.draws}-{self.losses} in {self.games} games, "
            f"win rate {100 * self.win_rate:.1f}% [{100 * low:.1f}%, {100 * high:.1f}%] (95% Wilson), config {self.config}"
        )


def evaluate(
    policy: Policy,
    game: str,
    *,
    opponent: str = "random",
    games: int = 100,
    seed: int = 1,
    config: Optional[Dict[str, Any]] = None,
    client: Optional[Client] = None,
    url: Optional[str] = None,
) -> Evaluation:
    """Plays ``games`` games of ``policy`` against ``opponent`` (an agent spec the server plays at
    every other seat) on the arena's config; see the module doc."""
    if games < 1:
        raise ValueError("games must be at least 1")
    c, owned = open_client(client, url)
    try:
        seats = int((config or {}).get("seats") or c.game(game)["defaultSeats"])
        roles = ["learner"] + [opponent] * (seats - 1)
        session = c.create_session(game, seats=roles, config=config, seed=seed, learner_seat="alternating")
        try:
            wins = draws = 0
            b = session.reset(seed)
            for _ in range(games):
                while not (bool(b["terminated"][0]) or bool(b["truncated"][0])):
                    b = session.step([int(policy(b["obs"][0], b["mask"][0].astype(bool)))])
                score = _score(b["info"]["returns"][0], int(b["info"]["learnerSeat"][0]))
                wins += score == 1.0
                draws += score == 0.5
                b = session.step([0])  # next-step autoreset: the action is ignored, a new game starts
            return Evaluation(game, opponent, games, wins, draws, games - wins - draws, dict(session.config))
        finally:
            session.close()
    finally:
        if owned:
            c.close()


def _score(returns: np.ndarray, seat: int) -> float:
    """1 win, 0.5 draw, 0 loss, as the arena scores a game (see the module doc)."""
    mine = float(returns[seat])
    if len(returns) == 1:
        return 1.0 if mine >= 1 else 0.0
    others = float((np.sum(returns) - mine) / (len(returns) - 1))
    if abs(mine - others) < 1e-9:
        return 0.5
    return 1.0 if mine > others else 0.0


__all__ = ["Evaluation", "Policy", "evaluate", "wilson"]
