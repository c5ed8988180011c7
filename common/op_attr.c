/*
 * op_attr.c - the bounds and checks of operation attributes (op_attr.h), shared by the
 * client's builders and the region server's request handling.
 *
 * Thread-safety: pure functions.
 */
#include "common/op_attr.h"

#include <stdio.h>
#include <string.h>

#include "common/proto/client.pb-c.h"
#include "common/status.h"

#define NAME_SHOWN 48

void op_attr_name_text(const char *name, size_t len, char *out, size_t cap)
{
    size_t o = 0;
    if (!name)
        len = 0;
    for (size_t i = 0; i < len && i < NAME_SHOWN && o + 5 < cap; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'')
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, cap - o, "\\x%02X", c);
    }
    if (len > NAME_SHOWN && o + 4 <= cap) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    if (cap)
        out[o < cap ? o : cap - 1] = '\0';
}

int op_attr_check(const char *name, size_t name_len, size_t value_len)
{
    char shown[OP_ATTR_NAME_TEXT];
    op_attr_name_text(name, name_len, shown, sizeof(shown));
    if (name_len == 0)
        return st_error(ST_INVALID_ARGUMENT, "operation attribute '': a name is 1..%d bytes",
                        OP_ATTR_MAX_NAME);
    if (name_len > OP_ATTR_MAX_NAME)
        return st_error(ST_INVALID_ARGUMENT,
                        "operation attribute '%s': its name has %zu bytes, more than %d", shown,
                        name_len, OP_ATTR_MAX_NAME);
    if (value_len > OP_ATTR_MAX_VALUE)
        return st_error(ST_INVALID_ARGUMENT,
                        "operation attribute '%s': its value has %zu bytes, more than %d", shown,
                        value_len, OP_ATTR_MAX_VALUE);
    return ST_OK;
}

int op_attr_check_set(Strata__Client__NameBytesPair *const *attrs, size_t n)
{
    if (n > OP_ATTR_MAX_COUNT)
        return st_error(ST_INVALID_ARGUMENT, "%zu operation attributes, more than %d per operation",
                        n, OP_ATTR_MAX_COUNT);
    for (size_t i = 0; i < n; i++) {
        const Strata__Client__NameBytesPair *a = attrs[i];
        size_t len = a->name ? strlen(a->name) : 0;
        int rc = op_attr_check(a->name, len, a->has_value ? a->value.len : 0);
        if (rc != ST_OK)
            return rc;
        for (size_t j = 0; j < i; j++)
            if (strcmp(attrs[j]->name, a->name) == 0) {
                char shown[OP_ATTR_NAME_TEXT];
                op_attr_name_text(a->name, len, shown, sizeof(shown));
                return st_error(ST_INVALID_ARGUMENT, "operation attribute '%s' is given twice",
                                shown);
            }
    }
    return ST_OK;
}

const Strata__Client__NameBytesPair *op_attr_find(Strata__Client__NameBytesPair *const *attrs,
                                                  size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (attrs[i]->name && strcmp(attrs[i]->name, name) == 0)
            return attrs[i];
    return NULL;
}

bool op_attr_true(const uint8_t *value, size_t len)
{
    return len > 0 && value && value[0] != 0;
}
