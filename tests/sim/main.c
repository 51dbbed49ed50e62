/* raft-sim: runs whole servers (the daemon's executor, handlers, storage,
 * producer state, wire codec and Raft core) in a deterministic simulated
 * cluster with simulated Kafka clients, seed by seed, checking invariants
 * after every event and the committed logs at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kq/group.h"
#include "kq/mutants.h"
#include "prng.h"
#include "w_check.h"
#include "w_client.h"
#include "w_scenarios.h"

typedef struct mutant_name {
    const char *name;
    uint32_t raft_bit; /* enum raft_mutant */
    uint32_t bit;      /* enum kq_mutant */
} mutant_name;

static const mutant_name mutants[] = {
    {"skip-flush", RAFT_MUTANT_SKIP_FLUSH, 0},
    {"vote-no-log-check", RAFT_MUTANT_VOTE_NO_LOG_CHECK, 0},
    {"hw-counts-observer", RAFT_MUTANT_HW_COUNTS_OBSERVER, 0},
    {"hw-any-epoch", RAFT_MUTANT_HW_ANY_EPOCH, 0},
    {"prevote-ignores-leader-contact", RAFT_MUTANT_PREVOTE_IGNORES_LEADER_CONTACT, 0},
    {"follower-hw-unverified", RAFT_MUTANT_FOLLOWER_HW_UNVERIFIED, 0},
    {"ignore-directory-id", RAFT_MUTANT_IGNORE_DIRECTORY_ID, 0},
    {"change-before-epoch-commit", RAFT_MUTANT_CHANGE_BEFORE_EPOCH_COMMIT, 0},
    {"two-changes-in-flight", RAFT_MUTANT_TWO_CHANGES_IN_FLIGHT, 0},
    {"hw-counts-removed-voter", RAFT_MUTANT_HW_COUNTS_REMOVED_VOTER, 0},
    {"add-before-caught-up", RAFT_MUTANT_ADD_BEFORE_CAUGHT_UP, 0},
    {"tell-hw-before-epoch-commit", RAFT_MUTANT_TELL_HW_BEFORE_EPOCH_COMMIT, 0},
    {"vote-send-before-store", 0, KQ_MUTANT_VOTE_SEND_BEFORE_STORE},
    {"storage-ignore-trunc-floor", 0, KQ_MUTANT_STORAGE_IGNORE_TRUNC_FLOOR},
    {"acks-all-on-flushed", 0, KQ_MUTANT_ACKS_ALL_ON_FLUSHED},
    {"skip-open-fsync", 0, KQ_MUTANT_SKIP_OPEN_FSYNC},
    {"producer-id-reuse", 0, KQ_MUTANT_PRODUCER_ID_REUSE},
    {"recovery-truncates-corruption", 0, KQ_MUTANT_RECOVERY_TRUNCATES_CORRUPTION},
    {"fsync-error-continue", 0, KQ_MUTANT_FSYNC_ERROR_CONTINUE},
    {"quorum-any-listener", 0, KQ_MUTANT_QUORUM_ANY_LISTENER},
    {"snapshot-above-hw", 0, KQ_MUTANT_SNAPSHOT_ABOVE_HW},
    {"delete-before-snapshot-durable", 0, KQ_MUTANT_DELETE_BEFORE_SNAPSHOT_DURABLE},
    {"offset-commit-on-append", 0, KQ_MUTANT_OFFSET_COMMIT_ON_APPEND},
    {"offsets-visible-at-end", 0, KQ_MUTANT_OFFSETS_VISIBLE_AT_END},
    {"control-batch-first-only", 0, KQ_MUTANT_CONTROL_BATCH_FIRST_ONLY},
    {"snapshot-failure-fatal", 0, KQ_MUTANT_SNAPSHOT_FAILURE_FATAL},
    {"per-connection-budget-only", 0, KQ_MUTANT_PER_CONNECTION_BUDGET_ONLY},
    {"quorum-no-reserve", 0, KQ_MUTANT_QUORUM_NO_RESERVE},
    {"offsets-expire-early", 0, KQ_MUTANT_OFFSETS_EXPIRE_EARLY},
    {"conn-no-evict", 0, KQ_MUTANT_CONN_NO_EVICT},
    {"conn-peers-in-client-pool", 0, KQ_MUTANT_CONN_PEERS_IN_CLIENT_POOL},
    {"lso-ignores-open-txn", 0, KQ_MUTANT_LSO_IGNORES_OPEN_TXN},
    {"marker-before-commit", 0, KQ_MUTANT_MARKER_BEFORE_COMMIT},
    {"no-fencing-on-init", 0, KQ_MUTANT_NO_FENCING_ON_INIT},
    {"abort-keeps-offsets", 0, KQ_MUTANT_ABORT_KEEPS_OFFSETS},
    {"membership-not-replicated", 0, KQ_MUTANT_MEMBERSHIP_NOT_REPLICATED},
    {"expiry-resurrects", 0, KQ_MUTANT_EXPIRY_RESURRECTS},
    {"run-end-uncommitted", 0, KQ_MUTANT_RUN_END_UNCOMMITTED},
    {"double-assignment", 0, KQ_MUTANT_DOUBLE_ASSIGNMENT},
};
#define MUTANT_COUNT (sizeof(mutants) / sizeof(mutants[0]))

static void usage(void)
{
    fprintf(stderr,
            "usage: raft-sim [--seeds N [--first-seed S]] [--seed S] [--nodes V] [--observers O]\n"
            "                [--scenario NAME|all] [--mutant NAME] [--expect-failure] [-v]\n"
            "                [--list-mutants] [--only-invariant NAME[,NAME...]]\n"
            "                [--skip-invariant NAME[,NAME...]] [--expect-invariant NAME]\n"
            "scenarios:");
    for (int i = 0; i < w_scenario_count; i++)
        fprintf(stderr, " %s", w_scenarios[i].name);
    fprintf(stderr, "\nmutants:");
    for (size_t i = 0; i < MUTANT_COUNT; i++)
        fprintf(stderr, " %s", mutants[i].name);
    fprintf(stderr, "\ninvariants (per event):");
    for (int i = 0; i < W_INV_PER_EVENT_COUNT; i++)
        fprintf(stderr, " %s", w_check_names[i]);
    fprintf(stderr, "\nend-of-run checks:");
    for (int i = W_INV_PER_EVENT_COUNT; i < W_CHECK_COUNT; i++)
        fprintf(stderr, " %s", w_check_names[i]);
    fprintf(stderr, "\n");
}

static bool parse_u64(const char *s, uint64_t *out)
{
    char *end;
    if (!s || !*s)
        return false;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end)
        return false;
    *out = v;
    return true;
}

/* Comma-separated check names to a bit mask; false on an unknown name. */
static bool parse_checks(const char *s, uint64_t *mask)
{
    *mask = 0;
    if (!s || !*s)
        return false;
    while (*s) {
        char name[64];
        size_t len = strcspn(s, ",");
        if (len == 0 || len >= sizeof(name))
            return false;
        memcpy(name, s, len);
        name[len] = 0;
        int c = w_check_find(name);
        if (c < 0)
            return false;
        *mask |= UINT64_C(1) << c;
        s += len;
        if (*s == ',' && !*++s)
            return false;
    }
    return true;
}

/* Issue 24: in a third of the worlds, two or three KIP-848 consumer members
 * of one group (w_client_consumer.c), with the group.consumer.* timeouts
 * scaled to the run (session 1.5-4 s, heartbeat interval 0.1-0.5 s). Drawn
 * from a generator of their own, so that the worlds without them draw
 * exactly what they drew before; each node's pool then has room for them. */
static void add_consumer_members(w_world *w)
{
    sim_prng rng;
    sim_prng_seed(&rng, w->p.seed * 0x2545f4914f6cdd1dull + 0x848);
    if (sim_prng_below(&rng, 3) != 0)
        return;
    if (w->cfg.group.max_size <= 0)
        w->cfg.group = group_config_default();
    group_config *g = &w->cfg.group;
    g->consumer_session_timeout_ms = (int32_t)sim_prng_range(&rng, 1500, 4000);
    g->consumer_min_session_timeout_ms = 1000;
    g->consumer_max_session_timeout_ms = 10000;
    g->consumer_heartbeat_interval_ms = (int32_t)sim_prng_range(&rng, 100, 500);
    g->consumer_min_heartbeat_interval_ms = 50;
    g->consumer_max_heartbeat_interval_ms = 1000;
    int first = w->client_n;
    int count = (int)sim_prng_range(&rng, 2, 3);
    for (int i = 0; i < count; i++) {
        w->clients[w->client_n] = w_client_create(w, w->client_n, W_CLIENT_CONSUMER_MEMBER);
        w_client_consumer_group(w, w->clients[w->client_n], first);
        w->client_n++;
    }
    if (w->max_connections < (uint32_t)w->client_n + 8)
        w->max_connections = (uint32_t)w->client_n + 8;
}

/* Two or three producers of the kinds the seed draws, a consumer, in half
 * the seeds a forger of replica fetches and, in half the seeds, one or two
 * offset committers (consumer groups), a third of them as group members;
 * issue 19's hostile producer and Fetch floods in a third of the seeds each,
 * a connection flood in half; in a third, transactions (issue 23): one or
 * two transactional producers (the second a zombie twin of the first half
 * the time) and a read_committed consumer (15 clients at most,
 * SIM_CLIENTS_MAX). Every node's max.connections is drawn here (16-48). */
static void add_clients(w_world *w)
{
    static const w_client_kind kinds[] = {W_CLIENT_IDEMPOTENT, W_CLIENT_ACKS_ALL,
                                          W_CLIENT_IDEMPOTENT, W_CLIENT_ACKS_ONE,
                                          W_CLIENT_ACKS_ZERO};
    w->clients_on = true;
    w->clients[w->client_n] = w_client_create(w, w->client_n, W_CLIENT_IDEMPOTENT);
    w->client_n++;
    int extra = (int)sim_prng_range(&w->rng, 1, 2);
    for (int i = 0; i < extra; i++) {
        w_client_kind k = kinds[sim_prng_below(&w->rng, sizeof(kinds) / sizeof(kinds[0]))];
        w->clients[w->client_n] = w_client_create(w, w->client_n, k);
        w->client_n++;
    }
    w->clients[w->client_n] = w_client_create(w, w->client_n, W_CLIENT_CONSUMER);
    w->client_n++;
    if (sim_prng_below(&w->rng, 2)) {
        w->clients[w->client_n] = w_client_create(w, w->client_n, W_CLIENT_FORGER);
        w->client_n++;
    }
    int groups = sim_prng_below(&w->rng, 2) ? (int)sim_prng_range(&w->rng, 1, 2) : 0;
    for (int i = 0; i < groups; i++) {
        w_client_kind k = sim_prng_below(&w->rng, 3) ? W_CLIENT_GROUP : W_CLIENT_GROUP_MEMBER;
        w->clients[w->client_n] = w_client_create(w, w->client_n, k);
        w->client_n++;
    }
    /* Issue 19: in a third of the seeds, a producer smuggling control batches. */
    if (sim_prng_below(&w->rng, 3) == 0) {
        w->clients[w->client_n] = w_client_create(w, w->client_n, W_CLIENT_HOSTILE);
        w->client_n++;
    }
    /* A third of the worlds: two or three clients that pipeline Fetches and
     * never read (issue 19, w_client_flood.c). */
    int floods = sim_prng_below(&w->rng, 3) == 0 ? (int)sim_prng_range(&w->rng, 2, 3) : 0;
    for (int i = 0; i < floods; i++) {
        w->clients[w->client_n] = w_client_create(w, w->client_n, W_CLIENT_FLOOD);
        w->client_n++;
    }
    /* Issue 19 item 2: the nodes' connection pools at a small scale, and in
     * half the worlds a flood of idle connections (w_client_connflood.c). */
    w->max_connections = (uint32_t)sim_prng_range(&w->rng, KQ_CLIENT_CONNECTIONS_MIN, 48);
    if (sim_prng_below(&w->rng, 2) == 0) {
        w->clients[w->client_n] = w_client_create(w, w->client_n, W_CLIENT_CONNFLOOD);
        w->client_n++;
    }
    if (sim_prng_below(&w->rng, 3) == 0) {
        int first = w->client_n;
        int txns = (int)sim_prng_range(&w->rng, 1, 2);
        for (int i = 0; i < txns; i++) {
            w->clients[w->client_n] = w_client_create(w, w->client_n, W_CLIENT_TXN);
            w->client_n++;
        }
        if (txns == 2 && sim_prng_below(&w->rng, 2))
            w_client_txn_twin(w, w->clients[first + 1], w->clients[first]);
        w->clients[w->client_n] = w_client_create(w, w->client_n, W_CLIENT_CONSUMER_RC);
        w->client_n++;
    }
    add_consumer_members(w);
}

#define KINDS_MAX 32
typedef struct kind_count {
    char kind[80];
    uint64_t n;
} kind_count;

/* Failure kind: the message up to the first ':' (e.g. "invariant majority-durable"). */
static void count_kind(kind_count *k, int *nk, const char *msg)
{
    char kind[80];
    size_t len = strcspn(msg, ":");
    if (len >= sizeof(kind))
        len = sizeof(kind) - 1;
    memcpy(kind, msg, len);
    kind[len] = 0;
    for (int i = 0; i < *nk; i++)
        if (strcmp(k[i].kind, kind) == 0) {
            k[i].n++;
            return;
        }
    if (*nk < KINDS_MAX) {
        memcpy(k[*nk].kind, kind, len + 1);
        k[*nk].n = 1;
        (*nk)++;
    }
}

/* --scenario all: the scenarios in turn by seed, except that reconfig,
 * about four times as long as the others (a world at kraft.version 1 with
 * many changes, each waiting to settle), takes one turn in three and
 * random the other two: the test command's 2000 seeds stay within its time
 * budget; `--scenario reconfig` runs it alone. */
static const w_scenario *rotation(uint64_t s)
{
    const w_scenario *sc = &w_scenarios[s % (uint64_t)w_scenario_count];
    if (strcmp(sc->name, "reconfig") == 0 && (s / (uint64_t)w_scenario_count) % 3 != 0)
        sc = w_scenario_find("random");
    return sc;
}

int main(int argc, char **argv)
{
    uint64_t seeds = 1, first = 1, nodes = 0, observers = 0;
    bool nodes_set = false, observers_set = false, expect_failure = false, verbose = false;
    const char *scenario = "all", *mutant = NULL;
    uint32_t mutant_bits = 0, raft_bits = 0;
    uint64_t only_mask = 0, skip_mask = 0;
    const char *only = NULL, *skip = NULL;
    int expect_check = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = true;
        if (strcmp(a, "--seeds") == 0) {
            ok = parse_u64(v, &seeds) && seeds > 0;
            i++;
        } else if (strcmp(a, "--first-seed") == 0) {
            ok = parse_u64(v, &first);
            i++;
        } else if (strcmp(a, "--seed") == 0) {
            ok = parse_u64(v, &first);
            seeds = 1;
            i++;
        } else if (strcmp(a, "--nodes") == 0) {
            ok = parse_u64(v, &nodes) && nodes >= 1 && nodes <= RAFT_VOTERS_MAX;
            nodes_set = true;
            i++;
        } else if (strcmp(a, "--observers") == 0) {
            ok = parse_u64(v, &observers) && observers <= RAFT_OBSERVERS_MAX;
            observers_set = true;
            i++;
        } else if (strcmp(a, "--scenario") == 0) {
            scenario = v;
            ok = v && (strcmp(v, "all") == 0 || w_scenario_find(v));
            i++;
        } else if (strcmp(a, "--mutant") == 0) {
            ok = false;
            for (size_t m = 0; v && m < MUTANT_COUNT; m++)
                if (strcmp(v, mutants[m].name) == 0) {
                    mutant_bits = mutants[m].bit;
                    raft_bits = mutants[m].raft_bit;
                    mutant = v;
                    ok = true;
                }
            i++;
        } else if (strcmp(a, "--only-invariant") == 0) {
            ok = parse_checks(v, &only_mask);
            only = v;
            i++;
        } else if (strcmp(a, "--skip-invariant") == 0) {
            ok = parse_checks(v, &skip_mask);
            skip = v;
            i++;
        } else if (strcmp(a, "--expect-invariant") == 0) {
            expect_check = v ? w_check_find(v) : -1;
            ok = expect_check >= 0;
            i++;
        } else if (strcmp(a, "--list-mutants") == 0) {
            for (size_t m = 0; m < MUTANT_COUNT; m++)
                printf("%s\n", mutants[m].name);
            return 0;
        } else if (strcmp(a, "--expect-failure") == 0) {
            expect_failure = true;
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            verbose = true;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage();
            return 0;
        } else {
            ok = false;
        }
        if (!ok) {
            fprintf(stderr, "raft-sim: bad argument %s%s%s\n", a, v ? " " : "", v ? v : "");
            usage();
            return 2;
        }
    }

    /* --only-invariant leaves the end-of-run checks on; --skip-invariant can
     * turn those off too. */
    uint64_t enabled = W_CHECKS_ALL;
    if (only)
        enabled = (only_mask & W_CHECKS_PER_EVENT) | (W_CHECKS_ALL & ~W_CHECKS_PER_EVENT);
    enabled &= ~skip_mask;
    if (expect_check >= 0 && !expect_failure) {
        fprintf(stderr, "raft-sim: --expect-invariant needs --expect-failure\n");
        return 2;
    }
    if (expect_check >= 0 && !(enabled & (UINT64_C(1) << expect_check))) {
        fprintf(stderr, "raft-sim: --expect-invariant %s names a check that is off\n",
                w_check_names[expect_check]);
        return 2;
    }
    char expect_kind[80] = "";
    if (expect_check >= 0)
        snprintf(expect_kind, sizeof(expect_kind), "%s%s",
                 expect_check < W_INV_PER_EVENT_COUNT ? "invariant " : "",
                 w_check_names[expect_check]);
    char replay_opts[600];
    snprintf(replay_opts, sizeof(replay_opts), "%s%s%s%s%s%s", mutant ? " --mutant " : "",
             mutant ? mutant : "", only ? " --only-invariant " : "", only ? only : "",
             skip ? " --skip-invariant " : "", skip ? skip : "");

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint64_t failed = 0, events = 0, checks = 0, printed = 0;
    kind_count kinds[KINDS_MAX];
    int nkinds = 0;
    w_world *w = malloc(sizeof(*w));
    if (!w) {
        fprintf(stderr, "raft-sim: out of memory\n");
        return 2;
    }
    for (uint64_t s = first; s < first + seeds; s++) {
        /* Cluster shape drawn from the seed (always drawn, so overriding it
         * does not change the rest of the run). */
        sim_prng pick;
        sim_prng_seed(&pick, s ^ 0x5eed5eed5eedull);
        int v = (int)sim_prng_range(&pick, 1, 5);
        int o = sim_prng_below(&pick, 4) == 0 ? (int)sim_prng_range(&pick, 1, 2) : 0;
        if (nodes_set)
            v = (int)nodes;
        if (observers_set)
            o = (int)observers;
        const w_scenario *sc = strcmp(scenario, "all") == 0 ? rotation(s)
                                                            : w_scenario_find(scenario);
        w_params p = {.seed = s, .voters = v, .observers = o, .mutants = mutant_bits,
                      .raft_mutants = raft_bits, .checks = enabled, .verbose = verbose};
        if (w_world_init(w, &p))
            add_clients(w);
        if (verbose)
            fprintf(stderr, "=== seed %llu scenario %s voters %d observers %d\n",
                    (unsigned long long)s, sc->name, v, o);
        sc->run(w);
        events += w->events;
        checks += w_check_count(w);
        if (w->failed) {
            failed++;
            count_kind(kinds, &nkinds, w->fail_msg);
            if (printed < 10 || !expect_failure) {
                printed++;
                printf("FAIL seed=%llu scenario=%s voters=%d observers=%d t=%lldms: %s\n"
                       "  replay: scripts/simulate.sh --seed %llu --nodes %d --observers %d "
                       "--scenario %s%s -v\n",
                       (unsigned long long)s, sc->name, v, o, (long long)w->now, w->fail_msg,
                       (unsigned long long)s, v, o, sc->name, replay_opts);
            }
        }
        w_world_free(w);
    }
    free(w);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    uint64_t expected = 0;
    for (int i = 0; i < nkinds; i++) {
        printf("failures: %llu x %s\n", (unsigned long long)kinds[i].n, kinds[i].kind);
        if (strcmp(kinds[i].kind, expect_kind) == 0)
            expected = kinds[i].n;
    }
    if (expect_check >= 0)
        printf("expected %s: caught by %llu of %llu failed seeds\n", expect_kind,
               (unsigned long long)expected, (unsigned long long)failed);
    printf("seeds=%llu failed=%llu events=%llu invariant_checks=%llu seeds_per_sec=%.1f\n",
           (unsigned long long)seeds, (unsigned long long)failed, (unsigned long long)events,
           (unsigned long long)checks, secs > 0 ? (double)seeds / secs : 0.0);
    if (expect_check >= 0)
        return expected > 0 ? 0 : 1;
    if (expect_failure)
        return failed > 0 ? 0 : 1;
    return failed > 0 ? 1 : 0;
}
