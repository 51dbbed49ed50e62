# Helpers for the transaction tests (test_txn_clients.sh) and
# scripts/bench-txn.sh: the Java client tests/e2e/java/TxnClient.java,
# compiled against kafka-clients 4.4.0 (the cached 4.4.0 tools) into
# .cache/java-bin once per source change, and the franz-go client
# tests/e2e/go/txnclient built into .cache/go-bin.

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

# txn_franz_client <repo root>: builds tests/e2e/go/txnclient once per
# source change; prints the binary.
txn_franz_client() {
    local src="$1/tests/e2e/go/txnclient" out="$1/.cache/go-bin" sum bin
    sum="$(cat "$src"/*.go "$src/go.mod" "$src/go.sum" | sha256sum | cut -c1-16)"
    bin="$out/txnclient-$sum"
    if [[ ! -x "$bin" ]]; then
        mkdir -p "$out"
        (cd "$src" && timeout 300 go build -buildvcs=false -o "$bin.tmp" .) >&2 || return 1
        mv "$bin.tmp" "$bin"
    fi
    echo "$bin"
}
