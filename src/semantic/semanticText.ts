/**
 * The input and output rules every semantic embedder keeps, the bundled model
 * (semanticEmbedder.ts) and a model server (externalEmbedder.ts) alike: input is canonicalised
 * (NFKC, runs of white space to one space, trimmed; an empty text embeds as one space) and each
 * output is L2-normalised, so a dot product is the cosine.
 *
 * Kept apart from semanticEmbedder.ts, which loads TF.js on import: a read that asks a model
 * server must not pay for the bundled model.
 *
 * @example
 * canonicalSemanticText("  Café\n\tau lait ") // "Café au lait"
 * l2Normalised([3, 4])                         // Float32Array [0.6, 0.8]
 */

/** The text as a model sees it (see the module comment). */
export function canonicalSemanticText(text: string): string {
  return text.normalize("NFKC").replace(/\s+/g, " ").trim() || " ";
}

/** `row` scaled to length 1 (an all-zero row stays zero). */
export function l2Normalised(row: ArrayLike<number>): Float32Array {
  const out = Float32Array.from(row);
  let norm = 0;
  for (let i = 0; i < out.length; i++) norm += out[i] * out[i];
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < out.length; i++) out[i] = out[i] / norm;
  return out;
}
