#!/usr/bin/env bash
# restart-all.sh - `docker-compose restart` of the whole deployment: every container
# stopped (SIGTERM, then SIGKILL after its stop_grace_period) and started again; every
# row written before is read back. Figure: the time from the restart command until a put
# succeeds.
. "$(dirname "$0")/lib.sh"
client_start
write_data 2 500 4
log "docker-compose restart"
t0=$(now_ms)
dc restart >/dev/null 2>&1 || die "docker-compose restart failed"
figure restart_command_s "$(secs $(($(now_ms) - t0)))" s
wait_all_healthy 180
figure all_healthy_s "$(secs $(($(now_ms) - t0)))" s
put_ms=$(time_until_put 120)
figure first_put_after_restart_s "$(secs $(($(now_ms) - t0)))" s
verify_data
