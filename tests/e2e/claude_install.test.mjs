// `togmal install claude-code` / `uninstall` with Claude Code's own CLI
// (@anthropic-ai/claude-code's native binary) on PATH: the hook lands in
// settings.json, `claude mcp add` registers the server and `claude mcp list`
// reports it connected (it starts `togmal serve`); a second install changes
// nothing, and uninstall takes both away, with none of the CLI's own
// messages in togmal's output. The project scope's .mcp.json, which togmal
// writes itself, is read by Claude Code as a project server awaiting the
// person's approval, and the project is left as it was. No account is needed
// for these commands.
//
//   node claude_install.test.mjs <path-to-togmal>
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { makeWorkdir, parseArgs, requireInstalledPackages } from './lib/harness.mjs';

requireInstalledPackages('@anthropic-ai/claude-code');
const { binary } = parseArgs();
const E2E_DIR = fileURLToPath(new URL('.', import.meta.url));
// The wrapper package's postinstall (not run: .npmrc ignores scripts) would
// copy this platform package's binary over its placeholder; use it directly.
const nativeClaude = join(E2E_DIR, 'node_modules', '@anthropic-ai', `claude-code-${platform()}-${arch()}`, 'claude');
if (!existsSync(nativeClaude)) {
  console.log(`SKIP: no Claude Code binary for ${platform()}-${arch()} at ${nativeClaude}`);
  process.exit(77);
}

test('install claude-code with the real claude CLI on PATH', () => {
  const workdir = makeWorkdir('claude-install');
  let passed = false;
  try {
    const bin = join(workdir.root, 'bin');
    mkdirSync(bin, { recursive: true });
    mkdirSync(workdir.home, { recursive: true });
    symlinkSync(nativeClaude, join(bin, 'claude'));
    const env = {
      HOME: workdir.home,
      PATH: `${bin}:/usr/bin:/bin`,
      XDG_DATA_HOME: join(workdir.root, 'data'),
      XDG_CONFIG_HOME: join(workdir.home, '.config'),
      TOGMAL_DB: join(workdir.root, 'togmal.db'),
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    };
    const run = (file, args, cwd = workdir.root) =>
      execFileSync(file, args, { env, cwd, encoding: 'utf8', timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'] });
    const settings = join(workdir.home, '.claude', 'settings.json');

    const first = run(binary, ['install', 'claude-code']);
    assert.match(first, /created .*settings\.json/);
    assert.match(first, /ran claude mcp add --scope user togmal -- /);
    // Claude's own "Added stdio MCP server …" / "File modified" stay out.
    assert.doesNotMatch(first, /Added stdio|File modified/);
    const hook = JSON.parse(readFileSync(settings, 'utf8')).hooks.PreToolUse[0].hooks[0];
    assert.match(hook.command, /togmal hook$/);
    assert.match(run('claude', ['mcp', 'list']), /togmal: .*togmal serve - ✔ Connected/);

    const second = run(binary, ['install', 'claude-code']);
    assert.match(second, /unchanged .*settings\.json/);
    assert.match(second, /MCP server togmal: already registered/);

    const removed = run(binary, ['uninstall', 'claude-code']);
    assert.match(removed, /removed .*settings\.json/);
    assert.match(removed, /ran claude mcp remove --scope user togmal/);
    assert.doesNotMatch(removed, /Removed MCP server|File modified/);
    assert.ok(!existsSync(settings), 'the settings file install created is gone');
    assert.doesNotMatch(run('claude', ['mcp', 'list']), /togmal/);
    // Nothing to remove: claude is not asked, so its "No MCP server named" never shows.
    const again = run(binary, ['uninstall', 'claude-code']);
    assert.match(again, /MCP server togmal: not registered \(user scope/);
    assert.doesNotMatch(again, /No MCP server named/);

    // The project scope: .mcp.json as Claude Code reads it, then no trace.
    const project = join(workdir.root, 'project');
    mkdirSync(project, { recursive: true });
    const inProject = run(binary, ['install', 'claude-code', '--scope', 'project', '--dir', project]);
    assert.match(inProject, /created .*\.mcp\.json/);
    assert.match(inProject, /to do: Claude Code asks each person to approve the project's MCP server togmal/);
    assert.match(run('claude', ['mcp', 'get', 'togmal'], project), /Scope: Project config[\s\S]*Pending approval/);
    run(binary, ['uninstall', 'claude-code', '--scope', 'project', '--dir', project]);
    assert.deepEqual(readdirSync(project), [], 'no .claude/, no .mcp.json left in the project');
    passed = true;
  } finally {
    workdir.cleanup(passed);
  }
});
