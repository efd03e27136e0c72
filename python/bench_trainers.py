"""Side-by-side throughput of the trainer-facing envs, one run, alternating rounds (the machine's
load changes over time; ratios within a run are what to compare):

- batched self-play (``cardgym.selfplay``, N envs, every seat played by the client, one request per
  step) against the PettingZoo AEC env (one request per decision), in decisions per second;
- the SB3 VecEnv (``cardgym.sb3``, N envs in one session, one request per step) against SB3's
  ``DummyVecEnv`` of N single envs (N requests per step), in env-steps per second. Without
  stable-baselines3 installed, the DummyVecEnv is replaced by the same loop written out.

    python/.venv/bin/python python/bench_trainers.py [--game sevens] [--seconds 2] [--rounds 5]

Masked random actions throughout; the embedded server; prints a table with wall-clock rates and
the CPU (client + server process tree, Linux /proc) spent per decision or env-step: on a machine
shared with other work the CPU figures are the steadier comparison.
"""

from __future__ import annotations

import argparse
import datetime
import os
import time
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

import cardgym
import cardgym.pettingzoo as cpz
import cardgym.sb3
import cardgym.selfplay


def _tree_ticks(root: int) -> int:
    """CPU ticks (user + system) of process ``root`` and its descendants, from /proc (Linux)."""
    parents: Dict[int, int] = {}
    ticks: Dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry)] = int(fields[1])
        ticks[int(entry)] = int(fields[11]) + int(fields[12])
    total = 0
    for pid, t in ticks.items():
        p = pid
        while p > 1 and p != root:
            p = parents.get(p, 0)
        if p == root:
            total += t
    return total


class CpuMeter:
    """Client CPU (this process) plus server CPU (its process tree) over a measurement."""

    def __init__(self, client: cardgym.Client):
        self.server_pid = client.server.pid if client.server is not None else None
        self.hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

    def now(self) -> float:
        server = _tree_ticks(self.server_pid) / self.hz if self.server_pid and os.path.isdir("/proc") else 0.0
        return time.process_time() + server


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


def measured(fn: Callable[..., float], meter: CpuMeter, *args: Any) -> Tuple[float, float]:
    """(rate, CPU µs per unit): ``fn`` returns its rate; units = rate * wall time."""
    c0, t0 = meter.now(), time.perf_counter()
    rate = fn(*args)
    c1, t1 = meter.now(), time.perf_counter()
    units = rate * (t1 - t0)
    return rate, 1e6 * (c1 - c0) / max(units, 1.0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="sevens")
    ap.add_argument("--selfplay-envs", type=int, default=64)
    ap.add_argument("--sb3-envs", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    client = cardgym.Client()
    meter = CpuMeter(client)
    rows: Dict[str, List[Tuple[float, float]]] = {"aec": [], "selfplay": [], "dummy": [], "sb3": []}
    try:
        for _ in range(args.rounds):
            rows["aec"].append(measured(bench_aec, meter, args.game, client, args.seconds))
            rows["selfplay"].append(measured(bench_selfplay, meter, args.game, client, args.selfplay_envs, args.seconds))
            rows["dummy"].append(measured(bench_dummy, meter, args.game, client, args.sb3_envs, args.seconds))
            rows["sb3"].append(measured(bench_sb3, meter, args.game, client, args.sb3_envs, args.seconds))
    finally:
        client.close()
    rate = {k: float(np.median([r for r, _ in v])) for k, v in rows.items()}
    cpu = {k: float(np.median([c for _, c in v])) for k, v in rows.items()}
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"cardgym trainer bench, {args.game}, {datetime.date.today()}, {args.rounds} alternating rounds of {args.seconds:g} s, load average {load:.1f}")
    print("CPU = client + server CPU per decision / env-step (less sensitive to other load than wall-clock rates)")
    print(f"{'env':48s} {'rate (median)':>14s} {'CPU µs':>8s}  rates per round")
    dummy = "SB3 DummyVecEnv" if cardgym.sb3.HAVE_SB3 else "DummyVecEnv-equivalent loop"
    labels = {
        "aec": "PettingZoo AEC env, decisions/s",
        "selfplay": f"self-play vector env x{args.selfplay_envs}, decisions/s",
        "dummy": f"{dummy} of {args.sb3_envs} envs, env-steps/s",
        "sb3": f"cardgym.sb3 VecEnv x{args.sb3_envs}, env-steps/s",
    }
    for key, label in labels.items():
        print(f"{label:48s} {rate[key]:14,.0f} {cpu[key]:8,.0f}  {', '.join(f'{r:,.0f}' for r, _ in rows[key])}")
    print(
        f"self-play / AEC: {rate['selfplay'] / rate['aec']:.1f}x by rate, {cpu['aec'] / cpu['selfplay']:.1f}x by CPU (target >= 10x); "
        f"sb3 VecEnv / DummyVecEnv: {rate['sb3'] / rate['dummy']:.1f}x by rate, {cpu['dummy'] / cpu['sb3']:.1f}x by CPU (target >= 4x)"
    )

if __name__ == "__main__":
    main()
