/* Bounded bump allocator. Memory comes in blocks; the newest (largest) block
 * is kept across resets so steady-state requests do not call malloc. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kq/buf.h"

#define ARENA_FIRST_BLOCK 4096u

struct kq_arena_block {
    struct kq_arena_block *next;
    size_t cap;
    /* payload follows, 8-byte aligned */
    uint64_t payload[];
};

void kq_arena_init(kq_arena *a, size_t cap_max)
{
    memset(a, 0, sizeof *a);
    a->cap_max = cap_max ? cap_max : (SIZE_MAX >> 2);
}

static size_t arena_total(const kq_arena *a)
{
    size_t t = 0;
    for (const struct kq_arena_block *b = a->blocks; b; b = b->next)
        t += b->cap;
    return t;
}

void *kq_arena_alloc(kq_arena *a, size_t size)
{
    if (size > a->cap_max)
        return NULL;
    size_t need = (size + 7) & ~(size_t)7;
    if (need == 0)
        need = 8;
    if (!a->base || a->cap - a->used < need) {
        size_t total = arena_total(a);
        if (total > a->cap_max || a->cap_max - total < need)
            return NULL;
        size_t cap = a->cap ? a->cap * 2 : ARENA_FIRST_BLOCK;
        if (cap < need)
            cap = need;
        if (cap > a->cap_max - total)
            cap = a->cap_max - total;
        struct kq_arena_block *b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->next = a->blocks;
        b->cap = cap;
        a->blocks = b;
        a->base = (uint8_t *)b->payload;
        a->cap = cap;
        a->used = 0;
    }
    void *p = a->base + a->used;
    a->used += need;
    memset(p, 0, need);
    return p;
}

void kq_arena_reset(kq_arena *a)
{
    struct kq_arena_block *keep = a->blocks;
    if (!keep)
        return;
    struct kq_arena_block *b = keep->next;
    while (b) {
        struct kq_arena_block *n = b->next;
        free(b);
        b = n;
    }
    keep->next = NULL;
    a->base = (uint8_t *)keep->payload;
    a->cap = keep->cap;
    a->used = 0;
}

void kq_arena_free(kq_arena *a)
{
    struct kq_arena_block *b = a->blocks;
    while (b) {
        struct kq_arena_block *n = b->next;
        free(b);
        b = n;
    }
    size_t cap_max = a->cap_max;
    memset(a, 0, sizeof *a);
    a->cap_max = cap_max;
}
