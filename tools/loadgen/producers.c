/* kq-load: librdkafka producer instances and their delivery reports. */
#include "producers.h"

#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/eventfd.h>
#include <unistd.h>

#include "clock.h"

_Static_assert(sizeof(void *) >= sizeof(uint64_t), "send time travels in the msg opaque");

/* Reports served by one rd_kafka_poll() call arrive microseconds apart, so
 * the clock is read for the first and then every KL_DR_CLOCK_EVERY-th. */
#define KL_DR_CLOCK_EVERY 16u
/* Producers whose reports wake a paced wait; more connections than this
 * are still served, on the next poll. */
#define KL_WAIT_FDS_MAX 256

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
    (void)rk;
    struct kl_producers *p = opaque;
    if (p->dr_clock_uses++ % KL_DR_CLOCK_EVERY == 0)
        p->dr_clock_ns = kl_now_ns();
    uint64_t sent_ns = (uint64_t)(uintptr_t)m->_private;
    kl_stats_on_delivery(p->stats, sent_ns, p->dr_clock_ns, m->err, rd_kafka_err2str(m->err));
    /* --ack-log reads the clock for every report: gaps between acks are
     * the figure there, not throughput. */
    if (p->ack_log && m->err == RD_KAFKA_RESP_ERR_NO_ERROR)
        fprintf(p->ack_log, "%llu %lld\n", (unsigned long long)(kl_now_ns() / 1000u),
                (long long)m->offset);
}

static int set_prop(rd_kafka_conf_t *conf, const char *key, const char *value)
{
    char err[512];
    if (rd_kafka_conf_set(conf, key, value, err, sizeof(err)) != RD_KAFKA_CONF_OK) {
        fprintf(stderr, "kq-load: %s=%s: %s\n", key, value, err);
        return -1;
    }
    return 0;
}

static int set_int_prop(rd_kafka_conf_t *conf, const char *key, long value)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%ld", value);
    return set_prop(conf, key, buf);
}

/* -X key=value pairs, applied last so that they override everything. */
static int set_extra_props(rd_kafka_conf_t *conf, const struct kl_options *o)
{
    for (int i = 0; i < o->extra_count; i++) {
        char kv[1024];
        snprintf(kv, sizeof(kv), "%s", o->extra_props[i]);
        char *eq = strchr(kv, '=');
        if (!eq)
            return -1;
        *eq = '\0';
        if (set_prop(conf, kv, eq + 1))
            return -1;
    }
    return 0;
}

static rd_kafka_conf_t *make_conf(const struct kl_options *o, struct kl_producers *p)
{
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    int bad = set_prop(conf, "bootstrap.servers", o->bootstrap) ||
              set_int_prop(conf, "acks", o->acks) ||
              (o->idempotent && set_prop(conf, "enable.idempotence", "true")) ||
              (o->compression && set_prop(conf, "compression.type", o->compression)) ||
              (o->linger_ms >= 0 && set_int_prop(conf, "linger.ms", o->linger_ms)) ||
              (o->batch_bytes > 0 && set_int_prop(conf, "batch.size", o->batch_bytes)) ||
              set_extra_props(conf, o);
    if (bad) {
        rd_kafka_conf_destroy(conf);
        return NULL;
    }
    rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
    rd_kafka_conf_set_opaque(conf, p);
    return conf;
}

/* Creates producer i; returns 0 or -1. */
static int open_one(struct kl_producers *p, int i, const struct kl_options *o)
{
    rd_kafka_conf_t *conf = make_conf(o, p);
    if (!conf)
        return -1;
    char err[512];
    p->rk[i] = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
    if (!p->rk[i]) {
        rd_kafka_conf_destroy(conf);
        fprintf(stderr, "kq-load: cannot create producer: %s\n", err);
        return -1;
    }
    /* Delivery reports go to the main queue; librdkafka writes to the fd
     * when that queue becomes non-empty. */
    p->event_fds[i] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (p->event_fds[i] < 0) {
        perror("kq-load: eventfd");
        return -1;
    }
    rd_kafka_queue_t *q = rd_kafka_queue_get_main(p->rk[i]);
    static const uint64_t one = 1;
    rd_kafka_queue_io_event_enable(q, p->event_fds[i], &one, sizeof one);
    rd_kafka_queue_destroy(q);
    p->rkt[i] = rd_kafka_topic_new(p->rk[i], o->topic, NULL);
    if (!p->rkt[i]) {
        fprintf(stderr, "kq-load: topic %s: %s\n", o->topic,
                rd_kafka_err2str(rd_kafka_last_error()));
        return -1;
    }
    return 0;
}

int kl_producers_open(struct kl_producers *p, const struct kl_options *o,
                      struct kl_stats *stats)
{
    memset(p, 0, sizeof(*p));
    p->count = o->connections;
    p->partition = o->partition;
    p->stats = stats;
    p->rk = calloc((size_t)p->count, sizeof(*p->rk));
    p->rkt = calloc((size_t)p->count, sizeof(*p->rkt));
    p->event_fds = malloc((size_t)p->count * sizeof(*p->event_fds));
    for (int i = 0; p->event_fds && i < p->count; i++)
        p->event_fds[i] = -1;
    if (!p->rk || !p->rkt || !p->event_fds) {
        fputs("kq-load: out of memory\n", stderr);
        kl_producers_close(p);
        return -1;
    }
    if (o->ack_log) {
        p->ack_log = fopen(o->ack_log, "w");
        if (!p->ack_log) {
            perror("kq-load: --ack-log");
            kl_producers_close(p);
            return -1;
        }
        setvbuf(p->ack_log, NULL, _IOLBF, 0); /* readable while running */
    }
    for (int i = 0; i < p->count; i++) {
        if (open_one(p, i, o) != 0) {
            kl_producers_close(p);
            return -1;
        }
    }
    return 0;
}

enum kl_send_result kl_producers_send(struct kl_producers *p, int i,
                                      const struct kl_payload *pl, uint64_t sent_ns)
{
    int rc = rd_kafka_produce(p->rkt[i], p->partition, RD_KAFKA_MSG_F_COPY, pl->value,
                              pl->value_bytes, pl->key, pl->key_bytes,
                              (void *)(uintptr_t)sent_ns);
    if (rc == 0) {
        kl_stats_on_sent(p->stats, sent_ns);
        return KL_SENT;
    }
    rd_kafka_resp_err_t err = rd_kafka_last_error();
    if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL)
        return KL_QUEUE_FULL;
    fprintf(stderr, "kq-load: produce failed: %s\n", rd_kafka_err2str(err));
    return KL_SEND_ERROR;
}

int kl_producers_poll(struct kl_producers *p, int wait_on, int timeout_ms)
{
    int served = 0;
    for (int i = 0; i < p->count; i++) {
        p->dr_clock_uses = 0;
        served += rd_kafka_poll(p->rk[i], i == wait_on ? timeout_ms : 0);
    }
    return served;
}

int kl_producers_wait(struct kl_producers *p, uint64_t timeout_ns)
{
    struct pollfd fds[KL_WAIT_FDS_MAX];
    int n = p->count < KL_WAIT_FDS_MAX ? p->count : KL_WAIT_FDS_MAX;
    for (int i = 0; i < n; i++)
        fds[i] = (struct pollfd){.fd = p->event_fds[i], .events = POLLIN};
    struct timespec ts = {(time_t)(timeout_ns / 1000000000ull),
                          (long)(timeout_ns % 1000000000ull)};
    if (ppoll(fds, (nfds_t)n, &ts, NULL) > 0) {
        for (int i = 0; i < n; i++) {
            uint64_t v;
            /* Reset the eventfd; EAGAIN only means it was reset already. */
            if ((fds[i].revents & POLLIN) && read(fds[i].fd, &v, sizeof v) < 0)
                v = 0;
        }
    }
    return kl_producers_poll(p, -1, 0);
}

long kl_producers_in_flight(const struct kl_producers *p)
{
    long n = 0;
    for (int i = 0; i < p->count; i++)
        n += rd_kafka_outq_len(p->rk[i]);
    return n;
}

void kl_producers_purge(struct kl_producers *p)
{
    for (int i = 0; i < p->count; i++)
        rd_kafka_purge(p->rk[i], RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
    kl_producers_poll(p, -1, 0);
}

void kl_producers_close(struct kl_producers *p)
{
    for (int i = 0; p->rk && i < p->count; i++) {
        if (p->rkt && p->rkt[i])
            rd_kafka_topic_destroy(p->rkt[i]);
        if (p->rk[i])
            rd_kafka_destroy(p->rk[i]);
    }
    for (int i = 0; p->event_fds && i < p->count; i++)
        if (p->event_fds[i] >= 0)
            close(p->event_fds[i]);
    free(p->event_fds);
    p->event_fds = NULL;
    if (p->ack_log)
        fclose(p->ack_log);
    p->ack_log = NULL;
    free(p->rk);
    free(p->rkt);
    p->rk = NULL;
    p->rkt = NULL;
}
