#!/usr/bin/env bash
# The trainers people use, for real: sets up python/.venv-integrations (torch >= 2.8,
# stable-baselines3 + sb3-contrib, ray[rllib], numpy 2; several GB on first run, see README) and
# runs python/integrations (their env checkers on every game and the three training examples),
# then the fast Python tests again under numpy 2. Extra arguments go to pytest.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/integrations-env.sh"
cd "$root/python"
"$root/python/.venv-integrations/bin/python" -m pytest -p no:cacheprovider integrations tests/test_trainers.py tests/test_gymnasium.py tests/test_vector.py tests/test_pettingzoo.py "$@"
