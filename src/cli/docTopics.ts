/**
 * The guides under docs/ as help topics: `zaxy help events` prints docs/events.md. An installed
 * binary has no docs/ beside it, so build.ts embeds every guide in one gzip-compressed JSON asset
 * (`docs.json`: base name → Markdown); a run from source (Bun or Deno) reads the repository's
 * docs/ instead, as the other asset loaders fall back to node_modules.
 *
 * A topic named like a command (`hooks`, `fleet`) never hides that command's help: `zaxy help
 * hooks` stays the command's, and the guide is `zaxy help --topic hooks`.
 *
 * @example
 * ```ts
 * docTopic("events")?.startsWith("# "); // true
 * docTopicReference("events"); // "zaxy help events (docs/events.md)"
 * docTopicReference("hooks");  // "zaxy help --topic hooks (docs/hooks.md)"
 * ```
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { readEmbeddedAsset } from "../platform/assets.ts";

/** The embedded asset holding every guide (build.ts). */
export const docsAssetName = "docs.json";

/**
 * Guides whose base name is also a top-level command; `zaxy help NAME` shows the command, so
 * they are reached with `--topic`. A test keeps this list equal to the command tree's overlap.
 */
export const commandNamedTopics: readonly string[] = ["fleet", "graph", "hooks", "store"];

/** `docs/*.md` of `docsDir` as base name → text, in name order: the bundle build.ts embeds. */
export function readDocsDir(docsDir: string): Record<string, string> {
  const topics: Record<string, string> = {};
  const names = fs.readdirSync(docsDir).filter((name) => name.endsWith(".md")).map((name) => name.slice(0, -".md".length)).sort();
  for (const name of names) topics[name] = fs.readFileSync(path.join(docsDir, `${name}.md`), "utf8");
  return topics;
}

function repositoryDocsDir(): string {
  return fileURLToPath(new URL("../../docs/", import.meta.url));
}

let loaded: Record<string, string> | undefined;

/** Every guide: the embedded bundle in the binary, else the repository's docs/; empty when neither exists. */
export function docTopics(): Record<string, string> {
  if (loaded !== undefined) return loaded;
  const embedded = readEmbeddedAsset(docsAssetName);
  if (embedded !== undefined) {
    loaded = JSON.parse(new TextDecoder().decode(embedded)) as Record<string, string>;
  } else {
    try {
      loaded = readDocsDir(repositoryDocsDir());
    } catch {
      loaded = {};
    }
  }
  return loaded;
}

/** The Markdown of guide `name`, or undefined when there is none. */
export function docTopic(name: string): string | undefined {
  const topics = docTopics();
  return Object.hasOwn(topics, name) ? topics[name] : undefined;
}

/** The guide's first heading without its `#`s, e.g. "Event types". */
export function docTopicTitle(text: string): string {
  const heading = /^#+\s+(.+)$/m.exec(text);
  return heading === null ? "" : heading[1].trim();
}

/** The command that prints guide `name`. */
export function docTopicCommand(name: string): string {
  return commandNamedTopics.includes(name) ? `zaxy help --topic ${name}` : `zaxy help ${name}`;
}

/** How a message points at a guide, resolvable from an installed binary and in the repository. */
export function docTopicReference(name: string): string {
  return `${docTopicCommand(name)} (docs/${name}.md)`;
}
