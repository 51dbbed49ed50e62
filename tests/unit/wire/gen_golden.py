#!/usr/bin/env python3
"""Independent oracle for the wire codec tests: a small generic encoder that
walks Kafka's JSON message definitions and encodes one canonical sample per
API, direction and version. Not run in CI; a developer regenerates the header
with

    python3 tests/unit/wire/gen_golden.py /path/to/kafka-protocol/messages \
        > tests/unit/wire/golden_all_versions.h

The definitions are read at generation time only; what is committed is this
script and its output (byte arrays). Python 3 standard library only.

The samples below use the definitions' field names. A field the sample does
not set takes its default; a field absent in a version is not written; a
tagged field is written only when its value differs from its default.
test_golden_all_versions.c builds the same samples as C structs."""

import json
import os
import re
import struct
import sys

TOPIC = "__cluster_metadata"
META_ID = bytes(15) + b"\x01"
U1 = bytes(range(0x01, 0x11))
U2 = bytes(range(0x21, 0x31))
U3 = bytes(range(0x41, 0x51))
RECORDS = bytes([0x00, 0x01, 0x02, 0x03, 0xFE])

PRIMITIVE = {"int8": ">b", "int16": ">h", "uint16": ">H", "int32": ">i", "int64": ">q",
             "float64": ">d"}

# (definition file stem, C name, versions we speak). A version above the
# definitions' validVersions is encoded with the highest defined layout
# (Produce v12 is written as v11, as include/kq/wire_produce.h says).
APIS = [
    ("ApiVersions", "api_versions", range(0, 5)),
    ("Metadata", "metadata", range(0, 13)),
    ("Produce", "produce", range(3, 13)),
    ("InitProducerId", "init_producer_id", range(0, 6)),
    ("ListOffsets", "list_offsets", range(0, 11)),
    ("FindCoordinator", "find_coordinator", range(0, 1)),
    ("Fetch", "fetch", range(4, 19)),
    ("Vote", "vote", range(0, 2)),
    ("BeginQuorumEpoch", "begin_quorum_epoch", range(0, 2)),
    ("EndQuorumEpoch", "end_quorum_epoch", range(0, 2)),
    ("DescribeQuorum", "describe_quorum", range(0, 3)),
    ("DescribeCluster", "describe_cluster", range(0, 2)),
    ("FetchSnapshot", "fetch_snapshot", range(0, 2)),
    # The group APIs' arrays were appended to the committed header (the
    # definitions now also define Produce v12, so a full regeneration would
    # change the Produce v12 arrays, which are the v11 layout).
    ("JoinGroup", "join_group", range(0, 10)),
    ("SyncGroup", "sync_group", range(0, 6)),
    ("Heartbeat", "heartbeat", range(0, 5)),
    ("LeaveGroup", "leave_group", range(0, 6)),
]

NODE_ENDPOINT = {"NodeId": 1, "Host": "h1", "Port": 9092, "Rack": "r1"}
RAFT_NODE_ENDPOINT = {"NodeId": 1, "Host": "h1", "Port": 9093}
LISTENER = {"Name": "CONTROLLER", "Host": "h1", "Port": 9093}

SAMPLES = {
    # ApiVersions response tagged fields 0-3 (features, ZK migration) are not
    # modelled by our struct: left at their defaults, so never written.
    "ApiVersionsRequest": {"ClientSoftwareName": "kq-test", "ClientSoftwareVersion": "1.0"},
    "ApiVersionsResponse": {
        "ErrorCode": 0,
        "ApiKeys": [{"ApiKey": 18, "MinVersion": 0, "MaxVersion": 4},
                    {"ApiKey": 52, "MinVersion": 0, "MaxVersion": 1}],
        "ThrottleTimeMs": 7,
    },
    "MetadataRequest": {
        "Topics": [{"TopicId": META_ID, "Name": TOPIC}],
        "AllowAutoTopicCreation": False,
        "IncludeClusterAuthorizedOperations": True,
        "IncludeTopicAuthorizedOperations": True,
    },
    "MetadataResponse": {
        "ThrottleTimeMs": 7,
        "Brokers": [NODE_ENDPOINT],
        "ClusterId": "c1",
        "ControllerId": 1,
        "Topics": [{
            "ErrorCode": 0, "Name": TOPIC, "TopicId": META_ID, "IsInternal": True,
            "Partitions": [{"ErrorCode": 0, "PartitionIndex": 0, "LeaderId": 1,
                            "LeaderEpoch": 7, "ReplicaNodes": [1, 2, 3],
                            "IsrNodes": [1, 2], "OfflineReplicas": [3]}],
            "TopicAuthorizedOperations": 8,
        }],
        "ClusterAuthorizedOperations": 9,
    },
    "ProduceRequest": {
        "TransactionalId": "tx1", "Acks": -1, "TimeoutMs": 30000,
        "TopicData": [{"Name": TOPIC, "PartitionData": [{"Index": 0, "Records": RECORDS}]}],
    },
    "ProduceResponse": {
        "Responses": [{"Name": TOPIC, "PartitionResponses": [{
            "Index": 0, "ErrorCode": 0, "BaseOffset": 1234, "LogAppendTimeMs": 5678,
            "LogStartOffset": 11,
            "RecordErrors": [{"BatchIndex": 2, "BatchIndexErrorMessage": "bad"}],
            "ErrorMessage": "em",
            "CurrentLeader": {"LeaderId": 1, "LeaderEpoch": 7},
        }]}],
        "ThrottleTimeMs": 7,
        "NodeEndpoints": [NODE_ENDPOINT],
    },
    "InitProducerIdRequest": {"TransactionalId": "tx1", "TransactionTimeoutMs": 60000,
                              "ProducerId": 1234, "ProducerEpoch": 7},
    "InitProducerIdResponse": {"ThrottleTimeMs": 7, "ErrorCode": 0, "ProducerId": 1234,
                               "ProducerEpoch": 7},
    "ListOffsetsRequest": {
        "ReplicaId": -1, "IsolationLevel": 1,
        "Topics": [{"Name": TOPIC, "Partitions": [{"PartitionIndex": 0,
                                                   "CurrentLeaderEpoch": 7,
                                                   "Timestamp": -1, "MaxNumOffsets": 3}]}],
        "TimeoutMs": 500,
    },
    "ListOffsetsResponse": {
        "ThrottleTimeMs": 7,
        "Topics": [{"Name": TOPIC, "Partitions": [{
            "PartitionIndex": 0, "ErrorCode": 0, "OldStyleOffsets": [1234],
            "Timestamp": 99, "Offset": 1234, "LeaderEpoch": 7}]}],
    },
    "FindCoordinatorRequest": {"Key": "g1"},
    "FindCoordinatorResponse": {"ErrorCode": 15, "NodeId": -1, "Host": "", "Port": -1},
    "FetchRequest": {
        "ClusterId": "c1",
        "ReplicaId": 2,
        "ReplicaState": {"ReplicaId": 2, "ReplicaEpoch": 5},
        "MaxWaitMs": 500, "MinBytes": 1, "MaxBytes": 1048576, "IsolationLevel": 1,
        "SessionId": 3, "SessionEpoch": 4,
        "Topics": [{"Topic": TOPIC, "TopicId": META_ID, "Partitions": [{
            "Partition": 0, "CurrentLeaderEpoch": 7, "FetchOffset": 1234,
            "LastFetchedEpoch": 6, "LogStartOffset": 0, "PartitionMaxBytes": 65536,
            "ReplicaDirectoryId": U1, "HighWatermark": 1200}]}],
        "ForgottenTopicsData": [{"Topic": "t2", "TopicId": U2, "Partitions": [1]}],
        "RackId": "r1",
    },
    "FetchResponse": {
        "ThrottleTimeMs": 7, "ErrorCode": 0, "SessionId": 3,
        "Responses": [{"Topic": TOPIC, "TopicId": META_ID, "Partitions": [{
            "PartitionIndex": 0, "ErrorCode": 0, "HighWatermark": 1234,
            "LastStableOffset": 1234, "LogStartOffset": 0,
            "DivergingEpoch": {"Epoch": 6, "EndOffset": 1000},
            "CurrentLeader": {"LeaderId": 1, "LeaderEpoch": 7},
            "SnapshotId": {"EndOffset": 900, "Epoch": 5},
            "AbortedTransactions": [{"ProducerId": 42, "FirstOffset": 100}],
            "PreferredReadReplica": 3, "Records": RECORDS}]}],
        "NodeEndpoints": [NODE_ENDPOINT],
    },
    "VoteRequest": {
        "ClusterId": "c1", "VoterId": 2,
        "Topics": [{"TopicName": TOPIC, "Partitions": [{
            "PartitionIndex": 0, "CandidateEpoch": 7, "CandidateId": 1,
            "CandidateDirectoryId": U1, "VoterDirectoryId": U2,
            "LastOffsetEpoch": 6, "LastOffset": 1234}]}],
    },
    "VoteResponse": {
        "ErrorCode": 0,
        "Topics": [{"TopicName": TOPIC, "Partitions": [{
            "PartitionIndex": 0, "ErrorCode": 0, "LeaderId": 1, "LeaderEpoch": 7,
            "VoteGranted": True}]}],
        "NodeEndpoints": [RAFT_NODE_ENDPOINT],
    },
    "BeginQuorumEpochRequest": {
        "ClusterId": "c1", "VoterId": 2,
        "Topics": [{"TopicName": TOPIC, "Partitions": [{
            "PartitionIndex": 0, "VoterDirectoryId": U2, "LeaderId": 1, "LeaderEpoch": 7}]}],
        "LeaderEndpoints": [LISTENER],
    },
    "BeginQuorumEpochResponse": {
        "ErrorCode": 0,
        "Topics": [{"TopicName": TOPIC, "Partitions": [{
            "PartitionIndex": 0, "ErrorCode": 0, "LeaderId": 1, "LeaderEpoch": 7}]}],
        "NodeEndpoints": [RAFT_NODE_ENDPOINT],
    },
    "EndQuorumEpochRequest": {
        "ClusterId": "c1",
        "Topics": [{"TopicName": TOPIC, "Partitions": [{
            "PartitionIndex": 0, "LeaderId": 1, "LeaderEpoch": 7,
            "PreferredSuccessors": [2, 3],
            "PreferredCandidates": [{"CandidateId": 2, "CandidateDirectoryId": U1}]}]}],
        "LeaderEndpoints": [LISTENER],
    },
    "EndQuorumEpochResponse": {
        "ErrorCode": 0,
        "Topics": [{"TopicName": TOPIC, "Partitions": [{
            "PartitionIndex": 0, "ErrorCode": 0, "LeaderId": 1, "LeaderEpoch": 7}]}],
        "NodeEndpoints": [RAFT_NODE_ENDPOINT],
    },
    "DescribeQuorumRequest": {
        "Topics": [{"TopicName": TOPIC, "Partitions": [{"PartitionIndex": 0}]}],
    },
    "DescribeQuorumResponse": {
        "ErrorCode": 0, "ErrorMessage": "em",
        "Topics": [{"TopicName": TOPIC, "Partitions": [{
            "PartitionIndex": 0, "ErrorCode": 0, "ErrorMessage": "pm", "LeaderId": 1,
            "LeaderEpoch": 7, "HighWatermark": 1234,
            "CurrentVoters": [{"ReplicaId": 1, "ReplicaDirectoryId": U1, "LogEndOffset": 1234,
                               "LastFetchTimestamp": 111, "LastCaughtUpTimestamp": 222}],
            "Observers": [{"ReplicaId": 4, "ReplicaDirectoryId": U3, "LogEndOffset": 1000,
                           "LastFetchTimestamp": 333, "LastCaughtUpTimestamp": 444}]}]}],
        "Nodes": [{"NodeId": 1, "Listeners": [LISTENER]}],
    },
    "DescribeClusterRequest": {"IncludeClusterAuthorizedOperations": True, "EndpointType": 2},
    "DescribeClusterResponse": {
        "ThrottleTimeMs": 7, "ErrorCode": 0, "ErrorMessage": "em", "EndpointType": 2,
        "ClusterId": "c1", "ControllerId": 1,
        "Brokers": [{"BrokerId": 1, "Host": "h1", "Port": 9092, "Rack": "r1"}],
        "ClusterAuthorizedOperations": 9,
    },
    "FetchSnapshotRequest": {
        "ClusterId": "c1", "ReplicaId": 2, "MaxBytes": 4096,
        "Topics": [{"Name": TOPIC, "Partitions": [{
            "Partition": 0, "CurrentLeaderEpoch": 7,
            "SnapshotId": {"EndOffset": 900, "Epoch": 5}, "Position": 1024,
            "ReplicaDirectoryId": U2}]}],
    },
    "FetchSnapshotResponse": {
        "ThrottleTimeMs": 7, "ErrorCode": 0,
        "Topics": [{"Name": TOPIC, "Partitions": [{
            "Index": 0, "ErrorCode": 0, "SnapshotId": {"EndOffset": 900, "Epoch": 5},
            "CurrentLeader": {"LeaderId": 1, "LeaderEpoch": 7},
            "Size": 5000, "Position": 1024, "UnalignedRecords": RECORDS}]}],
        "NodeEndpoints": [RAFT_NODE_ENDPOINT],
    },
    "JoinGroupRequest": {
        "GroupId": "g1", "SessionTimeoutMs": 45000, "RebalanceTimeoutMs": 300000,
        "MemberId": "m1", "GroupInstanceId": "i1", "ProtocolType": "consumer",
        "Protocols": [{"Name": "range", "Metadata": RECORDS},
                      {"Name": "rr", "Metadata": b""}],
        "Reason": "why",
    },
    "JoinGroupResponse": {
        "ThrottleTimeMs": 7, "ErrorCode": 0, "GenerationId": 3, "ProtocolType": "consumer",
        "ProtocolName": "range", "Leader": "m1", "SkipAssignment": True, "MemberId": "m2",
        "Members": [{"MemberId": "m1", "GroupInstanceId": "i1", "Metadata": RECORDS},
                    {"MemberId": "m2", "Metadata": b""}],
    },
    "SyncGroupRequest": {
        "GroupId": "g1", "GenerationId": 3, "MemberId": "m1", "GroupInstanceId": "i1",
        "ProtocolType": "consumer", "ProtocolName": "range",
        "Assignments": [{"MemberId": "m1", "Assignment": RECORDS},
                        {"MemberId": "m2", "Assignment": b""}],
    },
    "SyncGroupResponse": {"ThrottleTimeMs": 7, "ErrorCode": 0, "ProtocolType": "consumer",
                          "ProtocolName": "range", "Assignment": RECORDS},
    "HeartbeatRequest": {"GroupId": "g1", "GenerationId": 3, "MemberId": "m1",
                         "GroupInstanceId": "i1"},
    "HeartbeatResponse": {"ThrottleTimeMs": 7, "ErrorCode": 27},
    "LeaveGroupRequest": {
        "GroupId": "g1", "MemberId": "m1",
        "Members": [{"MemberId": "m1", "GroupInstanceId": "i1", "Reason": "bye"},
                    {"MemberId": "m2"}],
    },
    "LeaveGroupResponse": {
        "ThrottleTimeMs": 7, "ErrorCode": 0,
        "Members": [{"MemberId": "m1", "GroupInstanceId": "i1", "ErrorCode": 0},
                    {"MemberId": "m2", "GroupInstanceId": None, "ErrorCode": 25}],
    },
}


def load(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    # The definitions carry whole-line // comments.
    text = re.sub(r"^\s*//.*$", "", text, flags=re.M)
    return json.loads(text)


def in_range(v, spec):
    if spec is None or spec == "none":
        return False
    if spec.endswith("+"):
        return v >= int(spec[:-1])
    if "-" in spec:
        lo, hi = spec.split("-")
        return int(lo) <= v <= int(hi)
    return v == int(spec)


def uvarint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


class Encoder:
    def __init__(self, msg):
        self.flex_spec = msg.get("flexibleVersions", "none")
        self.common = {c["name"]: c["fields"] for c in msg.get("commonStructs", [])}

    def subfields(self, f):
        if "fields" in f:
            return f["fields"]
        t = f["type"][2:] if f["type"].startswith("[]") else f["type"]
        return self.common.get(t)

    def default(self, f):
        t = f["type"]
        d = f.get("default")
        if t.startswith("[]"):
            return None if d == "null" else []
        if t in PRIMITIVE:
            return int(d, 0) if d is not None else 0
        if t == "bool":
            return d == "true"
        if t == "string":
            return None if d == "null" else (d if d is not None else "")
        if t in ("bytes", "records"):
            return None if d == "null" else b""
        if t == "uuid":
            return bytes(16)
        return {}  # struct: every sub-field at its default

    def value(self, obj, f):
        return obj[f["name"]] if f["name"] in obj else self.default(f)

    def normalized(self, f, val, v):
        """The value with defaults filled in, for comparing with the default."""
        subs = self.subfields(f)
        if subs is None or val is None:
            return val
        if f["type"].startswith("[]"):
            return [self.normalized_struct(subs, e, v) for e in val]
        return self.normalized_struct(subs, val, v)

    def normalized_struct(self, fields, obj, v):
        return {g["name"]: self.normalized(g, self.value(obj, g), v) for g in fields
                if in_range(v, g.get("versions"))}

    def struct(self, fields, obj, v, flex, out):
        tagged = []
        for f in fields:
            if not in_range(v, f.get("versions")):
                continue
            if "tag" in f and in_range(v, f.get("taggedVersions")):
                tagged.append(f)
                continue
            self.field(f, self.value(obj, f), v, flex, out)
        if not flex:
            return
        items = []
        for f in sorted(tagged, key=lambda g: g["tag"]):
            val = self.value(obj, f)
            if self.normalized(f, val, v) == self.normalized(f, self.default(f), v):
                continue
            buf = bytearray()
            self.field(f, val, v, flex, buf)
            items.append((f["tag"], buf))
        out += uvarint(len(items))
        for tag, buf in items:
            out += uvarint(tag) + uvarint(len(buf)) + buf

    def length(self, n, flex, classic_fmt, out):
        # n None = null
        if flex:
            out += uvarint(0 if n is None else n + 1)
        else:
            out += struct.pack(classic_fmt, -1 if n is None else n)

    def field(self, f, val, v, flex, out):
        t = f["type"]
        if "flexibleVersions" in f:
            flex = in_range(v, f["flexibleVersions"])
        nullable = in_range(v, f.get("nullableVersions"))
        if val is None and not nullable:
            raise ValueError("null for non-nullable %s at v%d" % (f["name"], v))
        if t.startswith("[]"):
            self.length(None if val is None else len(val), flex, ">i", out)
            if val is None:
                return
            elem = t[2:]
            subs = self.subfields(f)
            for e in val:
                if subs is not None:
                    self.struct(subs, e, v, flex, out)
                else:
                    self.field({"name": f["name"], "type": elem, "versions": "0+"}, e, v,
                               flex, out)
        elif t in PRIMITIVE:
            out += struct.pack(PRIMITIVE[t], val)
        elif t == "bool":
            out.append(1 if val else 0)
        elif t == "uuid":
            assert len(val) == 16
            out += val
        elif t == "string":
            data = None if val is None else val.encode("utf-8")
            self.length(None if data is None else len(data), flex, ">h", out)
            if data is not None:
                out += data
        elif t in ("bytes", "records"):
            self.length(None if val is None else len(val), flex, ">i", out)
            if val is not None:
                out += val
        elif nullable:
            # A nullable struct (KIP-848's Assignment): the byte -1 for null,
            # else 1 and the struct.
            out += struct.pack(">b", -1 if val is None else 1)
            if val is not None:
                self.struct(self.subfields(f), val, v, flex, out)
        else:
            self.struct(self.subfields(f), val, v, flex, out)

    def encode(self, msg, sample, v):
        out = bytearray()
        self.struct(msg["fields"], sample, v, in_range(v, self.flex_spec), out)
        return bytes(out)


# The group APIs and FindCoordinator at every version (issue 12), emitted
# with --groups into their own header, golden_groups.h, so that
# golden_all_versions.h stays as generated:
#
#     python3 tests/unit/wire/gen_golden.py --groups /path/to/messages \
#         > tests/unit/wire/golden_groups.h
GROUP_APIS = [
    ("OffsetCommit", "offset_commit", range(2, 11)),
    ("OffsetFetch", "offset_fetch", range(1, 11)),
    ("FindCoordinator", "find_coordinator_all", range(0, 7)),
    ("DescribeGroups", "describe_groups", range(0, 7)),
    ("ListGroups", "list_groups", range(0, 6)),
]

OFFSET_PARTITION = {"PartitionIndex": 0, "CommittedOffset": 1234, "CommittedLeaderEpoch": 7,
                    "Metadata": "md", "ErrorCode": 0}
GROUP_SAMPLES = {
    "OffsetCommitRequest": {
        "GroupId": "g1", "GenerationIdOrMemberEpoch": 3, "MemberId": "m1",
        "GroupInstanceId": "i1", "RetentionTimeMs": 60000,
        "Topics": [{"Name": TOPIC, "TopicId": META_ID, "Partitions": [{
            "PartitionIndex": 0, "CommittedOffset": 1234, "CommittedLeaderEpoch": 7,
            "CommittedMetadata": "md"}]}],
    },
    "OffsetCommitResponse": {
        "ThrottleTimeMs": 7,
        "Topics": [{"Name": TOPIC, "TopicId": META_ID,
                    "Partitions": [{"PartitionIndex": 0, "ErrorCode": 0}]}],
    },
    "OffsetFetchRequest": {
        "GroupId": "g1", "Topics": [{"Name": TOPIC, "PartitionIndexes": [0, 1]}],
        "Groups": [{"GroupId": "g1", "MemberId": "m1", "MemberEpoch": 5,
                    "Topics": [{"Name": TOPIC, "TopicId": META_ID,
                                "PartitionIndexes": [0, 1]}]}],
        "RequireStable": True,
    },
    "OffsetFetchResponse": {
        "ThrottleTimeMs": 7,
        "Topics": [{"Name": TOPIC, "Partitions": [OFFSET_PARTITION]}],
        "ErrorCode": 0,
        "Groups": [{"GroupId": "g1", "ErrorCode": 0,
                    "Topics": [{"Name": TOPIC, "TopicId": META_ID,
                                "Partitions": [OFFSET_PARTITION]}]}],
    },
    "FindCoordinatorRequest": {"Key": "g1", "KeyType": 1, "CoordinatorKeys": ["g1", "g2"]},
    "FindCoordinatorResponse": {
        "ThrottleTimeMs": 7, "ErrorCode": 15, "ErrorMessage": "em", "NodeId": -1, "Host": "",
        "Port": -1,
        "Coordinators": [{"Key": "g1", "NodeId": 1, "Host": "h1", "Port": 9092,
                          "ErrorCode": 0, "ErrorMessage": None}],
    },
    "DescribeGroupsRequest": {"Groups": ["g1"], "IncludeAuthorizedOperations": True},
    "DescribeGroupsResponse": {
        "ThrottleTimeMs": 7,
        "Groups": [{
            "ErrorCode": 0, "ErrorMessage": "em", "GroupId": "g1", "GroupState": "Stable",
            "ProtocolType": "consumer", "ProtocolData": "range",
            "Members": [{"MemberId": "m1", "GroupInstanceId": "i1", "ClientId": "c1",
                         "ClientHost": "/h1", "MemberMetadata": RECORDS,
                         "MemberAssignment": RECORDS}],
            "AuthorizedOperations": 8}],
    },
    "ListGroupsRequest": {"StatesFilter": ["Stable"], "TypesFilter": ["consumer"]},
    "ListGroupsResponse": {
        "ThrottleTimeMs": 7, "ErrorCode": 0,
        "Groups": [{"GroupId": "g1", "ProtocolType": "consumer", "GroupState": "Stable",
                    "GroupType": "classic"}],
    },
}


# The transaction APIs at every version (issue 23), emitted with --txn into
# golden_txn.h. Their definitions are not in ../shared/kafka-protocol; they
# are read from Kafka 4.4.0's clients jar (common/message/*.json, unzipped
# outside the repository):
#
#     python3 tests/unit/wire/gen_golden.py --txn /path/to/common/message \
#         > tests/unit/wire/golden_txn.h
TXN_APIS = [
    ("AddPartitionsToTxn", "add_partitions_to_txn", range(0, 6)),
    ("AddOffsetsToTxn", "add_offsets_to_txn", range(0, 5)),
    ("EndTxn", "end_txn", range(0, 6)),
    ("TxnOffsetCommit", "txn_offset_commit", range(0, 7)),
    ("DescribeTransactions", "describe_transactions", range(0, 1)),
    ("ListTransactions", "list_transactions", range(0, 3)),
]

TXN_TOPIC = {"Name": TOPIC, "Partitions": [0, 1]}
TXN_TOPIC_RESULT = {"Name": TOPIC, "ResultsByPartition": [
    {"PartitionIndex": 0, "PartitionErrorCode": 15},
    {"PartitionIndex": 1, "PartitionErrorCode": 0}]}
TXN_SAMPLES = {
    "AddPartitionsToTxnRequest": {
        "Transactions": [{"TransactionalId": "tx1", "ProducerId": 1234, "ProducerEpoch": 7,
                          "VerifyOnly": True, "Topics": [TXN_TOPIC]}],
        "V3AndBelowTransactionalId": "tx1", "V3AndBelowProducerId": 1234,
        "V3AndBelowProducerEpoch": 7, "V3AndBelowTopics": [TXN_TOPIC],
    },
    "AddPartitionsToTxnResponse": {
        "ThrottleTimeMs": 7, "ErrorCode": 15,
        "ResultsByTransaction": [{"TransactionalId": "tx1", "TopicResults": [TXN_TOPIC_RESULT]}],
        "ResultsByTopicV3AndBelow": [TXN_TOPIC_RESULT],
    },
    "AddOffsetsToTxnRequest": {"TransactionalId": "tx1", "ProducerId": 1234,
                               "ProducerEpoch": 7, "GroupId": "g1"},
    "AddOffsetsToTxnResponse": {"ThrottleTimeMs": 7, "ErrorCode": 15},
    "EndTxnRequest": {"TransactionalId": "tx1", "ProducerId": 1234, "ProducerEpoch": 7,
                      "Committed": True},
    "EndTxnResponse": {"ThrottleTimeMs": 7, "ErrorCode": 0, "ProducerId": 1234,
                       "ProducerEpoch": 8},
    "TxnOffsetCommitRequest": {
        "TransactionalId": "tx1", "GroupId": "g1", "ProducerId": 1234, "ProducerEpoch": 7,
        "GenerationIdOrMemberEpoch": 3, "MemberId": "m1", "GroupInstanceId": "i1",
        "Topics": GROUP_SAMPLES["OffsetCommitRequest"]["Topics"],
    },
    "TxnOffsetCommitResponse": {
        "ThrottleTimeMs": 7,
        "Topics": [{"Name": TOPIC, "TopicId": META_ID,
                    "Partitions": [{"PartitionIndex": 0, "ErrorCode": 15}]}],
    },
    "DescribeTransactionsRequest": {"TransactionalIds": ["tx1", "tx2"]},
    "DescribeTransactionsResponse": {
        "ThrottleTimeMs": 7,
        "TransactionStates": [{
            "ErrorCode": 0, "TransactionalId": "tx1", "TransactionState": "Ongoing",
            "TransactionTimeoutMs": 60000, "TransactionStartTimeMs": 5678,
            "ProducerId": 1234, "ProducerEpoch": 7,
            "Topics": [{"Topic": TOPIC, "Partitions": [0, 1]}]}],
    },
    "ListTransactionsRequest": {"StateFilters": ["Ongoing"], "ProducerIdFilters": [1234, 42],
                                "DurationFilter": 60000, "TransactionalIdPattern": "tx.*"},
    "ListTransactionsResponse": {
        "ThrottleTimeMs": 7, "ErrorCode": 0, "UnknownStateFilters": ["Bogus"],
        "TransactionStates": [{"TransactionalId": "tx1", "ProducerId": 1234,
                               "TransactionState": "Ongoing"}],
    },
}


# DeleteGroups and OffsetDelete (issue 24), emitted with --admin into
# golden_admin.h, from Kafka 4.4.0's clients jar as --txn:
#
#     python3 tests/unit/wire/gen_golden.py --admin /path/to/common/message \
#         > tests/unit/wire/golden_admin.h
ADMIN_APIS = [
    ("DeleteGroups", "delete_groups", range(0, 4)),
    ("OffsetDelete", "offset_delete", range(0, 1)),
]

ADMIN_SAMPLES = {
    "DeleteGroupsRequest": {"GroupsNames": ["g1", "g2"]},
    "DeleteGroupsResponse": {
        "ThrottleTimeMs": 7,
        "Results": [{"GroupId": "g1", "ErrorCode": 0},
                    {"GroupId": "g2", "ErrorCode": 68, "ErrorMessage": "not empty"}],
    },
    "OffsetDeleteRequest": {
        "GroupId": "g1",
        "Topics": [{"Name": TOPIC, "Partitions": [{"PartitionIndex": 0},
                                                  {"PartitionIndex": 1}]}],
    },
    "OffsetDeleteResponse": {
        "ErrorCode": 0, "ThrottleTimeMs": 7,
        "Topics": [{"Name": TOPIC, "Partitions": [{"PartitionIndex": 0, "ErrorCode": 0},
                                                  {"PartitionIndex": 1, "ErrorCode": 86}]}],
    },
}


# The KIP-848 consumer-group APIs at every version (issue 24), emitted with
# --cgroup into golden_cgroup.h:
#
#     python3 tests/unit/wire/gen_golden.py --cgroup /path/to/messages \
#         > tests/unit/wire/golden_cgroup.h
CGROUP_APIS = [
    ("ConsumerGroupHeartbeat", "consumer_group_heartbeat", range(0, 2)),
    ("ConsumerGroupDescribe", "consumer_group_describe", range(0, 2)),
]

CG_OWNED = [{"TopicId": META_ID, "Partitions": [0, 1]}]
CGROUP_SAMPLES = {
    "ConsumerGroupHeartbeatRequest": {
        "GroupId": "g1", "MemberId": "m1", "MemberEpoch": 5, "InstanceId": "i1",
        "RackId": "r1", "RebalanceTimeoutMs": 300000, "SubscribedTopicNames": [TOPIC, "t2"],
        "SubscribedTopicRegex": "t.*", "ServerAssignor": "uniform", "TopicPartitions": CG_OWNED,
    },
    "ConsumerGroupHeartbeatResponse": {
        "ThrottleTimeMs": 7, "ErrorCode": 0, "ErrorMessage": "em", "MemberId": "m1",
        "MemberEpoch": 5, "HeartbeatIntervalMs": 5000,
        "Assignment": {"TopicPartitions": CG_OWNED},
    },
    "ConsumerGroupDescribeRequest": {"GroupIds": ["g1", "g2"],
                                     "IncludeAuthorizedOperations": True},
    "ConsumerGroupDescribeResponse": {
        "ThrottleTimeMs": 7,
        "Groups": [{
            "ErrorCode": 0, "ErrorMessage": "em", "GroupId": "g1", "GroupState": "Stable",
            "GroupEpoch": 5, "AssignmentEpoch": 4, "AssignorName": "uniform",
            "Members": [{
                "MemberId": "m1", "InstanceId": "i1", "RackId": "r1", "MemberEpoch": 5,
                "ClientId": "c1", "ClientHost": "/h1", "SubscribedTopicNames": [TOPIC],
                "SubscribedTopicRegex": "t.*",
                "Assignment": {"TopicPartitions": [
                    {"TopicId": META_ID, "TopicName": TOPIC, "Partitions": [0, 1]}]},
                "TargetAssignment": {"TopicPartitions": [
                    {"TopicId": META_ID, "TopicName": TOPIC, "Partitions": [0]}]},
                "MemberType": 1}],
            "AuthorizedOperations": 8}],
    },
}


def emit(name, comment, data, lines):
    lines.append("/* %s */" % comment)
    lines.append("static const uint8_t %s[] = {" % name)
    for i in range(0, len(data), 12):
        lines.append("    " + " ".join("0x%02x," % b for b in data[i:i + 12]))
    lines.append("};")


def main():
    args = sys.argv[1:]
    mode = args[0] if args and args[0] in ("--groups", "--txn", "--admin", "--cgroup") else None
    if mode:
        args = args[1:]
    if len(args) != 1:
        sys.exit("usage: gen_golden.py [--groups | --txn | --admin | --cgroup] "
                 "<kafka-protocol/messages dir>")
    src = args[0]
    # The appended headers (include after golden_all_versions.h): their
    # guard, their comment, their APIs and samples.
    extra = {
        "--groups": ("KQ_TEST_GOLDEN_GROUPS_H", [
            "/* Generated by tests/unit/wire/gen_golden.py --groups from Kafka's JSON",
            " * message definitions: the group APIs' and FindCoordinator's canonical",
            " * samples at every version. Do not edit; regenerate. Include after",
            " * golden_all_versions.h (golden_case, GOLDEN_COUNT). */",
        ], GROUP_APIS, GROUP_SAMPLES),
        "--txn": ("KQ_TEST_GOLDEN_TXN_H", [
            "/* Generated by tests/unit/wire/gen_golden.py --txn from Kafka 4.4.0's JSON",
            " * message definitions: the transaction APIs' canonical samples at every",
            " * version. Do not edit; regenerate. Include after golden_all_versions.h",
            " * (golden_case, GOLDEN_COUNT). */",
        ], TXN_APIS, TXN_SAMPLES),
        "--admin": ("KQ_TEST_GOLDEN_ADMIN_H", [
            "/* Generated by tests/unit/wire/gen_golden.py --admin from Kafka 4.4.0's JSON",
            " * message definitions: DeleteGroups' and OffsetDelete's canonical samples at",
            " * every version. Do not edit; regenerate. Include after",
            " * golden_all_versions.h (golden_case, GOLDEN_COUNT). */",
        ], ADMIN_APIS, ADMIN_SAMPLES),
        "--cgroup": ("KQ_TEST_GOLDEN_CGROUP_H", [
            "/* Generated by tests/unit/wire/gen_golden.py --cgroup from Kafka 4.4.0's",
            " * JSON message definitions: the KIP-848 consumer-group APIs' canonical",
            " * samples at every version. Do not edit; regenerate. Include after",
            " * golden_all_versions.h (golden_case, GOLDEN_COUNT). */",
        ], CGROUP_APIS, CGROUP_SAMPLES),
    }
    if mode:
        guard, comment, apis, samples = extra[mode]
        lines = comment + ["#ifndef " + guard, "#define " + guard, ""]
        emit_apis(src, apis, samples, lines)
        lines.append("#endif")
        sys.stdout.write("\n".join(lines) + "\n")
        return
    lines = [
        "/* Generated by tests/unit/wire/gen_golden.py from Kafka's JSON message",
        " * definitions: the body (after the header) of each API's canonical sample",
        " * at every version we speak. Do not edit; regenerate. */",
        "#ifndef KQ_TEST_GOLDEN_ALL_VERSIONS_H",
        "#define KQ_TEST_GOLDEN_ALL_VERSIONS_H",
        "",
        "#include <stddef.h>",
        "#include <stdint.h>",
        "",
        "typedef struct golden_case {",
        "    int16_t version;",
        "    const uint8_t *bytes;",
        "    size_t len;",
        "} golden_case;",
        "",
    ]
    emit_apis(src, APIS, SAMPLES, lines)
    lines.append("#define GOLDEN_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))")
    lines.append("")
    lines.append("#endif")
    sys.stdout.write("\n".join(lines) + "\n")


def emit_apis(src, apis, samples, lines):
    for stem, cname, versions in apis:
        for kind, suffix in (("Request", "request"), ("Response", "response")):
            msg = load(os.path.join(src, stem + kind + ".json"))
            enc = Encoder(msg)
            top = int(msg["validVersions"].split("-")[-1])
            names = []
            for v in versions:
                layout = min(v, top)
                flex = in_range(layout, enc.flex_spec)
                comment = "%s %s v%d, %s" % (stem, kind.lower(), v,
                                              "flexible" if flex else "classic")
                if layout != v:
                    comment += " (the v%d layout: the definitions stop at v%d)" % (layout, top)
                name = "golden_%s_%s_v%d" % (cname, suffix, v)
                emit(name, comment, enc.encode(msg, samples[stem + kind], layout), lines)
                names.append((v, name))
            lines.append("static const golden_case golden_%s_%s[] = {" % (cname, suffix))
            for v, name in names:
                lines.append("    {%d, %s, sizeof %s}," % (v, name, name))
            lines.append("};")
            lines.append("")


if __name__ == "__main__":
    main()
