#!/usr/bin/env bash
# deploy/netns-cluster.sh - runs the topology of deploy/docker-compose.yml without Docker,
# one Linux network namespace per service, and checks the cluster through `strata shell`
# (docs/deploy.md, "The compose topology without Docker").
#
#   sudo deploy/netns-cluster.sh [--strata BIN] [--compose FILE] [--timeout SECONDS] [--keep]
#                                [--rs-bandwidth RATE] [--partition-drill SECONDS]
#
# What it builds (SUF is unique to the run):
#   - a bridge strbr0SUF with no address and no uplink, and one namespace strata-SUF-NAME
#     per compose service plus `client`, each with lo up and a veth into the bridge holding
#     10.231.X.(10+i)/24 (X picked so that no route or address of this host is in it);
#     no default route: nothing leaves the bridge;
#   - /etc/netns/strata-SUF-NAME/hosts naming every service (and resolv.conf with no
#     server), which `ip netns exec` mounts over /etc/hosts;
#   - a temporary directory: the named volume (strata-root) and ZooKeeper's data and logs.
# It then starts the services in file order, each once its depends_on conditions hold:
#   - the ZooKeeper image (strata-zookeeper built from deploy/zookeeper, or zookeeper:*) is
#     replaced by Debian's ZooKeeper run directly (java, as docs/cluster.md), with the
#     image's defaults (tickTime 2000, port 2181) and its ZOO_* settings; services under a
#     `profiles:` key are not started (as by `docker-compose up`);
#     healthy = answers ruok with imok;
#   - every other service runs `ip netns exec NS env -i <its environment> strata <its
#     command>`: exactly the compose environment, a value under a named volume's mount
#     point rewritten to the volume's temporary directory; healthy = its compose health
#     check command (curl on /healthz or /readyz) passes inside its namespace, first tried
#     the check's interval after the start (as Docker does).
# Checks, through `strata shell -n --zk.quorum Q` in the client namespace: status 'simple'
# shows 3 live servers and an active master (a compose service name: the advertised
# host); create a table split in 4 regions, put, get, scan; /readyz of every region server
# and of the active master answer 200 by name from the client namespace; SIGKILL the
# active master; the other one becomes active; the rows are still read, a put and a new
# table work through it, and /readyz answers on it; every region server and the
# surviving master stop on SIGTERM with status 0.
#
# Exit status: 0 when every check passed, 1 when one failed, 2 for bad usage or a missing
# prerequisite, 124 at the time limit (--timeout, default 210 s). Everything it made is
# removed on any exit (trap): processes in its namespaces (SIGKILL), namespaces, veths,
# bridge, /etc/netns entries and the temporary directory (kept with --keep); on failure
# the end of every service's log is printed first. Needs root, ip (iproute2), curl,
# python3, java and the zookeeper package. Restart policies and published ports are not
# emulated.
#
# --rs-bandwidth RATE (tc's units, e.g. 20mbit) caps each region server's network, as a
# machine with that link would be: a token bucket (tc qdisc tbf, burst 32kbit, latency
# 400ms) on both ends of its veth, so traffic to and from it is shaped; the check then
# also finds the qdisc on each. The qdiscs go with the veths at the end.
#
# --partition-drill SECONDS (docs/reliability.md, "Network partitions"): before the
# master failover check, `strata verify linkedlist generate` runs for SECONDS in the
# client namespace beside `--monkey` with the kinds partition-rs-zk and partition-master
# (docs/chaos.md), controlled through $TMP/control.sh: it cuts a region server off from
# ZooKeeper (nft in its namespace drops ZooKeeper's address both ways; clients and the
# masters still reach it), or the active master off from everyone, heals it once the
# cluster recovered, and starts again what exited. Each region server cut off must have
# acknowledged its last write before its regions reopened elsewhere, and exit after the
# heal; the old master must not be active again. Then `verify --expected` must find every
# node written. The report goes to the log; the drill fails the run if any check fails.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
COMPOSE=$HERE/docker-compose.yml
STRATA=${STRATA_BIN:-$HERE/../build/strata}
TIMEOUT_S=210
KEEP=0
RS_BANDWIDTH=""
PARTITION_S=""
T0=$SECONDS

SUF="" BR="" NET="" TMP="" WATCHDOG=""
NAMESPACES=()       # every namespace made, in creation order
declare -A PID=()   # service -> pid of its process
declare -A START=() # service -> $SECONDS at its start
declare -A ADOPTED=() # service -> 1 when the drill started it again (not our child)
QUORUM="" PARENT=""

log() { printf 'netns [%3ds] %s\n' $((SECONDS - T0)) "$*"; }
die() { log "FAIL: $*"; exit 1; }
usage_die() { echo "netns-cluster.sh: $*" >&2; exit 2; }

parse_args() {
  while [ $# -gt 0 ]; do
    case "$1" in
      --strata) STRATA=$2; shift 2 ;;
      --compose) COMPOSE=$2; shift 2 ;;
      --timeout) TIMEOUT_S=$2; shift 2 ;;
      --keep) KEEP=1; shift ;;
      --rs-bandwidth)
        [ $# -ge 2 ] || usage_die "--rs-bandwidth needs a rate (e.g. 20mbit)"
        [[ $2 =~ ^[0-9]+(\.[0-9]+)?([kmg]?(bit|bps))$ ]] ||
          usage_die "--rs-bandwidth '$2': want a rate such as 20mbit, 500kbit or 2mbps"
        RS_BANDWIDTH=$2; shift 2 ;;
      --partition-drill)
        [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || usage_die "--partition-drill needs seconds (e.g. 120)"
        PARTITION_S=$2; shift 2 ;;
      -h|--help) sed -n '2,58p' "$0"; exit 0 ;;
      *) usage_die "unknown argument '$1' (--help)" ;;
    esac
  done
}

preflight() {
  [ "$(id -u)" = 0 ] || usage_die "must run as root (network namespaces)"
  local c
  for c in ip curl python3 java timeout; do
    command -v "$c" >/dev/null || usage_die "'$c' is not installed"
  done
  ls /usr/share/java/zookeeper*.jar >/dev/null 2>&1 ||
    usage_die "Debian's zookeeper package is not installed (/usr/share/java/zookeeper*.jar)"
  [ -f "$COMPOSE" ] || usage_die "no compose file $COMPOSE"
  [ -x "$STRATA" ] || usage_die "no strata binary at $STRATA (--strata or STRATA_BIN)"
  [ -z "$RS_BANDWIDTH" ] || command -v tc >/dev/null ||
    usage_die "--rs-bandwidth needs tc (Debian's iproute2)"
  [ -z "$PARTITION_S" ] || command -v nft >/dev/null ||
    usage_die "--partition-drill needs nft (Debian's nftables)"
  STRATA=$(cd "$(dirname "$STRATA")" && pwd)/$(basename "$STRATA")
}

# ---- cleanup -------------------------------------------------------------------------

dump_logs() {
  local f
  for f in "$TMP"/logs/*.log; do
    [ -f "$f" ] || continue
    echo "----- last lines of $(basename "$f") -----"
    tail -n 40 "$f"
  done
}

cleanup() {
  local rc=$? ns pids i
  set +e
  trap - EXIT INT TERM HUP
  if [ -n "$WATCHDOG" ]; then
    pkill -P "$WATCHDOG" 2>/dev/null
    kill "$WATCHDOG" 2>/dev/null
    wait "$WATCHDOG" 2>/dev/null
  fi
  [ "$rc" != 0 ] && [ -n "$TMP" ] && dump_logs
  for ns in "${NAMESPACES[@]}"; do
    pids=$(ip netns pids "$ns" 2>/dev/null)
    # shellcheck disable=SC2086 # one pid per word
    [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
  done
  for i in $(seq 50); do  # up to 5 s for the killed processes to leave the namespaces
    pids=""
    for ns in "${NAMESPACES[@]}"; do pids+=$(ip netns pids "$ns" 2>/dev/null); done
    [ -z "$pids" ] && break
    sleep 0.1
  done
  wait 2>/dev/null
  for ns in "${NAMESPACES[@]}"; do
    ip netns del "$ns" 2>/dev/null
    rm -rf "/etc/netns/$ns"
  done
  if [ -n "$SUF" ]; then  # veths the namespaces did not take with them, and the bridge
    for i in $(seq 0 15); do ip link del "sv$SUF$i" 2>/dev/null; done
    ip link del "$BR" 2>/dev/null
  fi
  if [ -n "$TMP" ]; then
    if [ "$KEEP" = 1 ]; then log "kept $TMP"; else rm -rf "$TMP"; fi
  fi
  if [ "$rc" = 0 ]; then log "ok"; else log "exit status $rc"; fi
  exit "$rc"
}

# ---- the compose file ----------------------------------------------------------------

# Reads the compose file (the subset it uses: block mappings and lists, flow lists
# written as JSON, no anchors) into $TMP/spec/: `services` (one per line, in order) and
# per service: image, command, env (volume mount points rewritten to $TMP/volumes/V),
# depends (DEP CONDITION), health (the test command, one word per line).
parse_compose() {
  python3 - "$COMPOSE" "$TMP/spec" "$TMP/volumes" <<'PY'
import json, os, re, sys

path, out, volroot = sys.argv[1:4]

def fail(msg):
    sys.stderr.write("netns-cluster.sh: %s: %s\n" % (path, msg))
    sys.exit(2)

def scalar(text, ln):
    s = text.strip()
    if s.startswith("["):
        try:
            v = json.loads(s)
        except ValueError:
            fail("line %d: a flow list must be written as JSON: %s" % (ln, s))
        if not all(isinstance(x, str) for x in v):
            fail("line %d: a flow list must hold strings" % ln)
        return v
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "\"'":
        return s[1:-1]
    if s[:1] in ("{", "&", "*", "|", ">", "!") or " #" in s:
        fail("line %d: YAML this parser does not read: %s" % (ln, s))
    return s

lines = []
with open(path) as f:
    for n, raw in enumerate(f, 1):
        if "\t" in raw:
            fail("line %d: tab character" % n)
        t = raw.rstrip()
        if not t.strip() or t.lstrip().startswith("#"):
            continue
        lines.append((n, len(t) - len(t.lstrip(" ")), t.strip()))

def block(i, indent):
    if lines[i][2].startswith("-"):
        items = []
        while i < len(lines) and lines[i][1] == indent and lines[i][2].startswith("-"):
            items.append(scalar(lines[i][2][1:], lines[i][0]))
            i += 1
        if i < len(lines) and lines[i][1] > indent:
            fail("line %d: nested list items are not read" % lines[i][0])
        return items, i
    m = {}
    while i < len(lines) and lines[i][1] == indent:
        n, _, text = lines[i]
        key, sep, rest = text.partition(":")
        key = key.strip().strip("\"'")
        if not sep or text.startswith("-") or key in m:
            fail("line %d: expected a new key: %s" % (n, text))
        i += 1
        if rest.strip():
            m[key] = scalar(rest, n)
        elif i < len(lines) and lines[i][1] > indent:
            m[key], i = block(i, lines[i][1])
        else:
            m[key] = None
    if i < len(lines) and lines[i][1] > indent:
        fail("line %d: unexpected indentation" % lines[i][0])
    return m, i

doc, end = block(0, 0) if lines else ({}, 0)
if end != len(lines) or not isinstance(doc.get("services"), dict):
    fail("no services mapping at the top level")

os.makedirs(out)
def write(svc, name, rows):
    with open(os.path.join(out, svc, name), "w") as f:
        f.writelines(r + "\n" for r in rows)

# Services under a profile (the scaling template, the client) are not started by a plain
# `docker-compose up` either.
services = {k: v for k, v in doc["services"].items() if not (v or {}).get("profiles")}
names = list(services)
for svc, s in services.items():
    s = s or {}
    os.makedirs(os.path.join(out, svc))
    image = s.get("image") or ("build" if "build" in s else fail("%s: no image or build" % svc))
    # ZooKeeper: the image built from deploy/zookeeper (or an official zookeeper:* one);
    # every other service built from deploy/Dockerfile is Strata.
    if image.split(":")[0] in ("zookeeper", "strata-zookeeper"):
        image = "zookeeper:" + image.split(":", 1)[-1]
    elif "build" in s:
        image = "build"
    else:
        fail("%s: image %s is neither ZooKeeper nor built from deploy/" % (svc, image))
    env = s.get("environment") or []
    if not isinstance(env, list) or any("=" not in e for e in env):
        fail("%s: environment must be a list of KEY=VALUE" % svc)
    command = s.get("command") or []
    if not isinstance(command, list):
        fail("%s: command must be a flow list [\"...\"]" % svc)
    mounts = []
    for v in s.get("volumes") or []:
        src, _, dst = v.partition(":")
        dst = dst.split(":")[0]
        if src.startswith((".", "/")) or not dst.startswith("/"):
            fail("%s: only named volumes are read: %s" % (svc, v))
        mounts.append((dst.rstrip("/"), os.path.join(volroot, src)))
    def mapped(e):
        k, _, val = e.partition("=")
        for dst, host in mounts:
            if val == dst or val.startswith(dst + "/"):
                val = host + val[len(dst):]
        return k + "=" + val
    deps = s.get("depends_on") or {}
    if isinstance(deps, list):
        deps = {d: {"condition": "service_started"} for d in deps}
    rows = []
    for d, c in deps.items():
        if d not in names or names.index(d) >= names.index(svc):
            fail("%s depends on %s, which is not an earlier service" % (svc, d))
        rows.append("%s %s" % (d, (c or {}).get("condition", "service_started")))
    hc = s.get("healthcheck") or {}
    test = hc.get("test") or []
    interval = 30.0
    if hc.get("interval"):
        parts = re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h)", hc["interval"])
        if "".join(a + b for a, b in parts) != hc["interval"]:
            fail("%s: healthcheck interval '%s' is not a duration" % (svc, hc["interval"]))
        unit = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}
        interval = sum(float(a) * unit[b] for a, b in parts)
    if test and (not isinstance(test, list) or test[0] not in ("CMD", "CMD-SHELL")):
        fail("%s: healthcheck test must be [\"CMD\", ...]" % svc)
    if test and test[0] == "CMD-SHELL":
        test = ["sh", "-c", " ".join(test[1:])]
    else:
        test = test[1:]
    write(svc, "image", [image])
    write(svc, "command", command)
    write(svc, "env", [mapped(e) for e in env])
    write(svc, "depends", rows)
    write(svc, "health", test)
    write(svc, "interval", ["%d" % max(1, round(interval))])
    for _, host in mounts:
        os.makedirs(host, exist_ok=True)
with open(os.path.join(out, "services"), "w") as f:
    f.writelines(n + "\n" for n in names)
PY
}

# The value of KEY in SERVICE's environment, "" if absent.
env_of() { sed -n "s/^$2=//p" "$TMP/spec/$1/env" | head -n 1; }

# ---- network ---------------------------------------------------------------------------

pick_names() {
  local i
  for i in $(seq 20); do
    SUF=$(printf '%05x' $(( (RANDOM << 8 ^ $$ ^ RANDOM) & 0xfffff )))
    BR=strbr0$SUF
    ip link show "$BR" >/dev/null 2>&1 || ls /var/run/netns/strata-"$SUF"-* >/dev/null 2>&1 ||
      return 0
  done
  die "no free bridge name"
}

pick_subnet() {
  local used x i
  used=$(ip -4 -o addr show; ip -4 route show table all)
  for i in $(seq 254); do
    x=$(( (RANDOM % 254) + 1 ))
    if ! grep -q "10\.231\.$x\." <<<"$used"; then
      NET=10.231.$x
      return 0
    fi
  done
  die "no free 10.231.X.0/24 subnet"
}

make_network() {
  local names=("$@") i ns name
  ip link add "$BR" type bridge
  ip link set "$BR" up
  {
    echo "127.0.0.1 localhost"
    for i in "${!names[@]}"; do echo "$NET.$((10 + i)) ${names[$i]}"; done
  } >"$TMP/hosts"
  for i in "${!names[@]}"; do
    name=${names[$i]}
    ns=strata-$SUF-$name
    ip netns add "$ns"
    NAMESPACES+=("$ns")
    mkdir -p "/etc/netns/$ns"
    cp "$TMP/hosts" "/etc/netns/$ns/hosts"
    : >"/etc/netns/$ns/resolv.conf"
    ip link add "sv$SUF$i" type veth peer name "sp$SUF$i"
    ip link set "sv$SUF$i" master "$BR" up
    ip link set "sp$SUF$i" netns "$ns"
    ip -n "$ns" link set "sp$SUF$i" name eth0
    ip -n "$ns" addr add "$NET.$((10 + i))/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
  done
  log "bridge $BR, subnet $NET.0/24, namespaces strata-$SUF-{$(IFS=,; echo "${names[*]}")}"
}

nsx() { local name=$1; shift; ip netns exec "strata-$SUF-$name" "$@"; }

# The services that run region servers (command `regionserver`). (An `if`, not `&&`: a
# last service of another kind must not make the function fail under set -e.)
rs_services() {
  local svc
  while read -r svc; do
    if [ "$(head -n 1 "$TMP/spec/$svc/command" 2>/dev/null)" = regionserver ]; then
      echo "$svc"
    fi
  done <"$TMP/spec/services"
}

# --rs-bandwidth: a token bucket on both ends of each region server's veth.
shape_region_servers() {
  [ -n "$RS_BANDWIDTH" ] || return 0
  local names=("$@") i svc shaped=() rss
  rss=$(rs_services)
  for i in "${!names[@]}"; do
    svc=${names[$i]}
    grep -qx "$svc" <<<"$rss" || continue
    tc qdisc add dev "sv$SUF$i" root tbf rate "$RS_BANDWIDTH" burst 32kbit latency 400ms
    nsx "$svc" tc qdisc add dev eth0 root tbf rate "$RS_BANDWIDTH" burst 32kbit latency 400ms
    shaped+=("$svc")
  done
  [ ${#shaped[@]} -gt 0 ] || die "--rs-bandwidth: no region server service in $COMPOSE"
  log "region servers ${shaped[*]} shaped to $RS_BANDWIDTH each way (tc tbf)"
}

# Each shaped region server still has its qdisc inside its namespace.
check_shaping() {
  [ -n "$RS_BANDWIDTH" ] || return 0
  local svc
  for svc in $(rs_services); do
    nsx "$svc" tc qdisc show dev eth0 | grep -q "tbf.*rate" ||
      die "no tbf qdisc on $svc's eth0"
  done
  log "ok: every region server's link is shaped to $RS_BANDWIDTH"
}

# ---- processes -------------------------------------------------------------------------

# 0 once the process has exited (gone, or a zombie waiting for `wait`).
proc_gone() {
  local st
  st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 0
  [ -z "$st" ] || [ "$st" = Z ]
}

# wait_until SECONDS DESCRIPTION COMMAND...: polls COMMAND every 0.5 s.
wait_until() {
  local start=$SECONDS limit=$(( SECONDS + $1 )) what=$2
  shift 2
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$limit" ] || die "not within $((limit - start)) s: $what"
    sleep 0.5
  done
}

start_zookeeper() {
  local svc=$1 dir=$TMP/zk wl admin
  wl=$(env_of "$svc" ZOO_4LW_COMMANDS_WHITELIST)
  admin=$(env_of "$svc" ZOO_ADMINSERVER_ENABLED)
  mkdir -p "$dir/data"
  cat >"$dir/zoo.cfg" <<EOF
tickTime=2000
initLimit=5
syncLimit=2
dataDir=$dir/data
clientPort=2181
maxClientCnxns=60
admin.enableServer=${admin:-true}
4lw.commands.whitelist=${wl:-srvr}
EOF
  # exec: the recorded pid is the server's own (ip netns exec execs the command).
  ( exec ip netns exec "strata-$SUF-$svc" java -Xms32m -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -Dzookeeper.admin.enableServer="${admin:-true}" -Dlog4j.configuration=file:/dev/null \
    -cp '/usr/share/java/*' org.apache.zookeeper.server.ZooKeeperServerMain "$dir/zoo.cfg" ) \
    </dev/null >>"$TMP/logs/$svc.log" 2>&1 &
  PID[$svc]=$!
  START[$svc]=$SECONDS
  echo "${PID[$svc]}" >"$TMP/pids/$svc"
}

start_strata() {
  local svc=$1 envs cmd
  mapfile -t envs <"$TMP/spec/$svc/env"
  mapfile -t cmd <"$TMP/spec/$svc/command"
  ( exec ip netns exec "strata-$SUF-$svc" env -i "${envs[@]}" "$STRATA" "${cmd[@]}" ) \
    </dev/null >>"$TMP/logs/$svc.log" 2>&1 &
  PID[$svc]=$!
  START[$svc]=$SECONDS
  echo "${PID[$svc]}" >"$TMP/pids/$svc"
  # The same start, for the drill's control script (write_control).
  { printf 'exec ip netns exec %q env -i' "strata-$SUF-$svc"
    printf ' %q' "${envs[@]}" "$STRATA" "${cmd[@]}"
    printf '\n'; } >"$TMP/spec/$svc/launch"
}

zk_ruok() {  # zk_ruok FROM_NAMESPACE HOST
  [ "$(nsx "$1" timeout 3 bash -c "exec 3<>/dev/tcp/$2/2181 && printf ruok >&3 && cat <&3")" = imok ]
}

is_strata() { [ "$(cat "$TMP/spec/$1/image")" = build ]; }

# 0 when SERVICE passes its health check (as emulated: see the top of this file); a
# service without one counts as healthy once started, as in Docker.
healthy() {
  local svc=$1 health=()
  if ! is_strata "$svc"; then
    zk_ruok "$svc" localhost
    return
  fi
  mapfile -t health <"$TMP/spec/$svc/health"
  [ ${#health[@]} = 0 ] || nsx "$svc" timeout 10 "${health[@]}"
}

# As Docker, the first probe runs the health check's interval after the start.
wait_healthy() {
  local svc=$1 limit=$(( SECONDS + $2 )) first
  first=$(( START[$svc] + $(cat "$TMP/spec/$svc/interval") ))
  while [ "$SECONDS" -lt "$first" ]; do
    proc_gone "${PID[$svc]}" && die "$svc exited while starting"
    sleep 0.5
  done
  while :; do
    proc_gone "${PID[$svc]}" && die "$svc exited while starting"
    healthy "$svc" >/dev/null 2>&1 && return 0
    [ "$SECONDS" -lt "$limit" ] || die "$svc not healthy within $2 s"
    sleep 0.5
  done
}

start_services() {
  local svc dep cond
  while read -r svc; do
    while read -r dep cond; do
      [ -n "$dep" ] || continue
      case "$cond" in
        service_healthy) wait_healthy "$dep" 60 ;;
        service_started) ;;
        *) die "$svc: depends_on condition '$cond' of $dep is not emulated" ;;
      esac
    done <"$TMP/spec/$svc/depends"
    if is_strata "$svc"; then
      start_strata "$svc"
      log "started $svc (pid ${PID[$svc]}): strata $(paste -sd' ' "$TMP/spec/$svc/command")" \
          "with $(wc -l <"$TMP/spec/$svc/env") variables"
    else
      start_zookeeper "$svc"
      log "started $svc (pid ${PID[$svc]}): Debian's ZooKeeper for image $(cat "$TMP/spec/$svc/image")"
    fi
  done <"$TMP/spec/services"
  while read -r svc; do wait_healthy "$svc" 60; done <"$TMP/spec/services"
  log "every service healthy"
}

# stop_group SECONDS SERVICE...: SIGTERM, then the exit status of each must be 0.
stop_group() {
  local limit=$(( SECONDS + $1 )) svc rc bad=""
  shift
  for svc in "$@"; do kill -TERM "${PID[$svc]}" 2>/dev/null || true; done
  for svc in "$@"; do
    while ! proc_gone "${PID[$svc]}"; do
      [ "$SECONDS" -lt "$limit" ] || die "$svc did not stop within the limit after SIGTERM"
      sleep 0.2
    done
    rc=0
    # A process the drill's control script started again is not this shell's child: its
    # exit status is not ours to read (its log has its end).
    if [ -z "${ADOPTED[$svc]:-}" ]; then wait "${PID[$svc]}" || rc=$?; fi
    unset "PID[$svc]"
    [ "$rc" = 0 ] || bad+=" $svc:$rc"
  done
  [ -z "$bad" ] || die "stopped with a non-zero status:$bad"
}

# ---- the client ------------------------------------------------------------------------

# sh_run COMMAND...: `strata shell -n` on the commands (one -e each), run in the client
# namespace with an empty environment; its output, and its exit status.
sh_run() {
  local args=() c
  for c in "$@"; do args+=(-e "$c"); done
  nsx client env -i "$(command -v timeout)" 90 "$STRATA" shell -n --zk.quorum "$QUORUM" \
    --zk.parent "${PARENT:-/strata}" "${args[@]}"
}

# The host of the active master and the number of live servers from `status 'simple'`
# ("active master:  HOST:PORT STARTCODE", "N live servers").
sh_active() { sh_run "status 'simple'" | sed -n 's/^active master: *\([^: ]*\):.*/\1/p'; }
sh_live() { sh_run "status 'simple'" | sed -n 's/^\([0-9]*\) live servers$/\1/p'; }
three_live() { [ "$(sh_live)" = 3 ]; }
active_is() { [ "$(sh_active)" = "$1" ]; }
some_active() { [ -n "$(sh_active)" ]; }

# sh_get TABLE ROW FAMILY:QUALIFIER: the value (" F:Q timestamp=T, value=V").
sh_get() {
  local out
  out=$(sh_run "get '$1', '$2', '$3'") || die "get '$1', '$2', '$3' failed: $out"
  sed -n "s/^ $3 timestamp=[0-9]*, value=//p" <<<"$out"
}

sh_ok() {  # sh_ok WHAT COMMAND...: the commands succeed, or the run fails naming WHAT
  local out
  out=$(sh_run "${@:2}" 2>&1) || die "$1 failed: $out"
}

# The hosts serving regions of TABLE, sorted, one line ("list_regions": SERVER_NAME first,
# "host,port,startcode").
sh_region_hosts() {
  local out
  out=$(sh_run "list_regions '$1'") || die "list_regions '$1' failed: $out"
  awk -F'|' -v t=" $1," 'index($2, t) > 0 { split($1, a, ","); gsub(/ /, "", a[1]); print a[1] }' \
    <<<"$out" | sort -u | paste -sd' '
}

expect_rows() {  # expect_rows TABLE "ROW F:Q VALUE"... (" ROW column=F:Q, timestamp=T, value=V")
  local table=$1 out got want
  shift
  out=$(sh_run "scan '$table'") || die "scan '$table' failed: $out"
  got=$(sed -n 's/^ \([^ ]*\) column=\([^,]*\), timestamp=[0-9]*, value=\(.*\)$/\1 \2 \3/p' <<<"$out")
  want=$(printf '%s\n' "$@")
  [ "$got" = "$want" ] || die "scan '$table': expected"$'\n'"$want"$'\n'"got"$'\n'"$out"
}

check_readyz() {  # check_readyz SERVICE...: from the client namespace, by name
  local svc port url
  for svc in "$@"; do
    port=$(env_of "$svc" STRATA_MASTER_HTTP_PORT)
    [ -n "$port" ] || port=$(env_of "$svc" STRATA_REGIONSERVER_HTTP_PORT)
    url=http://$svc:$port/readyz
    nsx client curl -fsS -m 5 -o /dev/null "$url" || die "$url is not ready (from client)"
  done
  log "/readyz answers 200 from client for: $*"
}

# ---- the partition drill (--partition-drill) ---------------------------------------------

# $TMP/control.sh: the control backend of `strata chaos` (docs/chaos.md) for the services
# of this run: VERB ROLE NAME HOST PORT, HOST a service name.
write_control() {
  local zkip
  zkip=$(awk -v h="${QUORUM%%:*}" '$2 == h {print $1}' "$TMP/hosts")
  [ -n "$zkip" ] || die "no address for ZooKeeper host ${QUORUM%%:*}"
  cat >"$TMP/control.sh" <<EOF
#!/bin/bash
# Written by deploy/netns-cluster.sh for strata chaos --control script:\$0.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
TMP=$(printf %q "$TMP"); SUF=$SUF; ZKIP=$zkip
EOF
  cat >>"$TMP/control.sh" <<'EOF'
verb=$1; svc=$4; ns=strata-$SUF-$svc
[ -f "$TMP/spec/$svc/command" ] || { echo "control: no service $svc" >&2; exit 3; }
pid=$(cat "$TMP/pids/$svc" 2>/dev/null)
alive() {
  local st
  [ -n "$pid" ] || return 1
  st=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)
  [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}
echo "control: $(date +%T.%3N) $*" >>"$TMP/logs/control.log"
case $verb in
  kill|term|stop|cont)
    # Only a pid that still runs in the service's namespace (a recycled pid is not ours).
    alive && ip netns pids "$ns" | grep -qx "$pid" || { echo "control: $svc is not running" >&2; exit 1; }
    kill -"${verb^^}" "$pid" ;;
  alive) alive ;;
  start)
    if alive; then
      kill -CONT "$pid" 2>/dev/null; kill -TERM "$pid"
      for _ in $(seq 300); do alive || break; sleep 0.1; done
      alive && kill -KILL "$pid"
    fi
    [ -f "$TMP/spec/$svc/launch" ] || { echo "control: $svc cannot be started again" >&2; exit 2; }
    setsid bash "$TMP/spec/$svc/launch" </dev/null >>"$TMP/logs/$svc.log" 2>&1 &
    echo $! >"$TMP/pids/$svc"
    echo "$svc" >>"$TMP/adopted"
    mapfile -t health <"$TMP/spec/$svc/health"
    deadline=$((SECONDS + 60))
    while [ "$SECONDS" -lt "$deadline" ]; do
      if [ ${#health[@]} = 0 ] || ip netns exec "$ns" timeout 5 "${health[@]}" >/dev/null 2>&1; then
        exit 0
      fi
      sleep 0.2
    done
    echo "control: $svc not healthy 60 s after its start" >&2; exit 1 ;;
  cut-zk)
    ip netns exec "$ns" nft -f - <<NFT
table inet strata_chaos {
  chain out { type filter hook output priority 0; ip daddr $ZKIP drop; }
  chain in { type filter hook input priority 0; ip saddr $ZKIP drop; }
}
NFT
    ;;
  cut)
    ip netns exec "$ns" nft -f - <<NFT
table inet strata_chaos {
  chain out { type filter hook output priority 0; oifname "eth0" drop; }
  chain in { type filter hook input priority 0; iifname "eth0" drop; }
}
NFT
    ;;
  heal) ip netns exec "$ns" nft delete table inet strata_chaos ;;
  *) exit 2 ;;
esac
EOF
  chmod +x "$TMP/control.sh"
}

# 0 if $1 (JSON) has "key": value equal to $3 at the first "key" after the text $2.
json_field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {"d": d}))' "$@"; }

# Deletes the drill's nft table from every namespace (a run stopped mid-cut leaves one).
heal_all() {
  local ns
  for ns in "${NAMESPACES[@]}"; do
    ip netns exec "$ns" nft delete table inet strata_chaos 2>/dev/null || true
  done
}

partition_drill() {
  write_control
  local st out rc=0
  st=$(env_of "${1}" STRATA_ZK_SESSION_TIMEOUT_MS)
  log "partition drill: linkedlist generate for $PARTITION_S s beside partition-rs-zk and partition-master"
  nsx client env -i "$(command -v timeout)" $((PARTITION_S + 300)) "$STRATA" verify linkedlist generate \
    --zk.quorum "$QUORUM" --zk.parent "${PARENT:-/strata}" --loaders 2 --width 100 --wrap 10 \
    --rate 400 --duration "$PARTITION_S" --monkey slowDeterministic \
    --monkey-kinds partition-rs-zk,partition-master --monkey-period-ms 1000 \
    --monkey-control "script:$TMP/control.sh" --monkey-session-timeout-ms "${st:-10000}" \
    --json >"$TMP/drill.json" 2>>"$TMP/logs/drill.log" || rc=$?
  cat "$TMP/logs/drill.log"
  heal_all
  [ "$rc" = 0 ] || die "the partition drill's generate exited with $rc ($TMP/drill.json: $(head -c 2000 "$TMP/drill.json"))"
  local expected
  expected=$(json_field "$TMP/drill.json" 'd["expected"]')
  json_field "$TMP/drill.json" '"\n".join("netns drill: #%d %s %s: recovered %.2f s, stalls %s s; %s" % (e["seq"], e["action"], e["target"], e["recovered_s"], "/".join("%.2f" % x for x in e["stalls_s"]), e["detail"]) for e in d["monkey"]["events"])'
  [ "$(json_field "$TMP/drill.json" 'd["monkey"]["failed"]')" = 0 ] || die "a partition action failed"
  for k in partition-rs-zk partition-master; do
    [ "$(json_field "$TMP/drill.json" "d['monkey']['kinds'].get('$k', {}).get('n', 0)")" -ge 1 ] ||
      die "the drill never ran $k"
  done
  out=$(nsx client env -i "$STRATA" verify linkedlist verify --zk.quorum "$QUORUM" \
    --zk.parent "${PARENT:-/strata}" --expected "$expected") || die "verify after the drill: $out"
  log "partition drill: verify found all $expected nodes (UNDEFINED=0, UNREFERENCED=0)"
  # What the control script started again is not our child; its pid is in $TMP/pids.
  local svc
  if [ -f "$TMP/adopted" ]; then
    while read -r svc; do
      PID[$svc]=$(cat "$TMP/pids/$svc"); ADOPTED[$svc]=1
    done < <(sort -u "$TMP/adopted")
  fi
}

check_cluster() {
  local masters=() rss=() svc active other code hosts
  while read -r svc; do
    if [ -n "$(env_of "$svc" STRATA_MASTER_PORT)" ]; then masters+=("$svc")
    elif [ -n "$(env_of "$svc" STRATA_REGIONSERVER_PORT)" ]; then rss+=("$svc"); fi
  done <"$TMP/spec/services"
  if [ ${#masters[@]} != 2 ] || [ ${#rss[@]} != 3 ]; then
    die "expected 2 masters and 3 region servers in the compose file"
  fi

  wait_until 60 "status 'simple' showing 3 live servers" three_live
  wait_until 30 "status 'simple' showing an active master" some_active
  active=$(sh_active)
  log "shell: status 'simple': active master $active, 3 live servers"
  case "$active" in "${masters[0]}") other=${masters[1]} ;; "${masters[1]}") other=${masters[0]} ;;
    *) die "active master '$active' is not a compose master" ;; esac
  check_readyz "${rss[@]}" "$active"

  sh_ok "create deploy_t" "create 'deploy_t', 'f', SPLITS => ['g', 'n', 't']"
  sh_ok "put 4 rows" "put 'deploy_t', 'apple', 'f:q', 'v1'" "put 'deploy_t', 'kiwi', 'f:q', 'v2'" \
    "put 'deploy_t', 'pear', 'f:q', 'v3'" "put 'deploy_t', 'zebra', 'f:q', 'v4'"
  [ "$(sh_get deploy_t kiwi f:q)" = v2 ] || die "get 'deploy_t', 'kiwi', 'f:q' is not v2"
  expect_rows deploy_t "apple f:q v1" "kiwi f:q v2" "pear f:q v3" "zebra f:q v4"
  hosts=$(sh_region_hosts deploy_t)
  [ "$hosts" = "${rss[*]}" ] || die "the regions of deploy_t are on '$hosts', not on each of ${rss[*]}"
  log "shell: created deploy_t (4 regions on $hosts), put 4 rows, get and scan read them"
  if [ -n "$PARTITION_S" ]; then
    partition_drill "${rss[0]}"
    wait_until 60 "status 'simple' showing 3 live servers after the drill" three_live
    wait_until 30 "an active master after the drill" some_active
    active=$(sh_active)
    case "$active" in "${masters[0]}") other=${masters[1]} ;; "${masters[1]}") other=${masters[0]} ;;
      *) die "active master '$active' is not a compose master" ;; esac
    expect_rows deploy_t "apple f:q v1" "kiwi f:q v2" "pear f:q v3" "zebra f:q v4"
  fi

  [ "$(ip netns pids "strata-$SUF-$active")" = "${PID[$active]}" ] || [ -n "${ADOPTED[$active]:-}" ] ||
    die "the namespace of $active holds other processes than ${PID[$active]}"
  kill -KILL "${PID[$active]}"
  wait "${PID[$active]}" 2>/dev/null || true
  unset "PID[$active]"
  log "killed the active master $active (SIGKILL); waiting for $other"
  wait_until 90 "$other to become the active master" active_is "$other"
  log "shell: status 'simple': active master $other"
  [ "$(sh_get deploy_t pear f:q)" = v3 ] || die "after failover: get pear f:q is not v3"
  sh_ok "after failover: put mango" "put 'deploy_t', 'mango', 'f:q', 'v5'"
  expect_rows deploy_t "apple f:q v1" "kiwi f:q v2" "mango f:q v5" "pear f:q v3" "zebra f:q v4"
  sh_ok "after failover: create deploy_t2" "create 'deploy_t2', 'f'" \
    "put 'deploy_t2', 'row1', 'f:q', 'w'"
  [ "$(sh_get deploy_t2 row1 f:q)" = w ] || die "after failover: get deploy_t2 row1 is not w"
  check_readyz "${rss[@]}" "$other"
  code=$(nsx client curl -s -m 5 -o /dev/null -w '%{http_code}' \
    "http://$active:$(env_of "$active" STRATA_MASTER_HTTP_PORT)/readyz" || true)
  [ "$code" = 000 ] || die "the killed master $active still answers HTTP ($code)"
  log "shell: after failover the rows are read, a put and a new table work through $other"

  stop_group 120 "${rss[@]}"
  log "region servers stopped on SIGTERM with status 0"
  stop_group 60 "$other"
  log "$other stopped on SIGTERM with status 0"
}

main() {
  parse_args "$@"
  preflight
  TMP=$(mktemp -d /tmp/strata-netns.XXXXXX)
  mkdir -p "$TMP/logs" "$TMP/volumes" "$TMP/pids"
  trap cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  trap 'exit 129' HUP
  ( sleep "$TIMEOUT_S" >/dev/null 2>&1
    echo "netns: time limit of $TIMEOUT_S s reached" >&2
    kill -USR1 $$ ) &
  WATCHDOG=$!
  trap 'exit 124' USR1

  parse_compose || exit 2
  local names=()
  mapfile -t names <"$TMP/spec/services"
  pick_names
  pick_subnet
  make_network "${names[@]}" client
  shape_region_servers "${names[@]}" client
  local svc
  for svc in "${names[@]}"; do
    [ -n "$QUORUM" ] || QUORUM=$(env_of "$svc" STRATA_ZK_QUORUM)
    [ -n "$PARENT" ] || PARENT=$(env_of "$svc" STRATA_ZK_PARENT)
  done
  [ -n "$QUORUM" ] || die "no STRATA_ZK_QUORUM in the compose file"
  start_services
  wait_until 10 "ZooKeeper reachable by name from the client namespace" zk_ruok client "${QUORUM%%:*}"
  check_shaping
  check_cluster
}

main "$@"
