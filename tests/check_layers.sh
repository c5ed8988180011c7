#!/usr/bin/env bash
# check_layers.sh - fails when a source file includes a header its layer may not use
# (docs/architecture.md, "Layers"). Every folder is one library; a folder may include
# headers of its own folder and of the folders listed for it below, a private header
# (*_internal.h) only from its own folder, and the public client headers
# (client/include/strata/) may include nothing but system headers and each other.
# Tests and tools may use every layer. Run by ctest (test "layers") and so by CI.
#   usage: tests/check_layers.sh [source root]
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$root"

# folder -> the other folders whose headers it may include
declare -A allowed=(
  [common]="common/proto"
  [common/rpc]="common common/proto"
  [common/zk]="common common/proto"
  [common/http]="common"
  [regionserver/storage]="common common/proto"
  [meta]="common common/proto regionserver/storage"
  [regionserver]="common common/proto common/rpc common/zk common/http regionserver/storage"
  [master]="common common/proto common/rpc common/zk common/http regionserver/storage meta"
  [client]="common common/proto common/rpc common/zk client/include/strata"
  [client/include/strata]=""
  [shell]="common client/include/strata"
  [rest]="common common/proto common/http client/include/strata"
  [examples]="client/include/strata"
)

fail=0
checked=0
for dir in "${!allowed[@]}"; do
  for f in "$dir"/*.c "$dir"/*.h; do
    [ -e "$f" ] || continue
    checked=$((checked + 1))
    while IFS= read -r line; do
      n="${line%%:*}"
      inc="${line#*:}"
      inc="${inc#*\"}"
      inc="${inc%%\"*}"
      hdir="$(dirname "$inc")"
      # a header next to the file (public headers include each other by bare name)
      [ "$hdir" = "." ] && hdir="$dir"
      # the public headers are on the include path as client/include: "strata/strata.h"
      [ "$hdir" = "strata" ] && hdir="client/include/strata"
      if [ "$hdir" = "$dir" ]; then
        continue
      fi
      ok=0
      for a in ${allowed[$dir]}; do
        [ "$hdir" = "$a" ] && ok=1
      done
      case "$inc" in
        *_internal.h) ok=0 ;;
      esac
      if [ $ok -eq 0 ]; then
        echo "layers: $f:$n includes \"$inc\": layer $dir may not use $hdir" >&2
        fail=1
      fi
    done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]' "$f" |
             sed -n 's/^\([0-9]*\):[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\([^>"]*\)[>"].*/\1:"\2"/p' |
             grep -E ':"(common|regionserver|meta|master|client|shell|rest|tools|tests|strata)/|:"[^/]*"$' || true)
  done
done

# every folder holding sources must have its layer above (the root's strata_main.c, tests/
# and tools/ may use everything; build trees are generated)
while IFS= read -r d; do
  d="${d#./}"
  case "$d" in
    . | tests | tests/* | tools | tools/* | build* | build*/* | .git/* | deploy*) continue ;;
  esac
  if [ -z "${allowed[$d]+set}" ]; then
    echo "layers: folder $d holds sources but has no layer in tests/check_layers.sh" >&2
    fail=1
  fi
done < <(find . -path ./.git -prune -o -path './build*' -prune -o -type f \( -name '*.c' -o -name '*.h' \) -printf '%h\n' | sort -u)

# the public client headers: system headers (<name.h>, <sys/...>) and each other only
for f in client/include/strata/*.h; do
  [ -e "$f" ] || continue
  if grep -n '^[[:space:]]*#[[:space:]]*include' "$f" |
     grep -vE 'include[[:space:]]*(<[a-z0-9_]+\.h>|<sys/[a-z0-9_]+\.h>|"[a-z0-9_]+\.h"|"strata/[a-z0-9_]+\.h")' >&2; then
    echo "layers: public header $f includes a header that is not a system header or another public one" >&2
    fail=1
  fi
  if grep -n 'ProtobufC\|Strata__' "$f" >&2; then
    echo "layers: public header $f names a protobuf-c type" >&2
    fail=1
  fi
done

if [ $fail -ne 0 ]; then
  exit 1
fi
echo "layers: $checked files follow the layering"
