#!/usr/bin/env bash
# rs-kill.sh - kill -9 a region server container (the one holding most of the table's
# regions) with `strata chaos --control docker --kinds kill-rs`: its regions reopen on the
# others with every acknowledged row. Figure: the MTTR chaos measures (kill until every
# region of the killed server serves again), then every row is read back; the container
# is started again by chaos and serves.
. "$(dirname "$0")/lib.sh"
client_start
write_data 2 500 4
log "strata chaos --control docker --kinds kill-rs --actions 1"
out=$(cl chaos --zk.quorum "$Q" --control docker --kinds kill-rs --actions 1 \
  --session-timeout-ms "$SESSION_MS" --table "$TABLE" --json 2>&1) || {
  echo "$out" >&2
  die "the kill-rs action did not recover"
}
echo "$out" | grep -v '^{' >&2 || true
mttr=$(echo "$out" | sed -n 's/.*"action":"kill-rs".*"recovered_s":\([0-9.]*\),.*"failed":false.*/\1/p' | tail -n 1)
[ -n "$mttr" ] || die "no recovery time in chaos's report"
figure mttr_s "$mttr" s
verify_data
for s in rs1 rs2 rs3; do wait_healthy "$s"; done
