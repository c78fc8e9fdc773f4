#!/usr/bin/env bash
# Render the documentation of every module, plugin and role of the installed collection with ansible-doc.
# Usage: scripts/check-plugin-docs.sh COLLECTIONS_PATH
# One ansible-doc per kind (it takes many names); a name whose documentation did not render is missing from its
# JSON answer (ansible-doc only warns and exits 0), so each name is looked up there.
set -euo pipefail
export ANSIBLE_COLLECTIONS_PATH="$1"
root="$1/ansible_collections/aifabric/fabric"
failed=0
checked=0
errors=$(mktemp)
trap 'rm -f "$errors"' EXIT
undocumented() {  # kind name...: the names ansible-doc did not render (one process for all of them)
  local kind=$1 out
  shift
  out=$(ansible-doc -t "$kind" --json "$@" 2>>"$errors") || true
  # The answer goes through stdin: every module's documentation is more than one argument may hold (128 KiB).
  printf '%s' "$out" | python3 -c '
import json, sys
try:
    found = json.load(sys.stdin)
except ValueError:
    found = {}
print(" ".join(name for name in sys.argv[1:] if not (found.get(name) or {}).get("doc")
               and not (found.get(name) or {}).get("entry_points")))
' "$@"
}
check() {  # kind name...
  local kind=$1 missing name
  shift
  checked=$((checked + $#))
  missing=$(undocumented "$kind" "${@/#/aifabric.fabric.}")
  # One bad document can stop the whole answer: name exactly the failing ones.
  for name in $missing; do
    [ -n "$(undocumented "$kind" "$name")" ] || continue
    echo "ansible-doc -t $kind $name did not render" >&2
    failed=1
    checked=$((checked - 1))
  done
}
names() {  # the .py files (or directories) under a directory, without extension
  local dir=$1 item
  for item in "$dir"/*; do
    [ -e "$item" ] || continue
    case "$item" in */__init__.py) continue ;; esac
    basename "$item" .py
  done
}
mapfile -t modules < <(names "$root/plugins/modules")
check module "${modules[@]}"
for kind in inventory filter lookup callback connection; do
  [ -d "$root/plugins/$kind" ] || continue
  mapfile -t plugins < <(names "$root/plugins/$kind")
  ((${#plugins[@]})) && check "$kind" "${plugins[@]}"
done
mapfile -t roles < <(names "$root/roles")
check role "${roles[@]}"
[ "$failed" = 0 ] || tail -20 "$errors" >&2
echo "ansible-doc rendered $checked modules, plugins and roles"
exit "$failed"
