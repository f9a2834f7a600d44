/**
 * Where a root keeps what is derived from its logs (`<root>/projections`: read models, vector
 * indexes, the Kuzu store): everything there can be deleted and is rebuilt from the logs.
 */
import * as path from "node:path";

export function projectionsDir(root: string): string {
  return path.join(root, "projections");
}
