/*
 * mutator.c - the buffered mutator (HBase's BufferedMutator): mutations are copied into
 * a buffer and sent as one batch (batch_run: grouped per server, retried per failed
 * action) once the buffer holds buffer_size bytes, on strata_mutator_flush, or on close.
 * The mutations that failed in the last flush stay readable (row and error) until the
 * next flush.
 *
 * Thread-safety: a mutator belongs to one thread at a time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client_internal.h"
#include "common/status.h"

typedef struct failed_mut {
    buf_t row;
    char *error;
} failed_mut;

struct strata_mutator {
    strata_table_t *t;
    size_t limit, bytes;
    batch_action *buf;
    size_t n, cap;
    failed_mut *failed;
    size_t nfailed;
};

strata_mutator_t *strata_mutator_create(strata_table_t *t, size_t buffer_size)
{
    strata_mutator_t *bm = calloc(1, sizeof(*bm));
    if (!bm)
        return NULL;
    bm->t = t;
    bm->limit = buffer_size ? buffer_size : CLIENT_DEFAULT_MUTATOR_BUFFER;
    return bm;
}

static void failed_clear(strata_mutator_t *bm)
{
    for (size_t i = 0; i < bm->nfailed; i++) {
        buf_free(&bm->failed[i].row);
        free(bm->failed[i].error);
    }
    free(bm->failed);
    bm->failed = NULL;
    bm->nfailed = 0;
}

/* Sends the buffer; the failures replace the last flush's. */
static void flush(strata_mutator_t *bm, char **errptr)
{
    failed_clear(bm);
    if (bm->n == 0)
        return;
    size_t nf = batch_run(bm->t->c, bm->t->name, bm->buf, bm->n);
    bm->failed = nf ? calloc(nf, sizeof(*bm->failed)) : NULL;
    for (size_t i = 0; i < bm->n; i++) {
        batch_action *a = &bm->buf[i];
        if (a->error && bm->failed) {
            failed_mut *f = &bm->failed[bm->nfailed++];
            buf_set(&f->row, a->mut->row.data, a->mut->row.len);
            f->error = a->error;
            a->error = NULL;
        }
        strata_mutation_destroy(a->mut);
        free(a->error);
    }
    bm->n = 0;
    bm->bytes = 0;
    if (nf) {
        char msg[1024];
        const char *first = bm->nfailed ? bm->failed[0].error : "out of memory";
        snprintf(msg, sizeof(msg), "%s: %zu buffered mutations failed on table %s; first: %s",
                 st_strerror(client_message_status(first)), nf, bm->t->name, first);
        client_set_error_msg(errptr, msg);
    }
}

void strata_mutator_mutate(strata_mutator_t *bm, const strata_mutation_t *m, char **errptr)
{
    if (bm->n == bm->cap) {
        size_t nc = bm->cap ? bm->cap * 2 : 256;
        batch_action *nv = realloc(bm->buf, nc * sizeof(*nv));
        if (!nv) {
            client_set_error_msg(errptr, "out of memory: buffering a mutation");
            return;
        }
        bm->buf = nv;
        bm->cap = nc;
    }
    memset(&bm->buf[bm->n], 0, sizeof(bm->buf[bm->n]));
    bm->buf[bm->n++].mut = mutation_copy(m);
    bm->bytes += mutation_size(m);
    if (bm->bytes >= bm->limit)
        flush(bm, errptr);
}

void strata_mutator_flush(strata_mutator_t *bm, char **errptr)
{
    flush(bm, errptr);
}

size_t strata_mutator_failed_count(const strata_mutator_t *bm)
{
    return bm->nfailed;
}

const char *strata_mutator_failed_row(const strata_mutator_t *bm, size_t i, size_t *len)
{
    if (i >= bm->nfailed) {
        *len = 0;
        return NULL;
    }
    *len = bm->failed[i].row.len;
    return (const char *)bm->failed[i].row.data;
}

const char *strata_mutator_failed_error(const strata_mutator_t *bm, size_t i)
{
    return i < bm->nfailed ? bm->failed[i].error : NULL;
}

size_t strata_mutator_buffered(const strata_mutator_t *bm)
{
    return bm->bytes;
}

void strata_mutator_close(strata_mutator_t *bm, char **errptr)
{
    if (!bm)
        return;
    flush(bm, errptr);
    failed_clear(bm);
    free(bm->buf);
    free(bm);
}
