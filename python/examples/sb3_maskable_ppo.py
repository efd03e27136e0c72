"""sb3-contrib's MaskablePPO on dcg against the server's random agent, through ``cardgym.sb3``
(one request steps all envs, SB3's own conventions), then an evaluation against random.

    python/.venv-integrations/bin/python python/examples/sb3_maskable_ppo.py --minutes 6 --min-win 0.8

Needs torch, stable-baselines3 and sb3-contrib (``bash scripts/integrations-env.sh``). Exits 1
when the final win rate is below ``--min-win``.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

import cardgym.sb3


class TimeBudget(BaseCallback):
    """Stops training once the wall-clock budget is spent."""

    def __init__(self, seconds: float):
        super().__init__()
        self.deadline = time.time() + seconds

    def _on_step(self) -> bool:
        return time.time() < self.deadline


def evaluate(model: MaskablePPO, game: str, episodes: int, seed: int) -> float:
    """Win rate of the greedy masked policy against random, over ``episodes`` games."""
    venv = cardgym.sb3.vec_env(game, 16, seed=seed)
    try:
        obs = venv.reset()
        wins = done = 0
        while done < episodes:
            actions, _ = model.predict(obs, action_masks=venv.action_masks(), deterministic=True)
            obs, rewards, dones, infos = venv.step(actions)
            for i in np.flatnonzero(dones):
                if done < episodes:
                    done += 1
                    wins += int(infos[i]["episode"]["r"] > 0)
        return wins / episodes
    finally:
        venv.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="dcg")
    ap.add_argument("--minutes", type=float, default=6.0, help="training time budget (wall clock)")
    ap.add_argument("--max-steps", type=int, default=2_000_000, help="training steps cap")
    ap.add_argument("--num-envs", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--eval-episodes", type=int, default=400)
    ap.add_argument("--min-win", type=float, default=0.0, help="exit 1 when the final win rate is below this")
    args = ap.parse_args()
    # One intra-op thread: the policy is a small MLP, and on a few shared cores torch's default
    # thread pool spends more time spinning than computing (measured: several times slower).
    torch.set_num_threads(1)

    venv = cardgym.sb3.vec_env(args.game, args.num_envs, seed=args.seed)
    try:
        model = MaskablePPO("MlpPolicy", venv, n_steps=256, batch_size=512, learning_rate=3e-4, ent_coef=0.01, gamma=0.99, seed=args.seed, verbose=0, device="cpu")
        before = evaluate(model, args.game, args.eval_episodes // 4, seed=10_000)
        start = time.time()
        model.learn(args.max_steps, callback=TimeBudget(args.minutes * 60))
        trained = time.time() - start
        steps = model.num_timesteps
    finally:
        venv.close()
    after = evaluate(model, args.game, args.eval_episodes, seed=20_000)
    print(f"{args.game}: {steps} steps in {trained:.0f} s ({steps / max(trained, 1e-9):.0f} steps/s); win rate vs random {before:.1%} untrained -> {after:.1%} trained")
    return 0 if after >= args.min_win else 1


if __name__ == "__main__":
    sys.exit(main())
