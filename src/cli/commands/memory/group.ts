/** `zaxy memory ...`: the memory commands. */
import { defineGroup } from "../../command.ts";
import { memoryAppendCommand } from "./append.ts";
import { memoryIngestCommand } from "./ingest.ts";
import { memoryLogCommand } from "./log.ts";

export const memoryGroup = defineGroup({
  name: "memory",
  summary: "Record and read memory: append, ingest, log",
  children: [memoryAppendCommand, memoryIngestCommand, memoryLogCommand],
});
