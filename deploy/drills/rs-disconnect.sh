#!/usr/bin/env bash
# rs-disconnect.sh - `docker network disconnect` a region server container for longer than
# the session timeout, then connect it again: its regions reopen on the others with every
# row, a put works meanwhile, and afterwards it exits (and is restarted) or rejoins; the
# cluster ends with every region server healthy. Figures: the time until a put succeeds
# while it is cut off, and until it is healthy after the reconnect.
. "$(dirname "$0")/lib.sh"
client_start
write_data 2 500 4
victim=${STRATA_DRILL_VICTIM:-$(busiest_rs)}
net=$(network)
c=$(container_of "$victim")
log "docker network disconnect $net $victim"
t0=$(now_ms)
docker network disconnect "$net" "$c"
sleep "$(secs $((SESSION_MS + 3000)))"
verify_data
figure put_while_cut_off_s "$(secs "$(time_until_put 60)")" s
log "docker network connect $net $victim"
docker network connect --alias "$victim" "$net" "$c"
t1=$(now_ms)
wait_healthy "$victim" 180
limit=$((SECONDS + 120))
until [ "$(http_code "http://$victim:17030/readyz")" = 200 ]; do
  [ $SECONDS -lt $limit ] || die "$victim does not serve again within 120 s of the reconnect"
  sleep 0.5
done
figure healthy_after_reconnect_s "$(secs $(($(now_ms) - t1)))" s
verify_data
