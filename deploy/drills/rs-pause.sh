#!/usr/bin/env bash
# rs-pause.sh - `docker pause` the region server container the load uses most for longer
# than the ZooKeeper session timeout, then unpause it, while `verify linkedlist generate`
# writes: its regions reopen elsewhere meanwhile, and after the unpause it acknowledges no
# write (its /metrics write_calls_acknowledged_count does not grow after the pause began)
# and exits (restart: on-failure starts a new instance) or rejoins. Every node the load
# wrote is read back. Figures: the pause, and the time from the unpause until the server
# is healthy again.
. "$(dirname "$0")/lib.sh"
client_start
pause_ms=$((SESSION_MS + 5000))
load_start $((pause_ms / 1000 + 25))
sleep 6
victim=${STRATA_DRILL_VICTIM:-$(busiest_rs)}
before=$(acked_writes "$victim")
[ -n "$before" ] || die "no write_calls_acknowledged_count on $victim's /metrics"
log "docker pause $victim for $(secs $pause_ms) s (session timeout $(secs "$SESSION_MS") s; $before writes acknowledged)"
c=$(container_of "$victim")
docker pause "$c" >/dev/null
sleep "$(secs $pause_ms)"
figure paused_s "$(secs $pause_ms)" s
docker unpause "$c" >/dev/null
t0=$(now_ms)
after=$(acked_writes "$victim" || true)
log "acknowledged writes on $victim: $before when paused, ${after:-none (it no longer answers)} after the unpause"
[ -z "$after" ] || [ "${after%.*}" -le "${before%.*}" ] ||
  die "$victim acknowledged $((${after%.*} - ${before%.*})) write(s) after its session expired"
wait_healthy "$victim" 120
figure back_healthy_s "$(secs $(($(now_ms) - t0)))" s
load_wait
verify_data
