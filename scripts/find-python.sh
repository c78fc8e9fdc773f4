#!/usr/bin/env bash
# Print the path of a Python interpreter of one minor version (the argument, e.g. 3.12), or fail saying how to get it.
#
# ansible-core 2.20 and later run on Python 3.12+ only, and each release line this collection supports is tested on
# its own Python (Makefile: PYTHON, CORE_MATRIX). Debian 12 ships 3.11; a newer Python usually comes from pyenv or uv,
# whose interpreters are not always on PATH (pyenv's shims answer only for the versions `pyenv global` names), so
# every candidate is asked for its version rather than trusted by name.
set -euo pipefail

want=${1:?usage: find-python.sh MAJOR.MINOR}
[[ $want =~ ^3\.[0-9]+$ ]] || { echo "find-python.sh: '$want' is not a Python version such as 3.12" >&2; exit 2; }

candidates=("python$want")
pyenv_root=${PYENV_ROOT:-$HOME/.pyenv}
uv_root=${UV_PYTHON_INSTALL_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/uv/python}
# The newest patch release first (sort -V, reversed).
while IFS= read -r dir; do candidates+=("$dir/bin/python$want"); done < <(
  { compgen -G "$pyenv_root/versions/$want.*" || true; compgen -G "$uv_root/cpython-$want.*" || true; } | sort -rV)
candidates+=("/usr/local/bin/python$want" "/usr/bin/python$want" python3 /usr/bin/python3)

for candidate in "${candidates[@]}"; do
  path=$(command -v "$candidate" 2>/dev/null) || continue
  version=$("$path" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) || continue
  if [ "$version" = "$want" ] && "$path" -c 'import venv, ensurepip' 2>/dev/null; then
    echo "$path"
    exit 0
  fi
done
cat >&2 <<EOF
find-python.sh: no Python $want with venv and ensurepip found (looked for python$want on PATH, under pyenv's
$pyenv_root/versions and uv's $uv_root). Install one, for example with uv (\`uv python install $want\`), pyenv
(\`pyenv install $want\`) or your distribution's python$want and python$want-venv packages.
EOF
exit 1
