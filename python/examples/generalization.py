"""Train on generated dcg card pools, evaluate on held-out ones, report the gap.

    python python/examples/generalization.py [--train-pools 6] [--test-pools 6] [--updates 30]

Each pool is ``config={"cardPool": {"generate": {"seed": s, "cards": 40}}}`` (docs/cards.md,
"Generated pools"): the server regenerates the cards from the spec, so pools are held out by seed.
The learner (REINFORCE with a baseline, a small masked MLP, PyTorch on CPU) plays seat 0 against
the random agent on the training pools (seeds 0..T-1); then its greedy policy is scored against
random on those pools and on unseen ones (seeds 1000..), and the gap between the two win rates is
printed. Generated cards have no card one-hot in the observation, so what transfers is reading
card stats. Needs torch (docs/tutorial.md: ``sudo bash scripts/torch-env.sh``, then
``bash scripts/python-env.sh``). A short run shows the mechanics; a gap worth reading needs more
pools, updates and evaluation games (and PPO: python/examples/train_ppo.py). Measured 2026-11-23
(36 s on a shared 2-core machine), and again on 2026-11-26 with the generator's later templates
(other pools, the same figures; 28 s):

    python/.venv/bin/python python/examples/generalization.py --updates 12 --batch 8 --eval-games 40
    win rate vs random, greedy: training pools 0.825, held-out pools 0.762, gap +0.062
"""

from __future__ import annotations

import argparse
import os
from typing import List, Tuple

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import torch
import torch.nn as nn

import cardgym
from cardgym.client import Client

CARDS = 40


def pool_config(seed: int) -> dict:
    return {"cardPool": {"generate": {"seed": seed, "cards": CARDS}}}


class Policy(nn.Module):
    def __init__(self, obs: int, actions: int):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs, 128), nn.Tanh(), nn.Linear(128, actions))

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.distributions.Categorical:
        logits = self.body(obs).masked_fill(~mask, -1e9)
        return torch.distributions.Categorical(logits=logits)


def episode(env, policy: Policy, greedy: bool) -> Tuple[float, List[torch.Tensor]]:
    obs, _ = env.reset()
    logps: List[torch.Tensor] = []
    total, done = 0.0, False
    while not done:
        o = torch.as_tensor(np.array(obs["observation"], dtype=np.float32))
        m = torch.as_tensor(np.array(obs["action_mask"], dtype=bool))
        dist = policy(o, m)
        a = dist.probs.argmax() if greedy else dist.sample()
        if not greedy:
            logps.append(dist.log_prob(a))
        obs, reward, terminated, truncated, _ = env.step(int(a))
        total += float(reward)
        done = terminated or truncated
    return total, logps


def win_rate(envs, policy: Policy, games: int) -> float:
    wins = 0.0
    with torch.no_grad():
        for i in range(games):
            r, _ = episode(envs[i % len(envs)], policy, greedy=True)
            wins += 1.0 if r > 0 else 0.5 if r == 0 else 0.0
    return wins / games


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--train-pools", type=int, default=6)
    p.add_argument("--test-pools", type=int, default=6)
    p.add_argument("--updates", type=int, default=30, help="policy updates of --batch episodes each")
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--eval-games", type=int, default=60, help="games per side (train pools, held-out pools)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    torch.manual_seed(args.seed)
    client = Client()  # one embedded server for every env
    try:
        train = [
            cardgym.make("dcg", opponents="random", config=pool_config(s), seed=args.seed + s, client=client)
            for s in range(args.train_pools)
        ]
        test = [
            cardgym.make("dcg", opponents="random", config=pool_config(1000 + s), seed=args.seed + s, client=client)
            for s in range(args.test_pools)
        ]
        obs_size = train[0].observation_space["observation"].shape[0]
        policy = Policy(obs_size, train[0].action_space.n)
        opt = torch.optim.Adam(policy.parameters(), lr=3e-3)
        baseline = 0.0
        for u in range(args.updates):
            loss = torch.zeros(())
            returns = []
            for b in range(args.batch):
                r, logps = episode(train[(u * args.batch + b) % len(train)], policy, greedy=False)
                returns.append(r)
                loss = loss - (r - baseline) * torch.stack(logps).sum() / max(1, len(logps))
            baseline = 0.9 * baseline + 0.1 * float(np.mean(returns))
            opt.zero_grad()
            (loss / args.batch).backward()
            opt.step()
            print(f"update {u + 1}/{args.updates}: mean return {np.mean(returns):+.2f}", flush=True)
        seen = win_rate(train, policy, args.eval_games)
        unseen = win_rate(test, policy, args.eval_games)
        print(f"win rate vs random, greedy: training pools {seen:.3f}, held-out pools {unseen:.3f}, gap {seen - unseen:+.3f}")
        for env in train + test:
            env.close()
    finally:
        client.close()


if __name__ == "__main__":
    main()
