/**
 * The git pre-commit hook `zaxy hooks install` writes (docs/hooks.md). A POSIX `sh` script, so
 * it runs wherever git does. For every staged `*.jsonl` under a `.eventloom/` directory (at any
 * depth; additions, copies, modifications and renames, not deletions) it checks the STAGED
 * content — the index version from `git show :<path>`, copied to a temporary file under the same
 * file name — against the version in HEAD with `zaxy hooks check` (src/hooks/checkStagedLog.ts:
 * it verifies and keeps every committed event; with `hook_strictness: audit` also a safe
 * compaction audit), prints the result, and refuses the commit (exit 1) when any log is refused
 * or cannot be checked. Only the root's config.json is read from the working tree.
 *
 * What must never change: the marker line (it is how `zaxy hooks install` recognises its own
 * hook) and that the hook fails closed (a log it could not audit blocks the commit).
 */

/**
 * First comment line of every hook this module writes; installs and uninstalls recognise zaxy's
 * hooks by it, so it keeps its words (the guide's command is on a line of its own).
 */
export const hookMarker = "# zaxy pre-commit hook: audits staged Eventloom logs (zaxy hooks install; docs/hooks.md)";

/** `value` as one single-quoted POSIX shell word. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * The hook's text for a given way of running zaxy (an absolute path, or `zaxy` from PATH).
 *
 * @example
 * preCommitScript("/usr/local/bin/zaxy").startsWith("#!/bin/sh\n"); // true
 */
export function preCommitScript(zaxyCommand: string): string {
  return `#!/bin/sh
${hookMarker}
# For each staged *.jsonl under a .eventloom/ directory, checks the staged (index) content with
# \`zaxy hooks check\`: it must verify and keep every event of the version in HEAD (with
# hook_strictness audit in the root's config.json, also pass the compaction audit). Bypass once
# with \`git commit --no-verify\`. Remove: zaxy hooks uninstall. Reinstall: zaxy hooks install --force
# Guide: zaxy help --topic hooks (the installed binary carries it; docs/hooks.md in the repository)
ZAXY=${shellQuote(zaxyCommand)}

tmp_root=$(mktemp -d "\${TMPDIR:-/tmp}/zaxy-pre-commit.XXXXXX") || exit 1
trap 'rm -rf "$tmp_root"' EXIT
trap 'exit 1' INT TERM HUP

git -c core.quotePath=false diff --cached --name-only --diff-filter=ACMR > "$tmp_root/staged" || exit 1

checked=0
failed=0
while IFS= read -r path; do
  case "$path" in
    .eventloom/*.jsonl | */.eventloom/*.jsonl) ;;
    *) continue ;;
  esac
  if [ "$checked" -eq 0 ] && ! command -v "$ZAXY" >/dev/null 2>&1; then
    echo "zaxy pre-commit: cannot run $ZAXY to check $path; install zaxy or run zaxy hooks install --force" >&2
    exit 1
  fi
  checked=$((checked + 1))
  dir="$tmp_root/$checked"
  mkdir "$dir" "$dir/committed" || exit 1
  staged="$dir/\${path##*/}"
  if ! git show ":$path" > "$staged"; then
    echo "zaxy pre-commit: cannot read the staged content of $path" >&2
    failed=$((failed + 1))
    continue
  fi
  root=\${path%/*}
  if git cat-file -e "HEAD:$path" 2>/dev/null; then
    committed="$dir/committed/\${path##*/}"
    if ! git show "HEAD:$path" > "$committed"; then
      echo "zaxy pre-commit: cannot read the committed version of $path" >&2
      failed=$((failed + 1))
      continue
    fi
    "$ZAXY" hooks check "$staged" --committed "$committed" --path "$path" --eventloom-path "$root"
  else
    "$ZAXY" hooks check "$staged" --path "$path" --eventloom-path "$root"
  fi
  status=$?
  if [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then
    echo "zaxy pre-commit: $path could not be checked (exit $status)" >&2
  fi
  [ "$status" -eq 0 ] || failed=$((failed + 1))
done < "$tmp_root/staged"

if [ "$failed" -gt 0 ]; then
  echo "zaxy pre-commit: commit refused: $failed of $checked staged Eventloom log(s) failed the check (see above for what to do)." >&2
  echo "zaxy pre-commit: bypass once with git commit --no-verify; remove the hook with zaxy hooks uninstall." >&2
  exit 1
fi
exit 0
`;
}
