"""The arena and the SPRT on a Ray cluster (docs/scale.md): ``pip install 'cardgym[ray]'``.

    import ray, cardgym.ray
    ray.init(address="auto")                       # or ray.init() for a local cluster
    report = cardgym.ray.arena("sevens", ["random", "computer"], games=400, seed=1, config={"seats": 3})
    entry = cardgym.ray.sprt("dcg", "onnx:builtin/dcg-ppo-v1,sample=true", "champion", elo0=-50, elo1=0, max_games=400)

Each Ray task plays one part of the run (a range of round-robin games, or of SPRT groups) with the
arena CLI of the cardgym checkout on the node it lands on (``node scripts/run-bundled.mjs
scripts/arena.ts ... --fixtures A:B`` or ``--groups A:B``) and returns the part's results. The
driver keeps the results by part, merges them with the same CLI (``--from-results``,
``--from-scores``) and returns the report: the dict of ``arena.json``, or the SPRT's history line
(the entry of ``sprt.json``), the same as a run of ``npm run arena`` on one machine with the same
seed, whatever the number of workers and the order in which parts finish. A game's deal and agent
seeds depend only on the seed and the game's index, and the merge refuses a game given twice.

The SPRT counts groups in index order: a part that finishes early waits for the parts before it.
After each part the driver updates the pentanomial log likelihood ratio group by group (the same
arithmetic as agents/arena/sprt.ts) and, at the first group that decides the test, stops
scheduling and cancels the parts still running; the merge then recounts the same groups in
TypeScript, and the two must agree.

A Ray worker that dies mid-part (its node lost, its process killed) makes Ray run the task again,
on any node (``max_retries``); the arena CLI it ran dies with it. A part whose workers die more
times than that raises PartCrashed, naming the part, its games (or groups) and seed and the
retries. A part that fails (a bad agent spec, a game error) raises at once, and nothing is retried.
"""

from __future__ import annotations

import json
import math
import os
import secrets
import shutil
import subprocess
import tempfile
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from .errors import CardgymError
from .server import _die_with_parent, find_node, find_repo, node_environment

__all__ = ["PartCrashed", "PartFailed", "arena", "sprt"]

#: Ray task retries when the worker running a part dies (a part that fails is never retried).
MAX_RETRIES = 3

#: A part plays into a folder ``cardgym-part-<run>-<pid>-XXXX`` in its node's temp folder: ``run``
#: names the driver's call, ``pid`` the Ray worker. A worker that is killed (a part cancelled once
#: the SPRT has decided, a crash, an OOM kill) cannot remove its folder, so the next part on the
#: node removes every part folder whose worker is gone, and the driver waits for the parts it
#: cancelled to end and removes theirs on its own node.
_PART_PREFIX = "cardgym-part-"

#: How long the driver waits for cancelled parts' workers to exit before leaving their folders to
#: the next part on the node (seconds).
CANCEL_WAIT = 30.0


class PartFailed(CardgymError):
    """The arena CLI failed (or refused its arguments): its last line of stderr."""


class PartCrashed(PartFailed):
    """A part's Ray worker died (its process killed, its node lost) on its first run and on each of
    Ray's ``retries`` retries. ``part`` is its index (from 0) among ``parts``, ``first:end`` its
    range of round-robin games (``unit`` "games") or SPRT groups (``unit`` "groups") and ``seed``
    the run's seed: the arena CLI plays the same part again on one machine with the run's flags
    and ``--fixtures first:end`` (``--groups`` for the SPRT). A PartFailed, so that code that
    catches a failed part catches this one too."""

    def __init__(self, message: str, *, part: int, parts: int, unit: str, first: int, end: int, seed: int, retries: int):
        super().__init__(message)
        self.part, self.parts, self.unit, self.first, self.end, self.seed, self.retries = part, parts, unit, first, end, seed, retries


#: What Ray raises from ray.get once a task's worker (or its node) died on every try, system
#: failures that count against max_retries (the task never failed by itself).
_CRASHES = ("WorkerCrashedError", "NodeDiedError")


def _ray() -> Any:
    try:
        import ray
    except ImportError as e:
        raise ImportError("cardgym.ray needs Ray: pip install 'cardgym[ray]'") from e
    return ray


def _run_cli(repo: Optional[str], args: Sequence[str]) -> str:
    """Runs the arena CLI of the checkout (``repo``, else CARDGYM_REPO, else this package's
    checkout) with ``args``; returns stdout, raises PartFailed with the CLI's error line."""
    root = find_repo(repo)
    cmd = [find_node(), "scripts/run-bundled.mjs", "scripts/arena.ts", *args]
    proc = subprocess.run(cmd, cwd=root, env=node_environment(), capture_output=True, text=True, preexec_fn=_die_with_parent)
    if proc.returncode != 0:
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        errors = [line for line in lines if line.startswith(("error:", "gate failed:"))]
        raise PartFailed((errors or lines or [f"the arena CLI exited with {proc.returncode}"])[0])
    return proc.stdout


def _part_pid(name: str) -> Optional[int]:
    """The worker pid in a part folder's name (``cardgym-part-<run>-<pid>-XXXX``), else None."""
    fields = name[len(_PART_PREFIX) :].split("-")
    return int(fields[1]) if name.startswith(_PART_PREFIX) and len(fields) >= 3 and fields[1].isdigit() else None


def _remove_dead_parts(run: Optional[str] = None) -> int:
    """Removes the part folders (of ``run``, else of every run) in this node's temp folder whose
    worker is gone; returns how many of them are left because their worker still runs."""
    base = tempfile.gettempdir()
    running = 0
    try:
        names = os.listdir(base)
    except OSError:
        return 0
    for name in names:
        pid = _part_pid(name)
        if pid is None or (run is not None and not name.startswith(f"{_PART_PREFIX}{run}-")):
            continue
        gone = _gone(pid)
        if gone is None:  # another user's process: not ours to judge
            continue
        if not gone:
            running += 1
            continue
        shutil.rmtree(os.path.join(base, name), ignore_errors=True)
    return running


def _gone(pid: int) -> Optional[bool]:
    """True when process ``pid`` has exited (a zombie not yet reaped included), None if it is
    another user's."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return None
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def _play_part(repo: Optional[str], args: Sequence[str], file_name: str, run: str) -> Dict[str, Any]:
    """A Ray task: plays one part on this node into a private folder and returns its results file."""
    _remove_dead_parts()
    with tempfile.TemporaryDirectory(prefix=f"{_PART_PREFIX}{run}-{os.getpid()}-") as out:
        _run_cli(repo, [*args, "--out", out, "-q"])
        with open(os.path.join(out, file_name), encoding="utf-8") as f:
            result: Dict[str, Any] = json.load(f)
            return result


def _config_args(config: Optional[Mapping[str, Any]]) -> List[str]:
    return [] if config is None else ["--config", json.dumps(dict(config))]


def _parts(total: int, size: int) -> List[Tuple[int, int]]:
    return [(a, min(a + size, total)) for a in range(0, total, size)]


class _Runner:
    """Submits parts as Ray tasks, at most ``workers`` at a time, in index order."""

    def __init__(
        self,
        repo: Optional[str],
        args: Sequence[str],
        flag: str,
        file_name: str,
        parts: List[Tuple[int, int]],
        workers: Optional[int],
        seed: int,
        describe: Callable[[int, int], str],
    ):
        ray = _ray()
        if not ray.is_initialized():
            ray.init()
        self.ray = ray
        self.retries = MAX_RETRIES
        self.task = ray.remote(num_cpus=1, max_retries=self.retries)(_play_part)
        self.seed, self.describe = seed, describe
        self.run = secrets.token_hex(4)
        self.repo, self.args, self.flag, self.file_name, self.parts = repo, list(args), flag, file_name, parts
        self.workers = workers if workers is not None else max(1, int(ray.cluster_resources().get("CPU", 1)))
        if self.workers < 1:
            raise ValueError(f"workers must be at least 1, got {self.workers}")
        self.next = 0
        self.running: Dict[Any, int] = {}

    def fill(self) -> None:
        while self.next < len(self.parts) and len(self.running) < self.workers:
            a, b = self.parts[self.next]
            ref = self.task.remote(self.repo, [*self.args, f"--{self.flag}", f"{a}:{b}"], self.file_name, self.run)
            self.running[ref] = self.next
            self.next += 1

    def wait(self) -> Tuple[int, Dict[str, Any]]:
        """The next part to finish: (its index, its results file)."""
        [ref], _ = self.ray.wait(list(self.running), num_returns=1)
        index = self.running.pop(ref)
        crashes = tuple(getattr(self.ray.exceptions, name) for name in _CRASHES if hasattr(self.ray.exceptions, name))
        try:
            return index, self.ray.get(ref)
        except crashes as e:
            raise self.crashed(index, e) from e

    def crashed(self, index: int, error: BaseException) -> PartCrashed:
        """The error of part ``index`` whose worker died on every try."""
        a, b = self.parts[index]
        said = next((line.strip() for line in str(error).splitlines() if line.strip()), "")
        message = (
            f"part {index + 1} of {len(self.parts)} ({self.describe(a, b)}, seed {self.seed}) was lost: its Ray worker died on its "
            f"first run and on each of its {self.retries} retries ({type(error).__name__}: {said}); "
            f"the arena CLI plays it on one machine with the run's flags and --{self.flag} {a}:{b}"
        )
        unit = "games" if self.flag == "fixtures" else "groups"
        return PartCrashed(message, part=index, parts=len(self.parts), unit=unit, first=a, end=b, seed=self.seed, retries=self.retries)

    def stop(self) -> None:
        """Cancels the parts still running (their workers, and the CLIs they run, are ended), then
        removes the folders of this run's killed workers on this node (see _PART_PREFIX)."""
        cancelled = list(self.running)
        for ref in cancelled:
            self.ray.cancel(ref, force=True)
        self.running.clear()
        deadline = time.monotonic() + CANCEL_WAIT
        if cancelled:
            self.ray.wait(cancelled, num_returns=len(cancelled), timeout=CANCEL_WAIT)
        while _remove_dead_parts(self.run) > 0 and time.monotonic() < deadline:
            time.sleep(0.05)


def _merge(repo: Optional[str], flag: str, merged: Dict[str, Any], args: Sequence[str], out: Optional[str], history: Optional[str], report: str) -> Any:
    """Writes the merged results file and runs the CLI's merge on it; returns its report file."""
    with tempfile.TemporaryDirectory(prefix="cardgym-merge-") as tmp:
        path = os.path.join(tmp, "merged.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(merged, f)
        where = out if out is not None else os.path.join(tmp, "out")
        extra = ["--history", os.path.abspath(history)] if history is not None else []
        _run_cli(repo, [f"--from-{flag}", path, *args, *extra, "--out", os.path.abspath(where), "-q"])
        with open(os.path.join(where, report), encoding="utf-8") as f:
            return json.load(f)


def arena(
    game: str,
    agents: Sequence[str],
    *,
    games: int = 20,
    seed: int = 1,
    config: Optional[Mapping[str, Any]] = None,
    part_size: int = 8,
    workers: Optional[int] = None,
    gate: Optional[str] = None,
    out: Optional[str] = None,
    history: Optional[str] = None,
    repo: Optional[str] = None,
) -> Dict[str, Any]:
    """A round robin (``npm run arena`` with the same flags) played over the Ray cluster in parts
    of ``part_size`` games, at most ``workers`` at once (default: the cluster's CPUs). Returns the
    report (``arena.json`` as a dict, gates included); with ``out`` the report files are written
    there, with ``history`` a line is appended, with ``gate`` a failed gate raises PartFailed."""
    if isinstance(agents, str):
        # ",".join would split it into letters, and the CLI would name agent "r" as unknown.
        raise TypeError(f"agents is a list of agent specs, such as {agents.split(',')!r}, not the string {agents!r}")
    if part_size < 1:
        raise ValueError(f"part_size must be at least 1, got {part_size}")
    args = ["--game", game, "--agents", ",".join(agents), "--games", str(games), "--seed", str(seed), *_config_args(config)]
    planned = json.loads(_run_cli(repo, [*args, "--plan"]))
    start = time.monotonic()
    parts = _parts(planned["fixtures"], part_size)
    runner = _Runner(repo, args, "fixtures", "arena-results.json", parts, workers, seed, lambda a, b: f"round-robin games {a}:{b}")
    shards: Dict[int, Dict[str, Any]] = {}
    try:
        runner.fill()
        while runner.running:
            index, part = runner.wait()
            shards[index] = part["shards"][0]
            runner.fill()
    finally:
        runner.stop()
    merged = {
        "kind": "cardgym-arena-results",
        "plan": planned["plan"],
        "seconds": time.monotonic() - start,
        "shards": [shards[i] for i in sorted(shards)],
    }
    gate_args = ["--gate", os.path.abspath(gate)] if gate is not None else []
    report: Dict[str, Any] = _merge(repo, "results", merged, gate_args, out, history, "arena.json")
    return report


def sprt(
    game: str,
    candidate: str,
    baseline: str,
    *,
    elo0: float = -10,
    elo1: float = 10,
    alpha: float = 0.05,
    beta: float = 0.05,
    max_games: int = 2000,
    seed: int = 1,
    config: Optional[Mapping[str, Any]] = None,
    fill: Optional[str] = None,
    part_groups: int = 4,
    workers: Optional[int] = None,
    out: Optional[str] = None,
    history: Optional[str] = None,
    repo: Optional[str] = None,
) -> Dict[str, Any]:
    """An SPRT (``npm run arena -- --sprt`` with the same flags) whose groups are played over the
    Ray cluster, ``part_groups`` groups per part, at most ``workers`` parts at once. Stops at the
    first group (in index order) that decides the test, or at ``max_games``. Returns the test's
    history line (the entry of ``sprt.json``); ``out`` and ``history`` as in the CLI."""
    if part_groups < 1:
        raise ValueError(f"part_groups must be at least 1, got {part_groups}")
    test = ["--elo0", f"{elo0}", "--elo1", f"{elo1}", "--alpha", f"{alpha}", "--beta", f"{beta}", "--max-games", str(max_games)]
    matchup = ["--game", game, "--candidate", candidate, "--baseline", baseline, "--seed", str(seed), *_config_args(config)]
    matchup += ["--fill", fill] if fill is not None else []
    planned = json.loads(_run_cli(repo, ["--sprt", *matchup, *test, "--plan"]))
    plan = planned["plan"]
    # Parts play the resolved specs (champion, model:<name>): every node plays the same model files.
    resolved = ["--sprt", "--game", game, "--candidate", plan["candidate"], "--baseline", plan["baseline"], "--fill", plan["fill"]]
    resolved += ["--seed", str(seed), "--config", json.dumps(plan["config"]), *test, "--workers", "0"]
    counter = _SprtCounter(plan["gamesPerGroup"], **planned["params"])
    start = time.monotonic()
    per = plan["gamesPerGroup"]

    def groups(a: int, b: int) -> str:
        return f"SPRT groups {a}:{b}, games {a * per}:{b * per}"

    runner = _Runner(repo, resolved, "groups", "sprt-scores.json", _parts(planned["maxGroups"], part_groups), workers, seed, groups)
    done: Dict[int, Dict[str, Any]] = {}
    counted: List[Dict[str, Any]] = []
    try:
        runner.fill()
        while runner.running and counter.decision is None:
            index, part = runner.wait()
            done[index] = part["shards"][0]
            while len(counted) in done and counter.decision is None:
                shard = done.pop(len(counted))
                counted.append(shard)
                for scores in shard["scores"]:
                    if counter.add(scores) is not None:
                        break
            if counter.decision is None:
                runner.fill()
    finally:
        runner.stop()
    merged = {"kind": "cardgym-sprt-scores", "plan": plan, "seconds": time.monotonic() - start, "shards": counted}
    [entry] = _merge(repo, "scores", merged, ["--sprt", *test], out, history, "sprt.json")
    expected = counter.decision or "inconclusive"
    if entry["result"] != expected or entry["games"] != counter.games:
        raise RuntimeError(f"the merge counted {entry['result']} after {entry['games']} games, the driver {expected} after {counter.games}")
    result: Dict[str, Any] = entry
    return result


# The pentanomial (n-nomial) GSPRT, as agents/arena/sprt.ts computes it (docs/sprt.md).
PSEUDO_COUNT = 1e-3


def _elo_to_score(elo: float) -> float:
    return 1 / (1 + math.pow(10, -elo / 400))


def _constrained_mle(p: Sequence[float], x: Sequence[float], s: float) -> List[float]:
    support = [x[j] for j in range(len(p)) if p[j] > 0]
    xmin, xmax = min(support), max(support)
    if not (xmin < s < xmax):
        raise ValueError("the target mean must lie strictly inside the support")
    lo, hi = -1 / (xmax - s), 1 / (s - xmin)
    lam = 0.0
    for _ in range(200):
        v = d = 0.0
        for j, pj in enumerate(p):
            if pj <= 0:
                continue
            u = x[j] - s
            den = 1 + lam * u
            v += (pj * u) / den
            d -= (pj * u * u) / (den * den)
        if v > 0:
            lo = lam
        else:
            hi = lam
        if abs(v) < 1e-13:
            break
        nxt = lam - v / d
        if not (lo < nxt < hi):
            nxt = (lo + hi) / 2
        if abs(nxt - lam) < 1e-15:
            break
        lam = nxt
    return [0.0 if pj <= 0 else pj / (1 + lam * (x[j] - s)) for j, pj in enumerate(p)]


def sprt_llr(counts: Sequence[int], elo0: float, elo1: float) -> float:
    """The GSPRT log likelihood ratio for group outcome counts (counts[j]: groups in which the
    candidate scored j half-points), as agents/arena/sprt.ts's ``llr``."""
    n = sum(counts)
    if n == 0:
        return 0.0
    c = [k if k > 0 else PSEUDO_COUNT for k in counts]
    total = sum(c)
    freq = [k / total for k in c]
    x = [j / (len(counts) - 1) for j in range(len(counts))]
    q0 = _constrained_mle(freq, x, _elo_to_score(elo0))
    q1 = _constrained_mle(freq, x, _elo_to_score(elo1))
    return n * sum(f * math.log(q1[j] / q0[j]) for j, f in enumerate(freq) if f > 0)


class _SprtCounter:
    """Group outcome counts and Wald's decision, group by group."""

    def __init__(self, games_per_group: int, elo0: float, elo1: float, alpha: float, beta: float):
        self.counts = [0] * (2 * games_per_group + 1)
        self.games_per_group = games_per_group
        self.elo0, self.elo1 = elo0, elo1
        self.lower, self.upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
        self.decision: Optional[str] = None

    @property
    def games(self) -> int:
        return sum(self.counts) * self.games_per_group

    def add(self, scores: Sequence[float]) -> Optional[str]:
        self.counts[round(sum(2 * s for s in scores))] += 1
        llr = sprt_llr(self.counts, self.elo0, self.elo1)
        self.decision = "H1" if llr >= self.upper else "H0" if llr <= self.lower else None
        return self.decision
