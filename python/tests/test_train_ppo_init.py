"""Fine-tuning a shipped model with examples/train_ppo.py: --init-onnx starts the actor from a
contract model's weights, --init-sharpen scales its policy layer (the same argmax, a sharper
sampling policy), --critic-warmup trains only the fresh critic for the first updates, and every
--snapshot-every updates leaves a model and a checkpoint behind, with or without self-play."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from torch_support import fresh_run, train_ppo_module

import cardgym.onnx


def test_an_actor_started_from_a_shipped_model_stays_frozen_through_the_critic_warmup(client):
    train_ppo = train_ppo_module()
    run = "pytest-ppo-init"
    repo, run_dir = fresh_run(run)
    builtin = repo / "models" / "builtin" / "dcg-exit-v2.onnx"
    try:
        train_ppo.main([
            "--total-steps", "150", "--seed", "5", "--num-envs", "2", "--num-steps", "32", "--opponents", "random",
            "--init-onnx", str(builtin), "--init-sharpen", "2", "--critic-warmup", "1", "--snapshot-every", "1",
            "--run-name", run, "--url", client.url, "--arena-games", "0",
        ])
        log = [json.loads(line) for line in (run_dir / "final.log.jsonl").read_text().splitlines()]
        assert [row["critic_only"] for row in log[:2]] == [True, False]
        assert (run_dir / "last.pt").is_file()
        spec = client.spec("dcg")
        probe = cardgym.onnx.probe_observations(int(spec["observation"]["size"]), rows=4)
        shipped = cardgym.onnx.node_logits(builtin, "dcg", probe)
        after_warmup = cardgym.onnx.node_logits(run_dir / "snap-001.onnx", "dcg", probe)
        after_training = cardgym.onnx.node_logits(run_dir / "snap-002.onnx", "dcg", probe)
        # The shipped actor, policy layer doubled, untouched by the critic-only update ...
        assert np.max(np.abs(after_warmup - 2 * shipped)) < 1e-3 * max(1.0, float(np.max(np.abs(shipped))))
        assert np.array_equal(after_warmup.argmax(-1), shipped.argmax(-1))
        # ... and trained by the next one.
        assert np.max(np.abs(after_training - after_warmup)) > 1e-4
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--init", "x.pt", "--init-onnx", "x.onnx"], "choose one"),
        (["--init-sharpen", "2"], "--init-sharpen must be positive and only applies with --init-onnx"),
        (["--init-onnx", "x.onnx", "--init-sharpen", "0"], "--init-sharpen must be positive"),
        (["--critic-warmup", "-1"], "--critic-warmup must be 0 or more"),
        (["--snapshot-every", "0"], "--snapshot-every must be at least 1"),
    ],
)
def test_fine_tuning_options_are_checked_before_anything_runs(capsys, extra, message):
    train_ppo = train_ppo_module()
    with pytest.raises(SystemExit) as exited:
        train_ppo.parse_args(["--run-name", "never-made", *extra])
    assert exited.value.code == 2
    assert message in capsys.readouterr().err
