/*
 * bench_redis.h - the Redis peer of the cluster benchmark: a private redis-server on a
 * free loopback port, measured with redis-benchmark (GET and SET with the given value
 * size and concurrency), so Strata's figures can be printed as ratios to it.
 * Thread-safety: one call at a time; it starts and stops its own processes.
 */
#ifndef STRATA_TOOLS_BENCH_REDIS_H
#define STRATA_TOOLS_BENCH_REDIS_H

#include <stdbool.h>

typedef struct bench_redis_op {
    double ops_per_sec;
    double p50_ms;
    double p95_ms;
    double p99_ms;
} bench_redis_op;

typedef struct bench_redis_result {
    bench_redis_op set;
    bench_redis_op get;
} bench_redis_result;

/* True when redis-server and redis-benchmark are on the PATH. */
bool bench_redis_available(void);

/* Starts redis-server (no persistence, private directory, 127.0.0.1, a free port), runs
 * redis-benchmark -t set,get -n requests -c clients -d value_size --csv, stops the server
 * and removes its directory. ST_OK with *out filled; ST_UNSUPPORTED when the tools are
 * missing; another status (message set) when the server does not come up or the output
 * cannot be read. */
int bench_redis_run(int value_size, int clients, long requests, bench_redis_result *out);

#endif
