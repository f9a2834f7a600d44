/**
 * Shell completion scripts for bash, zsh and fish, generated from the command tree that `--help`
 * renders, so a command or option can never be completable without being documented (or the
 * reverse). Each script is a few fixed functions plus tables keyed by the command path
 * (`zaxy memory checkout`): the subcommands of a path, its options (its own, then the global
 * ones), how an option's value completes and how a positional completes. Hidden commands are in
 * no table.
 *
 * How a value completes follows from its spec: a choice `valueName` (`legacy|v1`) offers the
 * choices; `DIR` offers directories; `PATH`, `FILE`, or an option named `*-path`, `*-file` or
 * `*output` offers file names; any other string value offers nothing; a boolean takes no value.
 * A positional completes by its name (`LOG`, `FILE`, ... are files; `COMMAND` walks the tree
 * again, for `zaxy help`).
 *
 * @example
 * const script = completionScript("bash", rootGroup);
 * // "...\n_zaxy_words() {\n  case \"$1\" in\n    \"zaxy\") echo \"init verify ...\" ;;\n..."
 */
import type { Command, CommandGroup, OptionSpec } from "./command.ts";
import { globalOptions } from "./globalOptions.ts";

/** The shells `zaxy completion` writes scripts for. */
export const completionShells = ["bash", "zsh", "fish"] as const;
export type CompletionShell = (typeof completionShells)[number];

export function isCompletionShell(value: string): value is CompletionShell {
  return (completionShells as readonly string[]).includes(value);
}

/**
 * What a value completes to: file names, directories, the words of the command tree (for
 * `zaxy help`), a free value (nothing offered), or a fixed set of words.
 */
export type ValueCompletion = "file" | "dir" | "command" | "any" | { choices: string[] };

export interface CompletionOption {
  /** Long name without dashes, e.g. `limit`. */
  name: string;
  /** One letter without the dash, e.g. `h`. */
  short?: string;
  description: string;
  /** How the value completes; undefined for a flag (a boolean option). */
  value?: ValueCompletion;
}

/** One visible node of the tree, as the scripts see it. */
export interface CompletionEntry {
  /** Words from the root, e.g. `["zaxy", "memory", "checkout"]`. */
  path: string[];
  /** Visible subcommands with their summaries; empty for a command. */
  subcommands: Array<{ name: string; summary: string }>;
  /** The node's own options, then the global options it does not redefine. */
  options: CompletionOption[];
  /** How a positional argument completes; undefined when the node takes none that completes. */
  positional?: ValueCompletion;
}

/** A choice word is written into scripts unquoted, so it must be a plain word. */
const plainWord = /^[A-Za-z0-9._+-]+$/;

/** Positionals whose name says what they hold. */
const positionalValues: Record<string, ValueCompletion> = {
  LOG: "file",
  FILE: "file",
  REPORT: "file",
  PATH: "file",
  DIR: "dir",
  COMMAND: "command",
  SHELL: { choices: [...completionShells] },
};

/** How the value of option `name` completes; undefined for a flag. */
export function optionValueCompletion(name: string, spec: OptionSpec): ValueCompletion | undefined {
  if (spec.type !== "string") return undefined;
  const valueName = spec.valueName ?? "";
  const choices = valueName.split("|");
  if (choices.length > 1 && choices.every((choice) => plainWord.test(choice))) return { choices };
  if (valueName === "DIR") return "dir";
  if (valueName === "PATH" || valueName === "FILE" || /(-path|-file|output)$/.test(name)) return "file";
  return "any";
}

function completionOptions(node: Command | CommandGroup, isRoot: boolean): CompletionOption[] {
  const own: Record<string, OptionSpec> = node.kind === "command" ? node.options : {};
  const merged: Record<string, OptionSpec> = { ...own };
  for (const [name, spec] of Object.entries(globalOptions)) if (!(name in merged)) merged[name] = spec;
  // Only `zaxy --version` prints the version (help.ts lists it on the root alone).
  if (isRoot) merged.version = { type: "boolean", description: "Print the version" };
  return Object.entries(merged).map(([name, spec]) => {
    const option: CompletionOption = { name, description: oneLine(spec.description) };
    if (spec.short !== undefined) option.short = spec.short;
    const value = optionValueCompletion(name, spec);
    if (value !== undefined) option.value = value;
    return option;
  });
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * Every visible node of the tree in depth-first order, root first.
 *
 * @example
 * completionEntries(rootGroup).map((e) => e.path.join(" ")) // ["zaxy", "zaxy init", ...]
 */
export function completionEntries(root: CommandGroup): CompletionEntry[] {
  const entries: CompletionEntry[] = [];
  const walk = (node: Command | CommandGroup, path: string[]): void => {
    const entry: CompletionEntry = { path, subcommands: [], options: completionOptions(node, path.length === 1) };
    if (node.kind === "group") {
      for (const child of node.children) {
        if (child.hidden !== true) entry.subcommands.push({ name: child.name, summary: oneLine(child.summary) });
      }
    } else {
      const known = node.positionals.map((p) => positionalValues[p.name]).find((v) => v !== undefined);
      entry.positional = known ?? (node.positionals.length > 0 ? "any" : undefined);
    }
    entries.push(entry);
    if (node.kind === "group") {
      for (const child of node.children) if (child.hidden !== true) walk(child, [...path, child.name]);
    }
  };
  walk(root, [root.name]);
  return entries;
}

/** The script for `shell`, from the visible commands under `root`. */
export function completionScript(shell: CompletionShell, root: CommandGroup): string {
  const entries = completionEntries(root);
  switch (shell) {
    case "bash":
      return bashScript(root.name, entries);
    case "zsh":
      return zshScript(root.name, entries);
    case "fish":
      return fishScript(root.name, entries);
  }
}

/** The table code for a value: `@file`, `@dir`, `@command`, `@any`, or the choices. */
function valueCode(value: ValueCompletion): string {
  return typeof value === "string" ? `@${value}` : value.choices.join(" ");
}

function optionWords(option: CompletionOption): string[] {
  return [`--${option.name}`, ...(option.short !== undefined ? [`-${option.short}`] : [])];
}

/**
 * The global options (written once, for every path) and, per entry, the options that are not a
 * global one (a command that redefines a global option keeps its own).
 */
function splitShared(entries: CompletionEntry[]): { shared: CompletionOption[]; ownOf: (entry: CompletionEntry) => CompletionOption[] } {
  const key = (option: CompletionOption) =>
    JSON.stringify([option.name, option.short ?? "", option.description, option.value === undefined ? "" : valueCode(option.value)]);
  const root = entries[0];
  const shared = root.options.filter((option) => option.name in globalOptions);
  const sharedKeys = new Set(shared.map(key));
  return { shared, ownOf: (entry) => entry.options.filter((option) => !sharedKeys.has(key(option))) };
}

// --- bash -------------------------------------------------------------------------------------

/** A bash double-quoted string (the tables hold only plain words, but quote anyway). */
function bashQuote(text: string): string {
  return `"${text.replace(/[\\"$`]/g, (c) => `\\${c}`)}"`;
}

function bashScript(program: string, entries: CompletionEntry[]): string {
  const { shared, ownOf } = splitShared(entries);
  const fn = `_${program}`;
  const lines: string[] = [
    `# bash completion for ${program}, generated by \`${program} completion bash\` from its command tree.`,
    `# Install: ${program} completion bash > /etc/bash_completion.d/${program}`,
    `#      or: source <(${program} completion bash)`,
    "",
    "# The subcommands of a command path.",
    `${fn}_words() {`,
    '  case "$1" in',
  ];
  for (const entry of entries) {
    if (entry.subcommands.length === 0) continue;
    lines.push(`    ${bashQuote(entry.path.join(" "))}) echo ${bashQuote(entry.subcommands.map((s) => s.name).join(" "))} ;;`);
  }
  lines.push("  esac", "}", "", "# The options of a command path: its own, then the global ones.", `${fn}_options() {`, '  case "$1" in');
  for (const entry of entries) {
    lines.push(`    ${bashQuote(entry.path.join(" "))}) echo ${bashQuote(entry.options.flatMap(optionWords).join(" "))} ;;`);
  }
  lines.push(
    "  esac",
    "}",
    "",
    '# How the value of option $2 of command path $1 completes: @file, @dir, @any or the choices;',
    "# nothing for a flag.",
    `${fn}_value() {`,
    '  case "$1 $2" in',
  );
  for (const entry of entries) {
    for (const option of ownOf(entry)) {
      if (option.value === undefined) continue;
      const keys = optionWords(option).map((word) => bashQuote(`${entry.path.join(" ")} ${word}`));
      lines.push(`    ${keys.join("|")}) echo ${bashQuote(valueCode(option.value))} ;;`);
    }
  }
  for (const option of shared) {
    if (option.value === undefined) continue;
    const keys = optionWords(option).map((word) => `*${bashQuote(` ${word}`)}`);
    lines.push(`    ${keys.join("|")}) echo ${bashQuote(valueCode(option.value))} ;;`);
  }
  lines.push("  esac", "}", "", "# How the positional arguments of a command path complete.", `${fn}_positional() {`, '  case "$1" in');
  for (const entry of entries) {
    if (entry.positional === undefined) continue;
    lines.push(`    ${bashQuote(entry.path.join(" "))}) echo ${bashQuote(valueCode(entry.positional))} ;;`);
  }
  lines.push("  esac", "}", "");
  lines.push(...bashDriver(program));
  return lines.join("\n") + "\n";
}

/** The fixed part of the bash script: walk the words typed so far, then complete the current one. */
function bashDriver(program: string): string[] {
  const fn = `_${program}`;
  return [
    "# Sets COMPREPLY from a value code ($1) for the current word ($2).",
    `${fn}_reply() {`,
    "  local IFS=$'\\n'",
    '  case "$1" in',
    '    @file) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$2")) ;;',
    '    @dir) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$2")) ;;',
    '    @any|"") COMPREPLY=() ;;',
    '    *) IFS=" "; COMPREPLY=($(compgen -W "$1" -- "$2")) ;;',
    "  esac",
    "}",
    "",
    `${fn}() {`,
    `  local cur="\${COMP_WORDS[COMP_CWORD]}" cmd_path=${program} word kind opt="" prefix="" i=1 rest=0`,
    "  local -a args=()",
    "  COMPREPLY=()",
    "  # Walk the words before the cursor: subcommands extend the path, option values are skipped.",
    '  while [ "$i" -lt "$COMP_CWORD" ]; do',
    '    word="${COMP_WORDS[i]}"',
    '    if [ "$rest" = 1 ]; then',
    '      args+=("$word")',
    "    else",
    '      case "$word" in',
    "        --) rest=1 ;;",
    "        --*=*|=) ;;",
    "        -?*)",
    '          if [ "${COMP_WORDS[i+1]}" = "=" ]; then',
    "            i=$((i + 2))",
    `          elif [ -n "$(${fn}_value "$cmd_path" "$word")" ]; then`,
    "            i=$((i + 1))",
    "          fi ;;",
    "        *)",
    `          if [[ " $(${fn}_words "$cmd_path") " == *" $word "* ]]; then`,
    '            cmd_path="$cmd_path $word"',
    "          else",
    '            args+=("$word")',
    "          fi ;;",
    "      esac",
    "    fi",
    "    i=$((i + 1))",
    "  done",
    "  # The value of an option: `--opt V`, `--opt=V` (bash splits at `=`, or not).",
    '  if [ "$rest" = 0 ]; then',
    '    if [ "$cur" = "=" ] && [[ "${COMP_WORDS[COMP_CWORD-1]}" == -?* ]]; then',
    '      opt="${COMP_WORDS[COMP_CWORD-1]}"; cur=""',
    '    elif [ "$COMP_CWORD" -ge 2 ] && [ "${COMP_WORDS[COMP_CWORD-1]}" = "=" ]; then',
    '      opt="${COMP_WORDS[COMP_CWORD-2]}"',
    '    elif [[ "$cur" == --*=* ]]; then',
    '      opt="${cur%%=*}"; prefix="$opt="; cur="${cur#*=}"',
    '    elif [ "$COMP_CWORD" -ge 2 ] && [[ "${COMP_WORDS[COMP_CWORD-1]}" == -?* ]]; then',
    '      opt="${COMP_WORDS[COMP_CWORD-1]}"',
    "    fi",
    '    if [ -n "$opt" ]; then',
    `      kind="$(${fn}_value "$cmd_path" "$opt")"`,
    '      if [ -n "$kind" ]; then',
    `        ${fn}_reply "$kind" "$cur"`,
    '        [ -n "$prefix" ] && COMPREPLY=("${COMPREPLY[@]/#/$prefix}")',
    "        return 0",
    "      fi",
    "    fi",
    '    if [[ "$cur" == -* ]]; then',
    `      ${fn}_reply "$(${fn}_options "$cmd_path")" "$cur"`,
    "      return 0",
    "    fi",
    `    kind="$(${fn}_words "$cmd_path")"`,
    '    if [ -n "$kind" ]; then',
    `      ${fn}_reply "$kind" "$cur"`,
    "      return 0",
    "    fi",
    "  fi",
    `  kind="$(${fn}_positional "$cmd_path")"`,
    '  if [ "$kind" = "@command" ]; then',
    "    # `help COMMAND...`: the words typed so far walk the tree again.",
    `    kind=${program}`,
    '    for word in "${args[@]}"; do kind="$kind $word"; done',
    `    kind="$(${fn}_words "$kind")"`,
    '    [ -n "$kind" ] || return 0',
    "  fi",
    `  ${fn}_reply "$kind" "$cur"`,
    "}",
    "",
    `complete -F ${fn} ${program}`,
  ];
}

// --- zsh --------------------------------------------------------------------------------------

/** A zsh (or sh) single-quoted string. */
function singleQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A `_describe` item: `name:description`, with colons in the name escaped. */
function describeItem(name: string, description: string): string {
  return singleQuote(`${name.replace(/:/g, "\\:")}:${description}`);
}

function zshScript(program: string, entries: CompletionEntry[]): string {
  const { shared, ownOf } = splitShared(entries);
  const fn = `_${program}`;
  const lines: string[] = [
    `#compdef ${program}`,
    `# zsh completion for ${program}, generated by \`${program} completion zsh\` from its command tree.`,
    `# Install: ${program} completion zsh > "\${fpath[1]}/_${program}" (a directory on $fpath), or in`,
    `# ~/.zshrc after compinit: source <(${program} completion zsh)`,
    "",
    "# The subcommands of a command path, as name:summary, in reply.",
    `${fn}_words() {`,
    "  case $1 in",
  ];
  for (const entry of entries) {
    if (entry.subcommands.length === 0) continue;
    lines.push(`    (${singleQuote(entry.path.join(" "))})`);
    lines.push(`      reply=(${entry.subcommands.map((s) => describeItem(s.name, s.summary)).join(" ")}) ;;`);
  }
  lines.push("    (*) reply=() ;;", "  esac", "}", "", "# The options of a command path (its own, then the global ones), as name:description, in reply.", `${fn}_options() {`, "  case $1 in");
  for (const entry of entries) {
    const items = entry.options.flatMap((option) => optionWords(option).map((word) => describeItem(word, option.description)));
    lines.push(`    (${singleQuote(entry.path.join(" "))})`);
    lines.push(`      reply=(${items.join(" ")}) ;;`);
  }
  lines.push(
    "    (*) reply=() ;;",
    "  esac",
    "}",
    "",
    "# How the value of option $2 of command path $1 completes (@file, @dir, @any or the choices;",
    "# empty for a flag), in REPLY.",
    `${fn}_value() {`,
    '  case "$1 $2" in',
  );
  for (const entry of entries) {
    for (const option of ownOf(entry)) {
      if (option.value === undefined) continue;
      const keys = optionWords(option).map((word) => singleQuote(`${entry.path.join(" ")} ${word}`));
      lines.push(`    (${keys.join("|")}) REPLY=${singleQuote(valueCode(option.value))} ;;`);
    }
  }
  for (const option of shared) {
    if (option.value === undefined) continue;
    const keys = optionWords(option).map((word) => `*${singleQuote(` ${word}`)}`);
    lines.push(`    (${keys.join("|")}) REPLY=${singleQuote(valueCode(option.value))} ;;`);
  }
  lines.push("    (*) REPLY= ;;", "  esac", "}", "", "# How the positional arguments of a command path complete, in REPLY.", `${fn}_positional() {`, "  case $1 in");
  for (const entry of entries) {
    if (entry.positional === undefined) continue;
    lines.push(`    (${singleQuote(entry.path.join(" "))}) REPLY=${singleQuote(valueCode(entry.positional))} ;;`);
  }
  lines.push("    (*) REPLY= ;;", "  esac", "}", "");
  lines.push(...zshDriver(program));
  return lines.join("\n") + "\n";
}

function zshDriver(program: string): string[] {
  const fn = `_${program}`;
  return [
    "# Offers the completions for a value code ($1).",
    `${fn}_complete_value() {`,
    "  case $1 in",
    "    (@file) _files ;;",
    "    (@dir) _files -/ ;;",
    "    (@any|'') _message 'value' ;;",
    "    (*) compadd -- ${=1} ;;",
    "  esac",
    "}",
    "",
    `${fn}() {`,
    `  local cmd_path=${program} word REPLY i=2 rest=0`,
    "  local -a args reply",
    "  # Walk the words before the cursor: subcommands extend the path, option values are skipped.",
    "  while (( i < CURRENT )); do",
    "    word=${words[i]}",
    "    if (( rest )); then",
    "      args+=($word)",
    "    else",
    "      case $word in",
    "        (--) rest=1 ;;",
    "        (--*=*) ;;",
    "        (-?*)",
    `          ${fn}_value "$cmd_path" "$word"`,
    "          [[ -n $REPLY ]] && (( i++ )) ;;",
    "        (*)",
    `          ${fn}_words "$cmd_path"`,
    "          if (( ${reply[(I)${(b)word}:*]} )); then",
    '            cmd_path="$cmd_path $word"',
    "          else",
    "            args+=($word)",
    "          fi ;;",
    "      esac",
    "    fi",
    "    (( i++ ))",
    "  done",
    "  if (( ! rest )); then",
    "    # The value of an option: `--opt V` or `--opt=V`.",
    "    if [[ ${words[CURRENT]} == --*=* ]]; then",
    `      ${fn}_value "$cmd_path" "\${words[CURRENT]%%=*}"`,
    "      if [[ -n $REPLY ]]; then",
    "        compset -P '*='",
    `        ${fn}_complete_value "$REPLY"`,
    "        return",
    "      fi",
    "    fi",
    "    if (( CURRENT > 2 )) && [[ ${words[CURRENT-1]} == -?* && ${words[CURRENT-1]} != *=* ]]; then",
    `      ${fn}_value "$cmd_path" "\${words[CURRENT-1]}"`,
    "      if [[ -n $REPLY ]]; then",
    `        ${fn}_complete_value "$REPLY"`,
    "        return",
    "      fi",
    "    fi",
    "    if [[ ${words[CURRENT]} == -* ]]; then",
    `      ${fn}_options "$cmd_path"`,
    "      _describe -t options 'option' reply",
    "      return",
    "    fi",
    `    ${fn}_words "$cmd_path"`,
    "    if (( ${#reply} )); then",
    "      _describe -t commands 'command' reply",
    "      return",
    "    fi",
    "  fi",
    `  ${fn}_positional "$cmd_path"`,
    "  if [[ $REPLY == @command ]]; then",
    "    # `help COMMAND...`: the words typed so far walk the tree again.",
    `    word=${program}`,
    "    for i in $args; do word=\"$word $i\"; done",
    `    ${fn}_words "$word"`,
    "    (( ${#reply} )) && _describe -t commands 'command' reply",
    "    return",
    "  fi",
    `  ${fn}_complete_value "$REPLY"`,
    "}",
    "",
    "# Loaded from $fpath the file is the function's body; sourced, it registers the function.",
    `if [[ $funcstack[1] == ${fn} ]]; then`,
    `  ${fn} "$@"`,
    "else",
    `  compdef ${fn} ${program}`,
    "fi",
  ];
}

// --- fish -------------------------------------------------------------------------------------

/** A fish single-quoted string (only `\\` and `\'` are escapes inside). */
function fishQuote(text: string): string {
  return `'${text.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}

type SharedSplit = ReturnType<typeof splitShared>;

/** `${fn}_words`: the subcommands of a command path, one a line. */
function fishWordsFunction(fn: string, entries: CompletionEntry[]): string[] {
  const lines = ["# The subcommands of a command path, one a line.", `function ${fn}_words`, "    switch $argv[1]"];
  for (const entry of entries) {
    if (entry.subcommands.length === 0) continue;
    lines.push(`        case ${fishQuote(entry.path.join(" "))}`, `            printf '%s\\n' ${entry.subcommands.map((s) => s.name).join(" ")}`);
  }
  lines.push("    end", "end");
  return lines;
}

/** `${fn}_value`: how the value of an option of a command path completes; nothing for a flag. */
function fishValueFunction(fn: string, entries: CompletionEntry[], { shared, ownOf }: SharedSplit): string[] {
  const lines = [
    "# How the value of option $argv[2] of command path $argv[1] completes (@file, @dir, @any or the",
    "# choices); nothing for a flag.",
    `function ${fn}_value`,
    '    switch "$argv[1] $argv[2]"',
  ];
  for (const entry of entries) {
    for (const option of ownOf(entry)) {
      if (option.value === undefined) continue;
      const keys = optionWords(option).map((word) => fishQuote(`${entry.path.join(" ")} ${word}`));
      lines.push(`        case ${keys.join(" ")}`, `            echo ${fishQuote(valueCode(option.value))}`);
    }
  }
  for (const option of shared) {
    if (option.value === undefined) continue;
    const keys = optionWords(option).map((word) => `${fishQuote("* " + word)}`);
    lines.push(`        case ${keys.join(" ")}`, `            echo ${fishQuote(valueCode(option.value))}`);
  }
  lines.push("    end", "end");
  return lines;
}

/** The fixed functions that walk the words before the cursor (they read the tables above). */
function fishWalkFunctions(program: string, fn: string): string[] {
  return [
    "# The command path of the words before the cursor, then the positional words, one a line.",
    `function ${fn}_walk`,
    "    set -l tokens (commandline -opc)",
    `    set -l cmd_path ${program}`,
    "    set -l args",
    "    set -l skip 0",
    "    set -l rest 0",
    "    for token in $tokens[2..-1]",
    "        if test $skip = 1",
    "            set skip 0",
    "        else if test $rest = 1",
    "            set -a args $token",
    "        else",
    "            switch $token",
    "                case --",
    "                    set rest 1",
    "                case '--*=*'",
    "                case '-?*'",
    `                    set -l value (${fn}_value $cmd_path $token)`,
    '                    if test -n "$value"',
    "                        set skip 1",
    "                    end",
    "                case '*'",
    `                    if contains -- $token (${fn}_words $cmd_path)`,
    '                        set cmd_path "$cmd_path $token"',
    "                    else",
    "                        set -a args $token",
    "                    end",
    "            end",
    "        end",
    "    end",
    "    printf '%s\\n' $cmd_path $args",
    "end",
    "",
    "# True when the words before the cursor name command path $argv[1].",
    `function ${fn}_at`,
    `    set -l walked (${fn}_walk)`,
    '    test "$walked[1]" = "$argv[1]"',
    "end",
    "",
    "# For `help COMMAND...`: the subcommands of the words typed so far.",
    `function ${fn}_command_words`,
    `    set -l walked (${fn}_walk)`,
    `    set -l cmd_path ${program}`,
    "    for word in $walked[2..-1]",
    '        set cmd_path "$cmd_path $word"',
    "    end",
    `    ${fn}_words $cmd_path`,
    "end",
  ];
}

/** The `complete` flags of a value completion. */
function fishValueFlags(fn: string, value: ValueCompletion): string {
  if (value === "file") return "-r -F";
  if (value === "dir") return "-x -a '(__fish_complete_directories)'";
  if (value === "command") return `-x -a '(${fn}_command_words)'`;
  if (value === "any") return "-x";
  return `-x -a ${fishQuote(value.choices.join(" "))}`;
}

/** One `complete` line for an option, under `condition` (none for the shared options). */
function fishOptionLine(program: string, fn: string, option: CompletionOption, condition: string): string {
  const parts = [`complete -c ${program}`];
  if (condition !== "") parts.push(`-n ${fishQuote(condition)}`);
  if (option.short !== undefined) parts.push(`-s ${option.short}`);
  parts.push(`-l ${option.name}`);
  if (option.value !== undefined) parts.push(fishValueFlags(fn, option.value));
  parts.push(`-d ${fishQuote(option.description)}`);
  return parts.join(" ");
}

/** The `complete` lines: shared options, then each command path's subcommands, options and positionals. */
function fishCompleteLines(program: string, fn: string, entries: CompletionEntry[], { shared, ownOf }: SharedSplit): string[] {
  const lines = ["", "# Options every command accepts."];
  for (const option of shared) lines.push(fishOptionLine(program, fn, option, ""));
  for (const entry of entries) {
    const condition = `${fn}_at ${entry.path.join(" ").includes(" ") ? `"${entry.path.join(" ")}"` : entry.path.join(" ")}`;
    lines.push("", `# ${entry.path.join(" ")}`);
    for (const sub of entry.subcommands) {
      lines.push(`complete -c ${program} -n ${fishQuote(condition)} -a ${sub.name} -d ${fishQuote(sub.summary)}`);
    }
    for (const option of ownOf(entry)) lines.push(fishOptionLine(program, fn, option, condition));
    if (entry.positional !== undefined && entry.positional !== "any") {
      const flags = entry.positional === "file" ? "-F" : fishValueFlags(fn, entry.positional).replace(/^-x /, "");
      lines.push(`complete -c ${program} -n ${fishQuote(condition)} ${flags}`);
    }
  }
  return lines;
}

function fishScript(program: string, entries: CompletionEntry[]): string {
  const split = splitShared(entries);
  const fn = `__${program}`;
  const lines: string[] = [
    `# fish completion for ${program}, generated by \`${program} completion fish\` from its command tree.`,
    `# Install: ${program} completion fish > ~/.config/fish/completions/${program}.fish`,
    "",
    ...fishWordsFunction(fn, entries),
    "",
    ...fishValueFunction(fn, entries, split),
    "",
    ...fishWalkFunctions(program, fn),
    "",
    "# No file names unless a line below asks for them.",
    `complete -c ${program} -f`,
    ...fishCompleteLines(program, fn, entries, split),
  ];
  return lines.join("\n") + "\n";
}
