/* `describe`: the descriptor tables as JSON, one line per message, for
 * scripts/wire-json-check.py to compare with Kafka's JSON definitions. */
#include <stdio.h>

#include "wirediff.h"

const char *wirediff_kind_name(int kind)
{
    switch (kind) {
    case WIRE_K_BOOL: return "BOOL";
    case WIRE_K_I8: return "I8";
    case WIRE_K_I16: return "I16";
    case WIRE_K_U16: return "U16";
    case WIRE_K_I32: return "I32";
    case WIRE_K_I64: return "I64";
    case WIRE_K_UUID: return "UUID";
    case WIRE_K_STRING: return "STRING";
    case WIRE_K_BYTES: return "BYTES";
    case WIRE_K_RECORDS: return "RECORDS";
    case WIRE_K_RECORDS_EXT: return "RECORDS_EXT";
    case WIRE_K_STRUCT: return "STRUCT";
    case WIRE_K_INLINE: return "INLINE";
    case WIRE_K_ARRAY: return "ARRAY";
    case 0: return NULL;
    default: return "UNKNOWN";
    }
}

static void put_kind(FILE *out, const char *key, int kind)
{
    const char *name = wirediff_kind_name(kind);
    if (name)
        fprintf(out, ",\"%s\":\"%s\"", key, name);
    else
        fprintf(out, ",\"%s\":null", key);
}

static void describe_struct(FILE *out, const wire_struct_desc *d);

static void describe_field(FILE *out, const wire_field *f)
{
    fprintf(out, "{\"name\":\"%s\",\"kname\":\"%s\"", f->name, f->kname ? f->kname : f->name);
    put_kind(out, "kind", f->kind);
    put_kind(out, "elem", f->elem);
    fprintf(out, ",\"v_min\":%d,\"v_max\":%d", f->v_min, f->v_max);
    if (f->nullable_from1)
        fprintf(out, ",\"nullable_from\":%d", f->nullable_from1 - 1);
    else
        fprintf(out, ",\"nullable_from\":null");
    if (f->tag1)
        fprintf(out, ",\"tag\":%ld,\"tag_from\":%d", (long)f->tag1 - 1, f->tag_from);
    else
        fprintf(out, ",\"tag\":null,\"tag_from\":null");
    fprintf(out, ",\"default\":%lld,\"default_empty\":%s,\"has_flag\":%s",
            (long long)f->def, f->default_empty ? "true" : "false",
            f->has_off1 ? "true" : "false");
    fprintf(out, ",\"sub\":");
    if (f->sub)
        describe_struct(out, f->sub);
    else
        fprintf(out, "null");
    fprintf(out, "}");
}

static void describe_struct(FILE *out, const wire_struct_desc *d)
{
    fprintf(out, "{\"name\":\"%s\",\"fields\":[", d->name);
    for (uint32_t i = 0; i < d->field_count; i++) {
        if (i)
            fprintf(out, ",");
        describe_field(out, &d->fields[i]);
    }
    fprintf(out, "]}");
}

void wirediff_describe(FILE *out)
{
    int n = 0;
    const wire_msg_desc *const *all = wirediff_msgs(&n);
    for (int i = 0; i < n; i++) {
        const wire_msg_desc *m = all[i];
        fprintf(out, "{\"api\":%d,\"response\":%s,\"v_min\":%d,\"v_max\":%d,\"flex_from\":%d,"
                     "\"body\":",
                m->api_key, m->response ? "true" : "false", m->v_min, m->v_max, m->flex_from);
        describe_struct(out, m->body);
        fprintf(out, "}\n");
    }
}
