#!/bin/sh
# chaos-docker.sh - the docker control backend of `strata chaos` (docs/chaos.md,
# "Control backends"): `strata chaos --control docker` runs it as
#
#   chaos-docker.sh VERB ROLE NAME HOST PORT
#
# VERB: kill (SIGKILL), term (SIGTERM), stop (pause the container), cont (unpause), start
# (start it again and wait until it runs, and is healthy if it has a health check), alive
# (exit 0 if it runs and is neither paused nor waiting to be restarted). The container is
# the one whose name, host name or network alias is HOST, among the containers of the
# compose project $STRATA_CHAOS_PROJECT when that is set. The docker CLI finds the engine
# as usual (DOCKER_HOST for a private engine's socket).
#
# start: a container still running (still exiting after a term, say) is stopped first
# (`docker stop -t 60`: SIGTERM, SIGKILL 60 s later); then `docker start`, and a wait of
# at most 60 s by the clock for it to run (healthy, if it has a health check). A container
# that exits meanwhile and is not being restarted fails the start at once.
#
# Exit status: 0 success (alive: it runs), 1 failure (alive: it does not run), 2 a verb
# this script does not do (the monkey then skips the action), 3 no container is HOST.
# tests/integration/test_chaos_docker.c runs every verb against a real engine.
set -eu
verb=${1:?verb}; host=${4:?host}
case $verb in
  kill | term | stop | cont | start | alive) ;;
  *) echo "chaos-docker: unknown verb $verb" >&2; exit 2 ;;
esac
ids=$(if [ -n "${STRATA_CHAOS_PROJECT:-}" ]; then
        docker ps -aq --filter "label=com.docker.compose.project=$STRATA_CHAOS_PROJECT"
      else
        docker ps -aq
      fi)
c=""
for id in $ids; do
  # A container removed since `docker ps` is not the one.
  names=$(docker inspect -f '{{.Name}} {{.Config.Hostname}} {{range $n, $e := .NetworkSettings.Networks}}{{range $e.Aliases}}{{.}} {{end}}{{end}}' "$id" 2>/dev/null) || continue
  for n in $names; do
    if [ "${n#/}" = "$host" ]; then c=$id; break 2; fi
  done
done
if [ -z "$c" ]; then
  echo "chaos-docker: no container is $host" >&2
  exit 3
fi
# Sets $1..$4 to Running Paused Restarting Health ("none" without a health check), or
# fails the verb with status 1 when the container cannot be inspected (removed meanwhile):
# `set -- $(docker inspect ...)` alone would leave them unset and `set -u` would end the
# script with status 2, "a verb it does not do".
state() {
  st=$(docker inspect -f '{{.State.Running}} {{.State.Paused}} {{.State.Restarting}} {{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}' "$c") ||
    { echo "chaos-docker: cannot inspect $host's container" >&2; exit 1; }
}
case $verb in
  kill) docker kill -s KILL "$c" >/dev/null ;;
  term) docker kill -s TERM "$c" >/dev/null ;;
  stop) docker pause "$c" >/dev/null ;;
  cont) docker unpause "$c" >/dev/null ;;
  start)
    state; set -- $st
    if [ "$2" = true ]; then docker unpause "$c" >/dev/null; fi
    if [ "$1" = true ]; then docker stop -t 60 "$c" >/dev/null; fi
    docker start "$c" >/dev/null
    end=$(($(date +%s) + 60))
    while [ "$(date +%s)" -lt "$end" ]; do
      state; set -- $st
      if [ "$1" = true ] && [ "$3" = false ] && { [ "$4" = none ] || [ "$4" = healthy ]; }; then
        exit 0
      fi
      if [ "$1" = false ] && [ "$3" = false ]; then
        code=$(docker inspect -f '{{.State.ExitCode}}' "$c" 2>/dev/null || echo '?')
        echo "chaos-docker: $host exited (status $code) while starting" >&2
        exit 1
      fi
      sleep 0.1
    done
    echo "chaos-docker: $host did not come up within 60 s" >&2
    exit 1 ;;
  alive)
    state; set -- $st
    [ "$1" = true ] && [ "$2" = false ] && [ "$3" = false ] ;;
esac
