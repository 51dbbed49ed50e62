#!/usr/bin/env bash
# Starts the Raft quorum server with a Kafka-style properties file:
#   bin/test-raft-server-start.sh config/raft.properties
# or with the command line of Kafka's bin/test-kraft-server-start.sh
# (kafka.tools.TestRaftServer):
#   bin/test-raft-server-start.sh --config config/raft.properties \
#       --replica-directory-id ID [--throughput N] [--record-size BYTES]
# Installs missing build dependencies (as root), builds the server into
# <repo>/build when needed, then runs it in the foreground.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ $# -lt 1 ]]; then
    echo "USAGE: $0 server.properties" >&2
    echo "       $0 --config server.properties [--replica-directory-id ID]" \
        "[--throughput N] [--record-size BYTES]" >&2
    exit 1
fi

"$root/scripts/install-deps.sh"
KQ_BUILD_TARGET=raft-server "$root/scripts/build.sh" build

exec "$root/build/raft-server" "$@"
