"""Env-steps/s from Python: one Gymnasium env, and vector envs of N envs in one session.

    python python/bench.py [--game sevens] [--seconds 5] [--envs 1,64] [--url URL] [--transports unix,tcp]

Each row runs a masked random agent through the public API (cardgym.make / cardgym.make_vec), one
request in flight, against an embedded server (or --url). With several --transports, each gets its
own private embedded server (Unix socket, loopback TCP) and their rows alternate, so that both
see the same machine load. "client CPU" is this process's CPU time per request: what Python adds
on top of the server. The machine's load average is printed, since other jobs on a 2-core machine
skew wall-clock rates.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import cardgym


def bench_single(client: cardgym.Client, game: str, seconds: float) -> dict:
    env = cardgym.make(game, client=client, seed=0)
    rng = np.random.default_rng(0)
    obs, _ = env.reset()
    for _ in range(200):  # warm-up (JIT on the server side)
        obs, _, te, tr, _ = env.step(rng.choice(np.flatnonzero(obs["action_mask"])))
        if te or tr:
            obs, _ = env.reset()
    steps = requests = 0
    cpu0, t0 = time.process_time(), time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        obs, _, te, tr, _ = env.step(rng.choice(np.flatnonzero(obs["action_mask"])))
        steps += 1
        requests += 1
        if te or tr:
            obs, _ = env.reset()
            requests += 1
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    env.close()
    return {"envs": 1, "steps_per_s": steps / wall, "requests_per_s": requests / wall, "client_cpu_us": 1e6 * cpu / requests}


def bench_vector(client: cardgym.Client, game: str, num_envs: int, seconds: float) -> dict:
    venv = cardgym.make_vec(game, num_envs, client=client, seed=0)
    rng = np.random.default_rng(0)
    obs, _ = venv.reset()

    def act(mask):
        logits = rng.random(mask.shape)
        logits[mask == 0] = -1.0
        return logits.argmax(axis=1)

    for _ in range(50):
        obs, *_ = venv.step(act(obs["action_mask"]))
    requests = 0
    cpu0, t0 = time.process_time(), time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        obs, *_ = venv.step(act(obs["action_mask"]))
        requests += 1
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    venv.close()
    return {"envs": num_envs, "steps_per_s": requests * num_envs / wall, "requests_per_s": requests / wall, "client_cpu_us": 1e6 * cpu / requests}


def health_rate(client: cardgym.Client, seconds: float) -> float:
    """Round trips of a request that does no game work: the floor under every row."""
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        client.health()
        n += 1
    return n / (time.perf_counter() - t0)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="sevens")
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--envs", default="1,64", help="comma-separated env counts (1 = a single gymnasium.Env)")
    p.add_argument("--url", default=None, help="a running server (default: embedded ones)")
    p.add_argument("--transports", default="unix", help="embedded servers to compare, of unix and tcp (ignored with --url)")
    args = p.parse_args()
    try:
        counts = [int(x) for x in args.envs.split(",")]
    except ValueError:
        p.error(f"--envs takes comma-separated env counts, got {args.envs!r}")
    if any(n < 1 for n in counts):
        p.error(f"--envs counts must be at least 1, got {args.envs!r}")
    if args.url:
        clients = {args.url: cardgym.Client(args.url)}
    else:
        names = [t.strip() for t in args.transports.split(",") if t.strip()]
        bad = [t for t in names if t not in ("unix", "tcp")]
        if bad or not names:
            p.error(f"--transports takes unix and/or tcp, got {args.transports!r}")
        clients = {}
        try:
            for t in names:
                clients[t] = cardgym.Client(private_server=True, transport=t)
        except BaseException:
            for c in clients.values():
                c.close()
            raise
    try:
        served = [g["id"] for g in next(iter(clients.values())).games()]
        if args.game not in served:
            p.error(f"--game {args.game!r} is not served; served games: {', '.join(served)}")
        print(f"cardgym Python bench: {args.game}, {args.seconds:g} s per row, " + ", ".join(f"{k}: {c.url}" for k, c in clients.items()))
        print(f"{'server':>8} {'envs':>5} {'env-steps/s':>12} {'requests/s':>11} {'client CPU µs/req':>18}")
        for name, client in clients.items():
            print(f"{name:>8} {'GET /healthz round trips':>30}: {health_rate(client, min(2.0, args.seconds)):,.0f}/s")
        for count in counts:
            for name, client in clients.items():
                row = bench_single(client, args.game, args.seconds) if count == 1 else bench_vector(client, args.game, count, args.seconds)
                print(f"{name:>8} {row['envs']:>5} {row['steps_per_s']:>12,.0f} {row['requests_per_s']:>11,.0f} {row['client_cpu_us']:>18,.0f}")
        load = " ".join(f"{x:.1f}" for x in os.getloadavg())
        print(f"machine: {os.cpu_count()} cores, load average {load}")
    finally:
        for c in clients.values():
            c.close()


if __name__ == "__main__":
    main()
