#!/usr/bin/env bash
# Debian's rsyslog (with its GnuTLS driver) for the SIEM export specs (issue #13).
#
#   bash scripts/ci/rsyslog.sh            (.ci/run runs it before the tests)
#
# Installs the Debian packages `rsyslog` and `rsyslog-gnutls` when rsyslogd is missing (apt-get,
# no recommends) and checks that rsyslogd reads a configuration. The specs start their own
# rsyslogd instance (their own configuration, work directory and ports on loopback), never the
# system's. Exits 0 only when rsyslogd answers; .ci/run then exports VIGIL_TEST_RSYSLOG=1, which
# makes the rsyslog specs required (they fail instead of skipping).
set -euo pipefail
log() { printf '[rsyslog] %s\n' "$*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo -n "$@"; fi; }

if ! [ -x /usr/sbin/rsyslogd ] || ! ls /usr/lib/*/rsyslog/lmnsd_gtls.so >/dev/null 2>&1; then
  log "installing Debian's rsyslog and rsyslog-gnutls"
  export DEBIAN_FRONTEND=noninteractive
  for attempt in 1 2 3 4 5; do
    # Another apt run (a parallel setup script) may hold the lock for a while.
    if as_root apt-get install -y -qq --no-install-recommends rsyslog rsyslog-gnutls >/dev/null 2>&1; then break; fi
    as_root apt-get update -qq >/dev/null 2>&1 || true
    sleep $((attempt * 3))
  done
fi
if ! [ -x /usr/sbin/rsyslogd ]; then log "rsyslog could not be installed"; exit 1; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'global(workDirectory="%s")\naction(type="omfile" file="%s/out")\n' "$tmp" "$tmp" > "$tmp/check.conf"
/usr/sbin/rsyslogd -N1 -f "$tmp/check.conf" >/dev/null 2>&1 || { log "rsyslogd does not read a configuration"; exit 1; }
log "ready: $(/usr/sbin/rsyslogd -v | head -1)"
