#include <stdlib.h>

#include "scheduler.h"

static bool before(const sim_event *a, const sim_event *b)
{
    return a->at_ms < b->at_ms || (a->at_ms == b->at_ms && a->seq < b->seq);
}

void sim_sched_init(sim_sched *s, void (*free_ptr)(void *ptr))
{
    s->heap = NULL;
    s->n = s->cap = 0;
    s->next_seq = 0;
    s->free_ptr = free_ptr;
}

void sim_sched_free(sim_sched *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->heap[i].ptr && s->free_ptr)
            s->free_ptr(s->heap[i].ptr);
    free(s->heap);
    s->heap = NULL;
    s->n = s->cap = 0;
}

bool sim_sched_push(sim_sched *s, const sim_event *ev)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        sim_event *h = realloc(s->heap, cap * sizeof(*h));
        if (!h)
            return false;
        s->heap = h;
        s->cap = cap;
    }
    size_t i = s->n++;
    s->heap[i] = *ev;
    s->heap[i].seq = s->next_seq++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!before(&s->heap[i], &s->heap[parent]))
            break;
        sim_event t = s->heap[i];
        s->heap[i] = s->heap[parent];
        s->heap[parent] = t;
        i = parent;
    }
    return true;
}

const sim_event *sim_sched_peek(const sim_sched *s)
{
    return s->n ? &s->heap[0] : NULL;
}

bool sim_sched_pop(sim_sched *s, sim_event *out)
{
    if (s->n == 0)
        return false;
    *out = s->heap[0];
    s->heap[0] = s->heap[--s->n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < s->n && before(&s->heap[l], &s->heap[m]))
            m = l;
        if (r < s->n && before(&s->heap[r], &s->heap[m]))
            m = r;
        if (m == i)
            break;
        sim_event t = s->heap[i];
        s->heap[i] = s->heap[m];
        s->heap[m] = t;
        i = m;
    }
    return true;
}
