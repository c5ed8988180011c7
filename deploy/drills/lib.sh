# deploy/drills/lib.sh - what the failover drills share (deploy/drills/README.md). Sourced
# by each drill; not run by itself.
#
# The deployment comes from the env file deploy/compose-up.sh wrote (STRATA_COMPOSE_STATE,
# default /var/tmp/strata-compose): DOCKER_HOST, COMPOSE_PROJECT_NAME, COMPOSE_FILE. The
# drills talk to the cluster from a drill client: a container of the strata image on the
# project's network, running as root with the docker CLI and the engine's socket mounted,
# so that `strata chaos --control docker` inside it reaches the containers
# (deploy/chaos-docker.sh). It is removed when the drill exits.
set -euo pipefail

DRILLS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DEPLOY=$(cd "$DRILLS/.." && pwd)
STATE=${STRATA_COMPOSE_STATE:-/var/tmp/strata-compose}
DRILL=$(basename "$0" .sh)
[ -f "$STATE/env" ] || { echo "$DRILL: no deployment in $STATE (deploy/compose-up.sh)" >&2; exit 2; }
# shellcheck disable=SC1091
. "$STATE/env"
PROJECT=$COMPOSE_PROJECT_NAME
# The session timeout of the compose file's servers, for waits.
SESSION_MS=${STRATA_DRILL_SESSION_MS:-10000}
# A new table per run (the drills can run again on one deployment).
TABLE=${STRATA_DRILL_TABLE:-drill_${DRILL//-/_}_$(date +%s)}
CLIENT=""

log() { echo "$DRILL: $(date -u +%H:%M:%S.%3N) $*" >&2; }
die() { log "FAILED: $*"; exit 1; }
# A figure: one line on stdout, "DRILL figure NAME VALUE UNIT".
figure() { echo "$DRILL figure $1 $2 $3"; }
now_ms() { date +%s%3N; }
secs() { awk -v ms="$1" 'BEGIN { printf "%.2f", ms / 1000 }'; }

dc() { docker-compose "$@"; }

# The container of a service (the first one for a scaled service).
container_of() {
  local id
  id=$(dc ps -q "$1" 2>/dev/null | head -n 1)
  [ -n "$id" ] || die "no container for service $1"
  echo "$id"
}

network() {
  docker inspect -f '{{range $k, $v := .NetworkSettings.Networks}}{{$k}} {{end}}' \
    "$(container_of zookeeper)" | cut -d ' ' -f 1
}

quorum() {
  docker inspect -f '{{range .Config.Env}}{{println .}}{{end}}' "$(container_of master1)" |
    sed -n 's/^STRATA_ZK_QUORUM=//p'
}

cleanup() {
  local rc=$?
  [ -z "$CLIENT" ] || docker rm -f "$CLIENT" >/dev/null 2>&1 || true
  [ $rc = 0 ] && log "passed" || log "exit $rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Starts the drill client (see above).
client_start() {
  local sock=${DOCKER_HOST#unix://}
  CLIENT=$PROJECT-drill-$DRILL-$$
  # The masters' extra_hosts too (the ensemble's fixed addresses, docker-compose.zk3.yml).
  # shellcheck disable=SC2046
  docker run -d --name "$CLIENT" --network "$(network)" --user 0 --entrypoint sleep \
    $(docker inspect -f '{{range .HostConfig.ExtraHosts}}--add-host {{.}} {{end}}' "$(container_of master1)") \
    -e STRATA_ZK_QUORUM="$(quorum)" -e STRATA_ZK_PARENT=/strata \
    -e STRATA_CHAOS_PROJECT="$PROJECT" -e STRATA_CHAOS_DOCKER=/usr/local/bin/chaos-docker.sh \
    -e DOCKER_HOST=unix:///var/run/docker.sock \
    -v "$sock:/var/run/docker.sock" -v "$(command -v docker):/usr/local/bin/docker:ro" \
    -v "$DEPLOY/chaos-docker.sh:/usr/local/bin/chaos-docker.sh:ro" \
    strata:local 3600 >/dev/null || die "cannot start the drill client"
  Q=$(quorum)
}

# `strata ARGS...` in the drill client.
cl() { docker exec -i "$CLIENT" strata "$@"; }
# A command in the drill client.
clx() { docker exec -i "$CLIENT" "$@"; }

# The HTTP status of URL as the drill client sees it ("000" when nothing answers).
http_code() { clx curl -s -o /dev/null -m 2 -w '%{http_code}' "$1" 2>/dev/null || true; }

# The active master's service (the one whose /readyz answers 200), or nothing.
active_master() {
  local m
  for m in master1 master2; do
    [ "$(http_code "http://$m:17010/readyz")" = 200 ] && { echo "$m"; return 0; }
  done
  return 0
}

# Waits until SVC's container is running and healthy, at most $2 s (default 120).
wait_healthy() {
  local svc=$1 limit=$((SECONDS + ${2:-120})) st
  while :; do
    st=$(docker inspect -f '{{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}' "$(container_of "$svc")")
    case $st in "running healthy" | "running none") return 0 ;; esac
    [ $SECONDS -lt $limit ] || die "$svc is not healthy within ${2:-120} s ($st)"
    sleep 0.5
  done
}

# Waits until every container of the deployment is healthy, at most $1 s (default 180).
wait_all_healthy() {
  local svc
  for svc in $(dc ps --services 2>/dev/null); do
    [ -z "$(dc ps -q "$svc" 2>/dev/null)" ] || wait_healthy "$svc" "${1:-180}"
  done
}

# The count of write calls a region server acknowledged (its /metrics), empty when it
# does not answer.
acked_writes() {
  clx curl -s -m 2 "http://$1:17030/metrics" 2>/dev/null |
    awk '$1 == "write_calls_acknowledged_count" { print $2; exit }'
}

# The region server of rs1..rs3 that acknowledged most writes (the one the load uses most).
busiest_rs() {
  local s n best="" max=-1
  for s in rs1 rs2 rs3; do
    n=$(acked_writes "$s")
    if [ -n "$n" ] && [ "${n%.*}" -gt "$max" ]; then max=${n%.*}; best=$s; fi
  done
  echo "${best:-rs1}"
}

# A background load: `verify linkedlist generate` for $1 s into $TABLE at 400 nodes/s per
# loader; load_wait waits for it, fails the drill if it failed, and sets NODES.
load_start() {
  cl shell -n -e "create '${TABLE}_probe', 'f'" >/dev/null 2>&1 || true
  LOAD_OUT=/tmp/$CLIENT.load
  log "load: linkedlist generate for $1 s"
  cl verify linkedlist generate --zk.quorum "$Q" --table "$TABLE" --regions 6 --loaders 2 \
    --width 200 --wrap 4 --duration "$1" --rate 400 >"$LOAD_OUT" 2>&1 &
  LOAD_PID=$!
}
load_wait() {
  wait "$LOAD_PID" || { cat "$LOAD_OUT" >&2; rm -f "$LOAD_OUT"; die "the load failed"; }
  grep '^loader\|^nodes written' "$LOAD_OUT" >&2 || true
  NODES=$(sed -n 's/^nodes written: \([0-9]*\) .*/\1/p' "$LOAD_OUT" | tail -n 1)
  rm -f "$LOAD_OUT"
  [ -n "$NODES" ] || die "no \"nodes written\" in the load's report"
}

# Writes the drill's data: `strata verify linkedlist generate` (HBase's BigLinkedList,
# every node acknowledged), LOADERS x WIDTH x WRAP nodes into a table pre-split in 6
# regions; and a table ${TABLE}_probe for time_until_put. Sets NODES.
write_data() {
  local loaders=${1:-2} width=${2:-500} wrap=${3:-4}
  log "writing $((loaders * width * wrap)) linked-list nodes into $TABLE"
  cl shell -n -e "create '${TABLE}_probe', 'f'" >/dev/null 2>&1 ||
    die "cannot create ${TABLE}_probe"
  cl verify linkedlist generate --zk.quorum "$Q" --table "$TABLE" --regions 6 --loaders "$loaders" \
    --width "$width" --wrap "$wrap" --iterations 1 >/dev/null ||
    die "linkedlist generate into $TABLE failed"
  NODES=$((loaders * width * wrap))
}

# Every node written is read back, none missing or dangling (exit non-zero otherwise).
verify_data() {
  log "verifying $NODES nodes in $TABLE"
  cl verify linkedlist verify --zk.quorum "$Q" --table "$TABLE" --expected "$NODES" ||
    die "linkedlist verify of $TABLE: rows lost or dangling"
}

# Milliseconds until `strata shell` can put a row into ${TABLE}_probe, at most $1 s.
time_until_put() {
  local t0 limit=$((SECONDS + ${1:-120}))
  t0=$(now_ms)
  until cl shell -n -e "put '${TABLE}_probe', 'r', 'f:q', 'x'" >/dev/null 2>&1; do
    [ $SECONDS -lt $limit ] || die "no put into $TABLE succeeded within ${1:-120} s"
    sleep 0.2
  done
  echo $(($(now_ms) - t0))
}
