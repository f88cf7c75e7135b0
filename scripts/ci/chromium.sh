#!/usr/bin/env bash
# Debian's Chromium for the browser tests (web interface, API explorer).
#
#   bash scripts/ci/chromium.sh            (.ci/run runs it before the tests)
#
# Installs the Debian package `chromium` when /usr/bin/chromium is missing (apt-get, no
# recommends) and checks that it starts headless. Nothing is downloaded from elsewhere: the tests
# drive this binary with playwright-core (executablePath), which brings no browser of its own.
# It exits 0 only when the browser answers; .ci/run then exports VIGIL_TEST_BROWSER=1, which makes
# the browser specs required (they fail instead of skipping).
set -euo pipefail
log() { printf '[chromium] %s\n' "$*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo -n "$@"; fi; }

if ! [ -x /usr/bin/chromium ]; then
  log "installing Debian's chromium"
  export DEBIAN_FRONTEND=noninteractive
  for attempt in 1 2 3 4 5; do
    # Another apt run (a parallel setup script) may hold the lock for a while.
    if as_root apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null 2>&1; then break; fi
    as_root apt-get update -qq >/dev/null 2>&1 || true
    sleep $((attempt * 3))
  done
fi
if ! [ -x /usr/bin/chromium ]; then log "chromium could not be installed"; exit 1; fi
version=$(timeout 30 /usr/bin/chromium --headless --no-sandbox --disable-gpu --version 2>/dev/null || true)
log "ready: ${version:-unknown version}"
