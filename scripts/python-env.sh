#!/usr/bin/env bash
# Creates python/.venv and installs the cardgym Python package into it (editable, with its test
# extras, Ray for cardgym.ray's tests, and the in-process extra). Idempotent: skipped when the venv
# is complete and python/pyproject.toml is unchanged since the last install (a stamp file holds its
# hash). Set CARDGYM_PYTHON to choose the
# interpreter; by default Debian's /usr/bin/python3 with --system-site-packages (so Debian's
# python3-torch is visible to the training example), else the first python3 on PATH.
#
# The package itself works with numpy 1.x and 2.x. Debian's python3-torch (1.13, what
# scripts/torch-env.sh installs) is built against numpy 1.x, so a venv that sees Debian's
# packages is installed with the constraint numpy<2 (python/.venv/constraints.txt); the
# integration venv (scripts/integrations-env.sh, PyPI torch) runs numpy 2.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/python/.venv"
stamp="$venv/.cardgym-stamp"
want="$( (cat "$root/python/pyproject.toml"; echo "${CARDGYM_PYTHON:-}"; echo numpy-constraint-1) | sha256sum | cut -d' ' -f1)"

if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]] \
  && "$venv/bin/python" -c "import cardgym, pytest, ray" >/dev/null 2>&1; then
  exit 0
fi

make_venv() { # $1: interpreter, $2...: extra venv flags
  local py="$1"; shift
  rm -rf "$venv"
  "$py" -m venv "$@" "$venv" && "$venv/bin/python" -m pip --version >/dev/null 2>&1
}

debian=0
if [[ -n "${CARDGYM_PYTHON:-}" ]]; then
  make_venv "$CARDGYM_PYTHON" || { echo "python-env: cannot create a venv with $CARDGYM_PYTHON" >&2; exit 1; }
elif [[ -x /usr/bin/python3 ]] && make_venv /usr/bin/python3 --system-site-packages; then
  debian=1
elif [[ -x /usr/bin/python3 ]] && make_venv /usr/bin/python3 --system-site-packages --without-pip; then
  debian=1 # Debian without python3-venv (no ensurepip) but with python3-pip: the system pip serves the venv.
else
  # No Debian python3, or it lacks venv/ensurepip (the python3-venv package): use PATH's python3.
  command -v python3 >/dev/null || { echo "python-env: no python3 found (Python 3.9+ with pip is needed)" >&2; exit 1; }
  make_venv python3 || { echo "python-env: python3 -m venv failed; install the venv module (Debian: apt-get install python3-venv)" >&2; exit 1; }
fi

constraints=()
if [[ $debian == 1 ]]; then
  # Debian's torch 1.13 needs numpy 1.x (see above); only this venv is held to it.
  printf 'numpy<2\n' > "$venv/constraints.txt"
  constraints=(-c "$venv/constraints.txt")
fi
echo "python-env: installing cardgym into $venv" >&2
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip >&2 || true
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${constraints[@]}" -e "$root/python[test,ray,inprocess]" >&2
"$venv/bin/python" -c "import cardgym, gymnasium, pettingzoo, msgpack, numpy, pytest, mypy, ray, pythonmonkey" >&2
"$venv/bin/ruff" --version >/dev/null
echo "$want" > "$stamp"
