/**
 * The CLI's names for library field keys: a key names the flag spelled the same way in kebab case
 * (`max_records` → `--max-records`) when the command has that flag. Library errors name keys, so
 * one message reads `--max-records must be …` on the command line and `max_records must be …` to
 * an MCP client.
 */
import { fieldsNamedBy, isZaxyError } from "../errors.ts";

export function withCliFieldNames(error: unknown, options: Readonly<Record<string, unknown>>): unknown {
  if (!isZaxyError(error)) return error;
  return fieldsNamedBy(error, (key) => {
    const flag = key.replaceAll("_", "-");
    return Object.hasOwn(options, flag) ? `--${flag}` : undefined;
  });
}
