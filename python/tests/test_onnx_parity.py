"""cardgym.onnx.export: the exported file carries the agents' model contract, and onnxruntime-node
(the runtime the `onnx` agent uses) computes the same logits and the same masked-argmax action as
the PyTorch policy on real dcg observations."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import masked_choice
from torch_support import require_torch, train_ppo_module

import cardgym
import cardgym.onnx as conx

GAME = "dcg"


@pytest.fixture(scope="module")
def spec(client):
    return client.spec(GAME)


@pytest.fixture(scope="module")
def observations(client):
    """Fixed observations and masks: the learner's decisions of a seeded random dcg session."""
    venv = cardgym.make_vec(GAME, 4, client=client, seed=11, opponents="random")
    rows, masks = [], []
    try:
        obs, _ = venv.reset(seed=11)
        rng = np.random.default_rng(11)
        for _ in range(40):
            rows.append(np.array(obs["observation"]))
            masks.append(obs["action_mask"].astype(bool))
            obs, *_ = venv.step(np.array([masked_choice(rng, m) for m in obs["action_mask"]]))
    finally:
        venv.close()
    obs, mask = np.concatenate(rows), np.concatenate(masks)
    live = mask.sum(1) > 1  # rows with a real choice (not the ignored autoreset rows)
    return obs[live], mask[live]


def policies(spec):
    torch = require_torch()
    torch.manual_seed(0)
    o, a = int(spec["observation"]["size"]), int(spec["action"]["size"])
    mlp = torch.nn.Sequential(torch.nn.Linear(o, 32), torch.nn.ReLU(), torch.nn.Linear(32, a))
    torch.manual_seed(1)
    actor = train_ppo_module().Actor(spec, 32)
    # Larger weights than the initialisation's make the logits spread, so argmax parity means something.
    with torch.no_grad():
        for p in actor.parameters():
            p.add_(0.3 * torch.randn_like(p))
    return {"mlp": mlp, "train_ppo.Actor": actor}


@pytest.mark.parametrize("which", ["mlp", "train_ppo.Actor"])
def test_torch_and_onnxruntime_node_agree_on_logits_and_masked_argmax(which, spec, observations, tmp_path):
    policy = policies(spec)[which]
    obs, mask = observations
    assert len(obs) >= 50
    path = tmp_path / "policy.onnx"
    report = conx.export(policy, GAME, path, spec=spec, check="none")
    assert report["metadata"] == {"game": GAME, "obs_version": spec["observation"]["version"], "action_spec_hash": spec["actionSpecHash"]}
    expected = conx.torch_logits(policy, obs)
    got = conx.node_logits(path, GAME, obs)
    assert got.shape == expected.shape == (len(obs), spec["action"]["size"])
    assert np.max(np.abs(got - expected)) <= 1e-4
    a_torch, a_node = conx.masked_argmax(expected, mask), conx.masked_argmax(got, mask)
    assert np.array_equal(a_torch, a_node)
    assert mask[np.arange(len(obs)), a_node].all()
    # The parity is not vacuous: the policy does pick different actions on different observations.
    assert len(set(a_node.tolist())) > 3


def test_export_writes_the_contract_and_checks_the_file(spec, tmp_path):
    torch = require_torch()
    import onnx

    policy = policies(spec)["mlp"]
    path = tmp_path / "sub" / "m.onnx"
    report = conx.export(policy, GAME, path, spec=spec, check="node", metadata={"trainer": "pytest"})
    assert report["checked_with"] == ["onnxruntime-node"] and report["max_abs_diff"] <= 1e-4
    model = onnx.load(str(path))
    props = {p.key: p.value for p in model.metadata_props}
    assert props["game"] == GAME and props["action_spec_hash"] == spec["actionSpecHash"] and props["trainer"] == "pytest"
    assert [i.name for i in model.graph.input] == ["obs"] and [o.name for o in model.graph.output] == ["logits"]
    dims = model.graph.input[0].type.tensor_type.shape.dim
    assert dims[0].dim_param != "" and dims[1].dim_value == spec["observation"]["size"]  # dynamic batch
    assert model.opset_import[0].version == 13
    # A batch of one and a batch of many give the same rows (the dynamic batch works at run time).
    obs = conx.probe_observations(int(spec["observation"]["size"]), rows=5)
    one = np.concatenate([conx.node_logits(path, GAME, obs[i:i + 1]) for i in range(2)])
    assert np.max(np.abs(one - conx.node_logits(path, GAME, obs)[:2])) <= 1e-5
    # A policy with the wrong output width is refused before anything is written.
    bad = torch.nn.Linear(int(spec["observation"]["size"]), 7)
    with pytest.raises(conx.ExportError, match="logits"):
        conx.export(bad, GAME, tmp_path / "bad.onnx", spec=spec)
    assert not (tmp_path / "bad.onnx").exists()


def test_the_node_side_refuses_a_model_exported_for_another_spec(spec, tmp_path):
    require_torch()
    policy = policies(spec)["mlp"]
    stale = {**spec, "actionSpecHash": "0000000000000000"}
    path = tmp_path / "stale.onnx"
    conx.export(policy, GAME, path, spec=stale, check="none")
    with pytest.raises(conx.ExportError, match="action_spec_hash"):
        conx.node_logits(path, GAME, conx.probe_observations(int(spec["observation"]["size"]), rows=2))
