#!/usr/bin/env bash
# Creates python/.venv-integrations: the cardgym package with the trainers people use (PyTorch >= 2.8,
# Stable-Baselines3 + sb3-contrib, Ray RLlib) from the package index, for `npm run
# test:integrations`. Heavy: torch from the index brings its CUDA libraries, about 3-4 GB on disk
# and a multi-GB download on first run (see README). Idempotent: skipped when the venv imports
# everything and python/pyproject.toml is unchanged since the last install.
# CARDGYM_PYTHON picks the interpreter (default: python3 on PATH; 3.10-3.12 for Ray wheels).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/python/.venv-integrations"
stamp="$venv/.cardgym-stamp"
want="$( (cat "$root/python/pyproject.toml"; echo "${CARDGYM_PYTHON:-}") | sha256sum | cut -d' ' -f1)"
check='import cardgym, torch, stable_baselines3, sb3_contrib, ray.rllib, pytest, onnx, onnxruntime'

if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]] && "$venv/bin/python" -c "$check" >/dev/null 2>&1; then
  exit 0
fi
py="${CARDGYM_PYTHON:-python3}"
command -v "$py" >/dev/null || { echo "integrations-env: no $py found" >&2; exit 1; }
start=$(date +%s)
if [[ ! -x "$venv/bin/python" ]]; then
  "$py" -m venv "$venv" || { echo "integrations-env: $py -m venv failed (Debian: apt-get install python3-venv)" >&2; exit 1; }
fi
echo "integrations-env: installing torch, stable-baselines3, sb3-contrib, ray[rllib] into $venv (several GB on first run)" >&2
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip >&2 || true
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$root/python[integrations]" >&2
"$venv/bin/python" -c "$check" >&2
echo "$want" > "$stamp"
echo "integrations-env: ready in $(( $(date +%s) - start ))s ($(du -sh "$venv" | cut -f1))" >&2
