#!/usr/bin/env bash
# zk-lose-node.sh - on the ensemble deployment (deploy/compose-up.sh --zk3), kill -9 the
# ZooKeeper leader's container: the other two elect a leader and the cluster keeps
# serving (every row read back, puts succeed); the node is started again and rejoins.
# Figures: the time until a put succeeds after the kill, and until the node is healthy.
. "$(dirname "$0")/lib.sh"
case $(quorum) in *,*) ;; *) echo "$DRILL: needs the ensemble (deploy/compose-up.sh --zk3)" >&2; exit 2 ;; esac
client_start
write_data 2 500 4
mode() { clx bash -c "exec 3<>/dev/tcp/$1/2181; printf srvr >&3; timeout 2 cat <&3" 2>/dev/null |
  sed -n 's/^Mode: //p'; }
leader=""
for z in zookeeper zk2 zk3; do [ "$(mode $z)" = leader ] && leader=$z; done
[ -n "$leader" ] || die "no ZooKeeper node says it is the leader"
log "docker kill -s KILL $leader (the ZooKeeper leader)"
t0=$(now_ms)
docker kill -s KILL "$(container_of "$leader")" >/dev/null
figure first_put_after_leader_kill_s "$(secs "$(time_until_put 60)")" s
verify_data
docker start "$(container_of "$leader")" >/dev/null
wait_healthy "$leader"
figure node_back_s "$(secs $(($(now_ms) - t0)))" s
for z in zookeeper zk2 zk3; do
  case $(mode $z) in leader | follower) ;; *) die "$z is not in the ensemble after the restart" ;; esac
done
for s in master1 master2 rs1 rs2 rs3; do wait_healthy "$s"; done
