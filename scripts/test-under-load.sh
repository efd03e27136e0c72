#!/usr/bin/env bash
# npm run test:load: runs `npm test` while busy loops keep every core busy, to show that no test
# depends on the machine's speed. Prints npm test's wall time and the load average seen meanwhile.
#
#   bash scripts/test-under-load.sh [--busy N] [--max-s S] [-- args for npm test]
#
# --busy N   busy-loop processes at nice 0 (default: 2 per core)
# --max-s S  each loop ends by itself after S seconds (default 7200), even if this script is killed
#            with SIGKILL; otherwise they are killed as soon as npm test ends or on Ctrl-C.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
busy=$((2 * $(nproc)))
max_s=7200
while [[ $# -gt 0 ]]; do
  case "$1" in
    -h | --help)
      echo "usage: bash scripts/test-under-load.sh [--busy N] [--max-s S] [-- args for npm test]"
      exit 0
      ;;
    --busy)
      busy="${2:?--busy needs a number}"
      shift 2
      ;;
    --max-s)
      max_s="${2:?--max-s needs seconds}"
      shift 2
      ;;
    --)
      shift
      break
      ;;
    *)
      echo "test-under-load: unknown argument $1 (see --help)" >&2
      exit 2
      ;;
  esac
done
[[ "$busy" =~ ^[0-9]+$ && "$max_s" =~ ^[1-9][0-9]*$ ]] || {
  echo "test-under-load: --busy and --max-s take whole numbers" >&2
  exit 2
}

pids=()
sampler=""
samples="$(mktemp)"
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [[ -n "$sampler" ]] && kill "$sampler" 2>/dev/null || true
  rm -f "$samples"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for ((i = 0; i < busy; i++)); do
  timeout "$max_s" sh -c 'while :; do :; done' &
  pids+=("$!")
done
# The 1-minute load average every 30 s, to report what the suites ran under.
(while :; do cut -d' ' -f1 /proc/loadavg >>"$samples"; sleep 30; done) &
sampler=$!

echo "test-under-load: $busy busy loops on $(nproc) cores, started $(date -u '+%Y-%m-%d %H:%M UTC')"
start=$(date +%s)
set +e
(cd "$root" && npm test "$@")
code=$?
set -e
wall=$(($(date +%s) - start))
load=$(awk '{ s += $1; if ($1 > max) max = $1; if (min == "" || $1 < min) min = $1 } END { if (NR) printf "mean %.1f, min %.1f, max %.1f over %d samples", s / NR, min, max, NR }' "$samples")
echo "test-under-load: npm test exited $code after $((wall / 60)) min $((wall % 60)) s with $busy busy loops; 1-minute load average $load"
exit "$code"
