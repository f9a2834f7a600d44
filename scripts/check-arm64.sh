#!/bin/sh
# CI smoke test of the linux-arm64 release binary under qemu-user, from an empty directory
# (usage: check-arm64.sh DIST_RELEASE_DIR): --version, init, append, verify, checkout,
# `doctor --selftest` (the embedded arm64 usearch addon and kuzu-wasm), and `serve` answering
# initialize and tools/list. Installs qemu-user and the arm64 C/C++ runtimes from Debian's
# packages when they are missing (as root, with apt-get); exit 4, with the reason, when that is
# impossible here (the caller reports it as skipped, not passed).
set -u
release=$1
version=$(node -p 'require("./package.json").version')
sysroot=/usr/aarch64-linux-gnu
if ! command -v qemu-aarch64 >/dev/null 2>&1 || [ ! -e "$sysroot/lib/ld-linux-aarch64.so.1" ] || [ ! -e "$sysroot/lib/libstdc++.so.6" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q qemu-user libc6-arm64-cross libstdc++6-arm64-cross >/dev/null 2>&1 ||
      { echo "check-arm64: apt-get install qemu-user libc6-arm64-cross libstdc++6-arm64-cross failed" >&2; exit 4; }
  else
    echo "check-arm64: qemu-user and the arm64 runtimes are not installed and cannot be (not root or no apt-get)" >&2
    exit 4
  fi
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "check-arm64: $*" >&2; exit 1; }
tar -xzf "$release/zaxy-$version-linux-arm64.tar.gz" -C "$tmp"
bin="$tmp/zaxy-$version-linux-arm64/zaxy"
mkdir "$tmp/empty"
cd "$tmp/empty" || exit 1
z() { qemu-aarch64 -L "$sysroot" "$bin" "$@"; }

z --version | grep -qx "zaxy $version" || fail "--version"
z --version --json | grep -q '"target":"bun-linux-arm64"' || fail "--version --json does not say bun-linux-arm64"
z init --json >/dev/null || fail "init"
z memory append goal.created --actor ci --payload-json '{"title":"ship on arm64"}' --json >/dev/null || fail "append"
z verify >/dev/null || fail "verify"
z memory checkout "ship" --json | grep -q 'ship on arm64' || fail "checkout does not cite the goal"
z doctor --selftest --json | grep -q '"platform":"linux-arm64","ok":true' || fail "doctor --selftest"
answers=$(printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"ci","version":"1"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' | timeout 120 qemu-aarch64 -L "$sysroot" "$bin" serve 2>/dev/null)
echo "$answers" | grep -q '"serverInfo":{"name":"zaxy"' || fail "serve: no initialize answer"
echo "$answers" | grep -q '"name":"memory_checkout"' || fail "serve: tools/list lacks memory_checkout"
echo "ok linux-arm64 under qemu"
