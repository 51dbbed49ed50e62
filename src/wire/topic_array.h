/* The topic -> partition arrays most APIs carry. A topic element is a struct
 * holding a name (kq_slice), a pointer to its partitions and their count
 * (int32_t); a wire_topics_layout says where those fields sit, so one pair of
 * loops serves every API and only the partition body stays per API. */
#ifndef KQ_WIRE_TOPIC_ARRAY_H
#define KQ_WIRE_TOPIC_ARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/buf.h"

typedef struct wire_ctx {
    int16_t version;
    bool flex;
    kq_arena *arena; /* decoding only */
} wire_ctx;

/* Partition bodies, including their own tagged-field section. */
typedef void (*wire_part_read_fn)(kq_reader *r, const wire_ctx *c, void *part);
typedef void (*wire_part_write_fn)(kq_writer *w, const wire_ctx *c, const void *part);

typedef struct wire_topics_layout {
    size_t topic_size;
    size_t topic_min_wire; /* bytes a topic needs at least on the wire */
    size_t name_off;
    size_t parts_off;
    size_t count_off;
    size_t part_size;
    size_t part_min_wire;
    wire_part_read_fn read_part;
    wire_part_write_fn write_part;
    /* Optional: a topic named by string or by id (kq_uuid at id_off)
     * depending on the version; NULL reads/writes the plain name. */
    void (*read_ref)(kq_reader *r, int16_t version, kq_slice *name, kq_uuid *id);
    void (*write_ref)(kq_writer *w, int16_t version, kq_slice name, kq_uuid id);
    size_t id_off;
} wire_topics_layout;

/* T is the topic struct; its fields are NAME, `partitions` and
 * `partition_count`. */
#define WIRE_TOPICS_LAYOUT(T, NAME, TMIN, PMIN, RD, WR)                                    \
    {                                                                                      \
        sizeof(T), (TMIN), offsetof(T, NAME), offsetof(T, partitions),                     \
            offsetof(T, partition_count), sizeof(*((T *)0)->partitions), (PMIN), (RD), (WR), \
            NULL, NULL, 0                                                                  \
    }
/* The same with a topic reference: NAME or ID, chosen by RREF/WREF. */
#define WIRE_TOPICS_LAYOUT_REF(T, NAME, ID, TMIN, PMIN, RD, WR, RREF, WREF)                \
    {                                                                                      \
        sizeof(T), (TMIN), offsetof(T, NAME), offsetof(T, partitions),                     \
            offsetof(T, partition_count), sizeof(*((T *)0)->partitions), (PMIN), (RD), (WR), \
            (RREF), (WREF), offsetof(T, ID)                                                \
    }

/* Reads the topic array (each topic: name, partitions, tags when flex).
 * Returns the topics and sets *count; counts are 0 wherever r failed. */
void *wire_topics_read(kq_reader *r, const wire_ctx *c, const wire_topics_layout *l,
                       int32_t *count);
/* A NULL topics or partitions pointer is written as an empty array. */
void wire_topics_write(kq_writer *w, const wire_ctx *c, const wire_topics_layout *l,
                       const void *topics, int32_t count);

#endif
