"""Masked PPO on dcg against an opponent pool, then ONNX export and an arena evaluation.

CleanRL-style single file (PyTorch, CPU). The learner plays through cardgym vector envs (one server
session per opponent and seat, all envs of a session stepped in one request); the opponents are
played inside the server by agent specs:

  * ``random``, ``sandbag``, ``computer`` (any agent spec works, e.g. ``mcts:iters=50``);
  * ``self``: past snapshots of the policy itself. Every ``--snapshot-every`` updates the actor is
    exported with ``cardgym.onnx.export`` to ``models/runs/<run>/snap-NNN.onnx`` (the server's
    model directory; gitignored) and the self-play sessions are re-created with
    ``onnx:path=runs/<run>/snap-NNN.onnx`` opponents drawn from the last ``--pool-size``
    snapshots (the newest half the time).

It logs the win rate against each opponent (a rolling window of finished episodes), exports the
final actor to ``--out`` (checked by the Node side's loader and contract check), and evaluates it
with ``npm run arena`` (``--arena-games`` per pairing; 0 skips).

The envs play ``--config`` (JSON; the fields it leaves out take the envs' defaults: for dcg mirror
books, vanguard on both seats), printed at the start and kept in the summary. The arena after
training plays the same config unless ``--arena-config`` says otherwise (``'{}'``: the game's own
default, vanguard against bastion, the config of the arena tables in docs/agents.md), so its win
rates and the log's measure the same game; between the two configs a policy's win rate against the
same opponent can differ by more than ten points.

    # ~35 min on 2 cores; how models/builtin/dcg-ppo-v1.onnx was made
    python examples/train_ppo.py --total-steps 1500000 --seed 1 --num-envs 16 --opponents "1.5*random;sandbag;0.5*computer;self" --run-name my-run

``--init run.pt`` resumes from a checkpoint (with ``--total-steps 0``: only re-export and evaluate);
every ``--snapshot-every`` updates the run leaves ``snap-NNN.onnx`` and ``last.pt`` in its folder.
``--init-onnx model.onnx`` fine-tunes a shipped model instead: the actor starts from its weights
(``--init-sharpen k`` multiplies its policy layer by k, the same argmax with sharper sampling, for
a model trained on flat search visits), the critic starts fresh and ``--critic-warmup N`` trains
only the critic for the first N updates. Fine-tuning the champion against the search it must beat:

    python examples/train_ppo.py --opponents mcts --init-onnx ../models/builtin/dcg-exit-v2.onnx --init-sharpen 2 --critic-warmup 5 --lr 1e-4 --ent-coef 0.003 --num-envs 32 --arena-games 0

Reward: the game's return (+1 win, -1 loss, 0 draw) plus, unless ``--hp-shaping 0``, a
potential-based shaping term gamma*phi(s') - phi(s) with phi = coef * (own HP - enemy HP) / max HP
read from the observation's scalars (phi = 0 at the end of an episode, so the shaping sums to
zero over an episode and only redistributes credit in time; Ng, Harada and Russell 1999).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Deque, Dict, List, Optional, Tuple

# The Node server runs beside us and does half the work: one BLAS thread unless told otherwise
# (read when OpenBLAS loads, so before numpy and torch are imported).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import cardgym
import cardgym.onnx
from cardgym.env import game_config
from cardgym.server import find_repo

GAME = "dcg"


def json_object(text: str) -> Dict[str, object]:
    """A JSON object given on the command line (anything else is a usage error)."""
    try:
        value = json.loads(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"not JSON ({e}): {text}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"not a JSON object: {text}")
    return value


def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--total-steps", type=int, default=2_000_000, help="learner decisions to train on (all envs together)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--num-envs", type=int, default=8, help="envs per opponent entry (split over the two seats)")
    p.add_argument("--out", type=str, default=None, help="final ONNX file (default <repo>/models/runs/<run>/final.onnx)")
    p.add_argument("--run-name", type=str, default=None, help="folder under models/runs for snapshots (default ppo-s<seed>-<time>)")
    p.add_argument(
        "--opponents",
        type=str,
        default="random;sandbag;0.5*computer;self",
        help="';'-separated opponent entries: an agent spec or 'self', optionally weighted 'w*spec' (w * --num-envs envs)",
    )
    p.add_argument("--url", type=str, default=None, help="cardgym server URL (default: the embedded server of this checkout)")
    p.add_argument("--models-dir", type=str, default=None, help="the server's model directory (default <repo>/models)")
    # PPO
    p.add_argument("--num-steps", type=int, default=128, help="rollout length per env")
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--anneal-lr", type=int, default=1)
    p.add_argument("--gamma", type=float, default=0.995)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--minibatches", type=int, default=4)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--clip", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--target-kl", type=float, default=0.03)
    p.add_argument("--hidden", type=int, default=64, help="actor MLP width (after the slot encoders)")
    p.add_argument("--critic-hidden", type=int, default=256)
    p.add_argument("--hp-shaping", type=float, default=1.0, help="potential coefficient on the HP difference (0: game reward only)")
    # self-play
    p.add_argument("--snapshot-every", type=int, default=10, help="updates between snapshots: snap-NNN.onnx (a self-play opponent, and a model to evaluate while the run goes on) and last.pt (a checkpoint for --init)")
    p.add_argument("--pool-size", type=int, default=5, help="snapshots kept as self-play opponents")
    # resume
    p.add_argument("--init", type=str, default=None, help="start from a checkpoint (.pt) saved by an earlier run (with --total-steps 0: only re-export and evaluate it)")
    p.add_argument("--init-onnx", type=str, default=None, help="start the actor from this contract model's weights (an export of this script or of train_exit.py, e.g. ../models/builtin/dcg-exit-v2.onnx); the critic starts fresh")
    p.add_argument("--init-sharpen", type=float, default=1.0, help="with --init-onnx: multiply the policy layer's weights and bias by this (the same argmax, a lower-entropy sampling policy: >1 for a model trained on flat search visits)")
    p.add_argument("--critic-warmup", type=int, default=0, help="updates at the start that train only the critic (the actor frozen), so a fresh critic does not push a pretrained actor around")
    # evaluation
    p.add_argument("--arena-games", type=int, default=200, help="arena games per pairing after training (0: no arena)")
    p.add_argument("--arena-agents", type=str, default="random,sandbag,computer")
    p.add_argument("--arena-seed", type=int, default=1)
    p.add_argument("--config", type=json_object, default={}, help="the game config the training envs play, as JSON; fields it leaves out take the envs' defaults (for dcg mirror books, vanguard on both seats)")
    p.add_argument("--arena-config", type=json_object, default=None, help="the config the arena after training plays, as JSON (default: the training envs' config, so its win rates read like the log's; '{}' is the game's own default, the config of the arena tables in docs/agents.md)")
    p.add_argument("--log-every", type=int, default=1, help="updates between log lines")
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    args = p.parse_args(argv)
    if args.init and args.init_onnx:
        p.error("--init (a checkpoint of this script) and --init-onnx (a model's actor) both start the network: choose one")
    if args.init_sharpen <= 0 or (args.init_sharpen != 1.0 and not args.init_onnx):
        p.error("--init-sharpen must be positive and only applies with --init-onnx")
    if args.critic_warmup < 0:
        p.error("--critic-warmup must be 0 or more")
    if args.snapshot_every < 1:
        p.error("--snapshot-every must be at least 1")
    for flag, path in (("--init", args.init), ("--init-onnx", args.init_onnx)):
        if path is not None and not Path(path).is_file():
            p.error(f"{flag} {path}: no such file")
    try:
        parse_pool(args.opponents, args.num_envs)
    except ValueError as e:
        p.error(f"--opponents: {e}")
    return args


# ------------------------------------------------------------------------------------------ model
def layer(i: int, o: int, std: float = float(np.sqrt(2))) -> nn.Linear:
    lin = nn.Linear(i, o)
    nn.init.orthogonal_(lin.weight, std)
    nn.init.constant_(lin.bias, 0.0)
    return lin


class SlotEncoder(nn.Module):
    """One small Linear+Tanh shared by the ``count`` equal slots of an observation field (the 35
    board cells, the 7 hand slots, the 5 strategy slots): the features of a card in a cell mean the
    same in every cell, so they are learned once; where a slot is stays known because the encoded
    slots are concatenated in order before the dense layers. This keeps the exported model small
    (the plain MLP's first layer alone would be obsSize * hidden floats)."""

    def __init__(self, offset: int, length: int, count: int, width: int):
        super().__init__()
        if length % count:
            raise ValueError(f"a field of {length} floats does not split into {count} slots")
        self.offset, self.length, self.count, self.per = offset, length, count, length // count
        self.lin = layer(self.per, width)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        x = obs[:, self.offset:self.offset + self.length].reshape(-1, self.count, self.per)
        return torch.tanh(self.lin(x)).flatten(1)


class Actor(nn.Module):
    """obs [batch, obsSize] -> logits [batch, actionSize]: slot encoders for the board, hand and
    strategy fields of dcg's layout (from the served spec), the other fields as they are, then a
    two-layer MLP. This module is what gets exported (cardgym.onnx.export)."""

    SLOTS = {"cells": (35, 16), "hand": (7, 16), "strategy": (5, 8)}

    def __init__(self, spec: dict, hidden: int):
        super().__init__()
        layout = spec["observation"]["layout"]
        self.encoders = nn.ModuleList()
        self.rest: List[tuple] = []
        width = 0
        for f in layout:
            if f["name"] in self.SLOTS:
                count, w = self.SLOTS[f["name"]]
                self.encoders.append(SlotEncoder(int(f["offset"]), int(f["length"]), count, w))
                width += count * w
            else:
                self.rest.append((int(f["offset"]), int(f["offset"]) + int(f["length"])))
                width += int(f["length"])
        self.head = nn.Sequential(layer(width, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(), layer(hidden, int(spec["action"]["size"]), 0.01))

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        parts = [e(obs) for e in self.encoders] + [obs[:, a:b] for a, b in self.rest]
        return self.head(torch.cat(parts, dim=1))


class Agent(nn.Module):
    """The actor above and a separate, plain MLP critic. Only the actor is exported: the model
    contract is raw logits over the whole action space; the agent masks them at the table."""

    def __init__(self, spec: dict, hidden: int, critic_hidden: int):
        super().__init__()
        obs_size = int(spec["observation"]["size"])
        self.actor = Actor(spec, hidden)
        self.critic = nn.Sequential(layer(obs_size, critic_hidden), nn.Tanh(), layer(critic_hidden, critic_hidden), nn.Tanh(), layer(critic_hidden, 1, 1.0))

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(obs).squeeze(-1)

    def act(self, obs: torch.Tensor, mask: torch.Tensor, action: Optional[torch.Tensor] = None):
        logits = self.actor(obs).masked_fill(~mask, -1e8)
        logp_all = F.log_softmax(logits, dim=-1)
        if action is None:
            action = torch.distributions.Categorical(logits=logits).sample()
        logp = logp_all.gather(-1, action.unsqueeze(-1)).squeeze(-1)
        probs = logp_all.exp()
        entropy = -(probs * torch.where(mask, logp_all, torch.zeros_like(logp_all))).sum(-1)
        return action, logp, entropy, self.value(obs)


def load_actor_from_onnx(net: Actor, path: Path) -> int:
    """Copies a train_ppo.py actor's weights out of its ONNX export into ``net``: the named
    initializers as they are, the slot encoders' weights from the transposed MatMul constants (in
    encoder order). Returns how many tensors were copied; refuses shapes that do not match."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    named = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    state = net.state_dict()
    copied = 0
    for name, array in named.items():
        if name in state:
            if tuple(state[name].shape) != array.shape:
                raise ValueError(f"{path}: {name} has shape {array.shape}, the network {tuple(state[name].shape)}")
            state[name] = torch.from_numpy(array.copy())
            copied += 1
    loose = [a for n, a in named.items() if n not in state and a.ndim == 2]
    for i, enc in enumerate(net.encoders):
        want = tuple(enc.lin.weight.shape)
        match = [a for a in loose if a.T.shape == want]
        if not match:
            raise ValueError(f"{path}: no weight matrix for slot encoder {i} ({want})")
        state[f"encoders.{i}.lin.weight"] = torch.from_numpy(match[0].T.copy())
        loose = [a for a in loose if a is not match[0]]  # by identity: list.remove compares arrays by value
        copied += 1
    net.load_state_dict(state)
    return copied


def sharpen_policy(actor: Actor, factor: float) -> None:
    """Multiplies the policy layer's weights and bias by ``factor``: the logits scale by it, so the
    argmax is the same and sampling is at temperature 1/factor."""
    with torch.no_grad():
        actor.head[4].weight.mul_(factor)
        actor.head[4].bias.mul_(factor)


# -------------------------------------------------------------------------------- opponent pool
class Slot:
    """One server session: ``n`` envs with the learner at ``seat`` against ``label``'s agent."""

    def __init__(self, label: str, spec: str, seat: int, n: int, config: Dict[str, object]):
        self.label, self.spec, self.seat, self.n, self.config = label, spec, seat, n, config
        self.env: Optional[cardgym.CardgymVectorEnv] = None
        self.obs: Optional[np.ndarray] = None
        self.mask: Optional[np.ndarray] = None

    def open(self, client: cardgym.Client, seed: int) -> None:
        self.close()
        self.env = cardgym.make_vec(GAME, num_envs=self.n, opponents=self.spec, seat=self.seat, seed=seed, client=client, config=self.config)
        obs, _ = self.env.reset(seed=seed)
        self.obs = np.array(obs["observation"], dtype=np.float32)
        self.mask = obs["action_mask"].astype(bool)

    def close(self) -> None:
        if self.env is not None:
            self.env.close()
            self.env = None


def parse_pool(text: str, num_envs: int) -> List[tuple]:
    """--opponents as (spec, envs) pairs; ValueError names an entry that cannot be one."""
    out = []
    for entry in [e.strip() for e in text.split(";") if e.strip()]:
        weight = 1.0
        if "*" in entry.split(":")[0]:
            w, entry = entry.split("*", 1)
            try:
                weight = float(w)
            except ValueError:
                raise ValueError(f"the weight {w.strip()!r} of {entry.strip()!r} is not a number (entries are 'spec' or 'w*spec')") from None
            if not weight > 0:
                raise ValueError(f"the weight of {entry.strip()!r} must be above 0, got {w.strip()}")
        n = max(1, int(round(weight * num_envs)))
        out.append((entry.strip(), n))
    return out


# --------------------------------------------------------------------------------- evaluation
def arena_config(args: argparse.Namespace) -> Dict[str, object]:
    """The config the arena after training plays: --arena-config, else the training envs' own
    (--config with the envs' defaults filled in, which the arena alone would not fill in)."""
    if args.arena_config is not None:
        return args.arena_config
    return game_config(GAME, args.config) or {}


def run_arena(repo: Path, model: Path, args: argparse.Namespace, out_dir: Path) -> Tuple[dict, dict]:
    """Plays the arena; returns its results per opponent and the config it played (every field)."""
    spec = f"onnx:path={model.resolve()}"
    cmd = ["npm", "run", "--silent", "arena", "--", "--game", GAME, "--agents", f"{spec};{args.arena_agents}",
           "--games", str(args.arena_games), "--seed", str(args.arena_seed), "--config", json.dumps(arena_config(args)),
           "--out", str(out_dir), "-q"]
    print("arena:", " ".join(cmd), flush=True)
    done = subprocess.run(cmd, cwd=str(repo), capture_output=True, text=True)
    if done.returncode != 0:
        print(done.stdout[-4000:], done.stderr[-4000:], file=sys.stderr)
        raise SystemExit(f"arena failed (exit {done.returncode})")
    report = json.loads((out_dir / "arena.json").read_text())
    rows = {m["opponent"]: m for m in report["matrix"] if m["agent"] == spec}
    print(f"arena config: {json.dumps(report['config'])}", flush=True)
    for opp, m in rows.items():
        print(f"arena: policy vs {opp}: {m['wins']}-{m['draws']}-{m['losses']} (win rate {100 * m['winRate']:.1f}%)", flush=True)
    results = {opp: {k: m[k] for k in ("games", "wins", "draws", "losses", "winRate", "wilsonLow")} for opp, m in rows.items()}
    return results, report["config"]


# ----------------------------------------------------------------------------------------- main
def main(argv: Optional[List[str]] = None) -> Dict[str, object]:
    args = parse_args(argv)
    t_start = time.time()
    torch.set_num_threads(args.threads)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)

    repo = find_repo()
    models_dir = Path(args.models_dir) if args.models_dir else repo / "models"
    run_name = args.run_name or f"ppo-s{args.seed}-{time.strftime('%Y%m%d-%H%M%S')}"
    run_dir = models_dir / "runs" / run_name
    run_dir.mkdir(parents=True, exist_ok=True)
    out = (Path(args.out) if args.out else run_dir / "final.onnx").resolve()  # the arena runs in the repo
    out.parent.mkdir(parents=True, exist_ok=True)
    log_path = out.with_suffix(".log.jsonl")
    log_file = open(log_path, "w") if args.total_steps > 0 else open(os.devnull, "w")  # a re-export keeps the log

    client = cardgym.Client(args.url)
    spec = client.spec(GAME)
    obs_size, action_size = int(spec["observation"]["size"]), int(spec["action"]["size"])
    scalars = next(f for f in spec["observation"]["layout"] if f["name"] == "scalars")
    own_hp, enemy_hp = int(scalars["offset"]), int(scalars["offset"]) + 1  # "own HP / hp; enemy HP / hp; ..."

    agent = Agent(spec, args.hidden, args.critic_hidden)
    if args.init:
        agent.load_state_dict(torch.load(args.init))
    elif args.init_onnx:
        copied = load_actor_from_onnx(agent.actor, Path(args.init_onnx))
        sharpen_policy(agent.actor, args.init_sharpen)
        print(f"actor initialised from {args.init_onnx} ({copied} tensors, policy layer x{args.init_sharpen})", flush=True)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)

    # Opponent pool: each entry split over both seats (dcg's first player is a coin toss; the
    # seat only decides Host or Guest, which the relative encoding hides, but train both anyway).
    snapshots: List[str] = []

    def snapshot(tag: str) -> str:
        path = run_dir / f"snap-{tag}.onnx"
        cardgym.onnx.export(agent.actor, GAME, path, spec=spec, check="none")
        snapshots.append(path.relative_to(models_dir).as_posix())
        return snapshots[-1]

    def self_spec() -> str:
        pool = snapshots[-args.pool_size:]
        pick = pool[-1] if rng.random() < 0.5 else pool[int(rng.integers(len(pool)))]
        return f"onnx:path={pick}"

    slots: List[Slot] = []
    # --total-steps 0 with --init: no training, only the export and the arena (a re-export).
    for entry, n in parse_pool(args.opponents, args.num_envs) if args.total_steps > 0 else []:
        halves = [n - n // 2, n // 2] if n > 1 else [1]
        for seat, k in enumerate(halves):
            if k > 0:
                slots.append(Slot(entry, entry, seat, k, args.config))
    if any(s.label == "self" for s in slots):
        snapshot("000")
    session_seed = int(rng.integers(1 << 40))
    for i, s in enumerate(slots):
        if s.label == "self":
            s.spec = self_spec()
        try:
            s.open(client, session_seed + i)
        except cardgym.ServerError as e:
            if e.code not in ("invalid_seats", "invalid_config", "agent_too_costly"):
                raise
            # A typo in --opponents or --config: the server's one line, not a traceback.
            print(f"train_ppo.py: error: the server refused the session of --opponents entry {s.label!r} (check --opponents and --config): {e}", file=sys.stderr)
            sys.exit(2)
    num_envs = sum(s.n for s in slots)
    print(f"run {run_name}: {num_envs} envs in {len(slots)} sessions: " + ", ".join(f"{s.n}x {s.spec} (seat {s.seat})" for s in slots), flush=True)
    # Every session plays the same config: the one the log's win rates are measured on.
    env_config = dict(slots[0].env.session.config) if slots and slots[0].env is not None else None
    if env_config is not None:
        print(f"config: {json.dumps(env_config)}", flush=True)

    T = args.num_steps
    batch = T * num_envs
    print(f"{batch} env steps per update", flush=True)
    b_obs = torch.zeros((T, num_envs, obs_size))
    b_mask = torch.zeros((T, num_envs, action_size), dtype=torch.bool)
    b_act = torch.zeros((T, num_envs), dtype=torch.long)
    b_logp = torch.zeros((T, num_envs))
    b_val = torch.zeros((T, num_envs))
    b_rew = torch.zeros((T, num_envs))
    b_end = torch.zeros((T, num_envs))  # the action at t ended the episode
    b_valid = torch.zeros((T, num_envs))  # obs at t is a live decision (not the row after an end)

    results: Dict[str, Deque[float]] = collections.defaultdict(lambda: collections.deque(maxlen=200))
    valid_now = np.ones(num_envs, dtype=bool)
    global_step = 0
    log_row: Dict[str, object] = {}

    update = 0
    while global_step < args.total_steps:
        update += 1
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = args.lr * max(0.05, 1.0 - global_step / args.total_steps)
        t_rollout = time.time()
        for t in range(T):
            obs = np.concatenate([s.obs for s in slots])
            mask = np.concatenate([s.mask for s in slots])
            ot, mt = torch.from_numpy(obs), torch.from_numpy(mask)
            with torch.no_grad():
                action, logp, _, value = agent.act(ot, mt)
            b_obs[t], b_mask[t], b_act[t], b_logp[t], b_val[t] = ot, mt, action, logp, value
            b_valid[t] = torch.from_numpy(valid_now.astype(np.float32))
            acts = action.numpy()
            rew = np.zeros(num_envs, dtype=np.float32)
            end = np.zeros(num_envs, dtype=bool)
            at = 0
            for s in slots:
                sl = slice(at, at + s.n)
                o, r, te, tr, _ = s.env.step(acts[sl])
                o_next = np.array(o["observation"], dtype=np.float32)
                done = te | tr
                if args.hp_shaping:
                    phi = args.hp_shaping * (s.obs[:, own_hp] - s.obs[:, enemy_hp])
                    phi_next = np.where(done, 0.0, args.hp_shaping * (o_next[:, own_hp] - o_next[:, enemy_hp]))
                    shaped = args.gamma * phi_next - phi
                else:
                    shaped = 0.0
                live = valid_now[sl]
                rew[sl] = np.where(live, r + shaped, 0.0)
                end[sl] = done & live
                for i in np.flatnonzero(done & live):
                    results[s.label].append(float(np.sign(r[i])))
                s.obs, s.mask = o_next, o["action_mask"].astype(bool)
                at += s.n
            b_rew[t] = torch.from_numpy(rew)
            b_end[t] = torch.from_numpy(end.astype(np.float32))
            valid_now = ~end  # the row after an end is the autoreset step: its action is ignored
            global_step += int(valid_now.sum())
        rollout_secs = time.time() - t_rollout

        # GAE over live transitions; an end cuts the chain.
        with torch.no_grad():
            next_value = agent.value(torch.from_numpy(np.concatenate([s.obs for s in slots])))
            adv = torch.zeros((T, num_envs))
            last = torch.zeros(num_envs)
            for t in reversed(range(T)):
                nv = next_value if t == T - 1 else b_val[t + 1]
                nonterm = 1.0 - b_end[t]
                delta = b_rew[t] + args.gamma * nv * nonterm - b_val[t]
                last = delta + args.gamma * args.gae_lambda * nonterm * last
                adv[t] = last
            ret = adv + b_val

        keep = b_valid.reshape(-1) > 0
        f_obs, f_mask = b_obs.reshape(-1, obs_size)[keep], b_mask.reshape(-1, action_size)[keep]
        f_act, f_logp = b_act.reshape(-1)[keep], b_logp.reshape(-1)[keep]
        f_adv, f_ret = adv.reshape(-1)[keep], ret.reshape(-1)[keep]
        n = f_obs.shape[0]
        f_adv = (f_adv - f_adv.mean()) / (f_adv.std() + 1e-8)  # over the whole batch
        kl_stop = False
        t_learn = time.time()
        for _epoch in range(args.epochs):
            for idx in torch.randperm(n).chunk(args.minibatches):
                _, newlogp, ent, newv = agent.act(f_obs[idx], f_mask[idx], f_act[idx])
                ratio = (newlogp - f_logp[idx]).exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - (newlogp - f_logp[idx])).mean().item()
                a = f_adv[idx]
                pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
                v_loss = 0.5 * ((newv - f_ret[idx]) ** 2).mean()
                if update <= args.critic_warmup:
                    loss = args.vf_coef * v_loss  # the actor's gradients stay zero: only the critic learns
                else:
                    loss = pg_loss - args.ent_coef * ent.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
            if args.target_kl and approx_kl > args.target_kl:
                kl_stop = True
                break
        learn_secs = time.time() - t_learn

        if update % args.snapshot_every == 0:
            snapshot(f"{update:03d}")
            torch.save(agent.state_dict(), run_dir / "last.pt")
            at = 0
            for i, s in enumerate(slots):
                if s.label == "self":
                    # A new session against a freshly drawn snapshot: its rows restart (the
                    # episodes in progress there are dropped unscored); other sessions go on.
                    s.spec = self_spec()
                    s.open(client, session_seed + 1000 * update + i)
                    valid_now[at:at + s.n] = True
                at += s.n

        if update % args.log_every == 0 or global_step >= args.total_steps:
            win = {k: round(float(np.mean([x > 0 for x in v])), 3) for k, v in sorted(results.items()) if v}
            log_row = {
                "update": update,
                "step": global_step,
                "secs": round(time.time() - t_start, 1),
                "sps": round(n / max(rollout_secs + learn_secs, 1e-9)),
                "win_rate": win,
                "episodes": {k: len(v) for k, v in sorted(results.items())},
                "pg_loss": round(pg_loss.item(), 4),
                "v_loss": round(v_loss.item(), 4),
                "entropy": round(ent.mean().item(), 3),
                "approx_kl": round(approx_kl, 4),
                "kl_stop": kl_stop,
                "critic_only": update <= args.critic_warmup,
            }
            print(json.dumps(log_row), flush=True)
            log_file.write(json.dumps(log_row) + "\n")
            log_file.flush()

    for s in slots:
        s.close()
    torch.save(agent.state_dict(), out.with_suffix(".pt"))
    report = cardgym.onnx.export(agent.actor, GAME, out, spec=spec, check="node")
    train_secs = time.time() - t_start
    print(f"exported {out} ({report['bytes']} bytes, max |torch - onnxruntime-node| = {report['max_abs_diff']:.2e}) after {train_secs:.0f} s", flush=True)
    client.close()
    summary: Dict[str, object] = {"out": str(out), "train_seconds": round(train_secs, 1), "steps": global_step, "last_log": log_row, "config": env_config}
    if args.arena_games > 0:
        summary["arena"], summary["arena_config"] = run_arena(repo, out, args, out.parent / (out.stem + "-arena"))
    summary["total_seconds"] = round(time.time() - t_start, 1)
    (out.parent / (out.stem + ".summary.json")).write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps(summary), flush=True)
    return summary


if __name__ == "__main__":
    main()
