"""Expert iteration in miniature: examples/train_exit.py plays a round of network-guided self-play
in Node, trains the policy-value network on the search's visit counts and results, exports both
heads, and resumes from its checkpoint for a second round."""

from __future__ import annotations

import json
import shutil

import numpy as np
from torch_support import fresh_run, train_exit_module

import cardgym.onnx


def test_two_rounds_with_a_resume_export_a_policy_value_model(client):
    import onnx
    import torch

    train_exit = train_exit_module()
    run = "pytest-exit"
    repo, run_dir = fresh_run(run)
    builtin = repo / "models" / "builtin" / "dcg-ppo-v1.onnx"
    common = ["--run-name", run, "--games", "2", "--iters", "4", "--explore", "4", "--concurrency", "2", "--url", client.url, "--init-onnx", str(builtin)]
    try:
        train_exit.main(["--rounds", "1", *common])
        train_exit.main(["--rounds", "2", *common])  # resumes at round 1
        log = [json.loads(line) for line in (run_dir / "log.jsonl").read_text().splitlines()]
        assert [entry["round"] for entry in log] == [0, 1]
        assert all(entry["rows"] > 0 and np.isfinite(entry["policy_loss"]) and np.isfinite(entry["value_loss"]) for entry in log)
        model = onnx.load(str(run_dir / "net-002.onnx"))
        assert [o.name for o in model.graph.output] == ["logits", "value"]
        meta = {p.key: p.value for p in model.metadata_props}
        assert meta["game"] == "dcg" and meta["round"] == "2"
        # The Node side accepts it (contract check, value output included) and computes its logits.
        spec = json.loads((run_dir / "spec.json").read_text())
        probe = cardgym.onnx.probe_observations(int(spec["observation"]["size"]), rows=3)
        assert cardgym.onnx.node_logits(run_dir / "net-002.onnx", "dcg", probe).shape == (3, int(spec["action"]["size"]))
        # Round 0's network is the PPO actor itself (warm start), with an added value head.
        net = train_exit.PolicyValue(spec, 64)
        train_exit.load_actor_from_onnx(net, builtin)
        with torch.no_grad():
            logits, value = net(torch.from_numpy(probe))
        ppo = cardgym.onnx.node_logits(builtin, "dcg", probe)
        assert np.max(np.abs(logits.numpy() - ppo)) < 1e-4
        assert value.shape == (3, 1) and float(value.abs().max()) <= 1.0
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)


def test_dagger_options_are_checked_before_anything_runs(capsys):
    import pytest

    train_exit = train_exit_module()
    cases = [
        (["--dagger", "--init-onnx", "x.onnx"], "--dagger needs --teacher"),
        (["--dagger", "--teacher", "builtin/dcg-exit-v2"], "--dagger needs --teacher"),
        (["--teacher", "builtin/dcg-exit-v2"], "--teacher and --opponent only apply with --dagger"),
        (["--opponent", "mcts"], "--teacher and --opponent only apply with --dagger"),
        (["--games", "0"], "--games must be between 1 and 1000000, got 0"),
        (["--iters", "100001"], "--iters must be between 1 and 100000"),
        (["--noise", "1.5"], "--noise must be between 0 and 1"),
        (["--lr", "-1"], "--lr must be a positive number"),
    ]
    for extra, message in cases:
        with pytest.raises(SystemExit) as exited:
            train_exit.parse_args(["--run-name", "never-made", *extra])
        assert exited.value.code == 2
        assert message in capsys.readouterr().err


def test_dagger_rounds_label_the_students_games_and_train_on_every_round(client):
    train_exit = train_exit_module()
    run = "pytest-dagger"
    repo, run_dir = fresh_run(run)
    builtin = repo / "models" / "builtin" / "dcg-exit-v2.onnx"
    common = ["--run-name", run, "--dagger", "--teacher", "builtin/dcg-exit-v2", "--opponent", "random", "--games", "2", "--iters", "4"]
    common += ["--concurrency", "2", "--window", "1", "--url", client.url, "--init-onnx", str(builtin)]
    try:
        train_exit.main(["--rounds", "1", *common])
        train_exit.main(["--rounds", "2", *common])  # resumes at round 1
        log = [json.loads(line) for line in (run_dir / "log.jsonl").read_text().splitlines()]
        assert [entry["round"] for entry in log] == [0, 1]
        assert all(0 <= entry["student_wins"] <= 2 and entry["rows"] > 0 for entry in log)
        # DAgger aggregates: round 1 trains on both rounds' rows, whatever --window says.
        assert log[1]["train_rows"] == log[0]["rows"] + log[1]["rows"]
        meta = json.loads((run_dir / "round-001" / "meta.json").read_text())
        assert meta["student"] == f"onnx:path={(run_dir / 'net-001.onnx').resolve()}" and meta["opponent"] == "random"
        assert meta["agent"] == "mcts:policy=builtin/dcg-exit-v2,iters=4,noise=0,value=eval"
        assert (run_dir / "net-002.onnx").exists()
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)


def test_offline_training_on_saved_rows_scores_a_holdout_and_checks_the_rows(client):
    import pytest

    train_exit = train_exit_module()
    repo, played = fresh_run("pytest-exit-rows")
    _, offline = fresh_run("pytest-exit-offline")
    try:
        train_exit.main(["--run-name", "pytest-exit-rows", "--rounds", "1", "--games", "2", "--iters", "4", "--explore", "4", "--concurrency", "2", "--url", client.url])
        rows = played / "round-000"
        n = json.loads((rows / "meta.json").read_text())["rows"]
        # A wider trunk than the PPO actor's, from scratch, two rounds of one epoch each; nothing is played.
        common = ["--run-name", "pytest-exit-offline", "--rows", str(rows), "--holdout", str(rows), "--hidden", "96", "--epochs", "1", "--url", client.url]
        train_exit.main(["--rounds", "2", *common])
        log = [json.loads(line) for line in (offline / "log.jsonl").read_text().splitlines()]
        assert [entry["round"] for entry in log] == [0, 1]
        assert all(entry["train_rows"] == n and entry["rows"] == n and entry["games"] == 2 for entry in log)
        assert all(0 <= entry["holdout_agreement"] <= 1 and np.isfinite(entry["holdout_policy_loss"]) for entry in log)
        assert not list(offline.glob("round-*"))
        spec = json.loads((offline / "spec.json").read_text())
        probe = cardgym.onnx.probe_observations(int(spec["observation"]["size"]), rows=2)
        assert cardgym.onnx.node_logits(offline / "net-002.onnx", "dcg", probe).shape == (2, int(spec["action"]["size"]))
        # Rows made for another layout, or cut short, are refused with the folder named.
        meta = json.loads((rows / "meta.json").read_text())
        with pytest.raises(ValueError, match="actionSpecHash"):
            train_exit.read_round(rows, {**spec, "actionSpecHash": "0" * 16})
        (rows / "meta.json").write_text(json.dumps({**meta, "rows": n + 1}))
        with pytest.raises(ValueError, match="obs.f32 is not"):
            train_exit.read_round(rows, spec)
    finally:
        shutil.rmtree(played, ignore_errors=True)
        shutil.rmtree(offline, ignore_errors=True)


def test_offline_options_are_checked_before_anything_runs(capsys, tmp_path):
    import pytest

    train_exit = train_exit_module()
    cases = [
        (["--holdout", str(tmp_path)], "--holdout only applies with --rows"),
        (["--rows", str(tmp_path), "--dagger", "--teacher", "builtin/dcg-exit-v2", "--init-onnx", "x.onnx"], "--rows trains on saved rows and --dagger"),
        (["--rows", str(tmp_path)], "is not a finished self-play folder"),
    ]
    for extra, message in cases:
        with pytest.raises(SystemExit) as exited:
            train_exit.parse_args(["--run-name", "never-made", *extra])
        assert exited.value.code == 2
        assert message in capsys.readouterr().err
