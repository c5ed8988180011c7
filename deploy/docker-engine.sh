#!/usr/bin/env bash
# deploy/docker-engine.sh - a Docker engine for tests and drills (docs/deploy.md, "A
# Docker engine for tests"): uses the one that is reachable, or starts a private dockerd
# whose every file is under STATE_DIR, and stops only what it started.
#
#   deploy/docker-engine.sh start STATE_DIR       prints DOCKER_HOST=unix://... to export
#   deploy/docker-engine.sh base-image STATE_DIR  debian:bookworm-slim, built if missing
#   deploy/docker-engine.sh stop STATE_DIR        safe twice, and after a failed start
#
# start: an engine that answers `docker info` (with $DOCKER_HOST when set, else on
# /var/run/docker.sock) is used as it is: STATE_DIR/engine says "external" and stop leaves
# it alone. Otherwise (root only) a private dockerd runs, in its own session:
#   dockerd --iptables=false --ip6tables=false --bridge=none --storage-driver=vfs
#           --data-root STATE_DIR/data --exec-root STATE_DIR/exec
#           --pidfile STATE_DIR/docker.pid -H unix://STATE_DIR/docker.sock
#           --config-file STATE_DIR/daemon.json --shutdown-timeout 5 (the config file
#           puts dockerd's trust key at STATE_DIR/key.json, not in /etc/docker)
#           --default-address-pool base=10.233.0.0/16,size=24
# (no default bridge and no iptables rules: only user-defined networks, which reach
# nothing outside the host), its log STATE_DIR/dockerd.log; start waits until `docker -H
# unix://STATE_DIR/docker.sock info` answers (at most STRATA_DOCKER_START_S, 60 s), and
# records the pid and its start time in STATE_DIR/engine ("private PID STARTTIME"). A
# start that fails stops what it started and removes it. A second start on the same
# STATE_DIR while the engine runs prints its DOCKER_HOST again.
#
# base-image: if the engine has no debian:bookworm-slim, imports one: the root file system
# of `debootstrap --variant=minbase bookworm` from the Debian mirror apt uses (the first
# bookworm entry of /etc/apt/sources.list or /etc/apt/sources.list.d/*, or
# $STRATA_DEBIAN_MIRROR), as a tar kept in the image cache $STRATA_DOCKER_CACHE (default
# /var/tmp/strata-docker-cache/debian-bookworm-minbase-2.tar), so that only the first run
# on a machine runs debootstrap (about 35 s); later ones only `docker import` it.
# STRATA_DOCKER_CACHE=none keeps no tar. The image is minbase, not Docker Hub's slim
# image: enough for `FROM debian:bookworm-slim` with apt-get.
#
# stop: for a private engine, removes its containers and networks, SIGTERMs dockerd (only
# if the recorded pid is still the process with the recorded start time), SIGKILLs it
# after STRATA_DOCKER_STOP_S (30 s), then SIGKILLs the containerd and shims that name
# STATE_DIR on their command line, unmounts whatever is mounted under STATE_DIR (dockerd
# bind-mounts its data root, network namespaces and /dev/shm of containers) and removes
# the engine's files and any bridge of its networks left. For an external engine it only
# forgets it. A dockerd that died by itself leaves its networks' bridges (br-ID).
#
# Exit status: 0 on success, 1 on failure (the end of dockerd's log is printed), 2 for bad
# usage or a missing prerequisite.
set -euo pipefail

usage() {
  echo "usage: $0 start|base-image|stop STATE_DIR" >&2
  exit 2
}
[ $# -eq 2 ] || usage
cmd=$1
case $2 in
  /*) state=$2 ;;
  *) state=$PWD/$2 ;;
esac
state=${state%/}
SOCK=$state/docker.sock
CACHE=${STRATA_DOCKER_CACHE:-/var/tmp/strata-docker-cache}
IMAGE=debian:bookworm-slim
# The containers' cgroups, under this parent: stop kills what is left in them.
CGROUP=strata-docker-$(printf %s "$state" | cksum | cut -d ' ' -f 1)
relaunch=1 # stop may start a dead engine's dockerd once to let it remove what it made

log() { echo "docker-engine: $*" >&2; }

# A process's start time (field 22 of /proc/PID/stat), empty if it does not exist or is
# a zombie.
starttime() {
  local s
  s=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
  s=${s##*) }
  set -- $s
  [ "$1" = Z ] || echo "${20}"
}

# The DOCKER_HOST of the engine recorded in STATE_DIR, empty if none.
recorded_host() {
  [ -f "$state/docker-host" ] && cat "$state/docker-host" || true
}

# "external", "private" or nothing: what STATE_DIR/engine records.
engine_kind() {
  local kind=""
  [ -f "$state/engine" ] && read -r kind _ <"$state/engine" || true
  echo "$kind"
}

# The private dockerd recorded in STATE_DIR if it still runs: its pid, else nothing.
private_pid() {
  local kind pid st
  [ -f "$state/engine" ] || return 0
  read -r kind pid st <"$state/engine" || true
  [ "$kind" = private ] && [ -n "${pid:-}" ] || return 0
  [ "$(starttime "$pid")" = "$st" ] && echo "$pid" || true
}

external_host() {
  if [ -n "${DOCKER_HOST:-}" ]; then
    docker info >/dev/null 2>&1 && echo "$DOCKER_HOST"
  elif [ -S /var/run/docker.sock ]; then
    docker -H unix:///var/run/docker.sock info >/dev/null 2>&1 &&
      echo unix:///var/run/docker.sock
  fi
  return 0
}

# Starts the private dockerd and waits up to $1 s for it to answer: 0, and $pid; 1 (the
# end of its log printed) if it exited or did not answer in time.
launch() {
  local limit=$1 i=0
  mkdir -p "$state/data" "$state/exec"
  # Its own config file, and the trust key there too, not in /etc/docker.
  printf '{"deprecated-key-path": "%s/key.json"}\n' "$state" >"$state/daemon.json"
  (exec setsid dockerd --iptables=false --ip6tables=false --bridge=none \
    --storage-driver=vfs --data-root "$state/data" --exec-root "$state/exec" \
    --pidfile "$state/docker.pid" -H "unix://$SOCK" --config-file "$state/daemon.json" \
    --cgroup-parent "$CGROUP" --shutdown-timeout 5 \
    --default-address-pool base=10.233.0.0/16,size=24 \
    </dev/null >>"$state/dockerd.log" 2>&1) &
  pid=$!
  sleep 0.1
  echo "private $pid $(starttime "$pid")" >"$state/engine"
  echo "unix://$SOCK" >"$state/docker-host"
  while ! docker -H "unix://$SOCK" info >/dev/null 2>&1; do
    if [ -z "$(starttime "$pid")" ] || [ $i -ge $((limit * 5)) ]; then
      log "dockerd did not answer within ${limit} s (or exited); the end of its log:"
      tail -n 30 "$state/dockerd.log" >&2 || true
      return 1
    fi
    sleep 0.2
    i=$((i + 1))
  done
}

cmd_start() {
  mkdir -p "$state"
  local host pid
  if [ -n "$(private_pid)" ] && docker -H "unix://$SOCK" info >/dev/null 2>&1; then
    echo "DOCKER_HOST=unix://$SOCK"
    return 0
  fi
  if [ "$(engine_kind)" = external ]; then
    host=$(recorded_host)
    if DOCKER_HOST=$host docker info >/dev/null 2>&1; then
      echo "DOCKER_HOST=$host"
      return 0
    fi
  fi
  cmd_stop_quiet # whatever a failed start left behind
  mkdir -p "$state"
  host=$(external_host)
  if [ -n "$host" ]; then
    echo external >"$state/engine"
    echo "$host" >"$state/docker-host"
    log "using the running engine at $host"
    echo "DOCKER_HOST=$host"
    return 0
  fi
  if [ "$(id -u)" != 0 ]; then
    log "no engine answers and a private dockerd needs root"
    exit 2
  fi
  command -v dockerd >/dev/null || { log "dockerd is not installed (deploy/deps.sh)"; exit 2; }
  if [ ${#SOCK} -gt 100 ]; then
    log "STATE_DIR is too long for a unix socket path: $state"
    exit 2
  fi
  if ! launch "${STRATA_DOCKER_START_S:-60}"; then
    relaunch=0
    cmd_stop_quiet
    exit 1
  fi
  log "private dockerd $pid on unix://$SOCK (log $state/dockerd.log)"
  echo "DOCKER_HOST=unix://$SOCK"
}

# The first bookworm archive of apt's sources (one-line and deb822 formats).
debian_mirror() {
  if [ -n "${STRATA_DEBIAN_MIRROR:-}" ]; then
    echo "$STRATA_DEBIAN_MIRROR"
    return 0
  fi
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk '$1 == "deb" { i = 2; if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
                       if ($(i + 1) == "bookworm") { print $i; exit } }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk 'function flush() { if (deb && on && bw && uri != "") { print uri; found = 1 }
                           deb = 0; on = 1; bw = 0; uri = "" }
         BEGIN { on = 1 }
         /^[ \t]*#/ { next }
         /^[ \t]*$/ { flush(); if (found) exit; next }
         tolower($1) == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
         tolower($1) == "enabled:" { on = ($2 != "no") }
         tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == "bookworm") bw = 1 }
         tolower($1) == "uris:" { uri = $2 }
         END { if (!found) flush() }' "$f"
  done
}

cmd_base_image() {
  local host
  host=$(recorded_host)
  [ -n "$host" ] || { log "no engine recorded in $state: run start first"; exit 2; }
  export DOCKER_HOST=$host
  if docker image inspect "$IMAGE" >/dev/null 2>&1; then
    return 0
  fi
  local tar work mirror
  if [ "$CACHE" = none ]; then
    tar=$state/rootfs.tar
  else
    mkdir -p "$CACHE"
    tar=$CACHE/debian-bookworm-minbase-2.tar  # -2: / is 0755 (an older tar had 0700)
  fi
  # One debootstrap at a time per cache: a second caller waits and then imports.
  exec 9>"${tar%.tar}.lock"
  flock 9
  if [ ! -s "$tar" ]; then
    command -v debootstrap >/dev/null ||
      { log "debootstrap is not installed (deploy/deps.sh)"; exit 2; }
    mirror=$(debian_mirror | head -n 1)
    [ -n "$mirror" ] || { log "no bookworm mirror in apt's sources; set STRATA_DEBIAN_MIRROR"; exit 2; }
    work=$(mktemp -d "${tar%.tar}.rootfs.XXXXXX")
    log "debootstrap --variant=minbase bookworm from $mirror"
    if ! debootstrap --variant=minbase bookworm "$work" "$mirror" >"$work.log" 2>&1; then
      tail -n 20 "$work.log" >&2
      rm -rf --one-file-system "$work" "$work.log"
      log "debootstrap failed"
      exit 1
    fi
    rm -rf --one-file-system "$work/var/cache/apt/archives"/*.deb "$work/var/lib/apt/lists"/*
    # The tar's "." is the image's /: mktemp made it 0700, which no non-root user of an
    # image built on it could enter.
    chmod 0755 "$work"
    tar -C "$work" -cf "$tar.tmp" .
    mv "$tar.tmp" "$tar"
    rm -rf --one-file-system "$work" "$work.log"
  fi
  docker import "$tar" "$IMAGE" >/dev/null
  exec 9>&-
  [ "$CACHE" != none ] || rm -f "$tar" "${tar%.tar}.lock"
  log "imported $IMAGE"
}

# Mount points under STATE_DIR, deepest first (mountinfo escapes spaces as \040).
mounts_under() {
  awk -v p="$state/" '{ m = $5; gsub(/\\040/, " ", m)
                        if (index(m, p) == 1) print length(m) "\t" m }' /proc/self/mountinfo |
    sort -rn | cut -f 2-
}

unmount_all() {
  local pass m
  for pass in 1 2 3 4 5; do
    [ -n "$(mounts_under)" ] || return 0
    while IFS= read -r m; do
      umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
    done < <(mounts_under)
  done
  [ -z "$(mounts_under)" ] || log "still mounted under $state: $(mounts_under | tr '\n' ' ')"
}

# SIGKILL to the engine's processes (dockerd, containerd, shims, runc) whose command line
# names STATE_DIR: what outlived a dockerd that was killed.
kill_leftovers() {
  local d pid comm
  for d in /proc/[0-9]*; do
    pid=${d#/proc/}
    comm=$(cat "$d/comm" 2>/dev/null) || continue
    case $comm in dockerd | containerd | containerd-shim* | runc | docker-proxy) ;; *) continue ;; esac
    if tr '\0' '\n' <"$d/cmdline" 2>/dev/null | grep -qF -- "$state/"; then
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
}

# SIGKILL to every process left in the containers' cgroups (thawed first: a frozen
# process takes no signal), then the cgroups removed.
kill_cgroups() {
  local d f p
  for d in $(find /sys/fs/cgroup -mindepth 1 -maxdepth 4 -type d -name "$CGROUP" 2>/dev/null); do
    for f in $(find "$d" -name freezer.state); do echo THAWED >"$f" 2>/dev/null || true; done
    for f in $(find "$d" -name cgroup.freeze); do echo 0 >"$f" 2>/dev/null || true; done
    for p in $(find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null); do
      kill -KILL "$p" 2>/dev/null || true
    done
  done
  sleep 0.2
  for d in $(find /sys/fs/cgroup -mindepth 1 -maxdepth 4 -type d -name "$CGROUP" 2>/dev/null); do
    find "$d" -depth -type d -exec rmdir {} + 2>/dev/null || true
  done
}

# Stops the running private dockerd $1: its containers and networks removed first.
stop_dockerd() {
  local pid=$1 ids b i=0
  ids=$(docker -H "unix://$SOCK" ps -aq 2>/dev/null || true)
  [ -z "$ids" ] || docker -H "unix://$SOCK" rm -f $ids >/dev/null 2>&1 || true
  # dockerd keeps the bridges of user-defined networks when it stops: remove the
  # networks, and after it exits any bridge of theirs that is still there.
  for b in $(docker -H "unix://$SOCK" network ls -q --filter driver=bridge 2>/dev/null); do
    bridges="$bridges br-$(printf %.12s "$b")"
  done
  docker -H "unix://$SOCK" network prune -f >/dev/null 2>&1 || true
  kill -TERM "$pid" 2>/dev/null || true
  while [ -n "$(starttime "$pid")" ] && [ $i -lt $((${STRATA_DOCKER_STOP_S:-30} * 10)) ]; do
    sleep 0.1
    i=$((i + 1))
  done
  if [ -n "$(starttime "$pid")" ]; then
    log "dockerd $pid still runs: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
}

cmd_stop_quiet() {
  local b bridges=""
  if [ "$(engine_kind)" = external ]; then
    rm -f "$state/engine" "$state/docker-host"
    rmdir "$state" 2>/dev/null || true
    return 0
  fi
  pid=$(private_pid)
  if [ -z "$pid" ] && [ "$(engine_kind)" = private ] && [ -d "$state/data/network" ] &&
    [ "$relaunch" = 1 ]; then
    # It died or was killed: what ran in its containers goes, then its dockerd once more
    # (20 s at most) removes the containers and networks it knows.
    log "dockerd is gone: starting it once more to remove its containers and networks"
    kill_cgroups
    kill_leftovers
    launch 20 || pid=$(private_pid)
  fi
  [ -z "$pid" ] || stop_dockerd "$pid"
  for b in $bridges; do
    ! ip link show "$b" >/dev/null 2>&1 || ip link del "$b" 2>/dev/null || true
  done
  if [ -d "$state" ]; then
    kill_cgroups
    kill_leftovers
    unmount_all
    rm -rf --one-file-system "$state/data" "$state/exec"
    rm -f "$state/engine" "$state/docker-host" "$state/docker.sock" "$state/docker.pid" \
      "$state/daemon.json" "$state/key.json" "$state/dockerd.log" "$state/rootfs.tar" \
      "$state/rootfs.lock"
    rmdir "$state" 2>/dev/null || true
  fi
}

case $cmd in
  start) cmd_start ;;
  base-image) cmd_base_image ;;
  stop) cmd_stop_quiet ;;
  *) usage ;;
esac
