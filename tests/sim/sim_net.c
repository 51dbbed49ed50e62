#include <stdlib.h>
#include <string.h>

#include "sim_net.h"

void sim_net_init(sim_net *net, int n)
{
    memset(net, 0, sizeof(*net));
    net->n = n;
    net->delay_min_ms = 1;
    net->delay_max_ms = 10;
}

void sim_net_heal(sim_net *net)
{
    memset(net->cut, 0, sizeof(net->cut));
}

void sim_net_split(sim_net *net, uint32_t side_mask)
{
    for (int a = 0; a < net->n; a++)
        for (int b = 0; b < net->n; b++)
            if (((side_mask >> a) & 1u) != ((side_mask >> b) & 1u))
                net->cut[a][b] = true;
}

void sim_net_isolate(sim_net *net, int node)
{
    sim_net_split(net, 1u << node);
}

bool sim_net_blocked(const sim_net *net, int from, int to)
{
    return net->cut[from][to];
}

int64_t sim_net_delay(const sim_net *net, sim_prng *rng)
{
    return sim_prng_range(rng, net->delay_min_ms, net->delay_max_ms);
}

void sim_msg_free(void *p)
{
    sim_msg *m = p;
    if (m) {
        free(m->records);
        free(m);
    }
}

sim_msg *sim_msg_clone(const sim_msg *m)
{
    sim_msg *c = malloc(sizeof(*c));
    if (!c)
        return NULL;
    *c = *m;
    c->records = NULL;
    if (m->records && m->m.type == RAFT_MSG_FETCH_RESPONSE) {
        size_t len = m->m.u.fetch_response.records_len;
        c->records = malloc(len ? len : 1);
        if (!c->records) {
            free(c);
            return NULL;
        }
        memcpy(c->records, m->records, len);
    }
    return c;
}

bool sim_msg_is_request(enum raft_msg_type t)
{
    return t == RAFT_MSG_VOTE_REQUEST || t == RAFT_MSG_BEGIN_EPOCH_REQUEST ||
           t == RAFT_MSG_END_EPOCH_REQUEST || t == RAFT_MSG_FETCH_REQUEST;
}

const char *sim_msg_type_name(enum raft_msg_type t)
{
    switch (t) {
    case RAFT_MSG_VOTE_REQUEST: return "VoteReq";
    case RAFT_MSG_VOTE_RESPONSE: return "VoteResp";
    case RAFT_MSG_BEGIN_EPOCH_REQUEST: return "BeginReq";
    case RAFT_MSG_BEGIN_EPOCH_RESPONSE: return "BeginResp";
    case RAFT_MSG_END_EPOCH_REQUEST: return "EndReq";
    case RAFT_MSG_END_EPOCH_RESPONSE: return "EndResp";
    case RAFT_MSG_FETCH_REQUEST: return "FetchReq";
    case RAFT_MSG_FETCH_RESPONSE: return "FetchResp";
    }
    return "?";
}
