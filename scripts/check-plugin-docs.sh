#!/usr/bin/env bash
# Render the documentation of every module, plugin and role of the installed collection with ansible-doc.
# Usage: scripts/check-plugin-docs.sh COLLECTIONS_PATH
set -euo pipefail
export ANSIBLE_COLLECTIONS_PATH="$1"
root="$1/ansible_collections/aifabric/fabric"
failed=0
checked=0
check() {  # type name
  if out=$(ansible-doc -t "$1" "aifabric.fabric.$2" 2>&1) && [ -n "$out" ]; then
    checked=$((checked + 1))
  else
    echo "ansible-doc -t $1 aifabric.fabric.$2 failed:" >&2
    echo "$out" | tail -5 >&2
    failed=1
  fi
}
for file in "$root"/plugins/modules/*.py; do check module "$(basename "$file" .py)"; done
for kind in inventory filter lookup callback connection; do
  [ -d "$root/plugins/$kind" ] || continue
  for file in "$root/plugins/$kind"/*.py; do check "$kind" "$(basename "$file" .py)"; done
done
for dir in "$root"/roles/*/; do check role "$(basename "$dir")"; done
echo "ansible-doc rendered $checked modules, plugins and roles"
exit "$failed"
