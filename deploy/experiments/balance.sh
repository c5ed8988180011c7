#!/usr/bin/env bash
# deploy/experiments/balance.sh - the balancer under a skewed load, on a local cluster whose
# region servers are CPU-capped, so that imbalance costs throughput (docs/balancer.md
# "The experiment").
#
#   deploy/experiments/balance.sh [--strata BIN] [--out DIR] [--cpu-quota F] [--records N]
#                                 [--threads T] [--before S] [--after S] [--join S]
#
#  1. `strata cluster start` with 3 region servers capped at F CPUs each (default 0.4),
#     the balancer run every 10 s with HBase's StochasticLoadBalancer and read/write
#     request weights raised to 500 (so that load, not only region counts, is balanced),
#     a 10 s load window and heartbeats every second; the balancer switched off.
#  2. usertable, 12 regions over YCSB's ordered keys, loaded with N records (30000).
#  3. The hotspot put on one server: the 3 regions holding the first quarter of the keys
#     (the hot data) and one more on rs-1, four on rs-2, four on rs-3: even counts.
#  4. One YCSB run, workload C (reads) with the hotspot distribution (hot fraction 0.25,
#     90% of the operations on it) and T threads (16), sampled every 2 s with each
#     server's request rate; after S s (--before, 40) the balancer is switched on; after S
#     more (--after, 60) a fourth region server joins (`strata cluster add`) and the run
#     goes on for S s (--join, 60).
#  5. The report: per-server request rates before and after balancing (max/mean),
#     throughput and p99 before and after, the balancer's moves and when the load was
#     even (max/mean <= 1.25), client errors, regions per server after the join; the
#     CSV, the SVG chart and the master's balancer log lines in DIR.
#
# Everything runs on loopback; the cluster is stopped and its cgroups removed on exit.
# Needs a built strata (build/strata), python3, Debian's zookeeper and a writable cgroup
# v1 cpu hierarchy (root).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
STRATA=${STRATA_BIN:-$HERE/../../build/strata}
OUT=""
QUOTA=0.4
RECORDS=30000
THREADS=16
BEFORE=40
AFTER=60
JOIN=60

usage() { sed -n '2,27p' "$0"; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --strata) STRATA=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --cpu-quota) QUOTA=$2; shift 2 ;;
    --records) RECORDS=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --before) BEFORE=$2; shift 2 ;;
    --after) AFTER=$2; shift 2 ;;
    --join) JOIN=$2; shift 2 ;;
    -h|--help) usage ;;
    *) echo "balance.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
[ -x "$STRATA" ] || { echo "balance.sh: no strata binary at $STRATA (--strata)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "balance.sh: python3 is needed" >&2; exit 2; }
[ -n "$OUT" ] || OUT=$(mktemp -d /tmp/strata-balance.XXXXXX)
mkdir -p "$OUT"
D=$OUT/cluster
T0=$SECONDS
log() { printf 'balance [%3ds] %s\n' $((SECONDS - T0)) "$*"; }
YCSB_PID=""
cleanup() {
  [ -z "$YCSB_PID" ] || kill "$YCSB_PID" 2>/dev/null || true
  [ ! -f "$D/cluster.state" ] || "$STRATA" cluster stop --dir "$D" >/dev/null 2>&1 || true
}
trap cleanup EXIT

sh_run() { "$STRATA" shell -n --dir "$D" -e "$1"; }

log "starting 3 region servers capped at $QUOTA CPU each in $D"
rm -rf "$D"
"$STRATA" cluster start --dir "$D" --regionservers 3 --regionserver.cpu.quota "$QUOTA" \
  --master.balancer.period.ms=10000 --master.balancer.load.window.ms=10000 \
  --master.balancer.cost.read_request=500 --master.balancer.cost.write_request=500 \
  --regionserver.report.interval.ms=1000 >"$OUT/cluster-start.txt"
sh_run "balance_switch false" >/dev/null

YCSB=("$STRATA" bench ycsb --dir "$D" --regions 12 --insertorder ordered --zeropadding 9
      --recordcount "$RECORDS")
log "loading $RECORDS records (YCSB ordered keys, 12 regions)"
"${YCSB[@]}" --phase load --threads 8 >"$OUT/load.txt"
grep -E '^\[OVERALL\]|Return=' "$OUT/load.txt" | sed 's/^/  /'

# Region i (key order) -> its server: 0..2 (the hot quarter) and 3 on rs-1, 4..7 on rs-2,
# 8..11 on rs-3.
port_of() { awk -v n="$1" '$1 == n { print $3 }' "$D/cluster.state"; }
mapfile -t REGIONS < <(sh_run "list_regions 'usertable'" | grep -o '\.[0-9a-f]\{32\}\.' | tr -d .)
[ ${#REGIONS[@]} = 12 ] || { log "FAIL: usertable has ${#REGIONS[@]} regions, not 12"; exit 1; }
for i in "${!REGIONS[@]}"; do
  rs=rs-$(( i < 4 ? 1 : (i < 8 ? 2 : 3) ))
  sh_run "move '${REGIONS[$i]}', '127.0.0.1:$(port_of "$rs")'" >/dev/null
done
log "hot regions ${REGIONS[0]:0:8} ${REGIONS[1]:0:8} ${REGIONS[2]:0:8} and one more on rs-1 (127.0.0.1:$(port_of rs-1)); 4 each on rs-2, rs-3"

TOTAL=$(( BEFORE + AFTER + JOIN ))
log "YCSB workload C, hotspot 0.25/0.9, $THREADS threads, $TOTAL s, sampled every 2 s"
"${YCSB[@]}" --phase run --workload c --requestdistribution hotspot --hot-fraction 0.25 \
  --hot-ops-fraction 0.9 --threads "$THREADS" --operationcount 1000000000 \
  --max-seconds "$TOTAL" --interval 2 --servers --csv "$OUT/series.csv" \
  --plot "$OUT/series.svg" --json >"$OUT/run.json" 2>"$OUT/run.err" &
YCSB_PID=$!
sleep "$BEFORE"
log "balance_switch true: $(sh_run 'balance_switch true' | head -1)"
echo "$BEFORE" >"$OUT/switch_on_s"
sleep "$AFTER"
log "a 4th region server joins: $("$STRATA" cluster add --dir "$D")"
echo "$(( BEFORE + AFTER ))" >"$OUT/join_s"
set +e
wait "$YCSB_PID"
YCSB_RC=$?
set -e
YCSB_PID=""
log "YCSB run ended (exit $YCSB_RC)"

sh_run "status 'simple'" >"$OUT/status-after.txt"
curl -s "http://127.0.0.1:$(awk '$1 == "master-1" { print $4 }' "$D/cluster.state")/metrics" |
  grep '^balancer' >"$OUT/balancer-metrics.txt" || true

python3 - "$OUT" "$BEFORE" "$(( BEFORE + AFTER ))" <<'PY'
import csv, json, sys
out, on, join = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
rows = list(csv.DictReader(open(f"{out}/series.csv")))
servers = sorted({k[:-4] for k in rows[0] if k.endswith("_rps")} if rows else set())
def num(r, k):
    try: return float(r.get(k) or 0)
    except ValueError: return 0.0
def present(r, s):  # the server was live in this sample
    return (r.get(s + "_regions") or "") != ""
def window(a, b):
    w = [r for r in rows if a <= num(r, "time_s") < b]
    if not w: return None
    here = [s for s in servers if all(present(r, s) for r in w)]
    rates = {s: sum(num(r, s + "_rps") for r in w) / len(w) for s in here}
    live = list(rates.values())
    mean = sum(live) / len(live) if live else 0
    return {
        "ops_per_s": sum(num(r, "ops_per_s") for r in w) / len(w),
        "p99_us": max(num(r, "p99_us") for r in w),
        "rates": rates,
        "max_mean": max(live) / mean if mean else 0,
    }
before = window(10, on)
after = window(join - 30, join)
joined = window(join + 20, 1e9)
converge = None
for r in rows:
    t = num(r, "time_s")
    live = [num(r, s + "_rps") for s in servers if present(r, s)]
    if t > on and live and max(live) / (sum(live) / len(live)) <= 1.25 and t < join:
        converge = t - on
        break
last = rows[-1] if rows else {}
regions = {s: num(last, s + "_regions") for s in servers if present(last, s)}
run = json.load(open(f"{out}/run.json"))
print("\n== per-server request rate (req/s) ==")
for name, w in (("before balancing", before), ("after balancing", after), ("after the join", joined)):
    if w:
        print(f"{name:18s} " + "  ".join(f"{s}: {w['rates'][s]:6.0f}" for s in w["rates"]) +
              f"   max/mean {w['max_mean']:.2f}   throughput {w['ops_per_s']:.0f} ops/s   worst p99 {w['p99_us']/1000:.1f} ms")
print(f"time to even load (max/mean <= 1.25) after the switch: {converge if converge is not None else 'not reached'} s")
print("regions per server at the end: " + "  ".join(f"{s}: {regions[s]:.0f}" for s in regions))
print(f"client errors during the run: {run.get('errors')}")
json.dump({"before": before, "after": after, "joined": joined, "converge_s": converge,
           "regions_end": regions, "errors": run.get("errors")},
          open(f"{out}/summary.json", "w"), indent=1)
PY
grep -h "moved region\|balancer" "$D"/logs/master-*.log >"$OUT/balancer.log" || true
log "balancer: $(grep '^balancer_\(runs\|moves\|cost\) ' "$OUT/balancer-metrics.txt" | tr '\n' ' ')"
log "results in $OUT (series.csv, series.svg, run.json, balancer.log, summary.json)"
exit "$YCSB_RC"
