/**
 * What `zaxy --version --json` reports: the version, the build (commit, uncommitted changes,
 * date, compile target) and the components inside the binary with their versions and licenses
 * (src/generated/buildStamp.ts, written by build.ts). Run from source, `binary` is false and
 * `runtime` names the runtime running it; the stamp then describes the last build of the tree.
 *
 * @example
 * versionReport("0.1.0").components.map((c) => c.name) // ["bun (runtime)", "kuzu-wasm", "usearch", ...]
 */
import { embeddedAssets } from "./assets.ts";
import { runtimeName } from "./mod.ts";
import { buildStamp } from "../generated/buildStamp.ts";

export interface VersionReport {
  schema: "zaxy.version.v1";
  version: string;
  commit: string | null;
  dirty: boolean;
  built_at: string;
  target: string;
  /** True when this is the compiled binary (its assets are embedded), false when run from source. */
  binary: boolean;
  runtime: string;
  components: Array<{ name: string; version: string; license: string; sha256?: string }>;
}

export function versionReport(version: string): VersionReport {
  return {
    schema: "zaxy.version.v1",
    version,
    commit: buildStamp.commit,
    dirty: buildStamp.dirty,
    built_at: buildStamp.built_at,
    target: buildStamp.target,
    binary: embeddedAssets().length > 0,
    runtime: runtimeName,
    components: buildStamp.components.map((component) => ({ ...component })),
  };
}
