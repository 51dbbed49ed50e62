# Helpers for the transaction tests (test_txn_clients.sh) and
# scripts/bench-txn.sh: the Java client tests/e2e/java/TxnClient.java,
# compiled against kafka-clients 4.4.0 (the cached 4.4.0 tools) into
# .cache/java-bin once per source change, the Go clients
# tests/e2e/go/txnclient (franz-go) and tests/e2e/go/saramatxn (Sarama) built
# into .cache/go-bin, and kafkajs (tests/e2e/node/package-lock.json)
# installed into .cache/node-txn.

# txn_java_classes <repo root>: prints "<classes dir>:<lib dir>/*" (a
# classpath) after compiling TxnClient.java if needed.
txn_java_classpath() {
    local root=$1 src="$1/tests/e2e/java/TxnClient.java" lib sum out
    lib="$(KQ_KAFKA_TOOLS_VERSION=4.4.0 "$root/scripts/fetch-kafka-tools.sh")" || return 1
    sum="$(sha256sum "$src" | cut -c1-16)"
    out="$root/.cache/java-bin/txnclient-$sum"
    if [[ ! -f "$out/TxnClient.class" ]]; then
        rm -rf "$out.tmp"
        mkdir -p "$out.tmp"
        javac -nowarn -encoding UTF-8 -d "$out.tmp" -cp "$lib/*" "$src" >&2 || return 1
        rm -rf "$out"
        mv "$out.tmp" "$out"
    fi
    echo "$out:$lib/*"
}

# txn_go_client <repo root> <dir under tests/e2e/go>: builds that Go
# program once per source change; prints the binary.
txn_go_client() {
    local src="$1/tests/e2e/go/$2" out="$1/.cache/go-bin" sum bin
    sum="$(cat "$src"/*.go "$src/go.mod" "$src/go.sum" | sha256sum | cut -c1-16)"
    bin="$out/$2-$sum"
    if [[ ! -x "$bin" ]]; then
        mkdir -p "$out"
        (cd "$src" && timeout 300 go build -buildvcs=false -o "$bin.tmp" .) >&2 || return 1
        mv "$bin.tmp" "$bin"
    fi
    echo "$bin"
}

# txn_franz_client <repo root>: tests/e2e/go/txnclient (franz-go).
txn_franz_client() { txn_go_client "$1" txnclient; }

# txn_kafkajs_path <repo root>: installs the locked kafkajs
# (tests/e2e/node/package-lock.json, npm ci) into .cache/node-txn/<hash of
# the lock> once; prints its node_modules directory (for NODE_PATH). Fails,
# with npm's message, when the registry cannot be reached.
txn_kafkajs_path() {
    local src="$1/tests/e2e/node" sum dir
    command -v npm > /dev/null || { echo "npm missing (apt-get install npm)" >&2; return 1; }
    sum="$(cat "$src/package.json" "$src/package-lock.json" | sha256sum | cut -c1-16)"
    dir="$1/.cache/node-txn/$sum"
    if [[ ! -f "$dir/node_modules/kafkajs/package.json" ]]; then
        rm -rf "$dir.tmp"
        mkdir -p "$dir.tmp"
        cp "$src/package.json" "$src/package-lock.json" "$dir.tmp/"
        (cd "$dir.tmp" && timeout 300 npm ci --no-audit --no-fund --loglevel=error) >&2 || return 1
        rm -rf "$dir"
        mv "$dir.tmp" "$dir"
    fi
    echo "$dir/node_modules"
}
