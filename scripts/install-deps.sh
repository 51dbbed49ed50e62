#!/usr/bin/env bash
# Installs the Debian packages needed to build the server (and, with --test,
# those the test suite uses). Installs nothing when everything is present.
# As root it runs apt-get; otherwise it prints the command and exits 1.
#   scripts/install-deps.sh          build dependencies
#   scripts/install-deps.sh --test   build + test dependencies
set -euo pipefail

build_pkgs=(libuv1-dev libinih-dev zlib1g-dev libcmocka-dev liblz4-dev libssl-dev
            libzstd-dev libsnappy-dev librdkafka-dev cmake gcc make pkg-config)
test_pkgs=(kcat python3-kafka python3-venv python3-prometheus-client default-jdk-headless maven faketime openssl
           nodejs npm)

pkgs=("${build_pkgs[@]}")
if [[ "${1:-}" == "--test" ]]; then
    pkgs+=("${test_pkgs[@]}")
fi

missing=()
for p in "${pkgs[@]}"; do
    # A tool already on PATH counts as present (e.g. a JRE or Maven not
    # installed from these exact packages).
    case "$p" in
        # javac too: scripts/wire-diff.sh compiles its harness.
        default-jdk-headless) command -v java >/dev/null 2>&1 && command -v javac >/dev/null 2>&1 && continue ;;
        maven) command -v mvn >/dev/null 2>&1 && continue ;;
        kcat) command -v kcat >/dev/null 2>&1 && continue ;;
        # kafkajs (test_txn_clients); a Node.js not from Debian brings its npm.
        nodejs | npm) command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 && continue ;;
    esac
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
    exit 0
fi

if [[ "$(id -u)" -ne 0 ]]; then
    echo "install-deps: missing packages: ${missing[*]}" >&2
    echo "install-deps: run as root:" >&2
    echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
    exit 1
fi

echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2
apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
