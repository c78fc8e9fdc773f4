#!/usr/bin/env bash
# netbox-import-check.sh NETBOX_CHECKOUT BUNDLE_DIR...: load rendered NetBox bundles into a real NetBox, one fresh
# database each, through NetBox's own bulk import views, and count what NetBox holds afterwards.
#
#   NETBOX_CHECKOUT  a NetBox source tree (git clone https://github.com/netbox-community/netbox; the directory with
#                    requirements.txt and netbox/manage.py), 4.6.x as the bundle's bundle.json says
#   BUNDLE_DIR       <render output>/netbox of a fabric, e.g. out/lab/netbox out/pod1k/netbox
#
# Needs Python 3.12+ (PYTHON, else found by scripts/find-python.sh), PostgreSQL's initdb/pg_ctl (PATH or
# /usr/lib/postgresql/*/bin) and redis-server. Everything it starts listens on 127.0.0.1 only, lives under WORK
# (default: a new /tmp/netbox-check.XXXXXX) and is stopped when the script ends, also on failure or Ctrl-C. NetBox's
# Python dependencies go into WORK/venv (its requirements.txt, psycopg's binary wheel instead of the C build), which
# VENV=<dir> reuses. Nothing in the checkout is changed: the configuration is a module of WORK (NETBOX_CONFIGURATION).
# Each bundle is imported file by file in bundle.json's order (scripts/netbox-import-bundle.py), into a copy of a
# freshly migrated database; WORK/<fabric>.json is its report. Exit status 0 when every bundle imported completely.
# FORMS=<file> also writes NetBox's import forms as data (scripts/netbox-import-forms.py; NETBOX_COMMIT names the
# checkout's commit when it is not a git clone).
set -euo pipefail

checkout=$(cd "${1:?usage: netbox-import-check.sh NETBOX_CHECKOUT BUNDLE_DIR...}" && pwd)
shift
[ $# -gt 0 ] || { echo "netbox-import-check.sh: name at least one bundle directory (out/<fabric>/netbox)" >&2; exit 2; }
[ -f "$checkout/netbox/manage.py" ] || { echo "netbox-import-check.sh: $checkout/netbox/manage.py not found" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
bundles=()
for bundle in "$@"; do
  [ -f "$bundle/bundle.json" ] || { echo "netbox-import-check.sh: $bundle/bundle.json not found" >&2; exit 2; }
  bundles+=("$(cd "$bundle" && pwd)")
done

work=${WORK:-$(mktemp -d /tmp/netbox-check.XXXXXX)}
mkdir -p "$work"
say() { printf '==> [%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
free_port() { "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

python=${PYTHON:-$("$here/find-python.sh" 3.12 2>/dev/null || "$here/find-python.sh" 3.13)}
pg_bin=$(dirname "$(readlink -f "$(command -v initdb || compgen -G '/usr/lib/postgresql/*/bin/initdb' | sort -V | tail -1)")")
command -v redis-server >/dev/null || { echo "netbox-import-check.sh: redis-server not found (Debian: redis-server)" >&2; exit 2; }

pids=()
as_pg=()
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ -f "$work/pg/postmaster.pid" ]; then
    "${as_pg[@]}" "$pg_bin/pg_ctl" -D "$work/pg" -m fast -w stop >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

venv=${VENV:-$work/venv}
if [ ! -x "$venv/bin/python" ]; then
  say "NetBox's Python dependencies into $venv (a few minutes)"
  "$python" -m venv "$venv"
  sed 's/^psycopg\[c,pool\]/psycopg[binary,pool]/' "$checkout/requirements.txt" > "$work/requirements.txt"
  "$venv/bin/pip" install -q -r "$work/requirements.txt"
fi

# PostgreSQL (trust on loopback and its own socket directory) and Redis, both on free ports of 127.0.0.1.
pg_port=$(free_port)
redis_port=$(free_port)
# PostgreSQL refuses to run as root: as root it runs as nobody, in directories of its own.
if [ "$(id -u)" = 0 ]; then
  as_pg=(runuser -u "${PG_USER:-nobody}" --)
  chmod 755 "$work"
fi
mkdir -p "$work/pg" "$work/pgsocket"
[ ${#as_pg[@]} -eq 0 ] || chown "${PG_USER:-nobody}" "$work/pg" "$work/pgsocket"
chmod 700 "$work/pg"
[ -f "$work/pg/PG_VERSION" ] || "${as_pg[@]}" "$pg_bin/initdb" -D "$work/pg" -A trust -U netbox >/dev/null
"${as_pg[@]}" "$pg_bin/pg_ctl" -D "$work/pg" -w -l "$work/pgsocket/pg.log" \
  -o "-h 127.0.0.1 -p $pg_port -k $work/pgsocket" start >/dev/null
redis-server --bind 127.0.0.1 --port "$redis_port" --save '' --appendonly no --dir "$work" >"$work/redis.log" 2>&1 &
pids+=($!)

mkdir -p "$work/config"
cat >"$work/config/netbox_check_configuration.py" <<EOF
import os
ALLOWED_HOSTS = ['127.0.0.1', 'localhost']
DATABASE = {'ENGINE': 'django.db.backends.postgresql', 'NAME': os.environ.get('NETBOX_CHECK_DB', 'netbox_template'),
            'USER': 'netbox', 'HOST': '127.0.0.1', 'PORT': '$pg_port', 'CONN_MAX_AGE': 300}
REDIS = {'tasks': {'HOST': '127.0.0.1', 'PORT': $redis_port, 'DATABASE': 0, 'SSL': False},
         'caching': {'HOST': '127.0.0.1', 'PORT': $redis_port, 'DATABASE': 1, 'SSL': False}}
SECRET_KEY = '$("$python" -c 'import secrets; print(secrets.token_urlsafe(50))')'
API_TOKEN_PEPPERS = {1: '$("$python" -c 'import secrets; print(secrets.token_urlsafe(50))')'}
EOF
export PYTHONPATH="$work/config:$checkout/netbox" NETBOX_CONFIGURATION=netbox_check_configuration
cd "$checkout/netbox"
password=$("$python" -c 'import secrets; print(secrets.token_urlsafe(16))')

if ! "$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U netbox -d postgres -tAc "select 1 from pg_database where datname='netbox_template'" | grep -q 1; then
  "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U netbox netbox_template
  say "manage.py migrate (NetBox's schema, once; a few minutes)"
  NETBOX_CHECK_DB=netbox_template "$venv/bin/python" manage.py migrate --no-input >"$work/migrate.log" 2>&1 \
    || { tail -20 "$work/migrate.log" >&2; exit 1; }
fi

# FORMS=<file>: also write NetBox's import forms as data (the unit tests' tests/unit/fixtures/netbox/import-forms.json).
if [ -n "${FORMS:-}" ]; then
  commit=${NETBOX_COMMIT:-$(git -C "$checkout" rev-parse HEAD 2>/dev/null || echo unknown)}
  NETBOX_CHECK_DB=netbox_template "$venv/bin/python" "$here/netbox-import-forms.py" "$commit" >"$FORMS"
  say "NetBox's import forms: $FORMS"
fi

# gunicorn (26 in NetBox 4.6's requirements) opens a control socket, by default in ~/.gunicorn: keep it in WORK.
control=()
"$venv/bin/gunicorn" --help | grep -q -- --control-socket && control=(--control-socket "$work/gunicorn.ctl")
status=0
for bundle in "${bundles[@]}"; do
  fabric=$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["fabric"])' "$bundle/bundle.json")
  database="netbox_${fabric}_$$"
  "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U netbox -T netbox_template "$database"
  export NETBOX_CHECK_DB=$database
  "$venv/bin/python" manage.py shell -c "from users.models import User; User.objects.create_superuser('admin', '', '$password')" >/dev/null
  port=$(free_port)
  "$venv/bin/gunicorn" --bind "127.0.0.1:$port" --workers 1 --timeout 7200 --pythonpath "$checkout/netbox" \
    "${control[@]}" netbox.wsgi >"$work/gunicorn-$fabric.log" 2>&1 &
  server=$!
  pids+=("$server")
  for _ in $(seq 120); do
    curl -fs -o /dev/null "http://127.0.0.1:$port/login/" && break
    sleep 1
  done
  say "fabric $fabric: importing $bundle into NetBox (database $database)"
  started=$SECONDS
  "$venv/bin/python" "$here/netbox-import-bundle.py" --url "http://127.0.0.1:$port" --user admin --password "$password" \
    "$bundle" "$work/$fabric.json" || status=1
  say "fabric $fabric: $((SECONDS - started)) s; report $work/$fabric.json"
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
done
exit "$status"
