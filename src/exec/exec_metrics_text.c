/* The executor's part of the metrics endpoint: Kafka's raft-metrics group
 * as kafka_server_raft_metrics_* (names with dashes turned to underscores,
 * meanings of KafkaRaftMetrics) and the kq_* histograms (docs/metrics.md). */
#include <stdio.h>
#include <string.h>

#include "exec_internal.h"
#include "kq/group_offsets.h"
#include "kq/group_store.h"
#include "kq/txn.h"
#include "kq/wire.h"

#define RAFT_PREFIX "kafka_server_raft_metrics_"

static void gauge(kq_mtext *t, const char *name, const char *help, double value)
{
    char full[128];
    snprintf(full, sizeof full, RAFT_PREFIX "%s", name);
    kq_mtext_family(t, full, "gauge", help);
    kq_mtext_sample(t, full, NULL, 0, value);
}

static bool is_voter(const kq_exec *x)
{
    return raft_is_voter(x->raft, x->cfg.node_id); /* the set in force (KIP-853) */
}

/* Kafka's names for the state; a resigned leader is "unattached" there. */
static const char *state_name(const kq_exec *x, const raft_status *st)
{
    switch (st->role) {
    case RAFT_ROLE_LEADER:
        return "leader";
    case RAFT_ROLE_CANDIDATE:
        return "candidate";
    case RAFT_ROLE_PROSPECTIVE:
        return "prospective";
    case RAFT_ROLE_VOTED:
        return "voted";
    case RAFT_ROLE_FOLLOWER:
        return is_voter(x) ? "follower" : "observer";
    case RAFT_ROLE_UNATTACHED:
    case RAFT_ROLE_RESIGNED:
        break;
    }
    return "unattached";
}

/* current-state: one series per state Kafka names, 1 for the current one. */
static void write_state(kq_mtext *t, const char *current)
{
    static const char *const states[] = {"leader",   "candidate", "prospective", "voted",
                                         "follower", "observer",  "unattached"};
    const char *name = RAFT_PREFIX "current_state";
    kq_mtext_family(t, name, "gauge",
                    "The current state of this member (1 for the state it is in); states "
                    "leader, candidate, prospective, voted, follower, observer, unattached");
    for (size_t i = 0; i < sizeof states / sizeof states[0]; i++) {
        kq_mlabel l = {"state", states[i]};
        kq_mtext_sample(t, name, &l, 1, strcmp(states[i], current) == 0 ? 1 : 0);
    }
}

static int32_t current_vote(const kq_exec *x, const raft_status *st)
{
    if (st->role == RAFT_ROLE_LEADER || st->role == RAFT_ROLE_CANDIDATE)
        return x->cfg.node_id;
    if (st->role == RAFT_ROLE_VOTED || st->role == RAFT_ROLE_PROSPECTIVE)
        return st->voted_id;
    return -1;
}


/* name_avg and name_max of a latency window (ms); what: "to commit ...". */
static void write_latency(kq_mtext *t, const char *name, const char *what, const kq_window *w,
                          int64_t now)
{
    char full[64], help[192];
    snprintf(full, sizeof full, "%s_avg", name);
    snprintf(help, sizeof help, "The average time in milliseconds %s", what);
    gauge(t, full, help, kq_window_avg(w, now));
    snprintf(full, sizeof full, "%s_max", name);
    snprintf(help, sizeof help, "The maximum time in milliseconds %s", what);
    gauge(t, full, help, kq_window_max(w, now));
}

static void write_windows(kq_exec *x, kq_mtext *t)
{
    const exec_metrics *m = exec_metrics_view(x);
    int64_t now = exec_now(x);
    write_latency(t, "commit_latency", "to commit an entry in the raft log (leader, per append)",
                  &m->commit_latency_ms, now);
    write_latency(t, "election_latency", "spent on electing a new leader",
                  &m->election_latency_ms, now);
    gauge(t, "append_records_rate", "The average number of records appended per sec as the "
          "leader of the raft quorum", kq_window_rate_per_s(&m->append_records, now));
    gauge(t, "fetch_records_rate", "The average number of records fetched from the leader of "
          "the raft quorum per sec", kq_window_rate_per_s(&m->fetch_records, now));
}

static void write_histograms(kq_exec *x, kq_mtext *t)
{
    const exec_metrics *m = exec_metrics_view(x);
    kq_mtext_family(t, "kq_log_fsync_seconds", "histogram",
                    "Log flush jobs: from handing the job to the flush worker to its completion "
                    "on the loop (fdatasync of the appended data)");
    kq_mtext_histogram(t, "kq_log_fsync_seconds", NULL, 0, &m->fsync_s);
    kq_mtext_family(t, "kq_log_flush_batch_bytes", "histogram",
                    "Bytes appended to the log that one flush (group commit) made durable");
    kq_mtext_histogram(t, "kq_log_flush_batch_bytes", NULL, 0, &m->flush_batch_bytes);
    const char *name = "kq_request_latency_seconds";
    kq_mtext_family(t, name, "histogram",
                    "Requests per API: from the whole frame received to its response queued");
    for (int api = 0; api < KQ_METRICS_API_KEYS_MAX; api++) {
        if (m->request_s[api].count == 0)
            continue;
        kq_mlabel l = {"api", wire_api_name((int16_t)api)};
        kq_mtext_histogram(t, name, &l, 1, &m->request_s[api]);
    }
}

static void kq_gauge(kq_mtext *t, const char *name, const char *help, double value)
{
    kq_mtext_family(t, name, "gauge", help);
    kq_mtext_sample(t, name, NULL, 0, value);
}

/* The bounded log (issue 11): what retention keeps and the snapshots. */
static void write_storage(kq_exec *x, kq_mtext *t)
{
    const exec_metrics *m = exec_metrics_view(x);
    kq_gauge(t, "kq_log_start_offset", "The log start offset (retention moves it to a snapshot)",
             (double)kq_log_start_offset(x->log));
    kq_gauge(t, "kq_log_size_bytes", "Bytes of the log's segment files",
             (double)kq_log_size_bytes(x->log));
    kq_gauge(t, "kq_log_segments", "Segment files of the log", kq_log_segment_count(x->log));
    raft_snapshot_id latest;
    bool any = exec_snapshot_latest(x, &latest);
    kq_gauge(t, "kq_snapshots", "Snapshot files this node holds", exec_snapshot_count(x));
    kq_gauge(t, "kq_snapshot_latest_end_offset", "End offset of the newest snapshot; -1 none",
             any ? (double)latest.end_offset : -1.0);
    kq_mtext_family(t, "kq_snapshot_failures_total", "counter",
                    "Snapshot attempts that failed (encode, or the new file not written for want "
                    "of space or descriptors): never fatal, retried with a backoff");
    const group_offsets *offsets = exec_offsets_table(x->offsets);
    kq_mtext_sample(t, "kq_snapshot_failures_total", NULL, 0, (double)exec_snapshot_failures(x));
    kq_gauge(t, "kq_group_offsets_bytes",
             "Bytes the committed and pending group offsets take in a snapshot (at most "
             "KQ_GROUP_OFFSETS_BYTES_MAX)",
             (double)group_offsets_bytes(offsets));
    kq_gauge(t, "kq_group_offsets", "Committed consumer-group offsets (group, topic, partition)",
             group_offsets_count(offsets));
    kq_gauge(t, "kq_group_offsets_applied_offset",
             "Log offset below which every committed group offset is applied",
             (double)group_offsets_committed_to(offsets));
    const group_store *groups = exec_groups_store(x->groups);
    kq_gauge(t, "kq_group_store_bytes",
             "Bytes the group membership records take in a snapshot (at most "
             "KQ_GROUP_STORE_BYTES_MAX)",
             (double)group_store_bytes(groups));
    kq_gauge(t, "kq_group_store_records",
             "Group and member records of the group store (the log end)",
             group_store_record_count(groups));
    const txn_table *txns = exec_txn_table(x->txn);
    kq_gauge(t, "kq_txn_ids", "Transactional ids the transaction coordinator knows",
             txn_table_count(txns));
    kq_gauge(t, "kq_txn_ongoing", "Transactional ids in state Ongoing", txn_table_ongoing_count(txns));
    kq_gauge(t, "kq_txn_open", "Transactions open on the partition (first data batch written, no "
             "marker yet)", txn_table_open_count(txns));
    kq_gauge(t, "kq_txn_aborted_index", "Aborted transactions in the index read_committed fetches "
             "answer from (at most KQ_TXN_ABORTED_MAX admitted)", txn_table_aborted_count(txns));
    const char *skipped = "kq_records_unparsable_skipped_total";
    kq_mtext_family(t, skipped, "counter",
                    "Offset-commit, transaction and group-membership control records that passed "
                    "their CRC but did not parse, skipped by the group-offsets, transaction and "
                    "group-store appliers (each offset once per start)");
    kq_mtext_sample(t, skipped, NULL, 0, (double)m->records_unparsable_skipped);
    const char *streamed = "kq_fetch_streamed_total";
    kq_mtext_family(t, streamed, "counter",
                    "Consumer Fetch answers whose log data was streamed from the segment files");
    kq_mtext_sample(t, streamed, NULL, 0, (double)m->fetch_streamed);
    const char *stale = "kq_fetch_stream_stale_total";
    kq_mtext_family(t, stale, "counter",
                    "Streamed Fetch answers cut (connection closed) because retention or a "
                    "reset removed their segment before it was sent");
    kq_mtext_sample(t, stale, NULL, 0, (double)m->fetch_stream_stale);
}

void exec_metrics_write(kq_exec *x, kq_mtext *t)
{
    raft_status st;
    raft_get_status(x->raft, &st);
    write_state(t, state_name(x, &st));
    gauge(t, "current_leader", "The current quorum leader's id; -1 indicates unknown",
          st.leader_id);
    gauge(t, "current_vote", "The current voted id; -1 indicates not voted for anyone",
          current_vote(x, &st));
    gauge(t, "current_epoch", "The current quorum epoch", st.epoch);
    gauge(t, "high_watermark", "The high watermark maintained on this member; -1 if it is "
          "unknown", (double)st.high_watermark);
    gauge(t, "log_end_offset", "The current raft log end offset", (double)st.log_end_offset);
    raft_epoch_entry last[1];
    int32_t end_epoch = kq_log_epochs(x->log, last, 1) == 1 ? last[0].epoch : 0;
    gauge(t, "log_end_epoch", "The current raft log end epoch", end_epoch);
    gauge(t, "number_of_voters", "Number of voters of the quorum (the set in force)",
          raft_voters(x->raft)->count);
    gauge(t, "number_of_observers", "Number of observers the leader has seen fetch (0 elsewhere)",
          st.role == RAFT_ROLE_LEADER ? st.observer_count : 0);
    gauge(t, "number_unknown_voter_connections", "Number of voters whose connection information "
          "is not known (voters are configured with their endpoints: 0)", 0);
    write_windows(x, t);
    write_histograms(x, t);
    write_storage(x, t);
}
