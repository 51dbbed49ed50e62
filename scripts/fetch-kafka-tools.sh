#!/usr/bin/env bash
# Fetches Apache Kafka's Java command-line tools (VerifiableProducer,
# ProducerPerformance, MetadataQuorumCommand, ConsoleConsumer) and their
# runtime dependencies with Maven into .cache/kafka-tools/lib. Does nothing
# when they are already there. Prints the lib directory on success.
# KQ_KAFKA_TOOLS_VERSION picks another release (default 4.0.0, what the tests
# use); a non-default one lives in .cache/kafka-tools-<version>/lib.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kafka_version="${KQ_KAFKA_TOOLS_VERSION:-4.0.0}"
cache="$root/.cache/kafka-tools"
[[ "$kafka_version" == 4.0.0 ]] || cache="$root/.cache/kafka-tools-$kafka_version"
lib="$cache/lib"
stamp="$cache/.fetched-$kafka_version"

if [[ -f "$stamp" && -d "$lib" ]]; then
    echo "$lib"
    exit 0
fi

for tool in java mvn; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "fetch-kafka-tools: '$tool' not found; install it with:" >&2
        echo "  apt-get install -y default-jre-headless maven" >&2
        exit 1
    fi
done

mkdir -p "$cache"
pom="$cache/pom.xml"
cat > "$pom" <<POM
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 http://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kq.local</groupId>
  <artifactId>kafka-tools-classpath</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka-tools</artifactId>
      <version>$kafka_version</version>
    </dependency>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka-clients</artifactId>
      <version>$kafka_version</version>
    </dependency>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka-server-common</artifactId>
      <version>$kafka_version</version>
    </dependency>
    <!-- The tools log through slf4j; a simple binding sends the log to stderr
         (bin/kafka-run-class.sh sets its level). -->
    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-simple</artifactId>
      <version>1.7.36</version>
    </dependency>
  </dependencies>
</project>
POM

tmp="$cache/lib.tmp"
rm -rf "$tmp"
mkdir -p "$tmp"
echo "fetch-kafka-tools: fetching org.apache.kafka:kafka-tools:$kafka_version and dependencies..." >&2
mvn -B -q -Dstyle.color=never -f "$pom" -Dmaven.repo.local="$cache/m2" \
    dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$tmp" >&2
rm -rf "$lib"
mv "$tmp" "$lib"
touch "$stamp"
echo "$lib"
