/*
 * testutil.c - helpers shared by Strata's tests (see testutil.h).
 */
#include "tests/support/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fileio.h"
#include "common/status.h"

char *tu_tempdir(const char *tag)
{
    const char *base = getenv("TMPDIR");
    char *path = NULL;
    if (asprintf(&path, "%s/strata-%s-XXXXXX", base && *base ? base : "/tmp", tag) < 0)
        return NULL;
    if (!mkdtemp(path)) {
        free(path);
        return NULL;
    }
    return path;
}

void tu_rmdir(char *dir)
{
    if (dir)
        fio_remove_tree(dir);
    free(dir);
}

void tu_schema(table_schema *t, const char *families)
{
    table_schema_init(t, "default:t");
    char tmp[256];
    snprintf(tmp, sizeof(tmp), "%s", families);
    for (char *save = NULL, *f = strtok_r(tmp, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
        family_schema fs;
        family_schema_init(&fs, f);
        table_schema_add_family(t, &fs);
    }
    t->durability = DURABILITY_SYNC_WAL;
}

region_info tu_whole_region(void)
{
    region_info i;
    memset(&i, 0, sizeof(i));
    snprintf(i.table, sizeof(i.table), "default:t");
    snprintf(i.encoded_name, sizeof(i.encoded_name), "r1");
    i.region_id = 1;
    return i;
}

cell_t tu_cell(const char *fam, const char *qual, const char *value, int64_t ts, uint8_t type)
{
    cell_t c;
    memset(&c, 0, sizeof(c));
    c.family = (const uint8_t *)fam;
    c.family_len = (uint32_t)strlen(fam);
    c.qualifier = (const uint8_t *)qual;
    c.qualifier_len = (uint32_t)strlen(qual);
    c.value = (const uint8_t *)value;
    c.value_len = value ? (uint32_t)strlen(value) : 0;
    c.ts = ts;
    c.type = type;
    return c;
}

int tu_put(region *r, const char *row, const char *fam, const char *qual, const char *value,
           int64_t ts)
{
    cell_t c = tu_cell(fam, qual, value, ts, CELL_TYPE_PUT);
    mutation m = {(const uint8_t *)row, strlen(row), &c, 1, DURABILITY_USE_DEFAULT};
    return region_mutate(r, &m);
}

int tu_get(region *r, const char *row, const char *fam, const char *qual, char *buf,
           size_t cap)
{
    scan_column col = {(const uint8_t *)fam, strlen(fam), (const uint8_t *)qual, strlen(qual)};
    scan_spec spec;
    memset(&spec, 0, sizeof(spec));
    spec.columns = &col;
    spec.ncolumns = 1;
    scan_result res;
    scan_result_init(&res);
    int rc = region_get(r, (const uint8_t *)row, strlen(row), &spec, &res);
    if (rc == ST_OK) {
        rc = res.ncells > 0;
        if (rc && buf) {
            size_t n = res.cells[0].value_len < cap - 1 ? res.cells[0].value_len : cap - 1;
            memcpy(buf, res.cells[0].value, n);
            buf[n] = '\0';
        }
    }
    scan_result_free(&res);
    return rc;
}
