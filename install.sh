#!/bin/sh
# Installs zaxy from a release tarball on this machine, offline.
#
#   sh install.sh [--prefix DIR] zaxy-<version>-<os>-<arch>.tar.gz [SHA256SUMS]
#   sh install.sh --help
#
# The tarball's SHA-256 must match its line in SHA256SUMS (by default the file of that name next
# to the tarball); a missing line or a mismatch is refused (exit 1) before anything is unpacked.
# A tarball for another platform is refused too (exit 2). Installs DIR/bin/zaxy (default DIR:
# /usr/local) by an atomic rename, LICENSE, NOTICE, README.md and the guides (docs/*.md) under
# DIR/share/doc/zaxy/ and the man page as DIR/share/man/man1/zaxy.1, then runs `zaxy --version`. Needs only POSIX sh, tar, gzip and sha256sum (or shasum -a 256).
set -eu

usage_line="usage: sh install.sh [--prefix DIR] zaxy-<version>-<os>-<arch>.tar.gz [SHA256SUMS]"

# A usage error: the usage line on stderr, exit 2.
usage() {
  echo "$usage_line" >&2
  exit 2
}

# --help asked for the usage, so it goes to stdout and is no error (exit 0).
help() {
  cat <<EOF
$usage_line

Installs zaxy from a release tarball on this machine, offline.

The tarball's SHA-256 must match its line in SHA256SUMS (default: the file of that name next
to the tarball); a missing line or a mismatch is refused (exit 1) before anything is unpacked.
A tarball for another platform is refused too (exit 2).

  --prefix DIR   install DIR/bin/zaxy, DIR/share/doc/zaxy/ (README, guides) and
                 DIR/share/man/man1/zaxy.1 (default: /usr/local)
  -h, --help     print this help and exit

Example:
  sh install.sh --prefix "\$HOME/.local" zaxy-<version>-linux-x64.tar.gz SHA256SUMS
EOF
  exit 0
}

# Options may come before or after the file arguments, so `install.sh TARBALL --help` helps too.
prefix=/usr/local
tarball=
sums=
file_count=0
while [ $# -gt 0 ]; do
  case "$1" in
  --prefix)
    [ $# -ge 2 ] || usage
    prefix=$2
    shift 2
    ;;
  --prefix=*)
    prefix=${1#--prefix=}
    shift
    ;;
  -h | --help) help ;;
  -*) echo "install.sh: unknown option $1" >&2; usage ;;
  *)
    file_count=$((file_count + 1))
    case $file_count in
    1) tarball=$1 ;;
    2) sums=$1 ;;
    esac
    shift
    ;;
  esac
done
[ "$file_count" -ge 1 ] && [ "$file_count" -le 2 ] || usage
[ "$file_count" -eq 2 ] || sums=$(dirname "$tarball")/SHA256SUMS
name=$(basename "$tarball")

[ -f "$tarball" ] || { echo "install.sh: no such file: $tarball" >&2; exit 2; }
[ -f "$sums" ] || { echo "install.sh: no checksum file: $sums (pass it as the second argument)" >&2; exit 2; }
case "$name" in
zaxy-*-*-*.tar.gz) ;;
*) echo "install.sh: $name is not a zaxy release tarball (zaxy-<version>-<os>-<arch>.tar.gz)" >&2; exit 2 ;;
esac

if command -v sha256sum >/dev/null 2>&1; then
  actual=$(sha256sum "$tarball" | cut -d' ' -f1)
elif command -v shasum >/dev/null 2>&1; then
  actual=$(shasum -a 256 "$tarball" | cut -d' ' -f1)
else
  echo "install.sh: neither sha256sum nor shasum is installed; cannot verify $name" >&2
  exit 2
fi
expected=$(awk -v n="$name" '$2 == n || $2 == "*" n { print $1 }' "$sums")
if [ -z "$expected" ]; then
  echo "install.sh: $sums has no line for $name: refusing to install an unverified file" >&2
  exit 1
fi
if [ "$actual" != "$expected" ]; then
  echo "install.sh: SHA-256 mismatch for $name: the file has $actual, $sums says $expected: refusing to install" >&2
  exit 1
fi

stem=${name%.tar.gz}
platform=${stem#zaxy-*-}
os=$(uname -s | tr '[:upper:]' '[:lower:]')
case $(uname -m) in
x86_64 | amd64) arch=x64 ;;
aarch64 | arm64) arch=arm64 ;;
*) arch=$(uname -m) ;;
esac
if [ "$platform" != "$os-$arch" ]; then
  echo "install.sh: $name is for $platform, this machine is $os-$arch" >&2
  exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/zaxy-install.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
gzip -dc "$tarball" | (cd "$work" && tar -xf -)
[ -f "$work/$stem/zaxy" ] || { echo "install.sh: $name holds no $stem/zaxy" >&2; exit 1; }

mkdir -p "$prefix/bin" "$prefix/share/doc/zaxy"
cp "$work/$stem/zaxy" "$prefix/bin/.zaxy.install.$$"
chmod 755 "$prefix/bin/.zaxy.install.$$"
mv -f "$prefix/bin/.zaxy.install.$$" "$prefix/bin/zaxy"
for file in LICENSE NOTICE README.md; do
  cp "$work/$stem/$file" "$prefix/share/doc/zaxy/$file"
done
# The guides keep their docs/ folder, so the README's links (docs/events.md) resolve; the same
# text is inside the binary (`zaxy help events`). Tarballs older than the guides lack both.
if [ -d "$work/$stem/docs" ]; then
  mkdir -p "$prefix/share/doc/zaxy/docs"
  cp "$work/$stem/docs/"*.md "$prefix/share/doc/zaxy/docs/"
fi
if [ -f "$work/$stem/share/man/man1/zaxy.1" ]; then
  mkdir -p "$prefix/share/man/man1"
  cp "$work/$stem/share/man/man1/zaxy.1" "$prefix/share/man/man1/zaxy.1"
fi
echo "installed $prefix/bin/zaxy ($("$prefix/bin/zaxy" --version)) from $name, SHA-256 verified against $sums"
