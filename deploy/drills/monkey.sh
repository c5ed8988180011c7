#!/usr/bin/env bash
# monkey.sh [SECONDS] [POLICY] - HBase's chaos monkey on the compose deployment: `strata
# verify linkedlist generate` writes for SECONDS (default 120) while `--monkey POLICY`
# (default serverKilling; docs/chaos.md) kills, pauses and restarts the containers
# through the docker control backend; then every node is verified. Figures: the nodes
# written, the actions done and failed, and the worst recovery (MTTR) and writer stall,
# from the report (docs/reliability.md explains it).
. "$(dirname "$0")/lib.sh"
secs_run=${1:-120}
policy=${2:-serverKilling}
client_start
cl shell -n -e "create '${TABLE}_probe', 'f'" >/dev/null 2>&1 || true
log "linkedlist generate for $secs_run s under --monkey $policy --monkey-control docker"
out=$(cl verify linkedlist generate --zk.quorum "$Q" --table "$TABLE" --regions 6 --loaders 2 \
  --width 500 --wrap 4 --duration "$secs_run" --rate 500 --monkey "$policy" \
  --monkey-control docker --monkey-session-timeout-ms "$SESSION_MS" 2>&1) || {
  echo "$out" >&2
  die "the load or a monkey action failed"
}
echo "$out" >&2
NODES=$(echo "$out" | sed -n 's/^nodes written: \([0-9]*\) .*/\1/p' | tail -n 1)
[ -n "$NODES" ] || die "no \"nodes written\" in the report"
figure nodes_written "$NODES" nodes
echo "$out" | sed -n 's/^chaos: \([0-9]*\) action(s): \([0-9]*\) done, \([0-9]*\) skipped, \([0-9]*\) failed.*/\1 \2 \3 \4/p' |
  tail -n 1 | { read -r n d s f && figure actions "$n" "total ($d done, $s skipped, $f failed)"; } || true
verify_data
