#!/bin/sh
# Compile the Java sources and tests, then run them with the JUnit 5 console launcher.
# JUnit XML reports are written to java/build/test-reports (TEST-junit-jupiter.xml).
set -eu
cd "$(dirname "$0")"
JAR=${JUNIT_JAR:-/usr/share/java/junit-platform-console-standalone.jar}
if [ ! -f "$JAR" ]; then
    echo "run-tests.sh: JUnit console launcher not found at $JAR (apt-get install junit5, or set JUNIT_JAR)" >&2
    exit 2
fi
rm -rf build
mkdir -p build/classes build/test-classes build/test-reports
javac -encoding UTF-8 -d build/classes $(find src/main/java -name '*.java' | sort)
javac -encoding UTF-8 -d build/test-classes -cp "build/classes:$JAR" $(find src/test/java -name '*.java' | sort)
exec java -jar "$JAR" --disable-banner --details=summary \
    --class-path build/classes:build/test-classes --scan-class-path \
    --reports-dir build/test-reports "$@"
