"""cardgym.ray on a local Ray cluster (4 CPUs in this process's own cluster, ended at teardown):
the round robin and the SPRT played in parts over Ray workers report what the arena CLI reports on
one machine for the same seed, also when a Ray worker is killed in the middle of a part.

Needs Ray (`pip install 'cardgym[ray]'`; scripts/python-env.sh installs it): skipped without it
locally, failed under CI."""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
import threading
import time
from typing import Any, Dict, List, Optional

import pytest
from hang_guard import hang_guard
from torch_support import in_ci

from cardgym import ray as cardgym_ray

try:
    import ray
except ImportError as e:
    if in_ci():
        raise ImportError(f"CI=true and Ray is not installed ({e}): scripts/python-env.sh installs cardgym[ray]") from e
    pytest.skip(f"Ray is not installed ({e}): pip install 'cardgym[ray]'", allow_module_level=True)

# A small round robin: 3-seat sevens (each pair beside a random filler), 3 agents, 12 games.
ARENA = dict(game="sevens", agents=["random", "computer", "tutorial"], games=4, seed=9, config={"seats": 3})
ARENA_FLAGS = ["--game", "sevens", "--agents", "random,computer,tutorial", "--games", "4", "--seed", "9", "--config", '{"seats":3}']
# docs/sprt.md's sevens gate: computer stronger than random, H1 after 138 games (23 groups of 6).
SPRT = dict(game="sevens", candidate="computer", baseline="random", elo0=0, elo1=50, max_games=1200, config={"seats": 3})
SPRT_FLAGS = ["--sprt", "--game", "sevens", "--candidate", "computer", "--baseline", "random", "--elo0", "0", "--elo1", "50"]
SPRT_FLAGS += ["--max-games", "1200", "--config", '{"seats":3}', "--workers", "0"]


@pytest.fixture(scope="module")
def cluster():
    temp = tempfile.mkdtemp(prefix="ray-")
    ray.init(num_cpus=4, object_store_memory=100 * 1024 * 1024, include_dashboard=False, _temp_dir=temp, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()
        shutil.rmtree(temp, ignore_errors=True)


def cli_report(flags: List[str], name: str) -> Any:
    """The arena CLI (the program `npm run arena` runs) on this machine, in one process."""
    with tempfile.TemporaryDirectory() as out:
        cardgym_ray._run_cli(None, [*flags, "--out", out, "-q"])
        with open(os.path.join(out, name), encoding="utf-8") as f:
            return json.load(f)


def timeless(report: Dict[str, Any]) -> Dict[str, Any]:
    """A report without what depends on the clock."""
    out = {k: v for k, v in report.items() if k not in ("seconds", "time")}
    if "agents" in out:
        out["agents"] = [{k: v for k, v in a.items() if k != "decisionsPerSec"} for a in out["agents"]]
    return out


@pytest.fixture(scope="module")
def arena_reference() -> Dict[str, Any]:
    return timeless(cli_report(ARENA_FLAGS, "arena.json"))


#: Part folders already in the temp folder when this module was loaded (an older checkout's runs,
#: say): not this test's to judge, and not ours to remove.
_PARTS_BEFORE = frozenset(n for n in os.listdir(tempfile.gettempdir()) if n.startswith("cardgym-part-"))


def left_parts() -> List[str]:
    """Part folders in the temp folder whose Ray worker is gone (``cardgym-part-<run>-<pid>-XXXX``;
    a name without a pid counts too): nothing will remove them. Those that were there before these
    tests started are not counted."""
    left = []
    for name in os.listdir(tempfile.gettempdir()):
        if name in _PARTS_BEFORE:
            continue
        fields = name.split("-")
        if name.startswith("cardgym-part-") and not (len(fields) >= 5 and fields[3].isdigit() and alive(int(fields[3]))):
            left.append(name)
    return left


def test_arena_over_four_workers_matches_the_cli(cluster, arena_reference):
    with tempfile.TemporaryDirectory() as out:
        report = cardgym_ray.arena(**ARENA, part_size=3, workers=4, out=out, history=os.path.join(out, "h.jsonl"))
        assert os.path.isfile(os.path.join(out, "arena.md"))
        with open(os.path.join(out, "h.jsonl"), encoding="utf-8") as f:
            assert json.loads(f.readline())["kind"] == "roundrobin"
    assert report["totalGames"] == 12
    assert timeless(report) == arena_reference


def test_sprt_over_workers_reaches_the_cli_decision(cluster):
    reference = cli_report(SPRT_FLAGS, "sprt.json")[0]
    entry = cardgym_ray.sprt(**SPRT, part_groups=4, workers=4)
    assert (entry["result"], entry["games"]) == ("H1", 138)
    # The parts still playing when the test decided were cancelled (their workers killed): their
    # folders are removed all the same.
    assert left_parts() == []
    assert timeless(entry) == timeless(reference)
    # The driver's own LLR (what it stops on) is the TypeScript one.
    assert cardgym_ray.sprt_llr(entry["counts"], 0, 50) == pytest.approx(reference["llr"], abs=1e-12)


def part_processes(marker: str) -> List[int]:
    """Pids of arena CLIs playing a part whose arguments include `marker`."""
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
        except OSError:
            continue
        if b"scripts/arena.ts" in args and b"--fixtures" in args and any(marker.encode() in a for a in args):
            pids.append(int(name))
    return pids


def parent_of(pid: int) -> Optional[int]:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except OSError:
        return None


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds the Ray worker to kill through /proc (Linux)")
def test_a_killed_worker_changes_nothing(cluster, arena_reference):
    outcome: Dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["report"] = cardgym_ray.arena(**ARENA, part_size=4, workers=2)
        except BaseException as e:  # reported by the assertion below
            outcome["error"] = e

    driver = threading.Thread(target=run)
    driver.start()
    deadline = time.monotonic() + hang_guard(120)
    victim = None
    while victim is None and driver.is_alive() and time.monotonic() < deadline:
        for pid in part_processes("tutorial"):
            worker = parent_of(pid)
            if worker is not None and worker != os.getpid():
                victim = (worker, pid)
                break
        time.sleep(0.02)
    assert victim is not None, "no part was seen running"
    worker, part = victim
    with open(f"/proc/{worker}/cmdline", "rb") as f:
        assert f.read().startswith(b"ray::"), "the part's parent is a Ray worker"
    os.kill(worker, signal.SIGKILL)
    # The part's CLI dies with its worker (it was still playing: its results are never counted).
    deadline = time.monotonic() + hang_guard(120)
    while alive(part) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(part)
    driver.join(hang_guard(300))
    assert not driver.is_alive()
    assert "error" not in outcome, outcome.get("error")
    assert timeless(outcome["report"]) == arena_reference
    # The killed worker could not remove its part's folder: the next part on the node did.
    assert left_parts() == []


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds the Ray workers to kill through /proc (Linux)")
def test_a_part_whose_worker_dies_on_every_retry_is_named(cluster, monkeypatch):
    # One retry (instead of MAX_RETRIES) keeps the test short: the part's worker is killed on its
    # first run and on its retry.
    monkeypatch.setattr(cardgym_ray, "MAX_RETRIES", 1)
    outcome: Dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["report"] = cardgym_ray.arena(**ARENA, part_size=12, workers=1)
        except BaseException as e:  # checked below
            outcome["error"] = e

    driver = threading.Thread(target=run)
    driver.start()
    killed: List[int] = []
    deadline = time.monotonic() + hang_guard(240)
    while driver.is_alive() and time.monotonic() < deadline:
        for pid in part_processes("tutorial"):
            worker = parent_of(pid)
            if worker is not None and worker != os.getpid() and worker not in killed:
                os.kill(worker, signal.SIGKILL)
                killed.append(worker)
        time.sleep(0.02)
    driver.join(hang_guard(60))
    assert not driver.is_alive()
    assert len(killed) == 2, killed
    error = outcome.get("error")
    assert isinstance(error, cardgym_ray.PartCrashed), outcome
    assert isinstance(error, cardgym_ray.PartFailed)
    assert str(error).startswith(
        "part 1 of 1 (round-robin games 0:12, seed 9) was lost: its Ray worker died on its first run and on each of its 1 retries (WorkerCrashedError: "
    )
    assert str(error).endswith("the arena CLI plays it on one machine with the run's flags and --fixtures 0:12")
    assert (error.part, error.parts, error.unit, error.first, error.end, error.seed, error.retries) == (0, 1, "games", 0, 12, 9, 1)
    assert type(error.__cause__).__name__ == "WorkerCrashedError"
    # The killed workers' part folders are the driver's to remove (no part ran after them).
    assert left_parts() == []


def test_agents_given_as_one_string_are_refused_before_anything_runs():
    # The CLI's comma list passed as it is: refused by name, not played as agents "r", "a", "n"...
    with pytest.raises(TypeError, match=r"agents is a list of agent specs, such as \['random', 'computer'\]"):
        cardgym_ray.arena("sevens", "random,computer", games=4)


def test_parts_resolve_the_champion_from_the_checkout():
    """The bundled arena CLI the parts run finds models/registry.json (champion, model:<name>)."""
    planned = json.loads(cardgym_ray._run_cli(None, ["--sprt", "--game", "dcg", "--candidate", "champion", "--baseline", "model:dcg-ppo-v1", "--plan"]))
    assert planned["plan"]["candidate"].startswith("onnx:builtin/dcg-")
    assert planned["plan"]["baseline"] == "onnx:builtin/dcg-ppo-v1"
