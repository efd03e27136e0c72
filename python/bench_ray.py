"""Round-robin throughput of cardgym.ray on a Ray cluster against the arena CLI on this machine,
for the same games, side by side (docs/scale.md):

    python bench_ray.py --address 127.0.0.1:6380 [--game dcg] [--agents computer,random] [--games 120]
                        [--part-size 10] [--rounds 1] [--config JSON] [--cli-workers 0,2]

Each round plays the same games with the CLI in one process (`--workers N` for each N given: 0 is
npm run arena's default, all in one thread) and then with cardgym.ray.arena over the cluster;
wall time includes every start (Node, bundle, Ray tasks). Prints games/s, the ratio, the load
average and checks that every mode gave the same win matrix."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import tempfile
import time
from typing import Any, Dict, List

import ray

import cardgym.ray as cardgym_ray
from cardgym.server import find_repo, node_environment


def cli_run(flags: List[str], workers: int) -> Dict[str, Any]:
    """`npm run arena` (tsx; its worker threads need it) in the checkout this package runs from."""
    with tempfile.TemporaryDirectory() as out:
        cmd = ["npx", "tsx", "scripts/arena.ts", *flags, "--workers", str(workers), "--out", out, "-q"]
        subprocess.run(cmd, cwd=find_repo(None), env=node_environment(), check=True, capture_output=True)
        with open(os.path.join(out, "arena.json"), encoding="utf-8") as f:
            report: Dict[str, Any] = json.load(f)
            return report


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--address", required=True)
    p.add_argument("--game", default="dcg")
    p.add_argument("--agents", default="computer,random")
    p.add_argument("--games", type=int, default=120)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--config", default=None)
    p.add_argument("--part-size", type=int, default=10)
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--cli-workers", default="0")
    a = p.parse_args()
    ray.init(address=a.address, log_to_driver=False)
    nodes = [n for n in ray.nodes() if n["Alive"]]
    cpus = int(ray.cluster_resources().get("CPU", 0))
    config = json.loads(a.config) if a.config else None
    flags = ["--game", a.game, "--agents", a.agents, "--games", str(a.games), "--seed", str(a.seed)]
    flags += ["--config", a.config] if a.config else []
    print(f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, Ray {ray.__version__}: {len(nodes)} nodes, {cpus} CPUs")
    print(f"{a.game} {a.agents}, {a.games} games per pairing, seed {a.seed}, parts of {a.part_size} games")
    matrices = set()
    for r in range(a.rounds):
        rates: Dict[str, float] = {}
        for w in [int(x) for x in a.cli_workers.split(",")]:
            t = time.monotonic()
            report = cli_run(flags, w)
            rates[f"CLI --workers {w}"] = report["totalGames"] / (time.monotonic() - t)
            matrices.add(json.dumps(report["matrix"]))
        t = time.monotonic()
        report = cardgym_ray.arena(a.game, a.agents.split(","), games=a.games, seed=a.seed, config=config, part_size=a.part_size)
        rates[f"cardgym.ray, {cpus} workers"] = report["totalGames"] / (time.monotonic() - t)
        matrices.add(json.dumps(report["matrix"]))
        base = next(iter(rates.values()))
        load = " ".join(f"{x:.1f}" for x in os.getloadavg())
        print(f"round {r + 1} (load average {load}): " + ", ".join(f"{k} {v:.2f} games/s ({v / base:.2f}x)" for k, v in rates.items()))
    print("win matrices: " + ("all equal" if len(matrices) == 1 else f"{len(matrices)} different (a defect)"))


if __name__ == "__main__":
    main()
