/* kq-load --consume (see consume.h). */
#include "consume.h"

#include <librdkafka/rdkafka.h>
#include <string.h>

#include "clock.h"

struct consume_totals {
    unsigned long long records;
    unsigned long long bytes;
    double first_s, last_s;
};

static rd_kafka_t *consumer_new(const struct kl_options *o)
{
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    const char *base[][2] = {
        {"bootstrap.servers", o->bootstrap}, {"group.id", "kq-load-consume"},
        {"enable.auto.commit", "false"},     {"enable.partition.eof", "false"},
    };
    for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++)
        if (rd_kafka_conf_set(conf, base[i][0], base[i][1], err, sizeof(err)) != RD_KAFKA_CONF_OK)
            goto bad;
    for (int i = 0; i < o->extra_count; i++) {
        char kv[512];
        snprintf(kv, sizeof(kv), "%s", o->extra_props[i]);
        char *eq = strchr(kv, '=');
        *eq = '\0';
        if (rd_kafka_conf_set(conf, kv, eq + 1, err, sizeof(err)) != RD_KAFKA_CONF_OK)
            goto bad;
    }
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
    if (!rk)
        fprintf(stderr, "kq-load: consumer: %s\n", err);
    return rk;
bad:
    fprintf(stderr, "kq-load: consumer config: %s\n", err);
    rd_kafka_conf_destroy(conf);
    return NULL;
}

/* Polls until the wanted records or seconds; 0, or -1 on a consumer error. */
static int consume_loop(const struct kl_options *o, rd_kafka_t *rk, struct consume_totals *t)
{
    double start_s = (kl_now_ns() / 1e9);
    for (;;) {
        double now_s = (kl_now_ns() / 1e9);
        if (o->seconds > 0 && now_s - start_s >= o->seconds)
            return 0;
        if (o->records > 0 && t->records >= o->records)
            return 0;
        rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 100);
        if (!m)
            continue;
        if (m->err) {
            fprintf(stderr, "kq-load: consume: %s\n", rd_kafka_message_errstr(m));
            rd_kafka_message_destroy(m);
            return -1;
        }
        now_s = (kl_now_ns() / 1e9);
        if (t->records == 0)
            t->first_s = now_s;
        t->last_s = now_s;
        t->records++;
        t->bytes += m->len + m->key_len;
        rd_kafka_message_destroy(m);
    }
}

static void report(const struct kl_options *o, FILE *out, const struct consume_totals *t)
{
    double span_s = t->last_s - t->first_s;
    double rps = span_s > 0 ? (double)t->records / span_s : 0;
    double mbs = span_s > 0 ? (double)t->bytes / span_s / 1e6 : 0;
    if (o->json)
        fprintf(out,
                "{\"records_read\": %llu, \"bytes_read\": %llu, \"seconds\": %.3f, "
                "\"records_per_s\": %.1f, \"mb_per_s\": %.2f}\n",
                t->records, t->bytes, span_s, rps, mbs);
    else
        fprintf(out, "%llu records read, %.1f records/s (%.2f MB/s) over %.3f s\n", t->records,
                rps, mbs, span_s);
}

int kl_consume(const struct kl_options *o, FILE *out)
{
    rd_kafka_t *rk = consumer_new(o);
    if (!rk)
        return 1;
    rd_kafka_topic_partition_list_t *parts = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(parts, o->topic, o->partition)->offset =
        RD_KAFKA_OFFSET_BEGINNING;
    rd_kafka_resp_err_t e = rd_kafka_assign(rk, parts);
    rd_kafka_topic_partition_list_destroy(parts);
    struct consume_totals t = {0};
    int rc = e ? -1 : consume_loop(o, rk, &t);
    if (e)
        fprintf(stderr, "kq-load: assign: %s\n", rd_kafka_err2str(e));
    rd_kafka_consumer_close(rk);
    rd_kafka_destroy(rk);
    if (rc == 0 && t.records > 0)
        report(o, out, &t);
    if (rc != 0 || t.records == 0 || (o->seconds <= 0 && t.records < o->records)) {
        fprintf(stderr, "kq-load: read %llu record(s)\n", t.records);
        return 1;
    }
    return 0;
}
