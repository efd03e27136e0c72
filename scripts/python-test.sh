#!/usr/bin/env bash
# Runs the Python tests (python/tests) against a real server that the cardgym package starts from
# this checkout. Creates/updates python/.venv first. Extra arguments go to pytest.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/python-env.sh"
cd "$root/python"
set +e
"$root/python/.venv/bin/python" -m pytest tests "$@"
code=$?
set -e
if [[ $code -eq 5 ]]; then
  echo "python-test: pytest collected no tests; that is a failure here" >&2
  exit 1
fi
exit $code
