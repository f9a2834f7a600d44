/**
 * The embedders a read of `root` uses, from its `embedding.*` settings (embeddingSettings.ts):
 * - `bundled` (the default): the bundled model, no fallback;
 * - `openai` or `ollama`: the model server (externalEmbedder.ts) first, and the bundled model as a
 *   fallback for when the server fails (`EmbeddingEndpointError`). The fallback loads the bundled
 *   model (about a second and 100 MB) only when its `embed` is called, so a read that the server
 *   answers never pays for it.
 *
 * A server's embedder is kept per process, root and settings: its fail-fast state (no request for
 * `endpointRetryAfterMs` after a failure) must outlive one read in `zaxy serve`, and changed
 * settings get a fresh one.
 *
 * @example
 * const { primary, fallback } = await configuredSemanticEmbedders(root);
 * const vectors = await primary.embed(texts).catch((error) => {
 *   if (!(error instanceof EmbeddingEndpointError) || fallback === null) throw error;
 *   return fallback.embed(texts);
 * });
 */
import * as path from "node:path";
import { readEmbeddingSettings, type ServerEmbeddingSettings } from "./embeddingSettings.ts";
import { externalEmbedder } from "./externalEmbedder.ts";
import type { SemanticEmbedder, SemanticModelReceipt } from "./semanticEmbedder.ts";
import { semanticEmbeddingDim, semanticModelId } from "./semanticModel.ts";

export interface ConfiguredSemanticEmbedders {
  primary: SemanticEmbedder;
  /** The bundled model, loaded on first `embed`; null when the primary is the bundled model. */
  fallback: SemanticEmbedder | null;
}

/** The bundled model, imported only when used: it loads TF.js on import. */
const bundledEmbedder = async (): Promise<SemanticEmbedder> => (await import("./semanticEmbedder.ts")).sharedSemanticEmbedder();

/**
 * The bundled model behind a wrapper that loads it on the first `embed`. Until then the receipt
 * names the model's id and dimension with `weights_sha256` null (the weights are not read yet);
 * afterwards it is the model's own receipt.
 */
export function lazyBundledEmbedder(load: () => Promise<SemanticEmbedder> = bundledEmbedder): SemanticEmbedder {
  let loaded: SemanticEmbedder | null = null;
  let loading: Promise<SemanticEmbedder> | null = null;
  return {
    get receipt(): SemanticModelReceipt {
      return loaded?.receipt ?? { id: semanticModelId, weights_sha256: null, dim: semanticEmbeddingDim };
    },
    async embed(texts) {
      loading ??= load().then((embedder) => (loaded = embedder));
      return (await loading).embed(texts);
    },
  };
}

/** Server embedders by root and settings (see the module comment); one entry per configuration used. */
const serverEmbedders = new Map<string, SemanticEmbedder>();
let sharedFallback: SemanticEmbedder | null = null;

function serverEmbedder(root: string, settings: ServerEmbeddingSettings): SemanticEmbedder {
  const key = JSON.stringify([path.resolve(root), settings]);
  let embedder = serverEmbedders.get(key);
  if (embedder === undefined) {
    embedder = externalEmbedder(settings);
    serverEmbedders.set(key, embedder);
  }
  return embedder;
}

/** The primary embedder of a read of `root` and its fallback (see the module comment). */
export async function configuredSemanticEmbedders(root: string): Promise<ConfiguredSemanticEmbedders> {
  const settings = readEmbeddingSettings(root);
  if (settings.provider === "bundled") return { primary: await bundledEmbedder(), fallback: null };
  sharedFallback ??= lazyBundledEmbedder();
  return { primary: serverEmbedder(root, settings), fallback: sharedFallback };
}
