/**
 * `zaxy store ...`: the shared PostgreSQL Eventloom (docs/store.md): create its schema, move
 * logs in and out byte for byte, and see what it holds.
 */
import { defineGroup } from "../../command.ts";
import { storeExportCommand } from "./export.ts";
import { storeImportCommand } from "./import.ts";
import { storeInitCommand } from "./init.ts";
import { storeStatusCommand } from "./status.ts";

export const storeGroup = defineGroup({
  name: "store",
  summary: "Shared PostgreSQL store: init, import, export, status",
  description:
    "With --store postgres://... (or ZAXY_STORE, or config.json's store) every session and fleet\n" +
    "thread lives in one PostgreSQL database shared by agents on many hosts; every other command\n" +
    "then reads and appends there ('zaxy help --topic store'). These commands manage the store itself.",
  children: [storeInitCommand, storeImportCommand, storeExportCommand, storeStatusCommand],
});
