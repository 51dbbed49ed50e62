/* Producer id table: chained hash over a fixed pool of entries, with an LRU
 * list for eviction. Everything is allocated at creation. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kq/producer_state.h"
#include "kq/record.h"

#define NIL UINT32_MAX

typedef producer_batch_view producer_batch;

typedef struct producer_entry {
    int64_t pid;
    int16_t epoch;
    uint8_t batch_count;
    uint8_t batch_head; /* index of the oldest cached batch */
    uint32_t hash_next;
    uint32_t lru_prev; /* towards most recent */
    uint32_t lru_next; /* towards least recent */
    producer_batch batches[PRODUCER_STATE_BATCHES];
} producer_entry;

struct producer_state {
    producer_entry *entries;
    uint32_t *buckets;
    uint32_t bucket_mask;
    uint32_t capacity;
    uint32_t used;     /* entries handed out from the pool */
    uint32_t lru_head; /* most recent */
    uint32_t lru_tail; /* least recent */
};

static uint32_t bucket_of(const producer_state *ps, int64_t pid)
{
    uint64_t h = (uint64_t)pid * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 32) & ps->bucket_mask;
}

producer_state *producer_state_create(uint32_t max_producers)
{
    if (max_producers == 0)
        max_producers = 1;
    if (max_producers > (1u << 24))
        return NULL;
    uint32_t buckets = 1;
    while (buckets < max_producers * 2)
        buckets <<= 1;
    producer_state *ps = calloc(1, sizeof(*ps));
    if (!ps)
        return NULL;
    ps->entries = calloc(max_producers, sizeof(*ps->entries));
    ps->buckets = malloc(buckets * sizeof(*ps->buckets));
    if (!ps->entries || !ps->buckets) {
        producer_state_destroy(ps);
        return NULL;
    }
    ps->capacity = max_producers;
    ps->bucket_mask = buckets - 1;
    producer_state_clear(ps);
    return ps;
}

void producer_state_destroy(producer_state *ps)
{
    if (!ps)
        return;
    free(ps->entries);
    free(ps->buckets);
    free(ps);
}

void producer_state_clear(producer_state *ps)
{
    for (uint32_t i = 0; i <= ps->bucket_mask; i++)
        ps->buckets[i] = NIL;
    ps->used = 0;
    ps->lru_head = NIL;
    ps->lru_tail = NIL;
}

uint32_t producer_state_count(const producer_state *ps)
{
    return ps->used;
}

static const producer_entry *find(const producer_state *ps, int64_t pid, uint32_t *index)
{
    for (uint32_t i = ps->buckets[bucket_of(ps, pid)]; i != NIL; i = ps->entries[i].hash_next) {
        if (ps->entries[i].pid == pid) {
            if (index)
                *index = i;
            return &ps->entries[i];
        }
    }
    return NULL;
}

static const producer_batch *last_batch(const producer_entry *e)
{
    return &e->batches[(e->batch_head + e->batch_count - 1) % PRODUCER_STATE_BATCHES];
}

int32_t producer_sequence_add(int32_t seq, int32_t n)
{
    if (seq < 0 || n < 0)
        return -1;
    int64_t s = (int64_t)seq + n;
    if (s > INT32_MAX)
        s -= (int64_t)INT32_MAX + 1;
    return (int32_t)s;
}

enum producer_verdict producer_state_check(const producer_state *ps, int64_t pid, int16_t epoch,
                                           int32_t first_seq, int32_t last_seq,
                                           int64_t *duplicate_first_offset)
{
    if (pid < 0)
        return PRODUCER_APPEND;
    const producer_entry *e = find(ps, pid, NULL);
    if (!e || e->batch_count == 0)
        return PRODUCER_APPEND;
    if (epoch < e->epoch)
        return PRODUCER_FENCED;
    if (epoch > e->epoch)
        return first_seq == 0 ? PRODUCER_APPEND : PRODUCER_OUT_OF_ORDER;
    for (int i = 0; i < e->batch_count; i++) {
        const producer_batch *b = &e->batches[(e->batch_head + i) % PRODUCER_STATE_BATCHES];
        if (b->first_seq == first_seq && b->last_seq == last_seq) {
            if (duplicate_first_offset)
                *duplicate_first_offset = b->first_offset;
            return PRODUCER_DUPLICATE;
        }
    }
    if (first_seq != producer_sequence_add(last_batch(e)->last_seq, 1))
        return PRODUCER_OUT_OF_ORDER;
    return PRODUCER_APPEND;
}

static void lru_unlink(producer_state *ps, uint32_t i)
{
    producer_entry *e = &ps->entries[i];
    if (e->lru_prev != NIL)
        ps->entries[e->lru_prev].lru_next = e->lru_next;
    else
        ps->lru_head = e->lru_next;
    if (e->lru_next != NIL)
        ps->entries[e->lru_next].lru_prev = e->lru_prev;
    else
        ps->lru_tail = e->lru_prev;
}

static void lru_push_front(producer_state *ps, uint32_t i)
{
    producer_entry *e = &ps->entries[i];
    e->lru_prev = NIL;
    e->lru_next = ps->lru_head;
    if (ps->lru_head != NIL)
        ps->entries[ps->lru_head].lru_prev = i;
    ps->lru_head = i;
    if (ps->lru_tail == NIL)
        ps->lru_tail = i;
}

static void hash_unlink(producer_state *ps, uint32_t i)
{
    uint32_t *link = &ps->buckets[bucket_of(ps, ps->entries[i].pid)];
    while (*link != i)
        link = &ps->entries[*link].hash_next;
    *link = ps->entries[i].hash_next;
}

/* A fresh entry for pid: from the pool, else the least recently used one. */
static uint32_t take_entry(producer_state *ps, int64_t pid)
{
    uint32_t i;
    if (ps->used < ps->capacity) {
        i = ps->used++;
    } else {
        i = ps->lru_tail;
        lru_unlink(ps, i);
        hash_unlink(ps, i);
    }
    producer_entry *e = &ps->entries[i];
    memset(e, 0, sizeof(*e));
    e->pid = pid;
    uint32_t b = bucket_of(ps, pid);
    e->hash_next = ps->buckets[b];
    ps->buckets[b] = i;
    lru_push_front(ps, i);
    return i;
}

void producer_state_record(producer_state *ps, int64_t pid, int16_t epoch, int32_t first_seq,
                           int32_t last_seq, int64_t first_offset, int64_t last_offset)
{
    if (pid < 0)
        return;
    uint32_t i;
    if (find(ps, pid, &i)) {
        lru_unlink(ps, i);
        lru_push_front(ps, i);
    } else {
        i = take_entry(ps, pid);
        ps->entries[i].epoch = epoch;
    }
    producer_entry *e = &ps->entries[i];
    if (e->epoch != epoch) {
        e->epoch = epoch;
        e->batch_count = 0;
        e->batch_head = 0;
    }
    for (int k = 0; k < e->batch_count; k++) {
        const producer_batch *b = &e->batches[(e->batch_head + k) % PRODUCER_STATE_BATCHES];
        if (b->first_seq == first_seq && b->last_seq == last_seq)
            return; /* already cached (e.g. log replayed twice) */
    }
    producer_batch nb = { first_seq, last_seq, first_offset, last_offset };
    if (e->batch_count < PRODUCER_STATE_BATCHES) {
        e->batches[(e->batch_head + e->batch_count) % PRODUCER_STATE_BATCHES] = nb;
        e->batch_count++;
    } else {
        e->batches[e->batch_head] = nb;
        e->batch_head = (uint8_t)((e->batch_head + 1) % PRODUCER_STATE_BATCHES);
    }
}

bool producer_state_get(const producer_state *ps, int64_t pid, int16_t *epoch,
                        int32_t *last_seq, int64_t *last_offset)
{
    const producer_entry *e = pid >= 0 ? find(ps, pid, NULL) : NULL;
    if (!e || e->batch_count == 0)
        return false;
    if (epoch)
        *epoch = e->epoch;
    if (last_seq)
        *last_seq = last_batch(e)->last_seq;
    if (last_offset)
        *last_offset = last_batch(e)->last_offset;
    return true;
}

void producer_state_record_batches(producer_state *ps, const uint8_t *data, size_t len)
{
    size_t pos = 0;
    while (pos < len) {
        record_batch_header h;
        if (record_batch_parse_header(data + pos, len - pos, &h) != RECORD_OK)
            return;
        pos += record_batch_size(&h);
        if (record_batch_is_control(&h) || h.producer_id < 0 || h.base_sequence < 0 ||
            h.last_offset_delta < 0)
            continue;
        producer_state_record(ps, h.producer_id, h.producer_epoch, h.base_sequence,
                              producer_sequence_add(h.base_sequence, h.last_offset_delta),
                              h.base_offset,
                              (int64_t)((uint64_t)h.base_offset + (uint64_t)h.last_offset_delta));
    }
}

enum kafka_error producer_verdict_error(enum producer_verdict v)
{
    switch (v) {
    case PRODUCER_APPEND:
    case PRODUCER_DUPLICATE:
        return KAFKA_NONE;
    case PRODUCER_OUT_OF_ORDER:
        return KAFKA_OUT_OF_ORDER_SEQUENCE_NUMBER;
    case PRODUCER_FENCED:
        return KAFKA_INVALID_PRODUCER_EPOCH;
    }
    return KAFKA_UNKNOWN_SERVER_ERROR;
}

uint32_t producer_state_capacity(const producer_state *ps)
{
    return ps->capacity;
}

int producer_state_foreach(const producer_state *ps, producer_state_visit_fn fn, void *ctx)
{
    for (uint32_t i = ps->lru_tail; i != NIL; i = ps->entries[i].lru_prev) {
        const producer_entry *e = &ps->entries[i];
        producer_batch_view batches[PRODUCER_STATE_BATCHES];
        for (int k = 0; k < e->batch_count; k++)
            batches[k] = e->batches[(e->batch_head + k) % PRODUCER_STATE_BATCHES];
        int rc = fn(ctx, e->pid, e->epoch, batches, e->batch_count);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int producer_state_restore(producer_state *ps, int64_t pid, int16_t epoch,
                           const producer_batch_view *batches, int count)
{
    if (pid < 0 || count < 1 || count > PRODUCER_STATE_BATCHES || !batches)
        return -EINVAL;
    if (find(ps, pid, NULL))
        return -EEXIST;
    producer_entry *e = &ps->entries[take_entry(ps, pid)];
    e->epoch = epoch;
    e->batch_count = (uint8_t)count;
    e->batch_head = 0;
    memcpy(e->batches, batches, sizeof(*batches) * (size_t)count);
    return 0;
}
