#!/usr/bin/env bash
# Wall time of the AWX example's validate job template (its survey's defaults, Limit switches) on device doubles of
# the example fabric's 10 SONiC switches, deployed first by this checkout (render and deploy job templates, their
# survey's defaults). With another checkout as argument, the same validation runs with that checkout's collection and
# doubles too, on the same deployed state (the doubles restarted from that checkout): before and after a change.
#
#   benchmarks/bench_awx_validate.sh                       # this checkout
#   benchmarks/bench_awx_validate.sh /path/to/other/checkout
#
# Each checkout needs its .ansible/collections/ansible_collections/aifabric/fabric link (a `make` target makes it).
# Prints per checkout: the validate playbook's rc, wall and the load average; the logs stay in the printed directory.
# Not part of run_all.py.
set -u
NEW=$(cd "$(dirname "$0")/.." && pwd)
OTHER=${1:-}
WORK=$(mktemp -d /tmp/bench-awx-validate-XXXXXX)
PYTHON=${PYTHON:-python3}
unset PYTHONDONTWRITEBYTECODE
survey() {  # the survey's default answers as extra variables (what pressing Next in AWX sends)
  "$PYTHON" -c "import json, sys; print(json.dumps({q['variable']: q.get('default', '')
                for q in json.load(open(sys.argv[1]))['spec']}))" "$NEW/examples/awx/surveys/$1.json"
}
fleet() {  # checkout up|down: the doubles of the example fabric, served by that checkout's tests/doubles
  local intent=()
  [ "$2" = up ] && intent=(--intent "$NEW/examples/awx/fabrics/pod1.yml")
  (cd "$1" && "$PYTHON" -m tests.doubles.fleet "$2" "${intent[@]}" --state-dir "$WORK/fleet" >/dev/null) || exit 1
}
play() {  # checkout playbook extra-arguments...: the project's job template, that checkout's collection
  local tree=$1 book=$2
  shift 2
  (cd "$WORK/project" && ANSIBLE_CONFIG="$WORK/project/ansible.cfg" \
     ANSIBLE_COLLECTIONS_PATH="$tree/.ansible/collections" \
     ansible-playbook -i inventory/pod1 -i "$WORK/fleet/inventory.yml" "$book" \
       -e ansible_python_interpreter="$PYTHON" "$@")
}
cp -r "$NEW/examples/awx" "$WORK/project"
fleet "$NEW" up
for device in "$WORK"/fleet/devices/*; do  # converged at once, as the AWX test sets them
  (cd "$NEW" && "$PYTHON" -c "import sys; from tests.doubles import faults; faults.write(sys.argv[1], convergence_s=0)" "$device")
done
play "$NEW" render.yml -e "$(survey render)" >"$WORK/render.log" 2>&1
echo "render rc=$?"
play "$NEW" deploy.yml -e "$(survey deploy)" --limit switches >"$WORK/deploy.log" 2>&1
echo "deploy rc=$?"
for tree in ${OTHER:+"$OTHER"} "$NEW"; do
  fleet "$NEW" down
  fleet "$tree" up
  name=$(basename "$tree")
  echo "$name: $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
  start=$(date +%s.%N)
  play "$tree" validate.yml -e "$(survey validate)" --limit switches >"$WORK/validate-$name.log" 2>&1
  rc=$?
  end=$(date +%s.%N)
  echo "$name: validate rc=$rc wall $("$PYTHON" -c "print(round($end - $start, 1))") s, load after" \
       "$(cut -d' ' -f1-3 /proc/loadavg), verdict $(grep -o '"verdict": "[A-Z ]*"' "$WORK/validate-$name.log" | head -1)"
done
fleet "$NEW" down
echo "logs: $WORK"
