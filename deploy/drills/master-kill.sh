#!/usr/bin/env bash
# master-kill.sh - kill -9 the active master's container: the backup becomes active, every
# row written before is read back, and a write works through the new master. Figures: the
# takeover time (kill until the other master's /readyz answers 200) and the time until a
# put succeeds. The killed master's container is started again and rejoins as the backup.
. "$(dirname "$0")/lib.sh"
client_start
write_data 2 500 4
old=$(active_master)
[ -n "$old" ] || die "no active master"
case $old in master1) new=master2 ;; *) new=master1 ;; esac
wait_healthy "$new"
log "docker kill -s KILL $old (the active master); $new is the backup"
t0=$(now_ms)
docker kill -s KILL "$(container_of "$old")" >/dev/null
limit=$((SECONDS + 120))
until [ "$(http_code "http://$new:17010/readyz")" = 200 ]; do
  [ $SECONDS -lt $limit ] || die "$new did not become active within 120 s"
  sleep 0.1
done
takeover=$(($(now_ms) - t0))
figure takeover_s "$(secs $takeover)" s
put_ms=$(time_until_put 60)
figure first_put_after_takeover_s "$(secs $put_ms)" s
verify_data
cl shell -n -e "create '${TABLE}_new', 'f'; put '${TABLE}_new', 'r1', 'f:a', 'v'; get '${TABLE}_new', 'r1'" >/dev/null ||
  die "DDL or a put through $new failed"
log "docker start $old: it comes back as the backup"
docker start "$(container_of "$old")" >/dev/null
wait_healthy "$old"
[ "$(active_master)" = "$new" ] || die "$new is no longer the active master after $old came back"
[ "$(http_code "http://$old:17010/readyz")" = 503 ] || die "$old is not a backup (readyz not 503)"
