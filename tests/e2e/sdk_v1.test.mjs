// The v1 TypeScript SDK client (@modelcontextprotocol/sdk) against `togmal serve`:
// the legacy era (initialize handshake, 2025-11-25).
//
//   node sdk_v1.test.mjs <path-to-togmal>
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  checkLegacyWire, checkServerProcess, mainSession, makeWorkdir, parseArgs, readSessions,
  requireInstalledPackages, serverCommand, withWireReport,
} from './lib/harness.mjs';
import { checkListedTool, checkToolResult, toolsToCall } from './lib/tools.mjs';

requireInstalledPackages('@modelcontextprotocol/sdk');
const { binary } = parseArgs();
const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
const { McpError, LATEST_PROTOCOL_VERSION } = await import('@modelcontextprotocol/sdk/types.js');

test('v1 SDK client: initialize, ping, tools/list, tools/call', async () => {
  const workdir = makeWorkdir('sdk-v1');
  await withWireReport(workdir, async () => {
    const client = new Client({ name: 'togmal-e2e-sdk-v1', version: '1.0.0' }, { capabilities: {} });
    const transport = new StdioClientTransport({ ...serverCommand(binary, workdir), stderr: 'inherit' });
    await client.connect(transport);
    try {
      assert.equal(typeof client.getServerVersion()?.name, 'string', 'serverInfo.name');
      assert.ok(client.getServerCapabilities()?.tools, 'server declares the tools capability');
      await client.ping();

      const { tools } = await client.listTools();
      tools.forEach(checkListedTool);
      for (const known of toolsToCall(tools)) {
        // The SDK validates structuredContent against the tool's outputSchema here.
        const result = await client.callTool({ name: known.name, arguments: known.args });
        checkToolResult(known, result);
      }

      await assert.rejects(
        client.callTool({ name: 'togmal_e2e_no_such_tool', arguments: {} }),
        (error) => error instanceof McpError && error.code === -32602,
        'an unknown tool is a JSON-RPC -32602 error');
    } finally {
      await client.close();
    }

    const sessions = await readSessions(workdir);
    assert.equal(sessions.length, 1, 'the v1 client starts exactly one server process');
    const session = mainSession(sessions);
    checkLegacyWire(session);
    assert.equal(session.requests[0].message.params.protocolVersion, LATEST_PROTOCOL_VERSION);
    checkServerProcess(session);
  });
});
