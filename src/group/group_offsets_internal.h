/* Shared pieces of the committed-offsets table (include/kq/group_offsets.h):
 * owned entries, an open-addressing map by (group, topic, partition) that
 * never deletes (clear empties it whole), the groups with their entries
 * chained, and the pending FIFO in ascending log offsets. */
#ifndef GROUP_OFFSETS_INTERNAL_H
#define GROUP_OFFSETS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kq/group_offsets.h"

typedef struct go_group go_group;

/* One owned entry: e's strings are heap copies it owns. */
typedef struct go_entry {
    group_offset e;
    uint64_t hash;
    uint64_t cost; /* group_offsets_entry_bytes(&e) */
    bool tombstone; /* pending only: KQ_CONTROL_OFFSET_EXPIRE */
    struct go_entry *next_in_group; /* committed entries of the same group */
} go_entry;

typedef struct go_map {
    go_entry **slots; /* cap slots, NULL = empty; cap a power of two or 0 */
    size_t cap;
    size_t count;
} go_map;

struct go_group {
    char *id;
    uint64_t hash;
    int count;
    go_entry *head;
};

typedef struct go_group_map {
    go_group **slots;
    size_t cap;
    size_t count;
} go_group_map;

struct group_offsets {
    go_map committed;
    go_group_map groups;
    go_entry **pending; /* [pending_head, pending_len): ascending log_offset */
    size_t pending_head;
    size_t pending_len;
    size_t pending_cap;
    int64_t committed_to;
    uint64_t committed_bytes; /* sum of the committed entries' costs */
    uint64_t pending_bytes;   /* sum of the pending entries' costs */
};

uint64_t go_key_hash(const char *group_id, const char *topic, int32_t partition);
uint64_t go_string_hash(const char *s);
/* A heap copy of e (strings included), or NULL when memory runs out. */
go_entry *go_entry_new(const group_offset *e);
void go_entry_free(go_entry *x);

/* The entry with e's key, or NULL. */
go_entry *go_map_find(const go_map *m, const char *group_id, const char *topic,
                      int32_t partition, uint64_t hash);
/* Adds x (its key absent); false when memory runs out. */
bool go_map_insert(go_map *m, go_entry *x);
/* Takes x (in m) out of m, not freeing it. */
void go_map_remove(go_map *m, const go_entry *x);
/* The slot holding an entry of that key, or NULL. */
go_entry **go_map_slot(const go_map *m, const char *group_id, const char *topic,
                       int32_t partition, uint64_t hash);
/* Frees the slots (and the entries when owned). */
void go_map_free(go_map *m, bool owned);

/* The group named id, or NULL; go_group_get creates it (NULL: no memory). */
go_group *go_group_find(const go_group_map *m, const char *id, uint64_t hash);
go_group *go_group_get(go_group_map *m, const char *id, uint64_t hash);
void go_group_map_free(go_group_map *m);
/* Forgets g (in m, without entries) and frees it. */
void go_group_remove(go_group_map *m, go_group *g);
/* Whether tombstone t applies to committed entry x (the same commit). */
bool go_tombstone_matches(const go_entry *t, const go_entry *x);

/* Adds an owned copy of e as pending (log_offset ascending); false when
 * memory runs out or log_offset is not above the previous one. */
bool go_pending_push(group_offsets *o, const group_offset *e, bool tombstone);
/* Frees pending entries from index keep on. */
void go_pending_drop_from(group_offsets *o, size_t keep);

#endif
