#!/usr/bin/env bash
# check_symbols.sh - the symbol rule of libstrata (docs/client.md, "Linking"): libstrata.so
# exports, and libstrata.a defines as global, only names matching ^strata_[a-z0-9] (the
# public API of strata/strata.h and strata/admin.h; never an internal module's name nor
# protobuf-c's strata__*), the two export the same API, and a program that defines its
# own buf_append and log_write (names libstrata uses inside) links with libstrata.a and
# runs. Run by ctest (test "libstrata_symbols", label unit).
#   usage: tests/check_symbols.sh LIBSTRATA_SO LIBSTRATA_A CC INCLUDE_DIR [LIBS...]
#   LIBS: what a static link needs besides libstrata.a (protobuf-c, libevent, zookeeper_mt)
set -euo pipefail
so="$1" a="$2" cc="$3" inc="$4"
shift 4

# the linker's own symbols may show in a shared object's dynamic table
allowed='^(strata_[a-z0-9][A-Za-z0-9_]*|_init|_fini|_edata|_end|__bss_start)$'
fail=0

so_syms="$(nm -D --defined-only "$so" | awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }' | sort -u)"
a_syms="$(nm -g --defined-only "$a" | awk 'NF >= 3 { print $3 }' | sort -u)"

for lib in so a; do
  file="$so" syms="$so_syms"
  [ "$lib" = a ] && file="$a" syms="$a_syms"
  bad="$(grep -Ev "$allowed" <<<"$syms" || true)"
  if [ -n "$bad" ]; then
    echo "symbols: $file has global symbols outside strata_*:" >&2
    head -40 <<<"$bad" >&2
    fail=1
  fi
  for f in strata_client_open strata_table_put strata_error_code strata_code_name \
           strata_admin_open strata_admin_cluster_status strata_table_descriptor_create \
           strata_set_log_level strata_get_log_level strata_set_log_sink; do
    grep -qx "$f" <<<"$syms" || { echo "symbols: $file lacks $f" >&2; fail=1; }
  done
done
if [ "$(grep '^strata_' <<<"$so_syms")" != "$(grep '^strata_' <<<"$a_syms")" ]; then
  echo "symbols: libstrata.so and libstrata.a export different APIs:" >&2
  diff <(grep '^strata_' <<<"$so_syms") <(grep '^strata_' <<<"$a_syms") >&2 || true
  fail=1
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/clash.c" <<'PROG'
/* An application whose own globals share names with libstrata's internals. */
#include <stdio.h>

#include "strata/strata.h"

int buf_append(void);
void log_write(void);

int buf_append(void)
{
    return 0;
}

void log_write(void)
{
}

int main(void)
{
    strata_options_t *o = strata_options_create();
    strata_options_destroy(o);
    log_write();
    printf("%s\n", strata_code_name(strata_error_code("not found: table t")));
    return buf_append();
}
PROG
if ! "$cc" -std=c11 -Wall -Wextra -Werror -I"$inc" -o "$tmp/clash" "$tmp/clash.c" "$a" "$@" >&2; then
  echo "symbols: a program defining buf_append and log_write does not link with $a" >&2
  fail=1
elif [ "$("$tmp/clash")" != "STRATA_ERR_NOT_FOUND" ]; then
  echo "symbols: the program linked with $a does not run as it should" >&2
  fail=1
fi

if [ $fail -ne 0 ]; then
  exit 1
fi
echo "symbols: $(grep -c '^strata_' <<<"$so_syms") strata_* functions, nothing else exported"
