#!/usr/bin/env bash
# add-rs.sh - a region server added under load: while `verify linkedlist generate` writes,
# `docker-compose --profile scale up -d --scale rs=N+1` starts one from the template service
# (it advertises its container's host name); it registers, `balance` gives it regions, the
# load sees no failed write, and every node is read back. Figures: the time until the new
# server is healthy and until it holds a region.
. "$(dirname "$0")/lib.sh"
client_start
load_start 40
sleep 8
before=$(dc ps -q rs 2>/dev/null | sort)
n=$(($(echo "$before" | grep -c . || true) + 1))
t0=$(now_ms)
log "docker-compose --profile scale up -d --scale rs=$n"
dc --profile scale up -d --no-build --no-recreate --scale "rs=$n" rs >/dev/null 2>&1 ||
  die "scale up failed"
new=$(comm -13 <(echo "$before") <(dc ps -q rs | sort) | head -n 1)
[ -n "$new" ] || die "no new rs container"
limit=$((SECONDS + 120))
until [ "$(docker inspect -f '{{.State.Health.Status}}' "$new")" = healthy ]; do
  [ $SECONDS -lt $limit ] || die "the new region server is not healthy within 120 s"
  sleep 0.5
done
figure new_rs_healthy_s "$(secs $(($(now_ms) - t0)))" s
name=$(docker inspect -f '{{.Config.Hostname}}' "$new")
log "the new region server advertises $name"
limit=$((SECONDS + 60))
until cl shell -n -e "status 'detailed'" 2>/dev/null | grep -A1 "^ *$name:17020 " |
  grep -q "numberOfOnlineRegions=[1-9]"; do
  cl shell -n -e "balancer" >/dev/null 2>&1 || true
  [ $SECONDS -lt $limit ] || die "the new server $name holds no region within 60 s"
  sleep 2
done
figure new_rs_holds_regions_s "$(secs $(($(now_ms) - t0)))" s
load_wait
verify_data
log "the new server stays; deploy/compose-up.sh down removes it"
