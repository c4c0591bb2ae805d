#!/bin/sh
# Run the Python unit tests; with pytest, a JUnit XML report goes to python/build/test-reports.
set -eu
cd "$(dirname "$0")"
if python3 -c 'import pytest' 2>/dev/null; then
    exec python3 -m pytest -q -p no:cacheprovider --junitxml=build/test-reports/pytest.xml tests "$@"
fi
exec python3 -m unittest discover -s tests -t . "$@"
