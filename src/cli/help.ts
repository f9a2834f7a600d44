/** Renders `--help` for groups and commands from their specs. */
import type { Command, CommandGroup, OptionSpec } from "./command.ts";
import { globalOptions } from "./globalOptions.ts";

function optionLines(options: Record<string, OptionSpec>): string[] {
  const rows = Object.entries(options).map(([name, spec]) => {
    const flag = `${spec.short ? `-${spec.short}, ` : ""}--${name}${spec.type === "string" ? ` ${spec.valueName ?? "VALUE"}` : ""}`;
    const aliases = spec.aliases === undefined || spec.aliases.length === 0 ? "" : ` (also --${spec.aliases.join(", --")})`;
    return [flag, spec.description + (spec.multiple ? " (repeatable)" : "") + aliases];
  });
  const width = Math.max(0, ...rows.map(([flag]) => flag.length));
  return rows.map(([flag, description]) => `  ${flag.padEnd(width)}  ${description}`);
}

export function renderHelp(node: Command | CommandGroup, path: string[]): string {
  const lines: string[] = [];
  const name = path.join(" ");
  if (node.kind === "group") {
    lines.push(`Usage: ${name} <command> [options]`, "", node.description ?? node.summary, "", "Commands:");
    const visible = node.children.filter((c) => !c.hidden);
    const width = Math.max(...visible.map((c) => c.name.length));
    for (const child of visible) lines.push(`  ${child.name.padEnd(width)}  ${child.summary}`);
    const groupOptions = path.length === 1
      ? { ...globalOptions, version: { type: "boolean", description: "Print the version" } as OptionSpec }
      : globalOptions;
    lines.push("", "Global options:", ...optionLines(groupOptions));
    lines.push("", `Run '${name} <command> --help' for a command's options.`);
  } else {
    const args = node.positionals
      .map((p) => (p.required ? p.name : `[${p.name}]`) + (p.variadic ? " ..." : ""))
      .join(" ");
    lines.push(`Usage: ${name}${args ? " " + args : ""} [options]`, "", node.description ?? node.summary);
    if (node.positionals.length > 0) {
      lines.push("", "Arguments:");
      const width = Math.max(...node.positionals.map((p) => p.name.length));
      for (const p of node.positionals) lines.push(`  ${p.name.padEnd(width)}  ${p.description}`);
    }
    if (Object.keys(node.options).length > 0) lines.push("", "Options:", ...optionLines(node.options));
    lines.push("", "Global options:", ...optionLines(globalOptions));
    if (node.examples && node.examples.length > 0) lines.push("", "Examples:", ...node.examples.map((e) => `  ${e}`));
  }
  return lines.join("\n") + "\n";
}
