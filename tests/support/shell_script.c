/*
 * shell_script.c - running `strata shell` scripts for the integration tests
 * (shell_script.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tests/support/shell_script.h"

static char g_tmpdir[256];
static char g_cluster[256];

void ssh_init(const char *tmpdir, const char *cluster_dir)
{
    snprintf(g_tmpdir, sizeof(g_tmpdir), "%s", tmpdir);
    snprintf(g_cluster, sizeof(g_cluster), "%s", cluster_dir ? cluster_dir : "");
}

char *ssh_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return strdup("");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

char *ssh_normalise(const char *in)
{
    size_t n = strlen(in);
    char *out = malloc(n + 1), *o = out;
    for (const char *p = in; *p;) {
        if (strncmp(p, "Took ", 5) == 0 && isdigit((unsigned char)p[5])) {
            const char *q = p + 5;
            while (isdigit((unsigned char)*q) || *q == '.')
                q++;
            o += sprintf(o, "Took X");
            p = q;
        } else if (strncmp(p, "timestamp=", 10) == 0) {
            const char *q = p + 10;
            while (isdigit((unsigned char)*q))
                q++;
            if (q - (p + 10) >= 12) {
                o += sprintf(o, "timestamp=T");
                p = q;
            } else {
                memcpy(o, p, 10);
                o += 10;
                p += 10;
            }
        } else {
            *o++ = *p++;
        }
    }
    *o = '\0';
    return out;
}

ssh_result ssh_run(const char *args, const char *script)
{
    char in[300], out[300], err[300], cmd[4096];
    snprintf(in, sizeof(in), "%s/in.txt", g_tmpdir);
    snprintf(out, sizeof(out), "%s/out.txt", g_tmpdir);
    snprintf(err, sizeof(err), "%s/err.txt", g_tmpdir);
    FILE *f = fopen(in, "w");
    assert_non_null(f);
    fputs(script ? script : "", f);
    fclose(f);
    snprintf(cmd, sizeof(cmd),
             "env -u STRATA_ZK_QUORUM -u STRATA_ZK_PARENT HOME=%s %s shell %s < %s > %s 2> %s",
             g_tmpdir, getenv("STRATA_BIN"), args, in, out, err);
    int st = system(cmd);
    ssh_result r = {.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1};
    char *raw = ssh_slurp(out);
    r.out = ssh_normalise(raw);
    free(raw);
    r.err = ssh_slurp(err);
    return r;
}

ssh_result ssh_run_dir(const char *script)
{
    char args[600];
    snprintf(args, sizeof(args), "--dir %s -n", g_cluster);
    return ssh_run(args, script);
}

void ssh_result_free(ssh_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

void ssh_expect(const char *script, const char *want)
{
    ssh_result r = ssh_run_dir(script);
    if (r.status != 0 || strcmp(r.out, want) != 0) {
        fprintf(stderr, "script:\n%s\nstatus %d, stderr:\n%s\nstdout:\n%s\nwanted:\n%s", script,
                r.status, r.err, r.out, want);
        fail();
    }
    ssh_result_free(&r);
}

ssh_result ssh_expect_fail_keep(const char *script, const char *frag)
{
    ssh_result r = ssh_run_dir(script);
    if (r.status != 1 || strncmp(r.err, "ERROR: ", 7) != 0 || !strstr(r.err, frag) ||
        strchr(r.err, '\n') != r.err + strlen(r.err) - 1) {
        fprintf(stderr,
                "script:\n%s\nstatus %d, stderr:\n%s\nstdout:\n%s\nwanted an ERROR with '%s'\n",
                script, r.status, r.err, r.out, frag);
        fail();
    }
    return r;
}

void ssh_expect_fail(const char *script, const char *frag)
{
    ssh_result r = ssh_expect_fail_keep(script, frag);
    ssh_result_free(&r);
}
