#!/bin/sh
# CI check of install.sh on what `npm run release` wrote (usage: check-install.sh DIST_RELEASE_DIR):
# installs the linux-x64 tarball into a temporary prefix and runs it; a copy with one byte flipped
# is refused with exit 1 and a tarball for another platform with exit 2, neither installing anything.
set -u
release=$1
version=$(node -p 'require("./package.json").version')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "check-install: $*" >&2; exit 1; }

out=$(sh "$release/install.sh" --prefix "$tmp/ok" "$release/zaxy-$version-linux-x64.tar.gz") || fail "install failed: $out"
echo "$out" | grep -q 'SHA-256 verified' || fail "no verification reported: $out"
"$tmp/ok/bin/zaxy" --version | grep -qx "zaxy $version" || fail "the installed zaxy does not run"
[ -f "$tmp/ok/share/doc/zaxy/NOTICE" ] || fail "NOTICE not installed"
for doc in docs/*.md; do
  cmp -s "$doc" "$tmp/ok/share/doc/zaxy/$doc" || fail "$doc not installed under share/doc/zaxy/"
done
grep -q '^\.TH' "$tmp/ok/share/man/man1/zaxy.1" || fail "the man page share/man/man1/zaxy.1 is not installed"

cp "$release/zaxy-$version-linux-x64.tar.gz" "$release/SHA256SUMS" "$tmp/"
python3 -c 'import sys; p = sys.argv[1]; b = bytearray(open(p, "rb").read()); b[1000] ^= 0xFF; open(p, "wb").write(b)' "$tmp/zaxy-$version-linux-x64.tar.gz"
sh "$release/install.sh" --prefix "$tmp/bad" "$tmp/zaxy-$version-linux-x64.tar.gz" 2>"$tmp/err"
status=$?
[ "$status" -eq 1 ] || fail "a changed tarball exited $status, expected 1"
grep -q 'SHA-256 mismatch' "$tmp/err" || fail "no mismatch message: $(cat "$tmp/err")"
[ ! -e "$tmp/bad" ] || fail "a refused install wrote $tmp/bad"

sh "$release/install.sh" --prefix "$tmp/mac" "$release/zaxy-$version-darwin-arm64.tar.gz" 2>"$tmp/err"
status=$?
[ "$status" -eq 2 ] || fail "another platform's tarball exited $status, expected 2"
grep -q 'is for darwin-arm64, this machine is linux-x64' "$tmp/err" || fail "no platform message: $(cat "$tmp/err")"
[ ! -e "$tmp/mac" ] || fail "a refused install wrote $tmp/mac"
echo "ok install.sh"
