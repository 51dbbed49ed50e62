# The Java clients of the end-to-end tests and benchmarks (sourced, not run):
# tests/e2e/java/<Name>.java compiled against kafka-clients 4.4.0 (the
# cached 4.4.0 tools, scripts/fetch-kafka-tools.sh, fetched with Maven on
# first use) into .cache/java-bin/<name>-<hash> once per source change.

# java_client_classpath <repo root> <Name>: prints "<classes dir>:<lib dir>/*".
java_client_classpath() {
    local root=$1 name=$2 src="$1/tests/e2e/java/$2.java" lib sum out
    lib="$(KQ_KAFKA_TOOLS_VERSION=4.4.0 "$root/scripts/fetch-kafka-tools.sh")" || return 1
    sum="$(sha256sum "$src" | cut -c1-16)"
    out="$root/.cache/java-bin/${name,,}-$sum"
    if [[ ! -f "$out/$name.class" ]]; then
        rm -rf "$out.tmp"
        mkdir -p "$out.tmp"
        javac -nowarn -encoding UTF-8 -d "$out.tmp" -cp "$lib/*" "$src" >&2 || return 1
        rm -rf "$out"
        mv "$out.tmp" "$out"
    fi
    echo "$out:$lib/*"
}
