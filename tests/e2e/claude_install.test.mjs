// `togmal install claude-code` / `uninstall` with Claude Code's own CLI
// (@anthropic-ai/claude-code's native binary) on PATH: the hook lands in
// settings.json, `claude mcp add` registers the server and `claude mcp list`
// reports it connected (it starts `togmal serve`); a second install changes
// nothing, and uninstall takes both away. No account is needed for these
// commands.
//
//   node claude_install.test.mjs <path-to-togmal>
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
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
    const run = (file, args) =>
      execFileSync(file, args, { env, encoding: 'utf8', timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'] });
    const settings = join(workdir.home, '.claude', 'settings.json');

    const first = run(binary, ['install', 'claude-code']);
    assert.match(first, /created .*settings\.json/);
    assert.match(first, /MCP server togmal: claude mcp add --scope user togmal -- /);
    const hook = JSON.parse(readFileSync(settings, 'utf8')).hooks.PreToolUse[0].hooks[0];
    assert.match(hook.command, /togmal hook$/);
    assert.match(run('claude', ['mcp', 'list']), /togmal: .*togmal serve - ✔ Connected/);

    const second = run(binary, ['install', 'claude-code']);
    assert.match(second, /unchanged .*settings\.json/);
    assert.match(second, /MCP server togmal: already registered/);

    const removed = run(binary, ['uninstall', 'claude-code']);
    assert.match(removed, /removed .*settings\.json/);
    assert.ok(!existsSync(settings), 'the settings file install created is gone');
    assert.doesNotMatch(run('claude', ['mcp', 'list']), /togmal/);
    passed = true;
  } finally {
    workdir.cleanup(passed);
  }
});
