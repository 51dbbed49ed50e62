/* Bounds on SASL state a client can make the server hold (issue 19 items
 * 11 and 13): pending handshakes in total and per address, with an expiry,
 * and failed logins answered late (Kafka's
 * connection.failed.authentication.delay.ms, KIP-306) with a bounded
 * number waiting. Before, 4,100 connections that only sent SaslHandshake
 * took every session and real logins got ILLEGAL_SASL_STATE.
 *
 * A new handshake is always admitted. When its address already holds
 * KQ_SASL_PENDING_PER_ADDRESS_MAX, that address's oldest pending handshake
 * is evicted; when all KQ_SASL_PENDING_MAX are taken, the oldest of the
 * address holding most. An evicted or expired handshake fails and the
 * transport closes its connection at once (svc.session_close; without it,
 * at its next frame). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kq/assert.h"
#include "kq/log_line.h"
#include "sasl_internal.h"

/* The address part of "ip:port" (IPv6 "a:b::c:port" too). */
static void peer_address(const char *peer, char *out, size_t out_bytes)
{
    const char *colon = strrchr(peer, ':');
    size_t n = colon ? (size_t)(colon - peer) : strlen(peer);
    if (n >= out_bytes)
        n = out_bytes - 1;
    memcpy(out, peer, n);
    out[n] = '\0';
}

static uint64_t fnv1a(const char *s)
{
    uint64_t x = 14695981039346656037ull;
    for (; *s; s++)
        x = (x ^ (uint8_t)*s) * 1099511628211ull;
    return x;
}

static void log_eviction(handler *h, const sasl_pending_entry *e, const char *why)
{
    int64_t now = h->svc.now_ms(h->svc.ctx);
    if (h->sasl_evict_logged_ms != 0 && now - h->sasl_evict_logged_ms < HANDLER_DENIAL_LOG_MS) {
        h->sasl_evict_unlogged++;
        return;
    }
    log_line("SASL handshake from %s %s; it fails%s", e->addr, why,
             h->sasl_evict_unlogged ? " (and earlier ones not logged)" : "");
    h->sasl_evict_logged_ms = now;
    h->sasl_evict_unlogged = 0;
}

void sasl_pending_remove(handler *h, handler_sasl *s)
{
    if (s->pending < 0)
        return;
    int i = s->pending;
    KQ_ASSERT(i < h->sasl_pending_count && h->sasl_pending[i].s == s);
    int last = --h->sasl_pending_count;
    if (i != last) {
        h->sasl_pending[i] = h->sasl_pending[last];
        h->sasl_pending[i].s->pending = i;
    }
    s->pending = -1;
}

static void evict(handler *h, int i, const char *why)
{
    handler_sasl *s = h->sasl_pending[i].s;
    log_eviction(h, &h->sasl_pending[i], why);
    sasl_end_exchange(h, s, SASL_FAILED); /* removes entry i */
    if (h->svc.session_close) {
        char reason[96];
        snprintf(reason, sizeof reason, "SASL handshake %s", why);
        h->svc.session_close(h->svc.ctx, s->cell, reason);
    }
}

/* The oldest pending handshake of address hash (-1: none). */
static int oldest_of(const handler *h, uint64_t hash, int *count)
{
    int oldest = -1;
    *count = 0;
    for (int i = 0; i < h->sasl_pending_count; i++) {
        const sasl_pending_entry *e = &h->sasl_pending[i];
        if (e->addr_hash != hash)
            continue;
        (*count)++;
        if (oldest < 0 || e->started_ms < h->sasl_pending[oldest].started_ms)
            oldest = i;
    }
    return oldest;
}

/* The address holding most pending handshakes: one pass over the table with
 * an open-addressing count (twice the table's size, so never full). */
static uint64_t busiest_address(const handler *h)
{
    enum { SLOTS = 2 * KQ_SASL_PENDING_MAX };
    uint64_t keys[SLOTS];
    int counts[SLOTS] = {0};
    uint64_t best = 0;
    int best_count = 0;
    for (int i = 0; i < h->sasl_pending_count; i++) {
        uint64_t k = h->sasl_pending[i].addr_hash;
        uint32_t j = (uint32_t)(k % SLOTS);
        while (counts[j] > 0 && keys[j] != k)
            j = (j + 1) % SLOTS;
        keys[j] = k;
        if (++counts[j] > best_count) {
            best_count = counts[j];
            best = k;
        }
    }
    return best;
}

void sasl_pending_add(handler *h, handler_sasl *s, const char *peer)
{
    sasl_pending_entry e = {.s = s, .started_ms = h->svc.now_ms(h->svc.ctx)};
    peer_address(peer, e.addr, sizeof e.addr);
    e.addr_hash = fnv1a(e.addr);
    int count;
    int own = oldest_of(h, e.addr_hash, &count);
    if (count >= KQ_SASL_PENDING_PER_ADDRESS_MAX) {
        evict(h, own, "evicted: its address has too many pending");
    } else if (h->sasl_pending_count == KQ_SASL_PENDING_MAX) {
        int victim = oldest_of(h, busiest_address(h), &count);
        KQ_ASSERT(victim >= 0);
        evict(h, victim, "evicted: too many pending, its address holds most");
    }
    KQ_ASSERT(h->sasl_pending_count < KQ_SASL_PENDING_MAX);
    s->pending = h->sasl_pending_count;
    h->sasl_pending[h->sasl_pending_count++] = e;
}

bool sasl_delay_failure(handler *h, void *slot, const uint8_t *data, size_t len, bool close)
{
    if (h->svc.failed_auth_delay_ms <= 0 || h->sasl_delayed_count >= KQ_SASL_FAILED_DELAYED_MAX)
        return false;
    for (int i = 0; i < KQ_SASL_FAILED_DELAYED_MAX; i++) {
        sasl_delayed *d = &h->sasl_delayed[i];
        if (d->in_use)
            continue;
        uint8_t *copy = NULL;
        if (!close && !(copy = malloc(len ? len : 1)))
            return false;
        if (copy && len)
            memcpy(copy, data, len);
        *d = (sasl_delayed){.in_use = true, .close = close, .slot = slot, .data = copy,
                            .len = len,
                            .due_ms = h->svc.now_ms(h->svc.ctx) + h->svc.failed_auth_delay_ms};
        h->sasl_delayed_count++;
        return true;
    }
    return false;
}

void sasl_limits_on_tick(handler *h, int64_t now_ms)
{
    for (int i = 0; h->sasl_delayed_count > 0 && i < KQ_SASL_FAILED_DELAYED_MAX; i++) {
        sasl_delayed *d = &h->sasl_delayed[i];
        if (!d->in_use || d->due_ms > now_ms)
            continue;
        d->in_use = false;
        h->sasl_delayed_count--;
        if (d->close)
            h->svc.reply_close(h->svc.ctx, d->slot, "SASL authentication failed");
        else
            h->svc.reply(h->svc.ctx, d->slot, d->data, d->len);
        free(d->data);
        d->data = NULL;
    }
    for (int i = h->sasl_pending_count - 1; i >= 0; i--)
        if (i < h->sasl_pending_count &&
            now_ms - h->sasl_pending[i].started_ms >= KQ_SASL_HANDSHAKE_TIMEOUT_MS)
            evict(h, i, "expired: no login within the handshake timeout");
}

int64_t sasl_limits_next_deadline(const handler *h)
{
    int64_t due = INT64_MAX;
    for (int i = 0; h->sasl_delayed_count > 0 && i < KQ_SASL_FAILED_DELAYED_MAX; i++)
        if (h->sasl_delayed[i].in_use && h->sasl_delayed[i].due_ms < due)
            due = h->sasl_delayed[i].due_ms;
    for (int i = 0; i < h->sasl_pending_count; i++)
        if (h->sasl_pending[i].started_ms + KQ_SASL_HANDSHAKE_TIMEOUT_MS < due)
            due = h->sasl_pending[i].started_ms + KQ_SASL_HANDSHAKE_TIMEOUT_MS;
    return due;
}

void sasl_limits_destroy(handler *h)
{
    /* Answers still held are dropped with the handler (as parked fetches). */
    for (int i = 0; i < KQ_SASL_FAILED_DELAYED_MAX; i++)
        free(h->sasl_delayed[i].data);
}
