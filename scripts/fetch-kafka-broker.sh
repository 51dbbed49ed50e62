#!/usr/bin/env bash
# Fetches the Apache Kafka broker (org.apache.kafka:kafka_2.13, which also
# holds kafka.tools.TestRaftServer and StorageTool) and its runtime
# dependencies with Maven into .cache/kafka-broker/lib. Does nothing when
# they are already there. Prints the lib directory on success.
# KQ_KAFKA_BROKER_VERSION picks the release (default 4.0.0); a non-default
# one lives in .cache/kafka-broker-<version>/lib.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kafka_version="${KQ_KAFKA_BROKER_VERSION:-4.0.0}"
cache="$root/.cache/kafka-broker"
[[ "$kafka_version" == 4.0.0 ]] || cache="$root/.cache/kafka-broker-$kafka_version"
lib="$cache/lib"
stamp="$cache/.fetched-$kafka_version"
if [[ -f "$stamp" && -d "$lib" ]]; then
    echo "$lib"
    exit 0
fi
for tool in java mvn; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "fetch-kafka-broker: '$tool' not found; install it with:" >&2
        echo "  apt-get install -y default-jre-headless maven" >&2
        exit 1
    fi
done
mkdir -p "$cache"
cat > "$cache/pom.xml" <<POM
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 http://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kq.local</groupId>
  <artifactId>kafka-broker-classpath</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_2.13</artifactId>
      <version>$kafka_version</version>
    </dependency>
    <!-- The broker logs through slf4j and ships no binding. -->
    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-simple</artifactId>
      <version>1.7.36</version>
    </dependency>
  </dependencies>
</project>
POM
rm -rf "$cache/lib.tmp"
mkdir -p "$cache/lib.tmp"
echo "fetch-kafka-broker: fetching org.apache.kafka:kafka_2.13:$kafka_version and dependencies..." >&2
mvn -B -q -Dstyle.color=never -f "$cache/pom.xml" -Dmaven.repo.local="$cache/m2" \
    dependency:copy-dependencies -DincludeScope=runtime \
    -DoutputDirectory="$cache/lib.tmp" >&2
rm -rf "$lib"
mv "$cache/lib.tmp" "$lib"
touch "$stamp"
echo "$lib"
