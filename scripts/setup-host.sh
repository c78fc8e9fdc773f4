#!/usr/bin/env bash
# Install what the collection's tests and lab need on a Debian 12 machine (run as root): Debian packages, Debian's
# Docker engine (started by the service manager) and containerlab. Idempotent: every step checks before it acts.
#
# containerlab, first that applies:
#   1. already installed at CONTAINERLAB_VERSION (or a newer release): nothing to do;
#   2. containerlab's own release package (the .deb its installer fetches from GitHub; needs the internet);
#   3. built from source: the module from the Go module proxy, with Debian's Go (bookworm-backports, Go >= 1.21)
#      fetching the Go release containerlab needs from the same proxy (needs deb.debian.org and the Go proxy).
# A kernel without loadable-module support has no /proc/modules, where containerlab's deploy stops ("open
# /proc/modules: no such file or directory"): there only path 3 works, with a one-line change (see below).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)

# python3-venv: `make setup-python`; openssh-server + openssh-sftp-server: the SONiC and NVUE device doubles
# (tests/doubles) run a real sshd per switch; bsdextrautils: column(1) for `make help`; netplan.io (with systemd's
# systemd-networkd) and dbus: host_network's tests check the netplan files with the real netplan and have the real
# systemd-networkd apply the rails in a namespace of their own (tests/roles/test_network_services.py); jq: a SONiC
# host's own jq (its image installs it), which the SONiC doubles run where the reader cuts COUNTERS_DB with it.
APT_PACKAGES=(python3 python3-venv make git curl ca-certificates bsdextrautils frr frr-pythontools docker.io
  debootstrap iproute2 rsync openssh-client openssh-server openssh-sftp-server sshpass shellcheck netplan.io dbus jq)
CONTAINERLAB_VERSION=${CONTAINERLAB_VERSION:-v0.79.0}
CACHE=${AIFABRIC_CACHE:-/var/cache/aifabric}
RELEASES=https://github.com/srl-labs/containerlab/releases/download

log() { printf '==> [%s] %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { printf 'setup-host: %s\n' "$*" >&2; exit 1; }

apt_install() {  # packages not installed yet, installed in one apt-get run
  local missing=() pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  ((${#missing[@]})) || return 0
  "$HERE/with-progress.sh" "apt-get update" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "$HERE/with-progress.sh" "apt-get install ${missing[*]}" \
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

[ "$(id -u)" = 0 ] || die "run as root (it installs Debian packages and starts the Docker engine)"
apt_install "${APT_PACKAGES[@]}"

# ---------------------------------------------------------------------------------------------------- services
if [ -d /run/systemd/system ]; then
  # The host's own FRR is not used (only vtysh -C checks configurations); its package enables the service.
  systemctl disable --now frr >/dev/null 2>&1 || true
  if ! docker info >/dev/null 2>&1; then
    log "starting the Docker engine (systemctl enable --now docker)"
    systemctl enable --now docker
  fi
else
  # No systemd (a container, or a VM whose init is something else): Debian's init scripts.
  service frr stop >/dev/null 2>&1 || true
  if ! docker info >/dev/null 2>&1; then
    log "starting the Docker engine (service docker start; systemd is not running here)"
    # Debian's init script raises ulimits first, which an unprivileged container or VM refuses: then it fails.
    service docker start || { log "service docker start failed (exit $?)"; DOCKER_NOT_STARTED=1; }
  fi
fi
wait_for_docker() { for _ in $(seq 1 "$1"); do docker info >/dev/null 2>&1 && return 0; sleep 1; done; return 1; }
if [ -n "${DOCKER_NOT_STARTED:-}" ] || ! wait_for_docker 30; then
  # No service manager could start it: run the engine in the background, as root, the way dockerd runs anywhere.
  log "starting dockerd in the background (log: /var/log/dockerd.log)"
  nohup dockerd >/var/log/dockerd.log 2>&1 &
  wait_for_docker 60 || die "the Docker engine did not start; see /var/log/dockerd.log"
fi

# ---------------------------------------------------------------------------------------------------- Python
# The Pythons the venvs run on (the Makefile passes PYTHONS: the venv's and each tested ansible-core line's). Debian 12
# ships 3.11 only; a missing one is installed with uv (from PyPI), which fetches a standalone CPython build from
# GitHub (python-build-standalone): that needs the internet, so on a closed machine install it beforehand (pyenv).
missing_pythons=()
for version in ${PYTHONS:-}; do
  "$HERE/find-python.sh" "$version" >/dev/null 2>&1 || missing_pythons+=("$version")
done
if ((${#missing_pythons[@]})); then
  uv_venv="$CACHE/uv"
  log "installing Python ${missing_pythons[*]} with uv (a venv of its own: $uv_venv)"
  [ -x "$uv_venv/bin/uv" ] || { python3 -m venv "$uv_venv" && "$uv_venv/bin/pip" install -q uv; } ||
    die "could not install uv from PyPI to install Python ${missing_pythons[*]}"
  "$uv_venv/bin/uv" python install "${missing_pythons[@]}" ||
    die "uv could not install Python ${missing_pythons[*]} (it downloads from GitHub); install them another way (pyenv, your distribution)"
fi

# ---------------------------------------------------------------------------------------------------- containerlab
version_ok() {  # the installed containerlab is CONTAINERLAB_VERSION or newer
  local have
  have=$(containerlab version 2>/dev/null | awk '/version:/ {print $2; exit}') || return 1
  [ -n "$have" ] && [ "$(printf '%s\n%s\n' "${CONTAINERLAB_VERSION#v}" "$have" | sort -V | head -1)" = "${CONTAINERLAB_VERSION#v}" ]
}

install_release_package() {  # containerlab's release .deb, as its installer does
  local arch deb
  arch=$(dpkg --print-architecture)
  deb="$CACHE/containerlab_${CONTAINERLAB_VERSION#v}_linux_${arch}.deb"
  mkdir -p "$CACHE"
  "$HERE/with-progress.sh" "download containerlab $CONTAINERLAB_VERSION's release package" \
    curl -fsL --connect-timeout 10 --max-time 300 -o "$deb.part" \
    "$RELEASES/$CONTAINERLAB_VERSION/containerlab_${CONTAINERLAB_VERSION#v}_linux_${arch}.deb" || return 1
  mv "$deb.part" "$deb"
  log "installing containerlab $CONTAINERLAB_VERSION from its release package"
  DEBIAN_FRONTEND=noninteractive "$HERE/with-progress.sh" "apt-get install containerlab" \
    apt-get install -y -qq "$deb" >/dev/null
}

go_for_build() {  # a Go >= 1.21 (it fetches the release containerlab's go.mod asks for), else Debian's from backports
  local candidate
  for candidate in go /usr/local/go/bin/go /usr/lib/go/bin/go; do
    command -v "$candidate" >/dev/null 2>&1 || continue
    if [ "$(printf '1.21\n%s\n' "$("$candidate" env GOVERSION | sed 's/^go//')" | sort -V | head -1)" = 1.21 ]; then
      command -v "$candidate"
      return
    fi
  done
  [ "$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release)" = bookworm ] || die "containerlab needs Go >= 1.21 to build; install it (found none)"
  log "installing Debian's Go from bookworm-backports" >&2
  if ! apt-cache policy | grep -q 'bookworm-backports'; then
    log "adding Debian's bookworm-backports (Go 1.23 to build containerlab)" >&2
    echo 'deb http://deb.debian.org/debian bookworm-backports main' >/etc/apt/sources.list.d/bookworm-backports.list
    "$HERE/with-progress.sh" "apt-get update" apt-get update -qq >&2
  fi
  DEBIAN_FRONTEND=noninteractive "$HERE/with-progress.sh" "apt-get install golang-go from bookworm-backports" \
    apt-get install -y -qq --no-install-recommends -t bookworm-backports golang-go >/dev/null
  echo /usr/lib/go/bin/go
}

build_from_source() {
  local go dir src clab_bin build_id patch=""
  clab_bin="$CACHE/bin/containerlab"
  [ -e /proc/modules ] || patch=procmodules1
  # The build id changes with the version and the recipe, so an older binary is rebuilt.
  build_id="${CONTAINERLAB_VERSION#v}${patch:++$patch}"
  if [ -x "$clab_bin" ] && [ "$(cat "$clab_bin.build" 2>/dev/null)" = "$build_id" ]; then
    ln -sfn "$clab_bin" /usr/local/bin/containerlab
    return
  fi
  go=$(go_for_build)
  log "building containerlab $CONTAINERLAB_VERSION from the Go module proxy with $("$go" version | awk '{print $3}')"
  mkdir -p "$CACHE/bin" "$CACHE/gopath"
  # GOTOOLCHAIN=auto: go fetches the Go release containerlab's go.mod names (a module of the proxy) if it is older.
  export GOPATH="$CACHE/gopath" GOFLAGS=-buildvcs=false CGO_ENABLED=0 GOTOOLCHAIN=auto
  # `go install pkg@version` needs the proxy's @v/list, which some proxies refuse; build inside the module.
  dir=$("$HERE/with-progress.sh" "go mod download containerlab $CONTAINERLAB_VERSION and its modules (minutes with an empty module cache)" \
    "$go" mod download -json "github.com/srl-labs/containerlab@$CONTAINERLAB_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  [ -n "$dir" ] || die "go mod download github.com/srl-labs/containerlab@$CONTAINERLAB_VERSION failed"
  src="$CACHE/src/containerlab-$CONTAINERLAB_VERSION"
  rm -rf "$src" && mkdir -p "$CACHE/src" && cp -r "$dir" "$src" && chmod -R u+w "$src"
  if [ -n "$patch" ]; then
    # No /proc/modules (no loadable-module support): containerlab's deploy fails opening it. In the copy (Go
    # refuses edits inside the module cache), a missing /proc/modules means "module not loaded", so containerlab
    # falls back to its built-in-module check.
    log "no /proc/modules on this kernel: containerlab built to read that as 'no module loaded'"
    sed -i 's|f, err := os.Open("/proc/modules")|f, err := os.Open("/proc/modules"); if os.IsNotExist(err) { return false, nil }|' \
      "$src/utils/kernel_module.go"
    grep -q 'if os.IsNotExist(err) { return false, nil }' "$src/utils/kernel_module.go" ||
      die "containerlab $CONTAINERLAB_VERSION: utils/kernel_module.go changed, the /proc/modules change does not apply"
  fi
  # Stamp the version (as the release build does) so `containerlab version` reports it.
  (cd "$src" && "$HERE/with-progress.sh" "go build containerlab (a few minutes the first time)" "$go" build -trimpath -ldflags "-s -w -X github.com/srl-labs/containerlab/cmd.Version=${CONTAINERLAB_VERSION#v}" \
    -o "$clab_bin" .)
  echo "$build_id" >"$clab_bin.build"
  ln -sfn "$clab_bin" /usr/local/bin/containerlab
}

if [ -e /proc/modules ] && version_ok; then
  :
elif [ -e /proc/modules ] && install_release_package; then
  :
else
  [ -e /proc/modules ] && log "containerlab's release package is out of reach (no internet?): building it from source"
  build_from_source
fi
version_ok || die "containerlab $CONTAINERLAB_VERSION is not what \`containerlab version\` reports"
log "containerlab $(containerlab version 2>/dev/null | awk '/version:/ {print $2; exit}') ready"
