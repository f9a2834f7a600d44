/** Input fields the consolidation tools share (reference MCP table rows 17–20). */
import * as z from "zod";
import { candidateIdSchemaPattern, consolidationCandidateTypes, consolidationReviewStatuses } from "../../consolidation/candidate.ts";
import { windowSizeDefault, windowSizeMax, windowSizeMin } from "../../consolidation/segments.ts";

export const candidateTypeField = z.enum(consolidationCandidateTypes).describe("episode, claim or procedure");
export const candidateIdField = z.string().regex(new RegExp(candidateIdSchemaPattern)).describe("consolidation:<episode|claim|procedure>:<16 lowercase hex> (24-hex ids from earlier builds are accepted)");
export const reviewStatusField = z.enum(consolidationReviewStatuses).describe("accepted, rejected, deferred or conflicted");
export const sourceEventsField = z
  .array(z.union([
    z.strictObject({
      seq: z.number().int().min(1).describe("Seq of a sealed event of this session"),
      hash: z.string().regex(/^[0-9a-f]{12,64}$/).describe("Its hash: 64 lowercase hex, or a unique prefix of at least 12 (a citation's #part)"),
    }),
    z.string().min(1).describe("Or its citation eventloom://<session>/events/<seq>#<hash prefix>"),
  ]))
  .min(1)
  .describe("Cited source events, at least one; each is recorded as {seq, full hash}");
export const windowSizeField = z.number().int().min(windowSizeMin).max(windowSizeMax).optional()
  .describe(`Actionable events per window (${windowSizeMin}..${windowSizeMax}, default ${windowSizeDefault})`);
export const textField = (what: string) => z.string().min(1).describe(what);
