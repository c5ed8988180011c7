#!/usr/bin/env bash
# deploy/check-dockerfile-libs.sh - checks deploy/Dockerfile against a `strata` binary
# built on this (Debian) machine: every shared library the binary links directly whose
# development package the Dockerfile's build stage installs must have its runtime package
# installed by the runtime stage (libraries of development packages the build stage does
# not install, such as the benchmark peers RocksDB and LevelDB, are not linked in the
# image and are only listed). Every package either stage names must be known to dpkg or
# apt. Used by tests/integration/test_deploy.c; docs/deploy.md.
#
#   deploy/check-dockerfile-libs.sh STRATA_BIN [DOCKERFILE]
#
# Exit status 0 when it holds, 1 naming each missing package, 2 for bad usage or a
# missing tool (readelf, ldd, dpkg).
set -euo pipefail

bin=${1:-}
dockerfile=${2:-$(cd "$(dirname "$0")" && pwd)/Dockerfile}
[ -x "$bin" ] || { echo "usage: $0 STRATA_BIN [DOCKERFILE]" >&2; exit 2; }
[ -f "$dockerfile" ] || { echo "no Dockerfile $dockerfile" >&2; exit 2; }
for c in readelf ldd dpkg dpkg-query; do
  command -v "$c" >/dev/null || { echo "'$c' is not installed" >&2; exit 2; }
done

# The packages named by the `apt-get install` commands of one stage (FROM ... AS STAGE).
stage_packages() {
  awk '{ if (sub(/\\$/, "")) { buf = buf $0 " "; next } print buf $0; buf = "" }' "$dockerfile" |
    awk -v stage="$1" '
      toupper($1) == "FROM" { cur = ""; for (i = 2; i < NF; i++) if (toupper($i) == "AS") cur = $(i + 1); next }
      cur == stage { for (i = 1; i <= NF; i++) if ($i == "install")
                       for (j = i + 1; j <= NF && $j != "&&" && $j != ";"; j++) if ($j !~ /^-/) print $j }'
}

mapfile -t build_pkgs < <(stage_packages build)
mapfile -t runtime_pkgs < <(stage_packages runtime)
[ ${#build_pkgs[@]} -gt 0 ] || { echo "no apt-get install in stage 'build' of $dockerfile"; exit 1; }
[ ${#runtime_pkgs[@]} -gt 0 ] || { echo "no apt-get install in stage 'runtime' of $dockerfile"; exit 1; }

bad=0
for p in "${build_pkgs[@]}" "${runtime_pkgs[@]}"; do
  if ! dpkg-query -W "$p" >/dev/null 2>&1 && ! apt-cache show "$p" >/dev/null 2>&1; then
    echo "package '$p' of $dockerfile is unknown to dpkg and apt"
    bad=1
  fi
done

# real path of each linkable .so of the build stage's packages -> that package
declare -A dev_of=()
for p in "${build_pkgs[@]}"; do
  while read -r f; do
    case "$f" in *.so) [ -e "$f" ] && dev_of[$(realpath "$f")]=$p ;; esac
  done < <(dpkg -L "$p" 2>/dev/null || true)
done

libs=$(ldd "$bin")
while read -r soname; do
  path=$(awk -v l="$soname" '$1 == l && $2 == "=>" { print $3 }' <<<"$libs")
  [ -n "$path" ] || { echo "$soname: not found by ldd"; bad=1; continue; }
  real=$(realpath "$path")
  owner=$( (dpkg -S "$real" || dpkg -S "$path") 2>/dev/null | head -n 1 | sed 's/:.*//') || true
  dev=${dev_of[$real]:-}
  if [ -z "$dev" ]; then
    echo "$soname: $owner (no package of the build stage provides it to link: the base image's or not linked there)"
  elif printf '%s\n' "${runtime_pkgs[@]}" | grep -qx "$owner"; then
    echo "$soname: $owner (runtime stage installs it)"
  else
    echo "$soname: the build stage links it ($dev) but the runtime stage lacks '$owner'"
    bad=1
  fi
done < <(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
exit "$bad"
