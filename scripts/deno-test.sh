#!/usr/bin/env bash
# The test suite under Deno. Test files that load kuzu-wasm in the test process (first line
# "// deno-test: own-process") each run in a `deno test` process of their own, the rest together:
# kuzu-wasm's pthread workers have crashed a Deno process (memory access out of bounds in
# em-pthread-N), and such a crash must fail only the file that loaded Kuzu, never other tests.
# Nothing is retried. tests/meta/deno_isolation_test.ts checks that every file that imports a
# Kuzu-loading module carries the marker.
#
# DENO_JOBS files run at a time (default 2, as scripts/test-lane.ts runs Bun): the shared run with
# `deno test --parallel` (each file in a worker of its own), then the own-process files DENO_JOBS
# processes at a time, each one's console output printed whole, in file order, once all have ended.
#
# Usage: scripts/deno-test.sh [JUNIT_DIR]   (one JUnit file per run in JUNIT_DIR: deno-*.xml)
# Exit status: 0 when every run passed, else 1. Extra deno flags: DENO_TEST_FLAGS.
set -uo pipefail
cd "$(dirname "$0")/.."
junit_dir=${1:-}
deno=node_modules/.bin/deno
marker='^// deno-test: own-process'
export DENO_JOBS=${DENO_JOBS:-2}
if ! [[ $DENO_JOBS =~ ^[1-9][0-9]*$ ]]; then
  echo "deno-test: DENO_JOBS must be a whole number of at least 1 (got \"$DENO_JOBS\")" >&2
  exit 2
fi
mapfile -t own < <(grep -rl --include='*_test.ts' -m1 -e "$marker" tests | sort)
out=$(mktemp -d /tmp/zaxy-deno-test-XXXXXX)
trap 'rm -rf "$out"' EXIT
deno_test() { # deno_test NAME PATHS...: one deno test process
  local name=$1; shift
  local junit=()
  if [ -n "$junit_dir" ]; then junit=("--junit-path=$junit_dir/deno-$name.xml"); fi
  # shellcheck disable=SC2086
  "$deno" test -A --no-check ${DENO_TEST_FLAGS:-} "${junit[@]}" "$@"
}
run() { # run NAME PATHS...: deno_test with its output in $out/NAME.log, its status in $out/NAME.status
  local name=$1
  deno_test "$@" >"$out/$name.log" 2>&1
  echo $? >"$out/$name.status"
}
report() { # report NAME: print a finished run's output; 1 when it failed
  local name=$1
  cat "$out/$name.log"
  if [ "$(cat "$out/$name.status" 2>/dev/null)" != 0 ]; then
    echo "deno-test: FAILED: $name" >&2
    return 1
  fi
}
status=0
parallel=()
if [ "$DENO_JOBS" -gt 1 ]; then parallel=(--parallel); fi
ignore=$(IFS=,; echo "${own[*]}")
if ! deno_test main "${parallel[@]}" "--ignore=$ignore" tests/; then
  echo "deno-test: FAILED: main" >&2
  status=1
fi
names=()
for file in "${own[@]}"; do
  name=$(basename "$file" .ts)
  names+=("$name")
  while [ "$(jobs -rp | wc -l)" -ge "$DENO_JOBS" ]; do wait -n; done
  run "$name" "$file" &
done
wait
for name in "${names[@]}"; do report "$name" || status=1; done
exit $status
