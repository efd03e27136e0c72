"""A masked random agent stepping many envs of one game in one request per step; prints steps/s.

    python python/examples/vector_rollout.py [game] [num_envs] [seconds]

The same loop as a CleanRL-style trainer: sample from masked logits, step the whole batch, and let
the env autoreset (Gymnasium's next-step mode: a row that ended is restarted on the next step).
"""

import sys
import time

import numpy as np

import cardgym

game = sys.argv[1] if len(sys.argv) > 1 else "sevens"
num_envs = int(sys.argv[2]) if len(sys.argv) > 2 else 64
seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 5.0

envs = cardgym.make_vec(game, num_envs, opponents="random", seed=0)
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
