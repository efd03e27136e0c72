#!/usr/bin/env bash
# Puts a browser on this machine for the web client's end-to-end tests (test/web/): Debian's
# `chromium` package from apt, driven by `playwright-core` (an npm devDependency, installed by
# `npm install`). Playwright's own browser downloads are NOT used: they fetch a separate build from
# a CDN at test time; the distribution's package is signed, cached by apt and updated with the OS.
#
# Idempotent: does nothing when the browser is already there. CARDGYM_CHROMIUM=/path/to/chrome
# points the tests at another Chromium (then this script only checks that it runs). Needs root (or
# sudo without a password) for apt-get. Measured on a 2-core Debian 12 machine: see docs/web.md.
set -euo pipefail

browser=${CARDGYM_CHROMIUM:-/usr/bin/chromium}
have() { [[ -x "$browser" ]] && "$browser" --headless --no-sandbox --disable-gpu --version >/dev/null 2>&1; }

if have; then
  exit 0
fi
if [[ -n "${CARDGYM_CHROMIUM:-}" ]]; then
  echo "browser-env: CARDGYM_CHROMIUM=$browser does not run; point it at a Chromium or Chrome binary" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null; then
  echo "browser-env: no apt-get; install Chromium yourself and run the tests with CARDGYM_CHROMIUM=/path/to/chromium" >&2
  exit 1
fi
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
  else
    echo "browser-env: installing Debian's chromium needs root: run 'sudo bash scripts/browser-env.sh'" >&2
    exit 1
  fi
fi

start=$(date +%s)
export DEBIAN_FRONTEND=noninteractive
echo "browser-env: chromium not found; apt-get install chromium (once, for the web client's browser tests)" >&2
if ! "${sudo[@]}" apt-get install -y --no-install-recommends chromium >&2; then
  # A fresh image often has no package lists yet.
  "${sudo[@]}" apt-get update >&2
  "${sudo[@]}" apt-get install -y --no-install-recommends chromium >&2
fi
if ! have; then
  echo "browser-env: chromium installed but '$browser --version' does not run" >&2
  exit 1
fi
echo "browser-env: $("$browser" --version 2>/dev/null) ready in $(( $(date +%s) - start ))s" >&2
