"""obsDtype: lighter observation replies that decode to exactly the float32 observations
(uint8 and bits) or to half precision (float16); see docs/protocol.md."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import masked_choice

import cardgym

N = 64


def _run(client, dtype, steps=12):
    s = client.create_session("sevens", num_envs=N, seed=7, obs_dtype=dtype)
    rng = np.random.default_rng(3)
    out, sizes = [], []
    try:
        b = s.reset()
        for _ in range(steps):
            out.append(np.array(b["obs"]))
            sizes.append(client.last_reply_bytes)
            actions = [masked_choice(rng, m) if m.any() else 0 for m in b["mask"]]
            b = s.step(actions)
    finally:
        s.close()
    return out, sum(sizes)


def test_uint8_and_bits_sevens_decode_exactly_and_shrink_replies(client):
    want, full = _run(client, "float32")
    for dtype, limit in (("uint8", 0.30), ("bits", 0.25)):
        got, size = _run(client, dtype)
        for a, b in zip(got, want):
            assert a.dtype == np.float32 and a.shape == b.shape
            assert a.tobytes() == b.tobytes()  # bit-identical floats
        assert size / full <= limit, f"{dtype}: {size} reply bytes against {full} for float32"
    half, size = _run(client, "float16")
    for a, b in zip(half, want):
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=0)
    assert size / full < 0.55


def test_raw_wire_arrays_and_refusals(client):
    s = client.create_session("sevens", num_envs=2, seed=1, obs_dtype="uint8", decode_obs=False)
    try:
        raw = s.reset()["obs"]
        assert raw.dtype == np.uint8 and raw.shape == (2, s.observation_size)
        assert s.decode_obs(raw).dtype == np.float32
    finally:
        s.close()
    with pytest.raises(cardgym.ServerError) as e:
        client.create_session("dcg", obs_dtype="uint8")
    assert e.value.code == "invalid_config"


def test_vector_env_with_bits_sees_the_same_observations(client):
    envs = [cardgym.make_vec("sevens", 4, client=client, seed=5, obs_dtype=d) for d in ("float32", "bits")]
    try:
        first = [e.reset(seed=5)[0] for e in envs]
        assert first[0]["observation"].tobytes() == first[1]["observation"].tobytes()
        mask = first[0]["action_mask"]
        for _ in range(20):
            acts = np.array([int(np.flatnonzero(m)[-1]) for m in mask])
            a, b = (e.step(acts)[0] for e in envs)
            assert a["observation"].dtype == np.float32
            assert a["observation"].tobytes() == b["observation"].tobytes()
            mask = a["action_mask"]
    finally:
        for e in envs:
            e.close()
