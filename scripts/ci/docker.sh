#!/usr/bin/env bash
# A real Docker engine and the stand-in scanner images for spec/infrastructure/scanning.
#
#   bash scripts/ci/docker.sh            (.ci/run runs it before the tests)
#
# 1. Installs Debian's docker.io and busybox-static when missing (apt-get, no recommends).
# 2. Starts dockerd in the background when no engine answers (log: /tmp/vigil-dockerd.log) and
#    waits for `docker info`.
# 3. Builds tiny local images (FROM scratch: a static busybox, a recorded real scanner output from
#    the fixture corpus, a few lines of sh). The corpus files are copied into a temporary build
#    context at build time, never into this repository. An image is rebuilt only when its content
#    hash changed, so a second run takes a second or two.
# It exits 0 only when the engine answers and every image is there; .ci/run then exports
# VIGIL_TEST_DOCKER=1, which makes the Docker specs required (they fail instead of skipping).
#
# The specs find the images by these names (spec/infrastructure/scanning/docker-images.ts):
#   vigil-stand-in/<name>:test, name in syft grype gitleaks checkov semgrep probe sleep hog fail
#   garbage flood.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CORPUS="${VIGIL_CORPUS_DIR:-$(cd "$REPO/.." && pwd)/shared/fixtures}"
DOCKERD_LOG="${VIGIL_DOCKERD_LOG:-/tmp/vigil-dockerd.log}"
log() { printf '[docker] %s\n' "$*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo -n "$@"; fi; }

engine_up() { timeout 10 docker info >/dev/null 2>&1; }

# --- 1. packages ------------------------------------------------------------------------------
missing=()
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
command -v docker >/dev/null 2>&1 || missing+=(docker.io)
if ! [ -x /bin/busybox ] || ldd /bin/busybox >/dev/null 2>&1; then missing+=(busybox-static); fi
if [ "${#missing[@]}" -gt 0 ]; then
  pkgs=$(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')
  log "installing $pkgs"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -qq >/dev/null || as_root apt-get update
  # shellcheck disable=SC2086
  as_root apt-get install -y -qq --no-install-recommends $pkgs >/dev/null
fi

# --- 2. the engine ----------------------------------------------------------------------------
if ! engine_up; then
  if ! pgrep -x dockerd >/dev/null 2>&1; then
    log "starting dockerd (log: $DOCKERD_LOG)"
    if ! pgrep -x containerd >/dev/null 2>&1 && command -v containerd >/dev/null 2>&1; then
      as_root setsid containerd >/tmp/vigil-containerd.log 2>&1 < /dev/null &
      sleep 1
    fi
    extra=()
    [ -S /run/containerd/containerd.sock ] && extra+=(--containerd=/run/containerd/containerd.sock)
    as_root setsid dockerd "${extra[@]}" >"$DOCKERD_LOG" 2>&1 < /dev/null &
    dockerd_pid=$!
  fi
  for _ in $(seq 1 60); do engine_up && break; sleep 1; done
  if ! engine_up && [ -n "${dockerd_pid:-}" ] && grep -qiE 'iptables|nf_tables' "$DOCKERD_LOG" 2>/dev/null; then
    # Some kernels have no netfilter; the scanner containers need no bridge NAT in the tests.
    log "dockerd could not set up iptables; restarting it without"
    as_root kill "$dockerd_pid" 2>/dev/null || true
    sleep 2
    as_root setsid dockerd "${extra[@]}" --iptables=false --ip6tables=false >"$DOCKERD_LOG" 2>&1 < /dev/null &
    for _ in $(seq 1 60); do engine_up && break; sleep 1; done
  fi
  if ! engine_up; then
    log "the Docker engine did not answer; last lines of $DOCKERD_LOG:"
    tail -n 30 "$DOCKERD_LOG" >&2 || true
    exit 1
  fi
fi
log "engine up: $(docker version --format 'server {{.Server.Version}}, API {{.Server.APIVersion}}' 2>/dev/null || echo '?')"

# --- 3. stand-in images -----------------------------------------------------------------------
if [ ! -f "$CORPUS/README.md" ]; then
  log "fixture corpus missing at $CORPUS (set VIGIL_CORPUS_DIR)"; exit 1
fi
BUSYBOX=/bin/busybox

# name|fixture (relative to the corpus, or -)|exit code|behaviour
# behaviour: print (cat the fixture), probe, sleep, hog, garbage, flood
IMAGES='
syft|scanners/syft/syft__cyclonedx-1.4-dir.golden.json|0|print
grype|scanners/grype/grype__json-image.golden.json|0|print
gitleaks|scanners/gitleaks/gitleaks-8__many.json|1|print
checkov|scanners/checkov/checkov__terraform-many.json|0|print
semgrep|scanners/semgrep/semgrep__json-owasp-benchmark.json|0|print
probe|-|0|probe
sleep|-|0|sleep
hog|-|0|hog
fail|-|3|fail
garbage|-|0|garbage
flood|-|0|flood
'

STAND_IN_SH='#!/bin/busybox sh
# Stand-in scanner: ignores the real tool arguments it is given.
export PATH=/bin
case "$STAND_IN_MODE" in
  print) echo "stand-in $STAND_IN_NAME: $*" >&2; cat /output.json; exit "$STAND_IN_EXIT" ;;
  probe)
    # What the container sees: the source mount, whether it is writable, the network interfaces.
    if touch /src/.probe-write 2>/dev/null; then ro=false; rm -f /src/.probe-write; else ro=true; fi
    files=$(find /src -type f 2>/dev/null | wc -l)
    ifaces=$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " " | tr "\n" "," | sed "s/,$//")
    sbom=false; [ -f /sbom/sbom.json ] && sbom=true
    image=false; [ -f /image/image.tar ] && image=true
    printf "{\"srcReadOnly\":%s,\"srcFiles\":%s,\"interfaces\":\"%s\",\"sbomMounted\":%s,\"imageArchive\":%s,\"args\":\"%s\",\"user\":\"%s\"}\n" \
      "$ro" "$files" "$ifaces" "$sbom" "$image" "$*" "$(id -u):$(id -g)"
    ;;
  sleep) echo "sleeping" >&2; sleep 600 ;;
  hog) echo "allocating" >&2; exec dd if=/dev/zero of=/dev/null bs=512M count=1 ;;
  fail) echo "stand-in: fatal: could not read the configuration" >&2; exit "$STAND_IN_EXIT" ;;
  garbage) echo "this is not JSON <html>"; ;;
  flood) yes "{\"padding\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}" | head -c 8000000 ;;
esac
'

script_hash=$(printf '%s%s' "$STAND_IN_SH" "$(sha256sum "$BUSYBOX" | cut -c1-64)" | sha256sum | cut -c1-16)
built=0
while IFS='|' read -r name fixture code mode; do
  [ -n "$name" ] || continue
  tag="vigil-stand-in/$name:test"
  fixture_hash=-
  [ "$fixture" != - ] && fixture_hash=$(sha256sum "$CORPUS/$fixture" | cut -c1-16)
  hash="$script_hash-$fixture_hash-$code-$mode"
  have=$(docker image inspect -f '{{ index .Config.Labels "vigil.stand-in" }}' "$tag" 2>/dev/null || true)
  [ "$have" = "$hash" ] && continue
  ctx=$(mktemp -d)
  mkdir -p "$ctx/bin" "$ctx/src" "$ctx/sbom" "$ctx/tmp"
  cp "$BUSYBOX" "$ctx/bin/busybox"
  for applet in sh cat echo sleep dd touch rm find wc tail cut tr sed yes head id; do ln -s busybox "$ctx/bin/$applet"; done
  printf '%s' "$STAND_IN_SH" > "$ctx/stand-in.sh"
  chmod 755 "$ctx/stand-in.sh"
  if [ "$fixture" != - ]; then cp "$CORPUS/$fixture" "$ctx/output.json"; else echo '{}' > "$ctx/output.json"; fi
  cat > "$ctx/Dockerfile" <<EOF
FROM scratch
COPY . /
ENV STAND_IN_NAME=$name STAND_IN_MODE=$mode STAND_IN_EXIT=$code
LABEL vigil.stand-in=$hash
ENTRYPOINT ["/bin/busybox", "sh", "/stand-in.sh"]
EOF
  printf 'Dockerfile\n' > "$ctx/.dockerignore"
  DOCKER_BUILDKIT=0 docker build -q -t "$tag" "$ctx" >/dev/null 2>"$ctx.err" || {
    # A client without the classic builder: import the same tree as a root file system.
    tar -C "$ctx" --exclude=./Dockerfile --exclude=./.dockerignore -c . | docker import \
      --change "ENV STAND_IN_NAME=$name STAND_IN_MODE=$mode STAND_IN_EXIT=$code" \
      --change "LABEL vigil.stand-in=$hash" \
      --change 'ENTRYPOINT ["/bin/busybox", "sh", "/stand-in.sh"]' - "$tag" >/dev/null
  }
  rm -rf "$ctx" "$ctx.err"
  built=$((built + 1))
done <<< "$IMAGES"
log "stand-in images ready ($built built)"
