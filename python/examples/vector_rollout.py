"""A masked random agent stepping many envs of one game in one request per step; prints steps/s.

    python python/examples/vector_rollout.py [game] [num_envs] [seconds]

The same loop as a CleanRL-style trainer: sample from masked logits, step the whole batch, and let
the env autoreset (Gymnasium's next-step mode: a row that ended is restarted on the next step).
"""

import argparse
import time

import numpy as np

import cardgym

parser = argparse.ArgumentParser(description="A masked random agent stepping many envs of one game; prints env-steps/s.")
parser.add_argument("game", nargs="?", default="sevens")
parser.add_argument("num_envs", nargs="?", type=int, default=64)
parser.add_argument("seconds", nargs="?", type=float, default=5.0)
args = parser.parse_args()
game, num_envs, seconds = args.game, args.num_envs, args.seconds

try:
    envs = cardgym.make_vec(game, num_envs, opponents="random", seed=0)
except cardgym.ServerError as e:  # an unknown game, a bad env count: one line, not a traceback
    parser.error(str(e))
rng = np.random.default_rng(0)
obs, infos = envs.reset()
steps = episodes = 0
wins = 0.0
start = time.perf_counter()
while time.perf_counter() - start < seconds:
    logits = rng.standard_normal(obs["action_mask"].shape)
    logits[obs["action_mask"] == 0] = -np.inf                 # masked: only legal actions
    obs, rewards, terminated, truncated, infos = envs.step(logits.argmax(axis=1))
    steps += num_envs
    done = terminated | truncated
    episodes += int(done.sum())
    wins += float(rewards[done].sum())
elapsed = time.perf_counter() - start
envs.close()
print(f"{game}: {num_envs} envs, {steps} env-steps in {elapsed:.1f} s = {steps / elapsed:,.0f} env-steps/s; "
      f"{episodes} episodes, mean final reward {wins / max(episodes, 1):+.3f}")
