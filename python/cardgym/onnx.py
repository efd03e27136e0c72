"""Export a PyTorch policy as an ONNX model that cardgym's ``onnx`` agent accepts.

    import cardgym.onnx
    cardgym.onnx.export(policy, "dcg", "models/my-policy.onnx")
    # then seat it: cardgym.make("dcg", opponents="onnx:path=my-policy.onnx")

The model contract (docs/agents.md, agents/onnx/contract.ts): one float32 input ``obs`` of shape
[batch, obsSize] (batch dynamic), one float32 output ``logits`` of shape [batch, actionSize] (raw,
unmasked: the agent masks illegal actions itself), and metadata_props ``game``, ``obs_version`` and
``action_spec_hash`` equal to the server's env spec (GET /v1/games/<game>/spec). A model whose
metadata or sizes differ is refused when an agent loads it, so a policy trained against another
observation layout or action codec can never play silently wrong moves.

``export`` checks the file it wrote by loading it back: ``onnx.checker``, then a forward
comparison with the PyTorch policy, through onnxruntime in Python when it is installed, else through
the Node side (``scripts/onnx-logits.ts``: the same loader and contract check the agents use).

torch and onnx are imported on first use, so ``import cardgym`` does not need them (see
docs/tutorial.md for how they get onto a machine: Debian's python3-torch / python3-onnx, or
``pip install torch "cardgym[export]"``). Any torch from 1.13 on works: torch 2.9 and later
default to the dynamo exporter, which needs onnxscript; ``export`` asks for the TorchScript
exporter (``dynamo=False``), which needs nothing beyond torch and onnx.
"""

from __future__ import annotations

import inspect
import io
import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Sequence, Union

import numpy as np

#: Names and metadata keys of the model contract (agents/onnx/contract.ts).
INPUT_NAME = "obs"
OUTPUT_NAME = "logits"
#: The optional second output of a policy-value network: [batch, 1], the value for the seat to act.
VALUE_NAME = "value"
META_GAME = "game"
META_OBS_VERSION = "obs_version"
META_ACTION_SPEC_HASH = "action_spec_hash"
OPSET = 13

PathLike = Union[str, "os.PathLike[str]"]


class ExportError(RuntimeError):
    """The policy cannot be exported, or the exported file does not reproduce the policy."""


def fetch_spec(game: str, client: Any = None, url: Optional[str] = None) -> Dict[str, Any]:
    """The server's env spec of ``game`` (sizes, observation version, action-spec hash)."""
    from .client import Client

    if client is not None:
        return client.spec(game)
    with Client(url) as c:
        return c.spec(game)


def contract_metadata(spec: Mapping[str, Any]) -> Dict[str, str]:
    """The metadata_props an exported model must carry for ``spec``."""
    return {
        META_GAME: str(spec["game"]),
        META_OBS_VERSION: str(spec["observation"]["version"]),
        META_ACTION_SPEC_HASH: str(spec["actionSpecHash"]),
    }


def torch_logits(policy: Any, obs: np.ndarray, value: bool = False) -> np.ndarray:
    """``policy``'s logits for the rows of ``obs`` (float32 [n, obsSize]), as numpy, in eval mode
    and without gradients; the policy's training flag is restored afterwards. With ``value`` the
    policy returns ``(logits, value)`` (a policy-value network); the value must be [n, 1]."""
    import torch

    was_training = getattr(policy, "training", False)
    if hasattr(policy, "eval"):
        policy.eval()
    try:
        with torch.no_grad():
            out = policy(torch.as_tensor(np.ascontiguousarray(obs, dtype=np.float32)))
    finally:
        if was_training and hasattr(policy, "train"):
            policy.train()
    if value:
        if not isinstance(out, (tuple, list)) or len(out) != 2 or not all(isinstance(t, torch.Tensor) for t in out):
            raise ExportError(f"with value=True the policy must return (logits, value) tensors, it returned {type(out).__name__}")
        if tuple(out[1].shape) != (obs.shape[0], 1):
            raise ExportError(f"the value output must be [batch, 1], it is {list(out[1].shape)}")
        out = out[0]
    if not isinstance(out, torch.Tensor):
        raise ExportError(f"the policy must return one logits tensor, it returned {type(out).__name__}")
    return out.detach().cpu().numpy().astype(np.float32)


def node_logits(model: PathLike, game: str, obs: np.ndarray, repo: Optional[PathLike] = None, timeout: float = 120.0) -> np.ndarray:
    """Logits of ``model`` for the rows of ``obs`` computed by onnxruntime-node, after the same
    contract check the ``onnx`` agent makes (scripts/onnx-logits.ts). Raises ExportError with the
    Node side's reason when the model is refused."""
    from .server import find_repo

    root = find_repo(str(repo) if repo is not None else None)
    node = os.environ.get("CARDGYM_NODE") or "node"
    rows = np.ascontiguousarray(obs, dtype=np.float32)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(rows.tolist(), f)
        obs_file = f.name
    try:
        done = subprocess.run(
            [node, "--import", "tsx", "scripts/onnx-logits.ts", "--game", game, "--model", str(Path(model).resolve()), "--obs", obs_file],
            cwd=str(root),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    finally:
        os.unlink(obs_file)
    if done.returncode != 0:
        raise ExportError(f"the Node side refused {model}: {done.stderr.strip() or done.stdout.strip()}")
    reply = json.loads(done.stdout)
    return np.asarray(reply["logits"], dtype=np.float32).reshape(rows.shape[0], -1)


def _ort_logits(data: bytes, obs: np.ndarray) -> Optional[np.ndarray]:
    # onnxruntime 1.29+ telemetry writes mat-debug-<pid>.log and .ses into the temp folder (left
    # behind), a device id under ~/.cache, and uploads events, unless this is set before its first
    # session; a value the user set is kept (the Node side does the same).
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    try:
        import onnxruntime
    except ImportError:
        return None
    sess = onnxruntime.InferenceSession(data, providers=["CPUExecutionProvider"])
    return np.asarray(sess.run([OUTPUT_NAME], {INPUT_NAME: np.ascontiguousarray(obs, dtype=np.float32)})[0], dtype=np.float32)


def probe_observations(obs_size: int, rows: int = 16, seed: int = 0) -> np.ndarray:
    """Deterministic test inputs: a zero row, a row of ones, then uniform [0, 1) rows (the
    encoders' features are mostly in [0, 1])."""
    rng = np.random.default_rng(seed)
    out = rng.random((max(rows, 2), obs_size), dtype=np.float32)
    out[0] = 0
    out[1] = 1
    return out


def export(
    policy: Any,
    game: str,
    path: PathLike,
    *,
    client: Any = None,
    url: Optional[str] = None,
    spec: Optional[Mapping[str, Any]] = None,
    example_obs: Optional[np.ndarray] = None,
    check: str = "auto",
    atol: float = 1e-4,
    opset: int = OPSET,
    metadata: Optional[Mapping[str, str]] = None,
    repo: Optional[PathLike] = None,
    value: bool = False,
) -> Dict[str, Any]:
    """Exports ``policy`` (a ``torch.nn.Module`` mapping float32 obs [batch, obsSize] to logits
    [batch, actionSize]) to ``path`` as an ONNX model (opset 13, dynamic batch) with cardgym's
    model contract, then checks the written file.

    ``spec``: the game's env spec; by default fetched from the server (``client``, else a client of
    ``url`` / CARDGYM_URL / the embedded server). ``metadata``: extra metadata_props (the contract's
    own keys cannot be overridden). ``example_obs``: observations to compare on (default: probe
    rows, see :func:`probe_observations`). ``check``: ``"auto"`` (onnxruntime in Python if
    installed, else the Node side), ``"python"``, ``"node"`` (also runs the agents' contract check),
    ``"both"`` or ``"none"`` (onnx.checker only).

    ``value``: the policy is a policy-value network returning ``(logits, value)``; the value
    becomes the contract's optional ``value`` output [batch, 1] (read by ``mcts:policy=...``;
    the ``onnx`` agent ignores it). The check compares the logits.

    Returns a report: ``path``, ``bytes``, ``metadata``, ``checked_with`` and ``max_abs_diff``.
    Raises :class:`ExportError` if the policy's output has the wrong shape or the exported model's
    logits differ from PyTorch's by more than ``atol``. The file is written atomically (a temporary
    file renamed into place), so a server reading it never sees half a model.
    """
    import onnx
    import torch

    if check not in ("auto", "python", "node", "both", "none"):
        raise ValueError(f"check must be auto, python, node, both or none, got {check!r}")
    if spec is None:
        spec = fetch_spec(game, client=client, url=url)
    if spec.get("game") != game:
        raise ExportError(f"the spec is for game {spec.get('game')!r}, not {game!r}")
    obs_size = int(spec["observation"]["size"])
    action_size = int(spec["action"]["size"])

    probe = probe_observations(obs_size) if example_obs is None else np.asarray(example_obs, dtype=np.float32).reshape(-1, obs_size)
    expected = torch_logits(policy, probe, value=value)
    if expected.shape != (probe.shape[0], action_size):
        raise ExportError(f"the policy maps [{probe.shape[0]}, {obs_size}] observations to {list(expected.shape)}; the contract needs [batch, {action_size}] logits")

    model = onnx.load_from_string(_onnx_bytes(torch, policy, obs_size, value=value, opset=opset))
    props = dict(metadata or {})
    props.update(contract_metadata(spec))
    del model.metadata_props[:]
    for key in sorted(props):
        entry = model.metadata_props.add()
        entry.key = key
        entry.value = str(props[key])
    model.producer_name = "cardgym"
    onnx.checker.check_model(model)
    data = model.SerializeToString()

    target = Path(path)
    _write_atomically(target, data)

    # Check the file as written, not the bytes in memory.
    onnx.checker.check_model(str(target))
    checked: list = []
    worst = 0.0
    written = target.read_bytes()

    def compare(name: str, got: Optional[np.ndarray]) -> None:
        nonlocal worst
        if got is None:
            return
        if got.shape != expected.shape:
            raise ExportError(f"{name}: the exported model returns {list(got.shape)} logits, PyTorch {list(expected.shape)}")
        diff = float(np.max(np.abs(got - expected))) if got.size else 0.0
        if not np.isfinite(diff) or diff > atol:
            raise ExportError(f"{name}: the exported model's logits differ from PyTorch's by {diff:.3g} (> {atol:g})")
        worst = max(worst, diff)
        checked.append(name)

    if check in ("python", "both", "auto"):
        got = _ort_logits(written, probe)
        if got is None and check != "auto":
            raise ExportError("check='python' needs the onnxruntime Python package; use check='node'")
        compare("onnxruntime (Python)", got)
    if check in ("node", "both") or (check == "auto" and not checked):
        compare("onnxruntime-node", node_logits(target, game, probe, repo=repo))
    return {
        "path": str(target),
        "bytes": len(written),
        "metadata": props,
        "checked_with": checked,
        "max_abs_diff": worst,
    }


def _onnx_bytes(torch: Any, policy: Any, obs_size: int, *, value: bool, opset: int) -> bytes:
    """The policy traced to ONNX (in eval mode, restored after), dynamic batch, as bytes."""
    was_training = getattr(policy, "training", False)
    policy.eval()
    buffer = io.BytesIO()
    try:
        with torch.no_grad():
            torch.onnx.export(
                policy,
                (torch.zeros(2, obs_size, dtype=torch.float32),),
                buffer,
                input_names=[INPUT_NAME],
                output_names=[OUTPUT_NAME, VALUE_NAME] if value else [OUTPUT_NAME],
                dynamic_axes={INPUT_NAME: {0: "batch"}, OUTPUT_NAME: {0: "batch"}, **({VALUE_NAME: {0: "batch"}} if value else {})},
                opset_version=opset,
                do_constant_folding=True,
                **_torchscript_exporter(torch),
            )
    finally:
        if was_training:
            policy.train()
    return buffer.getvalue()


def _write_atomically(target: Path, data: bytes) -> None:
    """Writes ``data`` to a temporary file beside ``target`` and renames it into place, so a
    reader never sees half a file; the file gets the mode an ordinary file would (umask)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=str(target.parent))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it 0600; a model is an ordinary file
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _torchscript_exporter(torch: Any) -> Dict[str, Any]:
    """The keyword that picks the TorchScript exporter where torch.onnx.export has a choice (torch
    2.5 and later; the default became the dynamo exporter, which needs onnxscript, in 2.9)."""
    return {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}


def masked_argmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The action each row's policy plays as the ``onnx`` agent does by default: the legal action
    with the largest logit (NaN counts as -inf). Exact ties go to the lowest action id here and to
    the earliest legal decision in the agent; with float logits they practically never occur."""
    x = np.where(np.asarray(mask, dtype=bool), np.nan_to_num(np.asarray(logits, dtype=np.float64), nan=-np.inf), -np.inf)
    return np.argmax(x, axis=-1)


__all__: Sequence[str] = [
    "ExportError",
    "INPUT_NAME",
    "OUTPUT_NAME",
    "OPSET",
    "VALUE_NAME",
    "contract_metadata",
    "export",
    "fetch_spec",
    "masked_argmax",
    "node_logits",
    "probe_observations",
    "torch_logits",
]
