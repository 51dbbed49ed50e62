#!/usr/bin/env bash
# Kafka's kafka-storage.sh for our log directory (build/kq-storage):
#   bin/kafka-storage.sh random-uuid
#   bin/kafka-storage.sh format --config config/raft.properties --cluster-id ID \
#       [--standalone | --initial-controllers id@host:port:dir-id,... |
#        --no-initial-controllers] [--ignore-formatted]
# Installs missing build dependencies (as root) and builds the tool into
# <repo>/build when needed. KQ_STORAGE_TOOL runs another binary instead.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ -z "${KQ_STORAGE_TOOL:-}" ]]; then
    "$root/scripts/install-deps.sh"
    KQ_BUILD_TARGET=kq-storage "$root/scripts/build.sh" build
fi
exec "${KQ_STORAGE_TOOL:-$root/build/kq-storage}" "$@"
