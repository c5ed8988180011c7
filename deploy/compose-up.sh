#!/usr/bin/env bash
# deploy/compose-up.sh - the compose deployment from a fresh checkout (docs/deploy.md,
# "docker-compose"): a Docker engine if none answers, the images, `docker-compose up`,
# every container healthy, then where the pages are.
#
#   deploy/compose-up.sh [up] [--zk3] [--project NAME] [--state DIR] [--no-build]
#   deploy/compose-up.sh down [--project NAME] [--state DIR] [--keep-volumes]
#   deploy/compose-up.sh env [--state DIR]      prints the settings below, to eval
#
# up:
#   1. deploy/docker-engine.sh start STATE/engine: the engine that answers, else a private
#      dockerd (root; docs/deploy.md, "A Docker engine for tests"), and base-image: a local
#      debian:bookworm-slim when there is none;
#   2. the images, with `docker build --network host` (apt-get inside reaches Debian's
#      archive; Docker's cache makes a second build quick): strata:local from
#      deploy/Dockerfile and strata-zookeeper:local from deploy/zookeeper (--no-build
#      skips this when both exist);
#   3. `docker-compose -p NAME -f deploy/docker-compose.yml [-f deploy/docker-compose.zk3.yml]
#      up -d --no-build`, and a wait (STRATA_COMPOSE_HEALTH_S, default 180 s) until every
#      container of the project is healthy;
#   4. STATE/env: DOCKER_HOST, COMPOSE_PROJECT_NAME and COMPOSE_FILE, so that after
#      `. STATE/env` plain `docker` and `docker-compose` commands (and deploy/drills/)
#      reach this deployment; then each HTTP page as the host reaches it.
# down: `docker-compose down` (with the volumes unless --keep-volumes), then the engine
# stopped if this script started it (a private dockerd; an external one is left running).
#
# Defaults: --project strata, --state /var/tmp/strata-compose (a short path: the private
# engine's socket lives there). Exit status: 0 done, 1 a step failed (the logs of the
# containers that are not healthy are printed), 2 bad usage or a missing prerequisite.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
cmd=up
project=strata
state=/var/tmp/strata-compose
zk3=0
build=1
keep_volumes=0

usage() {
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
log() { echo "compose-up: $*" >&2; }
die() { log "$*"; exit 1; }

case ${1:-} in up | down | env) cmd=$1; shift ;; esac
while [ $# -gt 0 ]; do
  case $1 in
    --zk3) zk3=1 ;;
    --no-build) build=0 ;;
    --keep-volumes) keep_volumes=1 ;;
    --project) [ $# -ge 2 ] || usage; project=$2; shift ;;
    --state) [ $# -ge 2 ] || usage; state=$2; shift ;;
    -h | --help) usage ;;
    *) log "unknown argument $1"; usage ;;
  esac
  shift
done
[[ $project =~ ^[a-z0-9][a-z0-9_-]*$ ]] || { log "--project must be lower-case letters, digits, - and _"; exit 2; }
case $state in /*) ;; *) state=$PWD/$state ;; esac
for tool in docker docker-compose; do
  command -v "$tool" >/dev/null || { log "$tool is not installed (deploy/deps.sh)"; exit 2; }
done

files() {
  local f="$HERE/docker-compose.yml"
  [ "$zk3" = 0 ] || f="$f:$HERE/docker-compose.zk3.yml"
  echo "$f"
}

write_env() {
  mkdir -p "$state"
  {
    echo "export DOCKER_HOST=$DOCKER_HOST"
    echo "export COMPOSE_PROJECT_NAME=$project"
    echo "export COMPOSE_FILE=$(files)"
    echo "export STRATA_CHAOS_PROJECT=$project"
  } >"$state/env"
}

# Every container of the project healthy (or running, for one without a health check).
all_healthy() {
  local id st bad=0
  for id in $(docker ps -aq --filter "label=com.docker.compose.project=$project"); do
    st=$(docker inspect -f '{{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}' "$id") || return 1
    case $st in "running healthy" | "running none") ;; *) bad=1 ;; esac
  done
  return $bad
}

print_unhealthy() {
  local id name st
  for id in $(docker ps -aq --filter "label=com.docker.compose.project=$project"); do
    name=$(docker inspect -f '{{.Name}}' "$id")
    st=$(docker inspect -f '{{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{end}}' "$id")
    case $st in "running healthy" | "running ") continue ;; esac
    log "${name#/} is $st; the end of its log:"
    docker logs --tail 30 "$id" 2>&1 | sed 's/^/    /' >&2
  done
}

cmd_up() {
  local host t0 limit
  t0=$SECONDS
  host=$(bash "$HERE/docker-engine.sh" start "$state/engine") || exit $?
  export "${host?}"
  bash "$HERE/docker-engine.sh" base-image "$state/engine" || exit $?
  if [ "$build" = 1 ] || ! docker image inspect strata:local strata-zookeeper:local >/dev/null 2>&1; then
    log "building strata-zookeeper:local (deploy/zookeeper)"
    docker build -q --network host -t strata-zookeeper:local "$HERE/zookeeper" >/dev/null ||
      die "docker build of deploy/zookeeper failed"
    log "building strata:local (deploy/Dockerfile)"
    docker build -q --network host -f "$HERE/Dockerfile" -t strata:local "$REPO" >/dev/null ||
      die "docker build of deploy/Dockerfile failed"
  fi
  write_env
  export COMPOSE_PROJECT_NAME=$project COMPOSE_FILE
  COMPOSE_FILE=$(files)
  log "docker-compose up ($COMPOSE_FILE, project $project)"
  docker-compose up -d --no-build || { print_unhealthy; die "docker-compose up failed"; }
  limit=$((SECONDS + ${STRATA_COMPOSE_HEALTH_S:-180}))
  until all_healthy; do
    [ $SECONDS -lt $limit ] || { print_unhealthy; die "not every container is healthy within ${STRATA_COMPOSE_HEALTH_S:-180} s"; }
    sleep 1
  done
  log "every container healthy ($((SECONDS - t0)) s)"
  echo "Strata is up (project $project). Its pages, from this host:"
  local svc port ip id published
  for svc in $(docker-compose ps --services 2>/dev/null); do
    case $svc in master* | rs* | rest) ;; *) continue ;; esac
    case $svc in master*) port=17010 ;; rest) port=17080 ;; *) port=17030 ;; esac
    id=$(docker-compose ps -q "$svc" 2>/dev/null | head -n 1)
    [ -n "$id" ] || continue  # a template service (rs) not scaled up
    ip=$(docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}' "$id" |
      cut -d ' ' -f 1)
    published=$(docker-compose port "$svc" "$port" 2>/dev/null | sed 's/^0\.0\.0\.0:/127.0.0.1:/' || true)
    printf '  %-8s http://%s/  (also http://%s:%s/)\n' "$svc" "${published:-$ip:$port}" "$ip" "$port"
  done
  echo "A shell:        . $state/env && docker-compose run --rm client shell"
  echo "REST gateway:   the rest line above (HBase's REST API, docs/rest.md), e.g."
  echo "                curl -H 'Accept: application/json' <its URL>status/cluster"
  echo "Failover drills: deploy/drills/ (README there); stop it: deploy/compose-up.sh down"
}

cmd_down() {
  local host
  if [ -f "$state/env" ]; then
    # shellcheck disable=SC1091
    . "$state/env"
  else
    host=$(cat "$state/engine/docker-host" 2>/dev/null || true)
    [ -n "$host" ] || { log "no deployment recorded in $state"; exit 0; }
    export DOCKER_HOST=$host COMPOSE_PROJECT_NAME=$project COMPOSE_FILE
    COMPOSE_FILE=$(files)
  fi
  if docker info >/dev/null 2>&1; then
    if [ "$keep_volumes" = 1 ]; then
      docker-compose --profile scale --profile client down --remove-orphans || true
    else
      docker-compose --profile scale --profile client down -v --remove-orphans || true
    fi
  fi
  rm -f "$state/env"
  bash "$HERE/docker-engine.sh" stop "$state/engine"
  rmdir "$state" 2>/dev/null || true
}

case $cmd in
  up) cmd_up ;;
  down) cmd_down ;;
  env) cat "$state/env" 2>/dev/null || { log "no deployment recorded in $state"; exit 1; } ;;
esac
