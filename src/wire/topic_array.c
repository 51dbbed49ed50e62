/* Shared topic -> partition array loops; see topic_array.h. */
#include <string.h>

#include "topic_array.h"
#include "wire_codec.h"

void *wire_topics_read(kq_reader *r, const wire_ctx *c, const wire_topics_layout *l,
                       int32_t *count)
{
    int32_t nt = wire_read_array_len(r, c->flex, false);
    char *topics = wire_alloc_array(r, c->arena, nt, l->topic_size, l->topic_min_wire);
    for (int32_t i = 0; i < nt && !r->error; i++) {
        char *t = topics + (size_t)i * l->topic_size;
        kq_slice name;
        if (l->read_ref) {
            kq_uuid id;
            l->read_ref(r, c->version, &name, &id);
            memcpy(t + l->id_off, &id, sizeof id);
        } else {
            name = wire_read_string(r, c->flex);
        }
        int32_t np = wire_read_array_len(r, c->flex, false);
        char *parts = wire_alloc_array(r, c->arena, np, l->part_size, l->part_min_wire);
        for (int32_t k = 0; k < np && !r->error; k++)
            l->read_part(r, c, parts + (size_t)k * l->part_size);
        int32_t n = r->error ? 0 : np;
        void *p = parts;
        memcpy(t + l->name_off, &name, sizeof name);
        memcpy(t + l->parts_off, &p, sizeof p);
        memcpy(t + l->count_off, &n, sizeof n);
        wire_read_tags_flex(r, c->flex);
    }
    *count = r->error ? 0 : nt;
    return topics;
}

void wire_topics_write(kq_writer *w, const wire_ctx *c, const wire_topics_layout *l,
                       const void *topics, int32_t count)
{
    int32_t nt = topics ? count : 0;
    wire_write_array_len(w, c->flex, false, nt);
    for (int32_t i = 0; i < nt; i++) {
        const char *t = (const char *)topics + (size_t)i * l->topic_size;
        kq_slice name;
        const void *p;
        int32_t np;
        memcpy(&name, t + l->name_off, sizeof name);
        memcpy(&p, t + l->parts_off, sizeof p);
        memcpy(&np, t + l->count_off, sizeof np);
        const char *parts = p;
        if (!parts)
            np = 0;
        if (l->write_ref) {
            kq_uuid id;
            memcpy(&id, t + l->id_off, sizeof id);
            l->write_ref(w, c->version, name, id);
        } else {
            wire_write_string(w, c->flex, name);
        }
        wire_write_array_len(w, c->flex, false, np);
        for (int32_t k = 0; k < np; k++)
            l->write_part(w, c, parts + (size_t)k * l->part_size);
        wire_write_tags_flex(w, c->flex);
    }
}
