#!/bin/sh
# chaos-docker.sh - the docker control backend of `strata chaos` (docs/chaos.md,
# "Control backends"): `strata chaos --control docker` runs it as
#
#   chaos-docker.sh VERB ROLE NAME HOST PORT
#
# VERB: kill (SIGKILL), term (SIGTERM), stop (pause the container), cont (unpause), start
# (start it again and wait until it runs, and is healthy if it has a health check), alive
# (exit 0 if it runs and is not paused). The container is the one whose name, host name
# or network alias is HOST, among the containers of the compose project
# $STRATA_CHAOS_PROJECT when that is set. The docker CLI finds the engine as usual
# (DOCKER_HOST for a private engine's socket).
set -eu
verb=${1:?verb}; host=${4:?host}
ids=$(if [ -n "${STRATA_CHAOS_PROJECT:-}" ]; then
        docker ps -aq --filter "label=com.docker.compose.project=$STRATA_CHAOS_PROJECT"
      else
        docker ps -aq
      fi)
c=""
for id in $ids; do
  names=$(docker inspect -f '{{.Name}} {{.Config.Hostname}} {{range $n, $e := .NetworkSettings.Networks}}{{range $e.Aliases}}{{.}} {{end}}{{end}}' "$id")
  for n in $names; do
    if [ "${n#/}" = "$host" ]; then c=$id; break 2; fi
  done
done
if [ -z "$c" ]; then
  echo "chaos-docker: no container is $host" >&2
  exit 3
fi
state() { docker inspect -f '{{.State.Running}} {{.State.Paused}} {{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}' "$c"; }
case $verb in
  kill) docker kill -s KILL "$c" >/dev/null ;;
  term) docker kill -s TERM "$c" >/dev/null ;;
  stop) docker pause "$c" >/dev/null ;;
  cont) docker unpause "$c" >/dev/null ;;
  start)
    set -- $(state)
    if [ "$2" = true ]; then docker unpause "$c" >/dev/null; fi
    if [ "$1" = true ]; then
      docker kill -s TERM "$c" >/dev/null 2>&1 || true
      docker wait "$c" >/dev/null 2>&1 || true
    fi
    docker start "$c" >/dev/null
    i=0
    while [ $i -lt 600 ]; do
      set -- $(state)
      if [ "$1" = true ] && { [ "$3" = none ] || [ "$3" = healthy ]; }; then exit 0; fi
      sleep 0.1; i=$((i + 1))
    done
    echo "chaos-docker: $host did not come up within 60 s" >&2
    exit 1 ;;
  alive)
    set -- $(state)
    [ "$1" = true ] && [ "$2" = false ] ;;
  *) echo "chaos-docker: unknown verb $verb" >&2; exit 2 ;;
esac
