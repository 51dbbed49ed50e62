#!/usr/bin/python3
"""Walks through the classic consumer-group protocol by hand against each
given broker, one request at a time, and prints what every answer says
(error names included), so a failing group test can say which request the
server got wrong. Uses kafka-python's protocol classes (Debian python3-kafka).

usage: group_probe.py GROUP TOPIC HOST:PORT...

For every broker: ApiVersions (the group APIs and versions offered), then
FindCoordinator; then at the named coordinator JoinGroup (twice: the first
answer may be MEMBER_ID_REQUIRED), SyncGroup (assigning partition 0 to
itself), Heartbeat, OffsetCommit (offset 0), OffsetFetch, DescribeGroups,
ListGroups, LeaveGroup. Exit status 0 when every step answered without an
error, 1 otherwise.
"""
import socket
import sys
import time

from kafka.conn import BrokerConnection
from kafka.errors import for_code
from kafka.protocol.admin import (ApiVersionRequest_v0, DescribeGroupsRequest_v0,
                                  ListGroupsRequest_v0)
from kafka.protocol.commit import (GroupCoordinatorRequest_v0, OffsetCommitRequest_v2,
                                   OffsetFetchRequest_v1)
from kafka.protocol.group import (HeartbeatRequest_v0, JoinGroupRequest_v2, LeaveGroupRequest_v0,
                                  SyncGroupRequest_v0)
from kafka.coordinator.protocol import (ConsumerProtocolMemberAssignment,
                                        ConsumerProtocolMemberMetadata)

API_NAMES = {8: "OffsetCommit", 9: "OffsetFetch", 10: "FindCoordinator", 11: "JoinGroup",
             12: "Heartbeat", 13: "LeaveGroup", 14: "SyncGroup", 15: "DescribeGroups",
             16: "ListGroups", 42: "DeleteGroups", 47: "OffsetDelete", 68: "ConsumerGroupHeartbeat",
             69: "ConsumerGroupDescribe"}
ok = True


def err(code):
    return "NONE" if code == 0 else f"{for_code(code).__name__}({code})"


def connect(addr):
    host, port = addr.rsplit(":", 1)
    c = BrokerConnection(host, int(port), socket.AF_UNSPEC, client_id="group-probe",
                         api_version=(1, 0), request_timeout_ms=10000)
    deadline = time.time() + 10
    while not c.connected() and time.time() < deadline:
        c.connect()
        time.sleep(0.05)
    if not c.connected():
        raise RuntimeError(f"cannot connect to {addr}")
    return c


def call(c, req, timeout=15):
    f = c.send(req)
    deadline = time.time() + timeout
    while not f.is_done and time.time() < deadline:
        for resp, fut in c.recv():
            fut.success(resp)
        time.sleep(0.01)
    if not f.is_done:
        raise RuntimeError(f"no answer to {type(req).__name__} within {timeout}s")
    if f.failed():
        raise RuntimeError(f"{type(req).__name__} failed: {f.exception!r}")
    return f.value


def step(name, code, detail=""):
    global ok
    if code != 0:
        ok = False
    print(f"  {name}: {err(code)} {detail}".rstrip(), flush=True)


def probe(group, topic, addr, addrs):
    print(f"broker {addr}:")
    c = connect(addr)
    r = call(c, ApiVersionRequest_v0())
    offered = {k: (lo, hi) for k, lo, hi in r.api_versions}
    print("  ApiVersions: " + ", ".join(
        f"{API_NAMES[k]} v{offered[k][0]}-{offered[k][1]}" for k in sorted(API_NAMES) if k in offered))
    missing = [API_NAMES[k] for k in (8, 9, 10, 11, 12, 13, 14, 15, 16) if k not in offered]
    if missing:
        step("ApiVersions", 35, f"group APIs not offered: {missing}")
    deadline = time.time() + 15
    while True:  # a fresh Kafka broker answers COORDINATOR_NOT_AVAILABLE for a while
        r = call(c, GroupCoordinatorRequest_v0(group))
        if r.error_code != 15 or time.time() > deadline:
            break
        time.sleep(0.5)
    step("FindCoordinator", r.error_code, f"-> node {r.coordinator_id} {r.host}:{r.port}")
    if r.error_code != 0:
        return None
    return f"{r.host}:{r.port}"


def session(group, topic, coord):
    print(f"coordinator {coord}:")
    c = connect(coord)
    m = ConsumerProtocolMemberMetadata(0, [topic], b"")  # (encode() holds a weak reference)
    meta = m.encode()
    member = ""
    for attempt in (1, 2):
        r = call(c, JoinGroupRequest_v2(group, 10000, 30000, member, "consumer", [("range", meta)]),
                 timeout=40)
        if r.error_code == 79 and attempt == 1:  # MEMBER_ID_REQUIRED
            member = r.member_id
            print(f"  JoinGroup: {err(r.error_code)} (member {member}; joining again)")
            continue
        step("JoinGroup", r.error_code,
             f"generation {r.generation_id}, protocol {r.group_protocol}, leader {r.leader_id}, "
             f"member {r.member_id}, {len(r.members)} member(s)")
        break
    if r.error_code != 0:
        return
    member, gen = r.member_id, r.generation_id
    a = ConsumerProtocolMemberAssignment(0, [(topic, [0])], b"")
    assignment = a.encode()
    r = call(c, SyncGroupRequest_v0(group, gen, member, [(member, assignment)]))
    got = ""
    if r.error_code == 0:
        try:
            a = ConsumerProtocolMemberAssignment.decode(r.member_assignment)
            got = f"assigned {a.assignment}"
        except Exception as e:  # noqa: BLE001
            got = f"undecodable assignment {r.member_assignment!r}: {e}"
    step("SyncGroup", r.error_code, got)
    r = call(c, HeartbeatRequest_v0(group, gen, member))
    step("Heartbeat", r.error_code)
    r = call(c, OffsetCommitRequest_v2(group, gen, member, -1, [(topic, [(0, 0, "probe")])]))
    code = r.topics[0][1][0][1] if r.topics and r.topics[0][1] else -1
    step("OffsetCommit", code, "offset 0")
    r = call(c, OffsetFetchRequest_v1(group, [(topic, [0])]))
    p = r.topics[0][1][0] if r.topics and r.topics[0][1] else None
    step("OffsetFetch", p[3] if p else -1, f"offset {p[1]} metadata {p[2]!r}" if p else "no partition")
    # Issue 24: offset 0 in a run of control batches (a log without data
    # yet) is answered the run's end.
    if p and p[3] == 0 and (p[1] < 0 or p[2] != "probe"):
        global ok
        ok = False
        print(f"  OffsetFetch: WrongOffsetError(-) the commit of offset 0 (metadata 'probe') "
              f"answered NONE but OffsetFetch returns offset {p[1]} metadata {p[2]!r}")
    r = call(c, DescribeGroupsRequest_v0([group]))
    g = r.groups[0]
    step("DescribeGroups", g[0], f"state {g[2]}, protocol {g[3]}/{g[4]}, {len(g[5])} member(s)")
    r = call(c, ListGroupsRequest_v0())
    names = [x[0] for x in r.groups]
    step("ListGroups", r.error_code if group in names or r.error_code else 69,
         f"groups {names}" + ("" if group in names else f" (no {group})"))
    r = call(c, LeaveGroupRequest_v0(group, member))
    step("LeaveGroup", r.error_code)


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    group, topic, addrs = argv[1], argv[2], argv[3:]
    coords = set()
    for a in addrs:
        try:
            co = probe(group, topic, a, addrs)
            if co:
                coords.add(co)
        except Exception as e:  # noqa: BLE001
            global ok
            ok = False
            print(f"  error: {e}")
    if len(coords) > 1:
        print(f"brokers name different coordinators: {sorted(coords)}")
        return 1
    for co in coords:
        try:
            session(group, topic, co)
        except Exception as e:  # noqa: BLE001
            print(f"  error: {e}")
            return 1
    return 0 if ok and coords else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
