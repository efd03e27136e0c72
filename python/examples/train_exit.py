"""Expert iteration on dcg: a policy-value network guides determinized MCTS, and is trained on that
search's own visit counts and results, round after round.

Each round:

1. **Self-play** (Node, ``scripts/exit-selfplay.ts``): ``--games`` games in which both seats are
   ``mcts:policy=<this round's network>,iters=<--iters>`` (PUCT over sampled full states, see
   docs/agents.md). Every decision with a choice yields a row: the acting seat's observation, the
   root's visit distribution over the action ids, the legal mask, and the seat's final return.
2. **Training** (PyTorch, CPU): ``--epochs`` passes over the rows of the last ``--window`` rounds,
   loss = cross-entropy(masked softmax(logits), visits) + ``--value-coef`` * (value - return)^2.
3. **Export** with ``cardgym.onnx.export(..., value=True)``: ``logits`` and the optional ``value``
   output of the model contract, checked against PyTorch. That file guides the next round.

The network is the PPO example's actor (slot encoders for board, hand and strategy, two tanh
layers) with a value head on the shared trunk. ``--init-onnx`` copies the actor's weights from a
contract model exported by ``train_ppo.py`` (for instance ``models/builtin/dcg-ppo-v1.onnx``), so
the search starts from that policy's prior instead of a uniform one. Until the value head has
seen ``--eval-value-rounds`` rounds of results, the search values its leaves with the game's
evaluator instead (``value=eval``).

Everything lives in ``models/runs/<run>/`` (gitignored): ``spec.json``, ``round-NNN/`` (self-play
rows), ``net-NNN.onnx`` (the network that plays round NNN), ``checkpoint.pt`` (weights, optimiser,
next round) and ``log.jsonl`` (one line per round: rows, losses, seconds). Stopping at any point
and running the same command again resumes: finished rounds are kept, a half-played round's
self-play starts over. ``--rounds`` is the total, so raising it continues a finished run.

With ``--dagger`` the loop is DAgger instead (imitation on the states the student itself reaches):
each round the current network plays ``--games`` games as a plain policy (``onnx:path=...``,
argmax) against ``--opponent`` (default ``mcts``), a fixed teacher search
(``mcts:policy=<--teacher>,iters=<--iters>,value=eval``, no root noise) labels every decision
of the student with its visit distribution, and the next network is trained afresh from
``--init-onnx``'s weights on the rows of every round so far. Each round's log line says how many
of its games the student won against the opponent.

With ``--rows DIR ...`` nothing is played: the network is trained offline on self-play rows saved
earlier (folders written by ``npm run exit:selfplay``, for instance a fixed teacher's), from
``--init-onnx``'s weights or from scratch (any ``--hidden``), each round being ``--epochs``
passes over all of them; ``net-NNN.onnx`` is the network after NNN rounds. With
``--holdout DIR ...`` each round's log line also scores the network on rows it never trains on:
its policy loss, and how often its highest logit is the teacher's most visited decision.

    # from python/, niced on a shared machine
    nice -n 10 .venv/bin/python examples/train_exit.py --run-name exit-demo --rounds 2 --games 4 --iters 32
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import cardgym.onnx
from cardgym.server import find_repo

sys.path.insert(0, str(Path(__file__).resolve().parent))
from train_ppo import Actor, layer, load_actor_from_onnx  # the same network the PPO example trains

GAME = "dcg"


def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--run-name", type=str, required=True, help="folder under models/runs")
    p.add_argument("--rounds", type=int, default=10, help="total rounds (self-play + training); a resumed run plays up to this many")
    p.add_argument("--games", type=int, default=40, help="self-play games per round")
    p.add_argument("--iters", type=int, default=64, help="MCTS iterations per self-play decision")
    p.add_argument("--explore", type=int, default=30, help="decisions per game sampled by visit count (then the most visited)")
    p.add_argument("--noise", type=float, default=0.25, help="uniform noise mixed into the root priors during self-play")
    p.add_argument("--concurrency", type=int, default=8, help="self-play games in flight (their network runs batch together)")
    p.add_argument("--search", type=str, default="", help="further guided-search parameters for self-play, e.g. ptemp=2,cpuct=3")
    p.add_argument("--eval-value-rounds", type=int, default=1, help="first rounds whose search values leaves with the game's evaluator")
    p.add_argument("--window", type=int, default=4, help="train on the rows of this many latest rounds")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--value-coef", type=float, default=1.0)
    p.add_argument("--hidden", type=int, default=64, help="trunk width (64 to load a train_ppo.py actor)")
    p.add_argument("--init-onnx", type=str, default=None, help="copy the actor's weights from this contract model (train_ppo.py's export)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    p.add_argument("--node", type=str, default=os.environ.get("CARDGYM_NODE", "node"))
    p.add_argument("--url", type=str, default=None, help="cardgym server to read the env spec from (default: the embedded server)")
    p.add_argument("--dagger", action="store_true", help="DAgger: the network plays --opponent as a policy and --teacher's search labels its decisions; retrained from --init-onnx each round on every round's rows")
    p.add_argument("--teacher", type=str, default=None, help="with --dagger: the model guiding the teacher search (a path or builtin/<name>)")
    p.add_argument("--opponent", type=str, default=None, help="with --dagger: the agent spec the student plays (default mcts)")
    p.add_argument("--rows", type=str, nargs="+", default=None, help="train offline on these saved self-play row folders (exit:selfplay --out) instead of playing")
    p.add_argument("--holdout", type=str, nargs="+", default=None, help="with --rows: row folders scored each round and never trained on")
    args = p.parse_args(argv)
    check_args(p, args)
    return args


def check_args(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuses out-of-range numbers and options that do not go together (argparse exits 2 with the usage)."""
    bounds = {"rounds": (1, 100_000), "games": (1, 1_000_000), "iters": (1, 100_000), "explore": (0, 100_000), "concurrency": (1, 256),
              "window": (1, 100_000), "epochs": (1, 1_000), "batch": (1, 1 << 20), "hidden": (1, 4096), "threads": (1, 256),
              "eval_value_rounds": (0, 1_000_000)}  # fmt: skip
    for name, (lo, hi) in bounds.items():
        value = getattr(args, name)
        if not lo <= value <= hi:
            p.error(f"--{name.replace('_', '-')} must be between {lo} and {hi}, got {value}")
    if not 0 <= args.noise <= 1:
        p.error(f"--noise must be between 0 and 1, got {args.noise}")
    if not (args.lr > 0 and np.isfinite(args.lr)):
        p.error(f"--lr must be a positive number, got {args.lr}")
    if args.dagger and (args.teacher is None or args.init_onnx is None):
        p.error("--dagger needs --teacher (the search's model) and --init-onnx (the student's starting weights)")
    if not args.dagger and (args.teacher is not None or args.opponent is not None):
        p.error("--teacher and --opponent only apply with --dagger")
    if args.rows is not None and args.dagger:
        p.error("--rows trains on saved rows and --dagger plays new ones: choose one")
    if args.holdout is not None and args.rows is None:
        p.error("--holdout only applies with --rows")
    for folder in (args.rows or []) + (args.holdout or []):
        if not (Path(folder) / "meta.json").is_file():
            p.error(f"{folder} is not a finished self-play folder (no meta.json)")
    if args.init_onnx is not None and not Path(args.init_onnx).is_file():
        p.error(f"--init-onnx {args.init_onnx}: no such file")


class PolicyValue(Actor):
    """obs -> (logits [batch, actionSize], value [batch, 1] in [-1, 1]): the PPO actor's slot
    encoders and trunk, its policy layer, and a value layer on the same trunk."""

    def __init__(self, spec: dict, hidden: int):
        super().__init__(spec, hidden)
        self.value_head = layer(hidden, 1, 1.0)

    def forward(self, obs: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        parts = [e(obs) for e in self.encoders] + [obs[:, a:b] for a, b in self.rest]
        h = self.head[:4](torch.cat(parts, dim=1))
        return self.head[4](h), torch.tanh(self.value_head(h))


def read_round(folder: Path, spec: Optional[dict] = None) -> Dict[str, np.ndarray]:
    """A self-play folder's rows; with ``spec``, refuses rows encoded for another observation or action layout."""
    meta = json.loads((folder / "meta.json").read_text())
    n, obs_size, action_size = int(meta["rows"]), int(meta["obsSize"]), int(meta["actionSize"])
    if spec is not None:
        want = (int(spec["observation"]["size"]), int(spec["action"]["size"]), spec.get("actionSpecHash"))
        if (obs_size, action_size, meta.get("actionSpecHash")) != want:
            raise ValueError(f"{folder}: rows of obsSize {obs_size}, actionSize {action_size}, actionSpecHash {meta.get('actionSpecHash')}; the spec has {want}")
    sizes = {"obs.f32": 4 * n * obs_size, "pi.f32": 4 * n * action_size, "mask.u8": n * action_size, "z.f32": 4 * n}
    for name, size in sizes.items():
        if (folder / name).stat().st_size != size:
            raise ValueError(f"{folder}: {name} is not {n} rows ({size} bytes expected)")
    out = {
        "obs": np.fromfile(folder / "obs.f32", dtype=np.float32).reshape(n, obs_size),
        "pi": np.fromfile(folder / "pi.f32", dtype=np.float32).reshape(n, action_size),
        "mask": np.fromfile(folder / "mask.u8", dtype=np.uint8).reshape(n, action_size).astype(bool),
        "z": np.fromfile(folder / "z.f32", dtype=np.float32).reshape(n),
    }
    if not np.all(np.isfinite(out["obs"])) or not np.all(np.isfinite(out["pi"])):
        raise ValueError(f"{folder}: non-finite rows")
    return out


def train_round(net: PolicyValue, opt: torch.optim.Optimizer, data: Dict[str, np.ndarray], args: argparse.Namespace, gen: torch.Generator) -> Dict[str, float]:
    obs = torch.from_numpy(data["obs"])
    pi = torch.from_numpy(data["pi"])
    mask = torch.from_numpy(data["mask"])
    z = torch.from_numpy(data["z"])
    n = obs.shape[0]
    net.train()
    totals = {"policy_loss": 0.0, "value_loss": 0.0, "batches": 0}
    for _ in range(args.epochs):
        order = torch.randperm(n, generator=gen)
        for start in range(0, n, args.batch):
            idx = order[start:start + args.batch]
            logits, value = net(obs[idx])
            logp = F.log_softmax(logits.masked_fill(~mask[idx], -1e9), dim=-1)
            policy_loss = -(pi[idx] * torch.where(mask[idx], logp, torch.zeros_like(logp))).sum(-1).mean()
            value_loss = F.mse_loss(value.squeeze(-1), z[idx])
            loss = policy_loss + args.value_coef * value_loss
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            opt.step()
            totals["policy_loss"] += float(policy_loss)
            totals["value_loss"] += float(value_loss)
            totals["batches"] += 1
    b = max(1, totals.pop("batches"))
    return {k: v / b for k, v in totals.items()}


def read_rows(folders: List[str], spec: dict) -> Dict[str, np.ndarray]:
    parts = [read_round(Path(f), spec) for f in folders]
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


@torch.no_grad()
def score(net: PolicyValue, data: Dict[str, np.ndarray], batch: int = 4096) -> Dict[str, float]:
    """Held-out rows: the policy loss (cross-entropy against the visits), the share of rows whose
    highest legal logit is the most visited decision, and the value's squared error."""
    net.eval()
    loss, agree, value_err = 0.0, 0, 0.0
    n = data["z"].shape[0]
    for start in range(0, n, batch):
        obs, pi, mask, z = (torch.from_numpy(data[k][start:start + batch]) for k in ("obs", "pi", "mask", "z"))
        logits, value = net(obs)
        masked = logits.masked_fill(~mask, -1e9)
        logp = F.log_softmax(masked, dim=-1)
        loss += float(-(pi * torch.where(mask, logp, torch.zeros_like(logp))).sum())
        agree += int((masked.argmax(-1) == pi.argmax(-1)).sum())
        value_err += float(((value.squeeze(-1) - z) ** 2).sum())
    return {"holdout_policy_loss": loss / n, "holdout_agreement": agree / n, "holdout_value_loss": value_err / n}


def self_play(repo: Path, model: Path, folder: Path, round_no: int, args: argparse.Namespace) -> dict:
    if args.dagger:
        return student_play(repo, model, folder, round_no, args)
    value = "eval" if round_no < args.eval_value_rounds else "net"
    cmd = [
        args.node, "--import", "tsx", "scripts/exit-selfplay.ts",
        "--model", str(model), "--out", str(folder), "--games", str(args.games), "--iters", str(args.iters),
        "--seed", str(args.seed * 100_000 + round_no), "--explore", str(args.explore), "--noise", str(args.noise),
        "--value", value, "--concurrency", str(args.concurrency),
    ] + (["--search", args.search] if args.search else [])  # fmt: skip
    subprocess.run(cmd, cwd=str(repo), check=True)
    return json.loads((folder / "meta.json").read_text())


def student_play(repo: Path, model: Path, folder: Path, round_no: int, args: argparse.Namespace) -> dict:
    """A DAgger round: the network as a policy against --opponent, every one of its decisions labelled by the teacher's search."""
    teacher = args.teacher if args.teacher.startswith("builtin/") else str(Path(args.teacher).resolve())  # Node runs in the checkout
    cmd = [
        args.node, "--import", "tsx", "scripts/exit-selfplay.ts",
        "--model", teacher, "--out", str(folder), "--games", str(args.games), "--iters", str(args.iters),
        "--seed", str(args.seed * 100_000 + round_no), "--value", "eval", "--concurrency", str(args.concurrency),
        "--student", f"onnx:path={model.resolve()}", "--opponent", args.opponent or "mcts",
    ] + (["--search", args.search] if args.search else [])  # fmt: skip
    subprocess.run(cmd, cwd=str(repo), check=True)
    return json.loads((folder / "meta.json").read_text())


def main(argv: Optional[List[str]] = None) -> Path:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    repo = Path(find_repo(None))
    run = repo / "models" / "runs" / args.run_name
    run.mkdir(parents=True, exist_ok=True)
    spec_file = run / "spec.json"
    if not spec_file.exists():
        spec_file.write_text(json.dumps(cardgym.onnx.fetch_spec(GAME, url=args.url)))
    spec = json.loads(spec_file.read_text())

    net = PolicyValue(spec, args.hidden)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    ckpt = run / "checkpoint.pt"
    start_round = 0
    initial = None
    if args.dagger:
        load_actor_from_onnx(net, Path(args.init_onnx))
        initial = {k: v.clone() for k, v in net.state_dict().items()}
    if ckpt.exists():
        saved = torch.load(ckpt)
        net.load_state_dict(saved["net"])
        opt.load_state_dict(saved["opt"])
        start_round = int(saved["round"])
        print(f"exit: resuming {run.name} at round {start_round}", flush=True)
    elif args.init_onnx:
        copied = load_actor_from_onnx(net, Path(args.init_onnx))
        print(f"exit: actor initialised from {args.init_onnx} ({copied} tensors)", flush=True)

    def export(round_no: int) -> Path:
        path = run / f"net-{round_no:03d}.onnx"
        if not path.exists():
            cardgym.onnx.export(net, GAME, path, spec=spec, value=True, check="auto", metadata={"trained_by": "train_exit.py", "round": str(round_no)})
        return path

    offline = read_rows(args.rows, spec) if args.rows else None
    holdout = read_rows(args.holdout, spec) if args.holdout else None
    gen = torch.Generator().manual_seed(args.seed * 7919 + start_round)
    for round_no in range(start_round, args.rounds):
        t0 = time.time()
        model = export(round_no)
        if offline is not None:
            meta = {"games": sum(json.loads((Path(f) / "meta.json").read_text())["games"] for f in args.rows), "rows": int(offline["z"].shape[0]), "seat0Wins": None}
            data = offline
            t1 = time.time()
        else:
            folder = run / f"round-{round_no:03d}"
            meta = json.loads((folder / "meta.json").read_text()) if (folder / "meta.json").exists() else self_play(repo, model, folder, round_no, args)
            t1 = time.time()
            first = 0 if args.dagger else max(0, round_no - args.window + 1)
            data = read_rows([str(run / f"round-{r:03d}") for r in range(first, round_no + 1)], spec)
        if initial is not None:  # DAgger: every round's network is trained afresh from the initial weights on all rows so far
            net.load_state_dict(initial)
            opt = torch.optim.Adam(net.parameters(), lr=args.lr)
        losses = train_round(net, opt, data, args, gen)
        torch.save({"net": net.state_dict(), "opt": opt.state_dict(), "round": round_no + 1, "args": vars(args)}, ckpt)
        next_model = export(round_no + 1)
        entry = {
            "round": round_no,
            "games": meta["games"],
            "rows": meta["rows"],
            "seat0_wins": meta["seat0Wins"],
            **({"student_wins": meta["studentWins"]} if args.dagger else {}),
            "train_rows": int(data["z"].shape[0]),
            **losses,
            "selfplay_s": round(t1 - t0, 1),
            "train_s": round(time.time() - t1, 1),
            "model": next_model.name,
            **(score(net, holdout) if holdout is not None else {}),
        }
        with open(run / "log.jsonl", "a") as f:
            f.write(json.dumps(entry) + "\n")
        won = f" (the student won {meta['studentWins']})" if args.dagger else ""
        held = f", held out: policy loss {entry['holdout_policy_loss']:.3f}, agreement {entry['holdout_agreement']:.3f}" if holdout is not None else ""
        print(
            f"exit: round {round_no + 1}/{args.rounds}: {meta['games']} games{won}, {meta['rows']} rows (training on {entry['train_rows']}), "
            f"policy loss {losses['policy_loss']:.3f}, value loss {losses['value_loss']:.3f}, self-play {entry['selfplay_s']} s, training {entry['train_s']} s{held} -> {next_model.name}",
            flush=True,
        )
    return run


if __name__ == "__main__":
    main()
