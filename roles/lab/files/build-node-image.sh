#!/bin/sh
# Build the lab node image (Debian + FRR + sshd + python3 + lldpd) without any container registry:
# debootstrap a minimal root filesystem from the machine's own apt mirror, add the lab init, then
# `docker import` it. Usage: build-node-image.sh IMAGE:TAG SUITE MIRROR|auto WORKDIR
# The caller tags the image with a hash of this recipe (this file, the init files, the package list),
# so a changed recipe builds a new image and an unchanged one is never rebuilt.
set -eu

IMAGE=$1
SUITE=$2
MIRROR=$3
WORKDIR=$4
HERE=$(cd "$(dirname "$0")" && pwd)
PACKAGES=frr,frr-pythontools,iproute2,openssh-server,python3,lldpd,iputils-ping,procps,tcpdump,ethtool,less

# The machine's own Debian mirror: first URI of a deb822 .sources file, else of sources.list (never hard-coded).
if [ "$MIRROR" = auto ]; then
  MIRROR=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
    awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}')
  [ -n "$MIRROR" ] || MIRROR=$(awk '$1 == "deb" && $0 !~ /security/ {for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) {print $i; exit}}' \
    /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | head -n 1)
  [ -n "$MIRROR" ] || { echo "no Debian mirror found in /etc/apt/sources.list{,.d}; pass one explicitly" >&2; exit 1; }
fi
echo "debootstrap $SUITE from $MIRROR"
mkdir -p "$WORKDIR"

ROOTFS=$WORKDIR/rootfs
rm -rf "$ROOTFS"
mkdir -p "$ROOTFS"
trap 'rm -rf "$ROOTFS"' EXIT

debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$ROOTFS" "$MIRROR" >"$WORKDIR/debootstrap.log" 2>&1 || {
  tail -n 30 "$WORKDIR/debootstrap.log" >&2
  exit 1
}

# Lab init (PID 1) and its helpers.
install -m 0755 "$HERE/aifabric-lab-init" "$ROOTFS/usr/local/sbin/aifabric-lab-init"
install -m 0644 "$HERE/aifabric-reaper.py" "$ROOTFS/usr/local/lib/aifabric-reaper.py"

# SSH: keys only, no DNS lookups; host keys are made per container at first start.
rm -f "$ROOTFS"/etc/ssh/ssh_host_*
cat >"$ROOTFS/etc/ssh/sshd_config.d/aifabric-lab.conf" <<'CONF'
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UseDNS no
CONF
mkdir -p "$ROOTFS/root/.ssh" "$ROOTFS/root/.ansible/tmp"
chmod 0700 "$ROOTFS/root/.ssh" "$ROOTFS/root/.ansible" "$ROOTFS/root/.ansible/tmp"

# No services start inside the chroot or at image level; the lab init starts what a node needs.
rm -f "$ROOTFS/etc/machine-id" "$ROOTFS/var/lib/dbus/machine-id"
: >"$ROOTFS/etc/machine-id"
rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/*

tar -C "$ROOTFS" -c . | docker import \
  --change 'CMD ["/usr/local/sbin/aifabric-lab-init"]' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'LABEL org.aifabric.lab-node=1' \
  - "$IMAGE" >/dev/null
echo "built $IMAGE"
