#!/usr/bin/env bash
# The test suite under Deno. Test files that load kuzu-wasm in the test process (first line
# "// deno-test: own-process") each run in a `deno test` process of their own, the rest together:
# kuzu-wasm's pthread workers have crashed a Deno process (memory access out of bounds in
# em-pthread-N), and such a crash must fail only the file that loaded Kuzu, never other tests.
# Nothing is retried. tests/meta/deno_isolation_test.ts checks that every file that imports a
# Kuzu-loading module carries the marker.
#
# Usage: scripts/deno-test.sh [JUNIT_DIR]   (one JUnit file per run in JUNIT_DIR: deno-*.xml)
# Exit status: 0 when every run passed, else 1. Extra deno flags: DENO_TEST_FLAGS.
set -uo pipefail
cd "$(dirname "$0")/.."
junit_dir=${1:-}
deno=node_modules/.bin/deno
marker='^// deno-test: own-process'
mapfile -t own < <(grep -rl --include='*_test.ts' -m1 -e "$marker" tests | sort)
status=0
run() { # run NAME PATHS...
  local name=$1; shift
  local junit=()
  if [ -n "$junit_dir" ]; then junit=("--junit-path=$junit_dir/deno-$name.xml"); fi
  # shellcheck disable=SC2086
  if ! "$deno" test -A --no-check ${DENO_TEST_FLAGS:-} "${junit[@]}" "$@"; then
    echo "deno-test: FAILED: $name" >&2
    status=1
  fi
}
ignore=$(IFS=,; echo "${own[*]}")
run main "--ignore=$ignore" tests/
for file in "${own[@]}"; do
  run "$(basename "$file" .ts)" "$file"
done
exit $status
