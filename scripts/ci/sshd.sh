#!/usr/bin/env bash
# A real OpenSSH server binary for the SSH clone specs (spec/infrastructure/scanning/git-credentials.spec.ts).
#
#   bash scripts/ci/sshd.sh            (.ci/run runs it before the tests)
#
# Installs Debian's openssh-server when /usr/sbin/sshd is missing (apt-get, no recommends) without
# starting the system's ssh service: the specs start their own sshd on a free loopback port with a
# temporary configuration and host key, and stop it afterwards. Nothing listens on port 22 because
# of this script. It exits 0 only when /usr/sbin/sshd runs; .ci/run then exports
# VIGIL_TEST_SSHD=1, which makes the SSH specs required (they fail instead of skipping).
set -euo pipefail

log() { printf '[sshd] %s\n' "$*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo -n "$@"; fi; }

if [ ! -x /usr/sbin/sshd ]; then
  log "installing openssh-server"
  export DEBIAN_FRONTEND=noninteractive
  # The package's post-install step would start the system service; a policy-rc.d answering 101
  # ("action forbidden") stops that. An existing one (container images ship one) is left as it is.
  policy_added=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | as_root tee /usr/sbin/policy-rc.d >/dev/null
    as_root chmod 755 /usr/sbin/policy-rc.d
    policy_added=1
  fi
  cleanup() { if [ "$policy_added" = 1 ]; then as_root rm -f /usr/sbin/policy-rc.d; fi; }
  trap cleanup EXIT
  as_root apt-get update -qq >/dev/null || as_root apt-get update
  as_root apt-get install -y -qq --no-install-recommends openssh-server >/dev/null
fi

# sshd started as root insists on its privilege-separation directory (the service would create it).
if [ "$(id -u)" = 0 ] || sudo -n true 2>/dev/null; then as_root mkdir -p /run/sshd; fi

if [ ! -x /usr/sbin/sshd ]; then log "/usr/sbin/sshd is still missing"; exit 1; fi
# sshd prints its version on stderr for -V (9.x) or, older, after "unknown option".
version=$(/usr/sbin/sshd -V 2>&1 | grep -m 1 -o 'OpenSSH_[^ ,]*' || true)
log "ready: ${version:-/usr/sbin/sshd}"
