"""Expert iteration in miniature: examples/train_exit.py plays a round of network-guided self-play
in Node, trains the policy-value network on the search's visit counts and results, exports both
heads, and resumes from its checkpoint for a second round."""

from __future__ import annotations

import json
import shutil

import numpy as np
from torch_support import train_exit_module

import cardgym.onnx
from cardgym.server import find_repo


def test_two_rounds_with_a_resume_export_a_policy_value_model(client):
    import onnx
    import torch

    train_exit = train_exit_module()
    repo = find_repo()
    run = "pytest-exit"
    run_dir = repo / "models" / "runs" / run
    shutil.rmtree(run_dir, ignore_errors=True)
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
