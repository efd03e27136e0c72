"""Side-by-side throughput of the trainer-facing envs, one run, alternating rounds (the machine's
load changes over time; ratios within a run are what to compare):

- batched self-play (``cardgym.selfplay``, N envs, every seat played by the client, one request per
  step) against the PettingZoo AEC env (one request per decision), in decisions per second;
- the SB3 VecEnv (``cardgym.sb3``, N envs in one session, one request per step) against SB3's
  ``DummyVecEnv`` of N single envs (N requests per step), in env-steps per second. Without
  stable-baselines3 installed, the DummyVecEnv is replaced by the same loop written out.

    python/.venv/bin/python python/bench_trainers.py [--game sevens] [--seconds 3] [--rounds 3]

Masked random actions throughout; the embedded server; prints a table.
"""

from __future__ import annotations

import argparse
import datetime
import os
import time
from typing import Any, Callable, Dict, List

import numpy as np

import cardgym
import cardgym.pettingzoo as cpz
import cardgym.sb3
import cardgym.selfplay


def random_rows(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    scores = np.where(mask.astype(bool), rng.random(mask.shape), -1.0)
    return scores.argmax(1)


def bench_aec(game: str, client: cardgym.Client, seconds: float) -> float:
    env = cpz.env(game, client=client, seed=1)
    rng = np.random.default_rng(0)
    env.reset()
    n, start = 0, time.perf_counter()
    try:
        while time.perf_counter() - start < seconds:
            agent = env.agent_selection
            obs, _, te, tr, _ = env.last()
            if te or tr:
                env.step(None)
                if not env.agents:
                    env.reset()
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
            n += 1
            del agent
        return n / (time.perf_counter() - start)
    finally:
        env.close()


def bench_selfplay(game: str, client: cardgym.Client, num_envs: int, seconds: float) -> float:
    venv = cardgym.selfplay.vector_env(game, num_envs, client=client, seed=1)
    rng = np.random.default_rng(0)
    obs, _ = venv.reset()
    n, start = 0, time.perf_counter()
    try:
        while time.perf_counter() - start < seconds:
            obs, *_ = venv.step(random_rows(rng, obs["action_mask"]))
            n += num_envs
        return n / (time.perf_counter() - start)
    finally:
        venv.close()


def bench_sb3(game: str, client: cardgym.Client, num_envs: int, seconds: float) -> float:
    venv = cardgym.sb3.vec_env(game, num_envs, client=client, seed=1)
    rng = np.random.default_rng(0)
    venv.reset()
    n, start = 0, time.perf_counter()
    try:
        while time.perf_counter() - start < seconds:
            venv.step(random_rows(rng, venv.action_masks()))
            n += num_envs
        return n / (time.perf_counter() - start)
    finally:
        venv.close()


def bench_dummy(game: str, client: cardgym.Client, num_envs: int, seconds: float) -> float:
    fns: List[Callable[[], Any]] = [lambda i=i: cardgym.make(game, client=client, seed=i) for i in range(num_envs)]
    rng = np.random.default_rng(0)
    if cardgym.sb3.HAVE_SB3:
        from stable_baselines3.common.vec_env import DummyVecEnv

        venv = DummyVecEnv(fns)
        venv.reset()
        n, start = 0, time.perf_counter()
        try:
            while time.perf_counter() - start < seconds:
                masks = np.stack(venv.env_method("action_masks"))
                venv.step(random_rows(rng, masks))
                n += num_envs
            return n / (time.perf_counter() - start)
        finally:
            venv.close()
    envs = [f() for f in fns]
    obs = [e.reset()[0] for e in envs]
    n, start = 0, time.perf_counter()
    try:
        while time.perf_counter() - start < seconds:
            actions = random_rows(rng, np.stack([o["action_mask"] for o in obs]))
            for i, e in enumerate(envs):
                o, _, te, tr, _ = e.step(int(actions[i]))
                obs[i] = e.reset()[0] if te or tr else o
            n += num_envs
        return n / (time.perf_counter() - start)
    finally:
        for e in envs:
            e.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="sevens")
    ap.add_argument("--selfplay-envs", type=int, default=64)
    ap.add_argument("--sb3-envs", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    client = cardgym.Client()
    rows: Dict[str, List[float]] = {"aec": [], "selfplay": [], "dummy": [], "sb3": []}
    try:
        for _ in range(args.rounds):
            rows["aec"].append(bench_aec(args.game, client, args.seconds))
            rows["selfplay"].append(bench_selfplay(args.game, client, args.selfplay_envs, args.seconds))
            rows["dummy"].append(bench_dummy(args.game, client, args.sb3_envs, args.seconds))
            rows["sb3"].append(bench_sb3(args.game, client, args.sb3_envs, args.seconds))
    finally:
        client.close()
    med = {k: float(np.median(v)) for k, v in rows.items()}
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"cardgym trainer bench, {args.game}, {datetime.date.today()}, {args.rounds} alternating rounds of {args.seconds:g} s, load average {load:.1f}")
    print(f"{'env':48s} {'rate (median)':>14s}  rounds")
    print(f"{'PettingZoo AEC env, decisions/s':48s} {med['aec']:14,.0f}  {', '.join(f'{x:,.0f}' for x in rows['aec'])}")
    print(f"{f'self-play vector env x{args.selfplay_envs}, decisions/s':48s} {med['selfplay']:14,.0f}  {', '.join(f'{x:,.0f}' for x in rows['selfplay'])}")
    dummy = "SB3 DummyVecEnv" if cardgym.sb3.HAVE_SB3 else "DummyVecEnv-equivalent loop"
    print(f"{f'{dummy} of {args.sb3_envs} envs, env-steps/s':48s} {med['dummy']:14,.0f}  {', '.join(f'{x:,.0f}' for x in rows['dummy'])}")
    print(f"{f'cardgym.sb3 VecEnv x{args.sb3_envs}, env-steps/s':48s} {med['sb3']:14,.0f}  {', '.join(f'{x:,.0f}' for x in rows['sb3'])}")
    print(f"self-play / AEC: {med['selfplay'] / med['aec']:.1f}x (target >= 10x); sb3 VecEnv / DummyVecEnv: {med['sb3'] / med['dummy']:.1f}x (target >= 4x)")


if __name__ == "__main__":
    main()
