"""A random agent that only plays legal moves, in one Gymnasium env.

    python python/examples/random_rollout.py [game] [episodes]

No server to start: cardgym runs the Node server from this checkout and stops it at the end.
(To use a running server instead: CARDGYM_URL=http://127.0.0.1:8787 python ...)
"""

import argparse

import numpy as np

import cardgym

parser = argparse.ArgumentParser(description="A random agent that only plays legal moves, in one Gymnasium env.")
parser.add_argument("game", nargs="?", default="sevens")
parser.add_argument("episodes", nargs="?", type=int, default=5)
args = parser.parse_args()
game, episodes = args.game, args.episodes

try:
    env = cardgym.make(game, opponents="random", seed=0)
except cardgym.ServerError as e:  # an unknown game: one line, not a traceback
    parser.error(str(e))
rng = np.random.default_rng(0)
print(f"{game}: observation {env.observation_space['observation'].shape}, {env.action_space.n} actions")
for episode in range(episodes):
    obs, info = env.reset()
    total, steps, done = 0.0, 0, False
    while not done:
        legal = np.flatnonzero(obs["action_mask"])          # or env.action_masks()
        obs, reward, terminated, truncated, info = env.step(rng.choice(legal))
        total += reward
        steps += 1
        done = terminated or truncated
    print(f"episode {episode}: {steps} decisions, return {total:+.1f}")
env.close()
