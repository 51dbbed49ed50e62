/* The messages kq-wirediff serves: the codec's registry (wire_msg_all), or a
 * mutated copy of it that proves the differential test catches drift. */
#include <stdlib.h>
#include <string.h>

#include "wirediff.h"

static const wire_msg_desc *const *msgs;
static int msg_count;

/* "newest-drops-field": in a copy of each message, the last untagged field
 * of the body that the newest version has leaves that version, as a
 * description that missed a field Kafka added would. */
static const wire_msg_desc *drop_newest_field(const wire_msg_desc *m)
{
    const wire_struct_desc *d = m->body;
    wire_field *fields = calloc(d->field_count, sizeof *fields);
    wire_struct_desc *body = calloc(1, sizeof *body);
    wire_msg_desc *copy = calloc(1, sizeof *copy);
    if (!fields || !body || !copy)
        abort();
    memcpy(fields, d->fields, d->field_count * sizeof *fields);
    for (uint32_t i = d->field_count; i-- > 0;) {
        wire_field *f = &fields[i];
        if (!f->tag1 && f->v_min <= m->v_max && f->v_max >= m->v_max) {
            f->v_max = (int16_t)(m->v_max - 1);
            break;
        }
    }
    *body = *d;
    body->fields = fields;
    *copy = *m;
    copy->body = body;
    return copy;
}

int wirediff_use_mutant(const char *name)
{
    int n = 0;
    const wire_msg_desc *const *all = wire_msg_all(&n);
    if (name == NULL) {
        msgs = all;
        msg_count = n;
        return 0;
    }
    if (strcmp(name, "newest-drops-field") != 0)
        return -1;
    const wire_msg_desc **copies = calloc((size_t)n + 1, sizeof *copies);
    if (!copies)
        abort();
    for (int i = 0; i < n; i++)
        copies[i] = drop_newest_field(all[i]);
    msgs = copies;
    msg_count = n;
    return 0;
}

const wire_msg_desc *const *wirediff_msgs(int *count)
{
    *count = msg_count;
    return msgs;
}

const wire_msg_desc *wirediff_find(int16_t api_key, bool response)
{
    for (int i = 0; i < msg_count; i++)
        if (msgs[i]->api_key == api_key && msgs[i]->response == response)
            return msgs[i];
    return NULL;
}
