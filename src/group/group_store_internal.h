/* The group store's pieces (include/kq/group_store.h): groups in a sorted
 * array by id, each with its members sorted by id, every value owned. */
#ifndef GROUP_STORE_INTERNAL_H
#define GROUP_STORE_INTERNAL_H

#include "kq/group_store.h"

typedef struct gs_member {
    char *id;
    int8_t type;
    uint8_t *body;
    size_t body_len;
    uint64_t cost;
} gs_member;

typedef struct gs_group {
    char *id;
    bool has_record; /* false: known only by member records */
    int8_t type;
    uint8_t *body;
    size_t body_len;
    uint64_t cost; /* of its own record (0 without one) */
    gs_member **members;
    int member_count;
    int member_cap;
} gs_group;

struct group_store {
    gs_group **groups;
    int group_count;
    int group_cap;
    int records;
    uint64_t bytes;
    int64_t last_offset;
    int64_t noted_to;
};

/* Applies one checked record; false when memory runs out. */
bool gs_apply(group_store *s, const group_store_record *r);

#endif
