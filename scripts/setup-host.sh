#!/usr/bin/env bash
# Install what the collection's tests and lab need on a fresh Debian 12 machine (run as root).
# Idempotent: every step checks before it installs.
set -euo pipefail

# openssh-server + openssh-sftp-server: the SONiC and NVUE device doubles (tests/doubles) run a real sshd per switch.
APT_PACKAGES=(frr frr-pythontools docker.io debootstrap iproute2 rsync openssh-client openssh-server openssh-sftp-server sshpass
  shellcheck)
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
# The build id changes when the build recipe below changes, so an older binary is rebuilt.
clab_build="${CONTAINERLAB_VERSION#v}+procmodules1"
if ! [ -x "$clab_bin" ] || [ "$(cat "$clab_bin.build" 2>/dev/null)" != "$clab_build" ]; then
  log "building containerlab $CONTAINERLAB_VERSION from the Go module proxy"
  export PATH="$PATH:/usr/local/go/bin"
  command -v go >/dev/null || { echo "containerlab is built from source and needs Go >= 1.26 (not found)" >&2; exit 1; }
  mkdir -p "$CACHE/bin" "$CACHE/gopath"
  export GOPATH="$CACHE/gopath" GOFLAGS=-buildvcs=false CGO_ENABLED=0
  # `go install pkg@version` needs the proxy's @v/list, which this proxy refuses; build inside the module.
  dir=$(go mod download -json "github.com/srl-labs/containerlab@$CONTAINERLAB_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  # This VM's kernel has no loadable-module support, hence no /proc/modules, and containerlab's deploy
  # fails opening it ("open /proc/modules: no such file or directory"). Build from a copy of the module
  # in which a missing /proc/modules means "module not loaded", so containerlab falls back to its
  # built-in-module check (the module cache stays untouched; Go refuses overlays inside it).
  src="$CACHE/src/containerlab-$CONTAINERLAB_VERSION"
  rm -rf "$src" && mkdir -p "$CACHE/src" && cp -r "$dir" "$src" && chmod -R u+w "$src"
  sed -i 's|f, err := os.Open("/proc/modules")|f, err := os.Open("/proc/modules"); if os.IsNotExist(err) { return false, nil }|' \
    "$src/utils/kernel_module.go"
  grep -q 'if os.IsNotExist(err) { return false, nil }' "$src/utils/kernel_module.go" ||
    { echo "containerlab $CONTAINERLAB_VERSION: utils/kernel_module.go changed, the /proc/modules patch does not apply" >&2; exit 1; }
  # Stamp the version (as the release build does) so `containerlab version` reports it.
  (cd "$src" && go build -trimpath -ldflags "-s -w -X github.com/srl-labs/containerlab/cmd.Version=${CONTAINERLAB_VERSION#v}" \
    -o "$clab_bin" .)
  echo "$clab_build" >"$clab_bin.build"
fi
ln -sfn "$clab_bin" /usr/local/bin/containerlab
log "containerlab $(containerlab version 2>/dev/null | awk '/version:/ {print $2; exit}') ready"
