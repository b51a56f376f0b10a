#!/usr/bin/env node
// Wire tap: runs the server as a child and records every stdio line, so the tests can
// assert what really went over the wire (which era, which _meta, which result fields)
// and that the server exited cleanly, whatever the client library hides.
//
//   node tap.mjs <log-dir> [--env KEY=VALUE]... -- <command> [args...]
//
// Writes <log-dir>/session-<pid>.jsonl: one record per line,
//   {"dir":"c2s"|"s2c","line":"<raw line>"}, {"signal":"SIGTERM"} when the tap forwarded
//   one, and finally {"exit":{"code":N,"signal":S},"stderr":"..."}.
// Clients filter the environment they give a stdio server, so the server's environment
// is passed explicitly with --env (on top of the tap's own).
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

const argv = process.argv.slice(2);
const logDir = argv.shift();
const env = { ...process.env };
while (argv.length > 0 && argv[0] !== '--') {
  const flag = argv.shift();
  const pair = argv.shift();
  if (flag !== '--env' || pair === undefined || !pair.includes('=')) {
    process.stderr.write(`tap: bad argument ${flag} ${pair}\n`);
    process.exit(2);
  }
  env[pair.slice(0, pair.indexOf('='))] = pair.slice(pair.indexOf('=') + 1);
}
argv.shift();  // --
const [command, ...args] = argv;
if (!logDir || !command) {
  process.stderr.write('usage: tap.mjs <log-dir> [--env K=V]... -- <command> [args...]\n');
  process.exit(2);
}

mkdirSync(logDir, { recursive: true });
const logFile = join(logDir, `session-${process.pid}.jsonl`);
const record = (entry) => appendFileSync(logFile, JSON.stringify(entry) + '\n');

const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
let stderr = '';

function splitLines(direction) {
  let pending = '';
  return (chunk) => {
    pending += chunk.toString('utf8');
    let newline;
    while ((newline = pending.indexOf('\n')) >= 0) {
      record({ dir: direction, line: pending.slice(0, newline) });
      pending = pending.slice(newline + 1);
    }
  };
}

const fromClient = splitLines('c2s');
process.stdin.on('data', (chunk) => {
  fromClient(chunk);
  child.stdin.write(chunk);
});
process.stdin.on('end', () => child.stdin.end());
// The server may exit first; writes after that are not an error of the tap's.
child.stdin.on('error', () => {});
process.stdout.on('error', () => {});

const fromServer = splitLines('s2c');
child.stdout.on('data', (chunk) => {
  fromServer(chunk);
  process.stdout.write(chunk);
});
child.stderr.on('data', (chunk) => {
  stderr += chunk.toString('utf8');
  process.stderr.write(chunk);
});

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    record({ signal });
    child.kill(signal);
  });
}

child.on('error', (error) => {
  record({ exit: { code: null, signal: null, error: String(error) }, stderr });
  process.exit(127);
});
child.on('close', (code, signal) => {
  record({ exit: { code, signal }, stderr });
  process.exitCode = code ?? 1;
  // Let stdout drain; the client owns the pipe's other end.
  process.stdin.destroy();
});
