#!/usr/bin/env bash
# Install what the collection's tests and lab need on a fresh Debian 12 machine (run as root).
# Idempotent: every step checks before it installs.
set -euo pipefail

APT_PACKAGES=(frr frr-pythontools docker.io debootstrap iproute2 rsync openssh-client sshpass)
CONTAINERLAB_VERSION=${CONTAINERLAB_VERSION:-v0.79.0}
CACHE=${AIFABRIC_CACHE:-/var/cache/aifabric}

log() { printf '==> %s\n' "$*"; }

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if ((${#missing[@]})); then
  log "apt install ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The frr package enables its service; the host's own FRR is not used (only vtysh -C for checks).
systemctl disable --now frr >/dev/null 2>&1 || true

if ! docker info >/dev/null 2>&1; then
  log "starting dockerd"
  nohup dockerd >/var/log/dockerd.log 2>&1 &
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { echo "dockerd did not start; see /var/log/dockerd.log" >&2; exit 1; }
fi

clab_bin="$CACHE/bin/containerlab"
if ! [ -x "$clab_bin" ] || ! "$clab_bin" version 2>/dev/null | grep -q "${CONTAINERLAB_VERSION#v}"; then
  log "building containerlab $CONTAINERLAB_VERSION from the Go module proxy"
  mkdir -p "$CACHE/bin" "$CACHE/gopath"
  export GOPATH="$CACHE/gopath" GOFLAGS=-buildvcs=false CGO_ENABLED=0
  # `go install pkg@version` needs the proxy's @v/list, which this proxy refuses; build inside the module.
  dir=$(go mod download -json "github.com/srl-labs/containerlab@$CONTAINERLAB_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  (cd "$dir" && go build -trimpath -o "$clab_bin" .)
fi
ln -sfn "$clab_bin" /usr/local/bin/containerlab
log "containerlab $(containerlab version 2>/dev/null | awk '/version:/ {print $2; exit}') ready"
