#!/usr/bin/env bash
# Strata quick start (as root on Debian): install what is missing, build, start a local
# cluster (a private ZooKeeper, two masters, three region servers), create a demo table,
# write and read it through the shell, and print the cluster's status. The cluster keeps
# running in $STRATA_QUICKSTART_DIR (default /tmp/strata-quickstart).
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"

dir=${STRATA_QUICKSTART_DIR:-/tmp/strata-quickstart}
./build/strata cluster stop --dir "$dir" >/dev/null 2>&1 || true
rm -rf "$dir"
./build/strata cluster start --dir "$dir" --masters 2 --regionservers 3

echo
echo "== the shell: a demo table on four regions, written and read"
./build/strata shell --dir "$dir" -n <<'EOF'
create 'demo', {NAME => 'cf', VERSIONS => 3}, SPLITS => ['g', 'n', 't']
put 'demo', 'alice', 'cf:email', 'alice@example.com'
put 'demo', 'bob', 'cf:email', 'bob@example.com'
put 'demo', 'mallory', 'cf:email', 'mallory@example.com'
put 'demo', 'zoe', 'cf:email', 'zoe@example.com'
incr 'demo', 'alice', 'cf:visits', 3
get 'demo', 'alice'
scan 'demo'
scan 'demo', {FILTER => "PrefixFilter('m')"}
count 'demo'
list_regions 'demo'
status 'simple'
EOF

echo
echo "The cluster keeps running in $dir:"
echo "  ./build/strata shell --dir $dir            # a shell on it"
echo "  ./build/strata cluster status --dir $dir   # where everything is"
echo "  ./build/strata cluster kill --dir $dir master-active   # a failover drill"
echo "  ./build/strata cluster stop --dir $dir     # stop it"
