/* Every API header, for the files that expand the whole list of APIs. */
#ifndef KQ_WIRE_APIS_ALL_H
#define KQ_WIRE_APIS_ALL_H

#include "kq/wire_add_raft_voter.h"
#include "kq/wire_api_versions.h"
#include "kq/wire_begin_quorum_epoch.h"
#include "kq/wire_describe_cluster.h"
#include "kq/wire_describe_groups.h"
#include "kq/wire_describe_quorum.h"
#include "kq/wire_end_quorum_epoch.h"
#include "kq/wire_fetch.h"
#include "kq/wire_fetch_snapshot.h"
#include "kq/wire_find_coordinator.h"
#include "kq/wire_heartbeat.h"
#include "kq/wire_init_producer_id.h"
#include "kq/wire_join_group.h"
#include "kq/wire_leave_group.h"
#include "kq/wire_list_groups.h"
#include "kq/wire_list_offsets.h"
#include "kq/wire_metadata.h"
#include "kq/wire_offset_commit.h"
#include "kq/wire_offset_fetch.h"
#include "kq/wire_produce.h"
#include "kq/wire_remove_raft_voter.h"
#include "kq/wire_raft_common.h"
#include "kq/wire_sasl.h"
#include "kq/wire_sync_group.h"
#include "kq/wire_update_features.h"
#include "kq/wire_update_raft_voter.h"
#include "kq/wire_vote.h"

#endif
