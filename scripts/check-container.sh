#!/usr/bin/env bash
# The container install, checked without Docker: the binary alone in a minimal root file system,
# run under chroot. Two images are imitated from what they ship:
#   base  glibc only, like gcr.io/distroless/base-debian12: no libstdc++, so the usearch addon
#         cannot load; everything works, the consolidation trigger's similarity search runs
#         exactly (and says so), doctor --selftest reports usearch.load failing;
#   cc    glibc, libstdc++ and libgcc_s, like gcr.io/distroless/cc-debian12 or debian:12-slim:
#         everything, usearch included.
# Each root holds /usr/local/bin/zaxy, the shared libraries ldd names, /tmp, /dev/null, /dev/zero,
# /dev/urandom and /proc (Bun reads its own executable through /proc/self/exe), nothing else.
#
# Usage: scripts/check-container.sh [BINARY]   (default dist/zaxy)
# Exit 0 when both pass, 1 on a failure, 4 (with the reason) when chroot/mount is not permitted.
set -uo pipefail
cd "$(dirname "$0")/.."
binary=$(realpath "${1:-dist/zaxy}")
work=$(mktemp -d /tmp/zaxy-container-XXXXXX)
mounted=()
cleanup() {
  for m in "${mounted[@]}"; do umount "$m" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
[ -n "${KEEP_CONTAINER_OUTPUT:-}" ] && trap 'for m in "${mounted[@]}"; do umount "$m" 2>/dev/null; done; echo "kept $work"' EXIT
fail() { echo "check-container: FAIL: $*" >&2; exit 1; }
if [ "$(id -u)" != 0 ] || ! command -v chroot >/dev/null 2>&1; then
  echo "check-container: needs root and chroot to build a root file system" >&2
  exit 4
fi

copy_lib() { # copy_lib ROOT FILE: the file at the same path, symlinks resolved
  local root=$1 file=$2
  mkdir -p "$root$(dirname "$file")"
  cp -L "$file" "$root$file"
}

root=""
make_root() { # make_root NAME EXTRA_LIBS...: builds $work/NAME and sets $root
  root=$work/$1; shift
  mkdir -p "$root/usr/local/bin" "$root/tmp" "$root/dev" "$root/proc" "$root/work" "$root/etc"
  chmod 1777 "$root/tmp"
  cp "$binary" "$root/usr/local/bin/zaxy"
  for lib in $(ldd "$binary" | grep -o '/[^ ]*' | sort -u) "$@"; do copy_lib "$root" "$lib"; done
  mknod -m 666 "$root/dev/null" c 1 3 && mknod -m 666 "$root/dev/zero" c 1 5 && mknod -m 666 "$root/dev/urandom" c 1 9 ||
    { echo "check-container: cannot create device nodes" >&2; exit 4; }
  mount -t proc proc "$root/proc" || { echo "check-container: cannot mount /proc" >&2; exit 4; }
  mounted+=("$root/proc")
}

chroot_bin=$(command -v chroot)
env_clean=(env -i PATH=/usr/local/bin HOME=/work TMPDIR=/tmp)
version=$(node -p 'require("./package.json").version')

run_image() { # run_image NAME: the common checks in $root, then what differs per image
  local name=$1
  zin() { "${env_clean[@]}" "$chroot_bin" "$root" /usr/local/bin/zaxy --eventloom-path /work/.eventloom "$@"; }
  zin --version | grep -qx "zaxy $version" || fail "$name: --version"
  zin init --json >/dev/null || fail "$name: init"
  for text in "Deploy the payments service with the blue green runbook" "Deploy the payments service with the blue green runbook today"; do
    zin memory append decision.made --actor agent --payload-json "{\"decision\":\"$text\",\"rationale\":\"runbook\"}" --json >/dev/null || fail "$name: memory append"
  done
  zin verify >/dev/null || fail "$name: verify"
  zin memory checkout "how do we deploy payments" --json >"$work/checkout.json" || fail "$name: checkout"
  grep -q '"current_facts"' "$work/checkout.json" || fail "$name: checkout has no current_facts"
  zin reproject --graph-store --json >/dev/null || fail "$name: reproject --graph-store (Kuzu)"
  zin memory consolidation trigger --min-similarity 0.8 --json >"$work/trigger.json" 2>"$work/trigger.err" || { cat "$work/trigger.err" >&2; fail "$name: trigger"; }
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["consolidation_result"]["candidate_count"]==1, d' "$work/trigger.json" || fail "$name: the trigger did not find the one candidate"
  printf '%s\n%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"ci","version":"1"}}}' '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' |
    "${env_clean[@]}" "$chroot_bin" "$root" /usr/local/bin/zaxy serve --eventloom-path /work/.eventloom >"$work/serve.out" 2>/dev/null
  grep -q '"memory_checkout"' "$work/serve.out" || fail "$name: serve tools/list"
  zin doctor --selftest --json >"$work/selftest.json"
  local selftest=$?
  if [ "$name" = base ]; then
    grep -q "the similarity search compares every pair exactly" "$work/trigger.err" || fail "base: the trigger did not say it ran the exact search: $(cat "$work/trigger.err")"
    [ "$selftest" = 1 ] || fail "base: doctor --selftest should report usearch.load failing (exit 1), got $selftest"
    grep -q 'libstdc++' "$work/selftest.json" || fail "base: the selftest does not name libstdc++"
  else
    if [ -s "$work/trigger.err" ]; then fail "cc: the trigger warned: $(cat "$work/trigger.err")"; fi
    [ "$selftest" = 0 ] || fail "cc: doctor --selftest exit $selftest: $(cat "$work/selftest.json")"
  fi
  echo "check-container: ok $name"
}

system_lib() { ldconfig -p | awk -v name="$1" '$1 == name { print $NF; exit }'; }
make_root base
run_image base
make_root cc "$(system_lib libstdc++.so.6)" "$(system_lib libgcc_s.so.1)"
run_image cc
