#!/usr/bin/env bash
# Installs the Debian packages Strata builds and tests with (as root), when missing.
set -euo pipefail
need=(cmake make gcc pkg-config libcmocka-dev libzstd-dev libsnappy-dev liblz4-dev zlib1g-dev
      librocksdb-dev libleveldb-dev
      libevent-dev libprotobuf-c-dev protobuf-c-compiler redis-server redis-tools
      zookeeper libzookeeper-mt-dev libssl-dev libedit-dev
      clang libclang-rt-14-dev  # tests/fuzz/run.sh: clang's libFuzzer and sanitizers
      docker-compose curl iproute2 nftables python3  # tests/integration/test_deploy.c
      debootstrap)  # deploy/docker-engine.sh base-image (test_chaos_docker.c)
missing=()
for p in "${need[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}"
fi
