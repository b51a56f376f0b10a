#!/usr/bin/env bash
# The Claude Code plugin in packaging/claude-plugin: its JSON files parse and
# have the shape Claude Code reads, the hook and the MCP server are the
# installed `togmal hook` and `togmal serve`, and both commands work when a
# `togmal` is on PATH. With Claude Code's CLI present, `claude plugin validate`
# must pass as well. Exit 77 (skipped) only without node.
#
#   check_claude_plugin.sh PLUGIN_DIR TOGMAL VERSION NODE [CLAUDE]
set -euo pipefail
plugin=$1 togmal=$2 version=$3 node=$4 claude=${5:-}

if ! [ -x "$node" ]; then
  echo "SKIP: node not found (scripts/dev setup installs it)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Shapes: plugin.json's metadata, hooks/hooks.json's {"hooks": {EVENT: [...]}}
# wrapper, .mcp.json's {"mcpServers": {NAME: {command, args}}}.
"$node" - "$plugin" "$version" <<'JS'
const assert = require('node:assert/strict');
const { readFileSync } = require('node:fs');
const [dir, version] = process.argv.slice(2);
const load = (file) => {
  try {
    return JSON.parse(readFileSync(`${dir}/${file}`, 'utf8'));
  } catch (e) {
    throw new Error(`${file}: ${e.message}`);
  }
};
const manifest = load('.claude-plugin/plugin.json');
assert.equal(manifest.name, 'togmal');
assert.equal(manifest.version, version, 'plugin.json version is the project version');
assert.equal(typeof manifest.description, 'string');

const hooks = load('hooks/hooks.json');
// The decision before a call, and what became of it after (ran, failed,
// refused), as `togmal install claude-code` registers them.
assert.deepEqual(
  Object.keys(hooks.hooks).sort(),
  ['PermissionDenied', 'PostToolBatch', 'PostToolUse', 'PostToolUseFailure', 'PreToolUse'],
  'hooks.json: the decision and outcome events');
for (const [event, groups] of Object.entries(hooks.hooks)) {
  assert.equal(groups.length, 1, event);
  assert.equal(groups[0].matcher, '*', `${event}: every tool call`);
  assert.deepEqual(groups[0].hooks.map((h) => [h.type, h.command]), [['command', 'togmal hook']], event);
}

const mcp = load('.mcp.json');
assert.deepEqual(mcp.mcpServers, { togmal: { command: 'togmal', args: ['serve'] } });
console.log('ok: plugin JSON');
JS

# The commands as Claude Code runs them, with a togmal on PATH.
mkdir -p "$work/bin" "$work/home"
ln -s "$togmal" "$work/bin/togmal"
export PATH="$work/bin:/usr/bin:/bin" HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" \
  XDG_DATA_HOME="$work/data" TOGMAL_DB="$work/togmal.db"
hook_command=$("$node" -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).hooks.PreToolUse[0].hooks[0].command)' "$plugin/hooks/hooks.json")
answer=$(printf '%s' '{"session_id":"s","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}' |
  sh -c "$hook_command")
case "$answer" in
  *'"permissionDecision":"deny"'*) ;;
  *) echo "FAIL: '$hook_command' on rm -rf /: $answer" >&2; exit 1 ;;
esac
# An outcome event through the plugin's PostToolUse command: recorded, no output.
post_command=$("$node" -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).hooks.PostToolUse[0].hooks[0].command)' "$plugin/hooks/hooks.json")
outcome=$(printf '%s' '{"session_id":"s","cwd":"/tmp","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"ls"},"tool_response":{}}' |
  sh -c "$post_command")
if [ -n "$outcome" ]; then
  echo "FAIL: '$post_command' printed on PostToolUse: $outcome" >&2
  exit 1
fi
serve_command=$("$node" -e 'const s = JSON.parse(require("fs").readFileSync(process.argv[1])).mcpServers.togmal; console.log([s.command, ...s.args].join(" "))' "$plugin/.mcp.json")
reply=$(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"check","version":"1"}}}' |
  $serve_command)
case "$reply" in
  *'"serverInfo"'*) ;;
  *) echo "FAIL: '$serve_command' did not answer initialize: $reply" >&2; exit 1 ;;
esac
echo "ok: '$hook_command' denies rm -rf /, '$serve_command' answers initialize"

if [ -n "$claude" ] && [ -x "$claude" ]; then
  if ! DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
      "$claude" plugin validate "$plugin" >"$work/validate.log" 2>&1; then
    cat "$work/validate.log" >&2
    echo "FAIL: claude plugin validate" >&2
    exit 1
  fi
  grep -q 'Validation passed' "$work/validate.log" || { cat "$work/validate.log" >&2; exit 1; }
  echo "ok: claude plugin validate ($("$claude" --version))"
else
  echo "note: Claude Code's CLI not installed, claude plugin validate not run"
fi
