/* The transaction APIs' codecs wrapped for codec_harness.h, shared by
 * test_golden_txn.c and test_txn_apis.c. Include after <cmocka.h>. */
#ifndef KQ_TEST_TXN_CODECS_H
#define KQ_TEST_TXN_CODECS_H

#include "codec_harness.h"
#include "kq/wire_add_offsets_to_txn.h"
#include "kq/wire_add_partitions_to_txn.h"
#include "kq/wire_describe_transactions.h"
#include "kq/wire_end_txn.h"
#include "kq/wire_list_transactions.h"
#include "kq/wire_txn_offset_commit.h"

HARNESS_CODEC(wire_add_partitions_to_txn_request, wire_add_partitions_to_txn_request);
HARNESS_CODEC(wire_add_partitions_to_txn_response, wire_add_partitions_to_txn_response);
HARNESS_CODEC(wire_add_offsets_to_txn_request, wire_add_offsets_to_txn_request);
HARNESS_CODEC(wire_add_offsets_to_txn_response, wire_add_offsets_to_txn_response);
HARNESS_CODEC(wire_end_txn_request, wire_end_txn_request);
HARNESS_CODEC(wire_end_txn_response, wire_end_txn_response);
HARNESS_CODEC(wire_txn_offset_commit_request, wire_txn_offset_commit_request);
HARNESS_CODEC(wire_txn_offset_commit_response, wire_txn_offset_commit_response);
HARNESS_CODEC(wire_describe_transactions_request, wire_describe_transactions_request);
HARNESS_CODEC(wire_describe_transactions_response, wire_describe_transactions_response);
HARNESS_CODEC(wire_list_transactions_request, wire_list_transactions_request);
HARNESS_CODEC(wire_list_transactions_response, wire_list_transactions_response);

#endif
