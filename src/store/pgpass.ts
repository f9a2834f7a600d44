/**
 * libpq's password file (`PGPASSFILE`, default `~/.pgpass`): lines `host:port:database:user:password`,
 * `*` matching anything, `\:` and `\\` escaped, `#` comments. Like libpq, a file that group or
 * others can read is ignored (with a warning naming the file, never its content).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

function splitFields(line: string): string[] {
  const fields: string[] = [];
  let current = "";
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (char === "\\" && i + 1 < line.length) current += line[++i];
    else if (char === ":") {
      fields.push(current);
      current = "";
    } else current += char;
  }
  fields.push(current);
  return fields;
}

/** The password for `address` from the password file, or undefined. */
export function passwordFromFile(
  address: { host: string; port: string; database: string; user: string },
  env: Record<string, string | undefined>,
  warn: (message: string) => void,
): string | undefined {
  const home = env.HOME ?? os.homedir();
  const file = env.PGPASSFILE !== undefined && env.PGPASSFILE !== "" ? env.PGPASSFILE : path.join(home, ".pgpass");
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  if (stat === undefined || !stat.isFile()) return undefined;
  if (process.platform !== "win32" && (stat.mode & 0o077) !== 0) {
    warn(`password file ${file} has group or world access; it is ignored (chmod 0600 ${file})`);
    return undefined;
  }
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const wanted = [address.host, address.port, address.database, address.user];
  for (const raw of text.split(/\r?\n/)) {
    if (raw.trim() === "" || raw.startsWith("#")) continue;
    const fields = splitFields(raw);
    if (fields.length < 5) continue;
    if (wanted.every((value, i) => fields[i] === "*" || fields[i] === value)) return fields.slice(4).join(":");
  }
  return undefined;
}
