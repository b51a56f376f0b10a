// `togmal scan --format sarif` against the official SARIF 2.1.0 JSON schema
// (the copy @microsoft/jest-sarif ships, lib/schemas/sarif-2.1.0-rtm.5.json:
// draft-04, validated with the ajv 6 that package depends on). The fixture
// repository has findings, problems come from a broken file, and an empty
// folder gives a log with no results: all three must be valid SARIF.
//
//   node scan_sarif.test.mjs <path-to-togmal>
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { makeWorkdir, parseArgs, requireInstalledPackages } from './lib/harness.mjs';

requireInstalledPackages('@microsoft/jest-sarif');
const { binary } = parseArgs();
const E2E_DIR = fileURLToPath(new URL('.', import.meta.url));
const FIXTURE = join(E2E_DIR, '..', 'fixtures', 'scan-repo');

// The schema and the validator the package itself uses (its own ajv, not the
// newer one other packages bring: the schema is draft-04).
const jestSarifRequire = createRequire(join(E2E_DIR, 'node_modules', '@microsoft', 'jest-sarif', 'package.json'));
const Ajv = jestSarifRequire('ajv');
const schema = jestSarifRequire('./lib/schemas/sarif-2.1.0-rtm.5.json');
const ajv = new Ajv({ schemaId: 'auto', allErrors: true, validateSchema: false });
ajv.addMetaSchema(jestSarifRequire('ajv/lib/refs/json-schema-draft-04.json'));
const validate = ajv.compile(schema);

function scanSarif(path, ...options) {
  const run = spawnSync(binary, ['scan', path, '--format', 'sarif', ...options], {
    encoding: 'utf8',
    env: { ...process.env, XDG_CONFIG_HOME: '/nonexistent-togmal-test' },
  });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}

function assertValid(log) {
  const valid = validate(log);
  assert.ok(valid, JSON.stringify(validate.errors, null, 2));
}

test('the fixture repository: valid SARIF 2.1.0 with its nine findings', () => {
  const log = scanSarif(FIXTURE);
  assertValid(log);
  assert.equal(log.version, '2.1.0');
  const [run] = log.runs;
  assert.equal(run.tool.driver.name, 'togmal');
  assert.equal(run.results.length, 9);
  const ruleIds = new Set(run.tool.driver.rules.map((rule) => rule.id));
  for (const result of run.results) {
    assert.ok(ruleIds.has(result.ruleId), result.ruleId);
    const { artifactLocation, region } = result.locations[0].physicalLocation;
    assert.equal(artifactLocation.uriBaseId, '%SRCROOT%');
    assert.ok(!artifactLocation.uri.startsWith('/'), artifactLocation.uri);
    assert.ok(region.startLine >= 1);
  }
});

test('problems and an empty scan are valid SARIF too', () => {
  const workdir = makeWorkdir('scan-sarif');
  const repo = join(workdir.root, 'repo with space');
  mkdirSync(join(repo, '.github', 'workflows'), { recursive: true });
  writeFileSync(join(repo, '.github', 'workflows', 'bad.yml'), 'jobs:\n  a:\n    steps: [\n');
  writeFileSync(join(repo, 'run.sh'), 'npm install left-pad\n');
  const log = scanSarif(repo);
  assertValid(log);
  assert.equal(log.runs[0].results.length, 1);
  assert.equal(log.runs[0].results[0].level, 'warning');
  assert.equal(log.runs[0].invocations[0].toolExecutionNotifications.length, 1);
  assert.match(log.runs[0].originalUriBaseIds['%SRCROOT%'].uri, /^file:\/\/\/.*repo%20with%20space\/$/);

  const empty = join(workdir.root, 'empty');
  mkdirSync(empty);
  const emptyLog = scanSarif(empty);
  assertValid(emptyLog);
  assert.equal(emptyLog.runs[0].results.length, 0);
  workdir.cleanup(true);
});

test('--min-level L0: the lower levels\' rules and results, with fingerprints, are valid SARIF', () => {
  const workdir = makeWorkdir('scan-sarif-levels');
  writeFileSync(join(workdir.root, 'run.sh'), 'ls\nmkdir -p out\nnpm install left-pad\nrm -rf ~\n');
  const log = scanSarif(workdir.root, '--min-level', 'L0');
  assertValid(log);
  const [run] = log.runs;
  assert.deepEqual(run.tool.driver.rules.map((rule) => rule.id),
    ['togmal/L3-blocked', 'togmal/L2-needs-approval', 'togmal/L1-reversible', 'togmal/L0-safe']);
  assert.equal(run.results.length, 4);
  for (const result of run.results) {
    assert.equal(run.tool.driver.rules[result.ruleIndex].id, result.ruleId);
    assert.match(result.partialFingerprints['togmal/v1'], /^[0-9a-f]{16}$/);
  }
  assert.equal(run.results[0].level, 'note');
  workdir.cleanup(true);
});

test('the validator rejects what is not SARIF (the test can fail)', () => {
  const log = scanSarif(FIXTURE);
  log.runs[0].results[0].level = 'critical';
  assert.equal(validate(log), false);
  delete log.version;
  assert.equal(validate(log), false);
});
