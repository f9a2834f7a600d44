/** The command tree. Parents only register children; each command lives in its own file. */
import { defineGroup } from "./command.ts";
import { doctorCommand } from "./commands/doctor/doctor.ts";

export const rootGroup = defineGroup({
  name: "zaxy",
  summary: "Zaxy: hash-chained, cited memory for AI agents",
  description:
    "Zaxy records what agents did in an append-only, SHA-256 hash-chained event log (Eventloom)\n" +
    "and gives cited memory back. The log is the only source of truth.",
  children: [doctorCommand],
});
