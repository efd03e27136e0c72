#!/usr/bin/env bash
# Puts PyTorch and ONNX on this machine for the training example and the ONNX export/parity
# tests, the light way: Debian's python3-torch (CPU-only, 1.13) and python3-onnx (1.12) from apt,
# which python/.venv sees because scripts/python-env.sh builds it from /usr/bin/python3 with
# --system-site-packages. PyPI's torch wheels are NOT used: they pull several GB of CUDA libraries.
#
# Also libopenblas0-pthread: Debian's torch is built against the generic libblas.so.3, and the
# reference BLAS that satisfies it by default is ~60x slower on the example's matrix products
# (measured: a 1024x1530 @ 1530x256 product takes 470 ms with it, 7.5 ms with OpenBLAS). Installing
# OpenBLAS switches the libblas.so.3 alternative automatically.
#
# Idempotent: does nothing when /usr/bin/python3 already imports torch and onnx (and, on Debian,
# OpenBLAS is installed). Needs root (or sudo without a password) for apt-get. Measured on a
# 2-core Debian 12 machine with package lists present: 89 s (see docs/tutorial.md).
set -euo pipefail

openblas() { ! command -v dpkg-query >/dev/null || dpkg-query -W -f='${Status}' libopenblas0-pthread 2>/dev/null | grep -q "ok installed"; }
have() { /usr/bin/python3 -c "import torch, onnx" >/dev/null 2>&1 && openblas; }

if [[ ! -x /usr/bin/python3 ]]; then
  echo "torch-env: /usr/bin/python3 not found; this script installs Debian's python3-torch (Debian/Ubuntu only)" >&2
  exit 1
fi
if have; then
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "torch-env: no apt-get; install PyTorch (CPU) and onnx into python/.venv yourself, e.g." >&2
  echo "  python/.venv/bin/pip install torch --index-url https://download.pytorch.org/whl/cpu onnx" >&2
  exit 1
fi
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
  else
    echo "torch-env: installing python3-torch python3-onnx needs root: run 'sudo bash scripts/torch-env.sh'" >&2
    exit 1
  fi
fi

start=$(date +%s)
export DEBIAN_FRONTEND=noninteractive
pkgs=(python3-torch python3-onnx libopenblas0-pthread)
echo "torch-env: apt-get install ${pkgs[*]}" >&2
if ! "${sudo[@]}" apt-get install -y --no-install-recommends "${pkgs[@]}" >&2; then
  # A fresh image often has no package lists yet.
  "${sudo[@]}" apt-get update >&2
  "${sudo[@]}" apt-get install -y --no-install-recommends "${pkgs[@]}" >&2
fi
if ! have; then
  echo "torch-env: ${pkgs[*]} installed but /usr/bin/python3 cannot import torch and onnx" >&2
  exit 1
fi
echo "torch-env: torch $(/usr/bin/python3 -c 'import torch; print(torch.__version__)'), onnx $(/usr/bin/python3 -c 'import onnx; print(onnx.__version__)') ready in $(( $(date +%s) - start ))s" >&2
