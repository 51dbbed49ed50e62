/* Simulated Kafka clients, speaking the real wire protocol to the simulated
 * servers through w_net: idempotent producers (InitProducerId, sequences,
 * retries after timeouts and NOT_LEADER_OR_FOLLOWER, bursts of
 * InitProducerId), plain producers with acks -1, 1 and 0, and consumers
 * reading from offset 0 with long-poll Fetch, a forger of replica
 * fetches, and offset committers of consumer groups (w_client_group.c). Every record value is a unique
 * 8-byte big-endian number; what clients see is reported to the checker
 * (w_check.h). */
#ifndef SIM_W_CLIENT_H
#define SIM_W_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim.h"

typedef enum w_client_kind {
    W_CLIENT_IDEMPOTENT = 1, /* acks=-1, enable.idempotence */
    W_CLIENT_ACKS_ALL,
    W_CLIENT_ACKS_ONE,
    W_CLIENT_ACKS_ZERO,
    W_CLIENT_CONSUMER,
    W_CLIENT_FORGER, /* replica Fetch naming a voter, on a client connection */
    W_CLIENT_GROUP,  /* OffsetCommit/OffsetFetch of group g<idx> ("simple consumer") */
    W_CLIENT_GROUP_MEMBER, /* the same as a member: JoinGroup, SyncGroup, Heartbeat */
    W_CLIENT_HOSTILE, /* Produce smuggling control batches (w_client_hostile.c, issue 19) */
    W_CLIENT_FLOOD, /* pipelines consumer Fetches and never reads (w_client_flood.c) */
    W_CLIENT_CONNFLOOD, /* opens idle connections, many (w_client_connflood.c) */
    W_CLIENT_OPERATOR, /* AddRaftVoter/RemoveRaftVoter (w_client_operator.c, KIP-853) */
    W_CLIENT_TXN,      /* a transactional producer (w_client_txn.c, issue 23) */
    W_CLIENT_CONSUMER_RC, /* a consumer with isolation_level 1 (read_committed) */
    W_CLIENT_CONSUMER_MEMBER, /* a KIP-848 member (w_client_consumer.c, issue 24) */
} w_client_kind;

typedef struct w_client w_client;

/* Creates client idx (w->clients[idx]) and schedules its first action. */
w_client *w_client_create(w_world *w, int idx, w_client_kind kind);
void w_client_destroy(w_client *c);
/* W_EV_CLIENT for this client: send what is due (paced by w->clients_on). */
void w_client_on_event(w_world *w, int idx);
/* The answer to a request it sent with w_net_client_send: bytes NULL when
 * the request failed (timeout, connection closed, node down). */
void w_client_on_response(w_world *w, int idx, uint64_t client_ref, const uint8_t *bytes,
                          size_t len);
/* True when the client has nothing in flight and nothing left to retry. */
bool w_client_idle(const w_client *c);
/* Producers: stops new records (retries of unacknowledged ones continue). */
void w_client_stop_new(w_client *c);
/* Group clients, end of run: sends one OffsetFetch to node `node` (false if
 * c is no group client or the server has no group APIs); pending until it is
 * answered or fails; answered once one such answer was NONE (and checked). */
/* Group clients are of W_CLIENT_GROUP or W_CLIENT_GROUP_MEMBER. */
bool w_client_group_final_fetch(w_world *w, w_client *c, int node);
bool w_client_group_final_pending(const w_client *c);
/* Whether c is no group member, or one that joined and synced (issue 24:
 * leader failures wait for it, to fail over with stable members). */
bool w_client_member_stable(const w_client *c);
bool w_client_group_final_answered(const w_client *c);
/* A flood client whose connections are open: its answers are never read. */
bool w_client_never_reads(const w_world *w, int idx);

/* A KIP-848 consumer member (issue 24) joins group c<first>, whose first
 * member is client `first` (commit values and offsets checks shared). */
void w_client_consumer_group(w_world *w, w_client *c, int first);

/* A transactional producer takes twin's transactional id (and group): a
 * zombie pair, each fencing the other (issue 23). */
void w_client_txn_twin(w_world *w, w_client *c, const w_client *twin);

/* Whether client idx speaks on the controller listener (the operator). */
bool w_client_on_controller(const w_world *w, int idx);

/* ---- the operator (w_client_operator.c, KIP-853): one voter change at a
 * time, sent to the node it believes leads until it is known to be in
 * force and committed. */
typedef enum w_op_kind { W_OP_ADD = 1, W_OP_REMOVE } w_op_kind;
/* Starts a change (false: one is still going on). */
bool w_operator_change(w_world *w, w_client *c, w_op_kind kind, int32_t id, kq_uuid dir);
/* Whether the last change is settled (acknowledged committed, or found
 * in force and committed by a retry). */
bool w_operator_settled(const w_client *c);

#endif
