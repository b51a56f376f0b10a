// The v2 TypeScript SDK client (@modelcontextprotocol/client) against `togmal serve`.
//
//   node client_v2.test.mjs <path-to-togmal> <modern|auto|legacy>
//
// modern: versionNegotiation pinned to 2026-07-28 (server/discover, then per-request _meta).
// auto:   probe with server/discover and fall back to initialize only on legacy evidence;
//         togmal speaks the modern era, so auto must end up modern.
// legacy: the client's default, the plain initialize handshake.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  MODERN_VERSION, checkLegacyWire, checkModernWire, checkServerProcess, mainSession, makeWorkdir,
  parseArgs, readSessions, requireInstalledPackages, requireNodeMajor, serverCommand, withWireReport,
} from './lib/harness.mjs';
import { checkListedTool, checkToolResult, toolsToCall } from './lib/tools.mjs';

requireInstalledPackages('@modelcontextprotocol/client');
requireNodeMajor(20);
const { binary, era } = parseArgs({ eras: ['modern', 'auto', 'legacy'] });
const { Client, ProtocolError } = await import('@modelcontextprotocol/client');
const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');

const NEGOTIATION = {
  modern: { mode: { pin: MODERN_VERSION } },
  auto: { mode: 'auto' },
  legacy: { mode: 'legacy' },
};
const UNKNOWN_TOOL = 'togmal_e2e_no_such_tool';

test(`v2 client (${era}): connect, tools/list, tools/call`, async () => {
  const workdir = makeWorkdir(`client-v2-${era}`);
  await withWireReport(workdir, async () => {
    const client = new Client({ name: 'togmal-e2e-client-v2', version: '1.0.0' },
      { capabilities: {}, versionNegotiation: NEGOTIATION[era] });
    const transport = new StdioClientTransport({ ...serverCommand(binary, workdir), stderr: 'inherit' });
    await client.connect(transport);
    try {
      assert.equal(client.getProtocolEra(), era === 'legacy' ? 'legacy' : 'modern',
        `negotiated era (protocol version ${client.getNegotiatedProtocolVersion()})`);
      if (era !== 'legacy') assert.equal(client.getNegotiatedProtocolVersion(), MODERN_VERSION);
      assert.equal(typeof client.getServerVersion()?.name, 'string', 'serverInfo.name');
      assert.ok(client.getServerCapabilities()?.tools, 'server declares the tools capability');

      // Fresh fetch, then a second listing: exercises the client's ttlMs/cacheScope handling.
      const { tools } = await client.listTools(undefined, { cache: 'refresh' });
      tools.forEach(checkListedTool);
      const again = await client.listTools();
      assert.deepEqual(again.tools.map((t) => t.name), tools.map((t) => t.name), 'tools/list is stable');

      for (const known of toolsToCall(tools)) {
        // The client checks resultType and validates structuredContent against outputSchema.
        const result = await client.callTool({ name: known.name, arguments: known.args });
        checkToolResult(known, result);
      }

      await assert.rejects(
        client.callTool({ name: UNKNOWN_TOOL, arguments: {} }),
        (error) => error instanceof ProtocolError && error.code === -32602,
        'an unknown tool is a JSON-RPC -32602 error');
    } finally {
      await client.close();
    }

    const sessions = await readSessions(workdir);
    const session = mainSession(sessions);
    if (era === 'legacy') {
      assert.equal(sessions.length, 1, 'legacy mode starts exactly one server process');
      checkLegacyWire(session);
    } else {
      checkModernWire(session, sessions, {
        expectError: (message) => message.method === 'tools/call' && message.params?.name === UNKNOWN_TOOL,
      });
    }
    checkServerProcess(session);
    // Probe siblings the client closed on its own must not have crashed either.
    for (const probe of sessions.filter((s) => s !== session)) checkServerProcess(probe, { mustHaveExited: false });
  });
});
