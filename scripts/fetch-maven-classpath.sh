#!/usr/bin/env bash
# Shared by scripts/fetch-kafka-tools.sh and scripts/fetch-kafka-broker.sh:
# fetches Maven artifacts and their runtime dependencies into CACHE/lib once
# (a stamp file per VERSION), then prints CACHE/lib.
#   scripts/fetch-maven-classpath.sh NAME CACHE VERSION GROUP:ARTIFACT[:VERSION]...
# NAME is the caller's name for messages and the pom's artifactId prefix; an
# artifact without a version gets VERSION. slf4j-simple 1.7.36 is always
# added (Kafka logs through slf4j and ships no binding).
set -euo pipefail

name="$1" cache="$2" version="$3"
shift 3
lib="$cache/lib"
stamp="$cache/.fetched-$version"
if [[ -f "$stamp" && -d "$lib" ]]; then
    echo "$lib"
    exit 0
fi
for tool in java mvn; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "$name: '$tool' not found; install it with:" >&2
        echo "  apt-get install -y default-jre-headless maven" >&2
        exit 1
    fi
done
deps=""
for a in "$@" org.slf4j:slf4j-simple:1.7.36; do
    IFS=: read -r g art v <<< "$a"
    deps+="    <dependency>
      <groupId>$g</groupId>
      <artifactId>$art</artifactId>
      <version>${v:-$version}</version>
    </dependency>
"
done
mkdir -p "$cache"
cat > "$cache/pom.xml" <<POM
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 http://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kq.local</groupId>
  <artifactId>$name-classpath</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
$deps  </dependencies>
</project>
POM
rm -rf "$cache/lib.tmp"
mkdir -p "$cache/lib.tmp"
echo "$name: fetching $* ($version) and dependencies..." >&2
mvn -B -q -Dstyle.color=never -f "$cache/pom.xml" -Dmaven.repo.local="$cache/m2" \
    dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$cache/lib.tmp" >&2
rm -rf "$lib"
mv "$cache/lib.tmp" "$lib"
touch "$stamp"
echo "$lib"
