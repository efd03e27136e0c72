"""CleanRL-style single-file PPO, self-play on cardgym's batched self-play env.

One shared policy plays every seat of ``--num-envs`` games; one request per step decides for the
acting seat of every game (``cardgym.selfplay``). Each (game, seat) pair is its own trajectory:
a seat's reward is credited to its own latest decision (so a seat is rewarded for what happens on
the other seats' turns), and advantages (GAE) run along each seat's own decisions. At the end the
greedy policy plays the server's random agent (learner seat alternating) and the win rate is
printed.

    python/.venv-integrations/bin/python python/examples/cleanrl_selfplay_ppo.py --game dcg --minutes 3

Needs torch (``bash scripts/integrations-env.sh``). ``--min-win`` makes it exit 1 below that win
rate against random.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import torch
import torch.nn as nn

import cardgym
import cardgym.selfplay


class Agent(nn.Module):
    def __init__(self, obs_size: int, n_actions: int, hidden: int = 128):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_size, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.actor = nn.Linear(hidden, n_actions)
        self.critic = nn.Linear(hidden, 1)

    def value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(self.body(x)).squeeze(-1)

    def act(self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None, greedy: bool = False):
        h = self.body(x)
        logits = self.actor(h).masked_fill(~mask, -1e9)
        dist = torch.distributions.Categorical(logits=logits)
        if action is None:
            action = logits.argmax(-1) if greedy else dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.critic(h).squeeze(-1)


def evaluate(agent: Agent, game: str, episodes: int, seed: int) -> float:
    venv = cardgym.make_vec(game, 32, seed=seed, learner_seat="alternating")
    try:
        obs, info = venv.reset()
        wins = done = 0
        while done < episodes:
            with torch.no_grad():
                x = torch.as_tensor(np.array(obs["observation"]))
                m = torch.as_tensor(obs["action_mask"].astype(bool))
                a, *_ = agent.act(x, m, greedy=True)
            obs, _, te, tr, info = venv.step(a.numpy())
            for i in np.flatnonzero(te | tr):
                if done < episodes:
                    done += 1
                    wins += int(info["returns"][i, info["learner_seat"][i]] > 0)
        return wins / episodes
    finally:
        venv.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="dcg")
    ap.add_argument("--num-envs", type=int, default=64)
    ap.add_argument("--num-steps", type=int, default=64, help="steps per rollout (each decides in every env)")
    ap.add_argument("--minutes", type=float, default=3.0)
    ap.add_argument("--max-updates", type=int, default=10_000)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--gamma", type=float, default=0.99)
    ap.add_argument("--gae-lambda", type=float, default=0.95)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--minibatches", type=int, default=4)
    ap.add_argument("--clip", type=float, default=0.2)
    ap.add_argument("--ent-coef", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--eval-episodes", type=int, default=200)
    ap.add_argument("--min-win", type=float, default=0.0)
    args = ap.parse_args()
    torch.set_num_threads(1)  # a small MLP on a few cores: threads only spin
    torch.manual_seed(args.seed)

    venv = cardgym.selfplay.vector_env(args.game, args.num_envs, seed=args.seed)
    n, s, T = venv.num_envs, venv.num_agents, args.num_steps
    obs_size = venv.single_observation_space["observation"].shape[0]
    n_actions = int(venv.single_action_space.n)
    agent = Agent(obs_size, n_actions)
    opt = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)
    before = evaluate(agent, args.game, args.eval_episodes // 2, seed=50_000)

    b_obs = np.zeros((T, n, obs_size), np.float32)
    b_mask = np.zeros((T, n, n_actions), bool)
    b_act = np.zeros((T, n), np.int64)
    b_logp = np.zeros((T, n), np.float32)
    b_val = np.zeros((T, n), np.float32)
    b_rew = np.zeros((T, n), np.float32)
    b_done = np.zeros((T, n), np.float32)
    b_next = np.full((T, n), -1, np.int64)  # the same seat's next decision in this env, if in the rollout
    obs, infos = venv.reset()
    start, updates, steps, games = time.time(), 0, 0, 0
    rows = np.arange(n)
    while time.time() - start < args.minutes * 60 and updates < args.max_updates:
        last = np.full((n, s), -1, np.int64)  # each seat's latest decision index (t) per env
        b_rew[:] = 0
        b_done[:] = 0
        b_next[:] = -1
        for t in range(T):
            seat = infos["agent"]
            prev = last[rows, seat]
            has_prev = prev >= 0
            b_next[prev[has_prev], rows[has_prev]] = t
            last[rows, seat] = t
            b_obs[t] = obs["observation"]
            b_mask[t] = obs["action_mask"].astype(bool)
            with torch.no_grad():
                a, logp, _, v = agent.act(torch.as_tensor(b_obs[t]), torch.as_tensor(b_mask[t]))
            b_act[t], b_logp[t], b_val[t] = a.numpy(), logp.numpy(), v.numpy()
            obs, rewards, te, tr, infos = venv.step(b_act[t])
            steps += n
            # Each seat's reward goes to its own latest decision in that env.
            for k in range(s):
                has = last[:, k] >= 0
                b_rew[last[has, k], rows[has]] += rewards[has, k]
            for i in np.flatnonzero(te | tr):
                games += 1
                for k in range(s):
                    if last[i, k] >= 0:
                        b_done[last[i, k], i] = 1.0
                last[i] = -1
        # Bootstrap each open trajectory: the acting seat with the value of its current
        # observation, the others with their latest decision's value (only the acting seat's
        # observation crosses the wire).
        with torch.no_grad():
            v_now = agent.value(torch.as_tensor(np.array(obs["observation"]))).numpy()
        boot = np.zeros((T, n), np.float32)
        for k in range(s):
            has = last[:, k] >= 0
            boot[last[has, k], rows[has]] = b_val[last[has, k], rows[has]]
        acting = infos["agent"]
        has = last[rows, acting] >= 0
        boot[last[rows, acting][has], rows[has]] = v_now[has]
        adv = np.zeros((T, n), np.float32)
        for t in reversed(range(T)):
            nxt = b_next[t]
            inside = nxt >= 0
            next_val = np.where(inside, b_val[np.maximum(nxt, 0), rows], boot[t])
            next_adv = np.where(inside, adv[np.maximum(nxt, 0), rows], 0.0)
            live = 1.0 - b_done[t]
            delta = b_rew[t] + args.gamma * next_val * live - b_val[t]
            adv[t] = delta + args.gamma * args.gae_lambda * live * next_adv
        ret = adv + b_val

        flat = lambda x: torch.as_tensor(x.reshape(T * n, *x.shape[2:]))  # noqa: E731
        fo, fm, fa, fl, fadv, fret = flat(b_obs), flat(b_mask), flat(b_act), flat(b_logp), flat(adv), flat(ret)
        size = T * n // args.minibatches
        for _ in range(args.epochs):
            perm = torch.randperm(T * n)
            for j in range(args.minibatches):
                idx = perm[j * size : (j + 1) * size]
                _, logp, ent, v = agent.act(fo[idx], fm[idx], fa[idx])
                ratio = (logp - fl[idx]).exp()
                a_ = fadv[idx]
                a_ = (a_ - a_.mean()) / (a_.std() + 1e-8)
                pg = torch.max(-a_ * ratio, -a_ * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
                loss = pg + 0.5 * ((v - fret[idx]) ** 2).mean() - args.ent_coef * ent.mean()
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                opt.step()
        updates += 1
    elapsed = time.time() - start
    venv.close()
    after = evaluate(agent, args.game, args.eval_episodes, seed=60_000)
    print(
        f"{args.game}: {updates} updates, {steps} decisions ({steps / elapsed:.0f}/s incl. updates), {games} self-play games in {elapsed:.0f} s; "
        f"greedy win rate vs random {before:.1%} untrained -> {after:.1%} trained"
    )
    return 0 if after >= args.min_win else 1


if __name__ == "__main__":
    sys.exit(main())
