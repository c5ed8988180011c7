/*
 * shell_main.c - `strata shell`: reads the options, finds the cluster (flags, a config
 * file, STRATA_* environment, or a local cluster's state file) and runs the shell
 * (shell/shell.h; docs/shell.md) on -e commands, a script file, stdin, or a terminal.
 *
 *   strata shell [-n] [-e CMD]... [--dir D | --zk.quorum Q [--zk.parent P]]
 *                [--config F] [--KEY=VALUE ...] [SCRIPT]
 *
 * Settings, later winning: defaults < --config file < STRATA_* environment < flags.
 * The config file may be a server's: keys the shell does not know are skipped. --dir D
 * takes quorum and parent from D/cluster.state (docs/cluster.md).
 *
 * Exit status: 0, 1 when a command failed (non-interactive runs stop there), 2 for bad
 * usage, or the status given to `exit`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/config.h"
#include "common/log.h"
#include "common/status.h"
#include "common/zk/znodes.h"
#include "shell/shell.h"
#include "tools/tools.h"

extern char **environ;

#define MAX_EXEC 64

static const config_key SHELL_KEYS[] = {
    {"zk.quorum", CONFIG_STRING, "", "ZooKeeper ensemble of the cluster, host:port[,host:port...]"},
    {"zk.parent", CONFIG_STRING, ZNODES_DEFAULT_PARENT, "parent znode of the cluster"},
    {"shell.admin.timeout.ms", CONFIG_INT, "60000", "time for one administrative call"},
    {"shell.operation.timeout.ms", CONFIG_INT, "60000",
     "time for one data operation, retries included"},
    {"shell.rpc.timeout.ms", CONFIG_INT, "10000", "time for one data RPC"},
    {"shell.connect.timeout.ms", CONFIG_INT, "10000",
     "time for the first contact with the cluster"},
    {"shell.history.file", CONFIG_STRING, "", "history file; empty: ~/.strata_history"},
    {"log.level", CONFIG_STRING, "error", "error, warn, info or debug (client library logging)"},
};

typedef struct shell_args {
    bool noninteractive;
    const char *exec[MAX_EXEC];
    int nexec;
    const char *dir;
    const char *config_file;
    const char *script;
    char *flags[256];
    int nflags;
} shell_args;

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: strata shell [-n] [-e CMD]... [--dir D | --zk.quorum Q [--zk.parent P]]\n"
        "                    [--config F] [--KEY=VALUE ...] [SCRIPT]\n"
        "  -n, --noninteractive  no banner or prompt; exit non-zero at the first failed command\n"
        "  -e, --execute CMD     run CMD (several allowed; ';' separates commands)\n"
        "  --dir D               the local cluster started by `strata cluster start --dir D`\n"
        "  --zk.quorum Q         the cluster's ZooKeeper (also STRATA_ZK_QUORUM)\n"
        "  --zk.parent P         its parent znode (default /strata; also STRATA_ZK_PARENT)\n"
        "  --config F            key = value settings (zk.quorum, zk.parent, shell.*)\n"
        "  keys: shell.admin.timeout.ms (60000), shell.operation.timeout.ms (60000),\n"
        "        shell.rpc.timeout.ms (10000), shell.connect.timeout.ms (10000),\n"
        "        shell.history.file, log.level (error)\n"
        "  SCRIPT                a file of commands (default: stdin, or a terminal session)\n"
        "See docs/shell.md, or type 'help' in the shell.\n");
}

/* A flag taking a value, as "--name V" or "--name=V": the value, advancing *i. */
static const char *flag_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) == 0 && argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (strcmp(argv[*i], name) == 0 && *i + 1 < argc)
        return argv[++*i];
    return NULL;
}

/* 0, 1 for --help, 2 for bad usage (reported). */
static int parse_args(int argc, char **argv, shell_args *a)
{
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return 1;
        if (strcmp(argv[i], "-n") == 0 || strcmp(argv[i], "--noninteractive") == 0)
            a->noninteractive = true;
        else if ((v = flag_value(argc, argv, &i, "-e")) ||
                 (v = flag_value(argc, argv, &i, "--execute"))) {
            if (a->nexec == MAX_EXEC)
                return fprintf(stderr, "strata shell: at most %d -e commands\n", MAX_EXEC), 2;
            a->exec[a->nexec++] = v;
        } else if ((v = flag_value(argc, argv, &i, "--dir")))
            a->dir = v;
        else if ((v = flag_value(argc, argv, &i, "--config")))
            a->config_file = v;
        else if (strncmp(argv[i], "--", 2) == 0 && a->nflags + 2 <= 256) {
            a->flags[a->nflags++] = argv[i];
            if (!strchr(argv[i], '=') && i + 1 < argc)
                a->flags[a->nflags++] = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1])
            return fprintf(stderr, "strata shell: unknown option %s\n", argv[i]), 2;
        else if (!a->script)
            a->script = argv[i];
        else
            return fprintf(stderr, "strata shell: one script at most (%s, %s)\n", a->script,
                           argv[i]),
                   2;
    }
    return 0;
}

/* key = value lines; keys the shell does not define are skipped. */
static int load_file_lenient(config *c, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return st_error(ST_IO, "cannot read %s: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    int rc = ST_OK, no = 0;
    while (rc == ST_OK && getline(&line, &cap, f) >= 0) {
        no++;
        char *p = line + strspn(line, " \t"), *eq = strchr(p, '=');
        if (*p == '#' || *p == '\n' || *p == '\0' || !eq)
            continue;
        char *k = p, *v = eq + 1, *e = eq;
        while (e > k && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        *e = '\0';
        v += strspn(v, " \t");
        v[strcspn(v, "\r\n")] = '\0';
        for (e = v + strlen(v); e > v && (e[-1] == ' ' || e[-1] == '\t'); e--)
            e[-1] = '\0';
        rc = config_set(c, k, v, CONFIG_SRC_FILE);
        if (rc == ST_NOT_FOUND)
            rc = ST_OK;
        else if (rc != ST_OK)
            rc = st_error(rc, "%s:%d: %s", path, no, st_errmsg());
    }
    free(line);
    fclose(f);
    return rc;
}

/* quorum and parent from <dir>/cluster.state into c (as flags: they name the cluster). */
static int load_cluster_dir(config *c, const char *dir)
{
    char path[4096], line[512], key[64], val[400];
    snprintf(path, sizeof(path), "%s/cluster.state", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return st_error(ST_NOT_FOUND, "cannot read %s: %s (no cluster started with --dir %s?)",
                        path, strerror(errno), dir);
    bool found = false;
    int rc = ST_OK;
    while (rc == ST_OK && fgets(line, sizeof(line), f)) {
        if (sscanf(line, "%63s %399s", key, val) != 2)
            continue;
        if (strcmp(key, "quorum") == 0) {
            rc = config_set(c, "zk.quorum", val, CONFIG_SRC_FLAG);
            found = true;
        } else if (strcmp(key, "parent") == 0) {
            rc = config_set(c, "zk.parent", val, CONFIG_SRC_FLAG);
        }
    }
    fclose(f);
    if (rc == ST_OK && !found)
        rc = st_error(ST_CORRUPTION, "%s has no quorum line", path);
    return rc;
}

static int load_config(config *c, const shell_args *a)
{
    int rc = config_define_all(c, SHELL_KEYS, sizeof(SHELL_KEYS) / sizeof(SHELL_KEYS[0]));
    if (rc == ST_OK && a->config_file)
        rc = load_file_lenient(c, a->config_file);
    if (rc == ST_OK)
        rc = config_load_env(c, environ);
    if (rc == ST_OK)
        rc = config_load_args(c, a->nflags, (char *const *)a->flags);
    if (rc == ST_OK && a->dir && config_get_source(c, "zk.quorum") == CONFIG_SRC_FLAG)
        rc = st_error(ST_INVALID_ARGUMENT, "give --dir or --zk.quorum, not both");
    if (rc == ST_OK && a->dir)
        rc = load_cluster_dir(c, a->dir);
    int level = rc == ST_OK ? log_parse_level(config_get_string(c, "log.level")) : 0;
    if (level < 0)
        rc = st_error(ST_INVALID_ARGUMENT, "log.level '%s' is not error/warn/info/debug",
                      config_get_string(c, "log.level"));
    if (rc == ST_OK)
        log_set_level((log_level)level);
    return rc;
}

static int run(const config *c, const shell_args *a)
{
    bool tty = isatty(STDIN_FILENO) && !a->script && a->nexec == 0;
    shell_config sc = {
        .quorum = config_get_string(c, "zk.quorum"),
        .parent = config_get_string(c, "zk.parent"),
        .admin_timeout_ms = config_get_int64(c, "shell.admin.timeout.ms"),
        .operation_timeout_ms = config_get_int64(c, "shell.operation.timeout.ms"),
        .rpc_timeout_ms = config_get_int64(c, "shell.rpc.timeout.ms"),
        .connect_timeout_ms = config_get_int64(c, "shell.connect.timeout.ms"),
        .history_file = config_get_string(c, "shell.history.file"),
        .interactive = tty && !a->noninteractive,
    };
    shell_session *s = NULL;
    if (shell_open(&sc, stdout, stderr, &s) != ST_OK)
        return fprintf(stderr, "strata shell: %s\n", st_errmsg()), 1;
    int result = SHELL_CONTINUE;
    for (int i = 0; i < a->nexec && result == SHELL_CONTINUE; i++)
        result = shell_run_text(s, a->exec[i]);
    if (result == SHELL_CONTINUE && a->script) {
        FILE *f = fopen(a->script, "r");
        if (!f)
            result =
                (fprintf(stderr, "strata shell: cannot read %s: %s\n", a->script, strerror(errno)),
                 2);
        else {
            result = shell_run_stream(s, f);
            fclose(f);
        }
    } else if (result == SHELL_CONTINUE && a->nexec == 0) {
        result = sc.interactive ? shell_run_interactive(s) : shell_run_stream(s, stdin);
    }
    shell_close(s);
    return result == SHELL_CONTINUE ? 0 : result;
}

int shell_main(int argc, char **argv)
{
    shell_args a = {0};
    config *c = NULL;
    int status = parse_args(argc, argv, &a);
    if (status == 1) {
        usage(stdout);
        return 0;
    }
    if (status == 2) {
        usage(stderr);
        return 2;
    }
    int rc = config_new(&c);
    if (rc == ST_OK)
        rc = load_config(c, &a);
    if (rc != ST_OK) {
        fprintf(stderr, "strata shell: %s\n", st_errmsg());
        config_free(c);
        return 2;
    }
    status = run(c, &a);
    config_free(c);
    return status;
}
