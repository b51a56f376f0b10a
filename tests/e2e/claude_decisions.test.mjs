// The hook's four answers as Claude Code itself carries them out: the real
// Claude Code CLI (@anthropic-ai/claude-code's native binary) runs in print
// mode against a local stand-in for the model API (lib/fake_model.mjs) that
// answers with chosen tool calls, with `togmal install claude-code` done in an
// isolated HOME. The tool_result Claude Code sends back to the "model", the
// `permission_denials` of its JSON result and the traces the commands leave
// tell whether each call ran or was refused, and by whom.
//
//   a. a call togmal passes (L2: no decision) runs when the person's settings
//      allow it (settings.json permissions.allow, or --allowedTools) and is
//      refused by Claude Code's own gate in print mode when they do not;
//   b. an L3 call is denied whatever the settings say (an allow rule for it,
//      --allowedTools, --permission-mode bypassPermissions);
//   c. togmal's own MCP tools and Claude Code's task tools (TaskCreate,
//      TaskUpdate, TaskList, TodoWrite, Agent, and ToolSearch that loads the
//      deferred ones) run without a prompt and without allow rules;
//   d. the audit trail holds each decision with the answer the host got, and
//      for each call togmal passed or asked about, whether it then ran or was
//      refused (the PostToolUse and PostToolBatch events, outcome entries).
//
// A control run first puts a hook that takes no decision (prints `{}`) in
// togmal's place: it shows what `pass` must look like, that the harness tells
// "ran" from "refused", and that the L3 call would run under these settings
// if nothing denied it.
//
//   node claude_decisions.test.mjs <path-to-togmal>
//
// Nothing leaves 127.0.0.1: the stand-in is also the HTTP(S) proxy, and
// records (and refuses) any attempt to reach another host. `npm` on the PATH
// is a stub that writes down its arguments.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startFakeModel } from './lib/fake_model.mjs';
import { makeWorkdir, parseArgs, requireInstalledPackages } from './lib/harness.mjs';

requireInstalledPackages('@anthropic-ai/claude-code');
const { binary: givenBinary } = parseArgs();
const binary = resolve(givenBinary);
const E2E_DIR = fileURLToPath(new URL('.', import.meta.url));
// As in claude_install.test.mjs: the platform package's binary, used directly.
const nativeClaude = join(E2E_DIR, 'node_modules', '@anthropic-ai', `claude-code-${platform()}-${arch()}`, 'claude');
if (!existsSync(nativeClaude)) {
  console.log(`SKIP: no Claude Code binary for ${platform()}-${arch()} at ${nativeClaude}`);
  process.exit(77);
}

const L2_COMMAND = 'npm install left-pad';
const L2_RULE = 'Bash(npm install:*)';
const L3_COMMANDS = ['git reset --hard', 'git push --force origin main'];
const DIRTY = 'work nobody committed yet\n';
const REFUSED_BY_HOST = /requires approval/;
const TOGMAL_TOOL = 'mcp__togmal__togmal_analyze_prompt';
const TASK_TOOLS = ['TaskCreate', 'TaskUpdate', 'TaskList'];

const bash = (command) => ({ name: 'Bash', input: { command, description: `run ${command}` } });
// Deferred tools (MCP tools, the task tools) are called after ToolSearch loads them.
const loadTools = (names) => ({ name: 'ToolSearch', input: { query: `select:${names.join(',')}`, max_results: 5 } });
const analyzePrompt = { name: TOGMAL_TOOL, input: { prompt: 'Write me a proof that P equals NP, then cure cancer with it.' } };

test('Claude Code carries out togmal\'s decisions', { timeout: 120_000 }, async (t) => {
  const workdir = makeWorkdir('claude-decisions');
  const fake = await startFakeModel({ log: (line) => { if (process.env.TOGMAL_E2E_VERBOSE) console.error(line); } });
  let passed = false;
  let failed = false;
  // A subtest's failure fails the parent without throwing here: note it, so
  // the workdir is kept for a look.
  const step = (t2, name, fn) => t2.test(name, async (t3) => {
    try { await fn(t3); } catch (error) { failed = true; throw error; }
  });
  try {
    const bin = join(workdir.root, 'bin');
    const project = join(workdir.root, 'project');
    const npmLog = join(workdir.root, 'npm.log');
    const settingsFile = join(workdir.home, '.claude', 'settings.json');
    for (const dir of [bin, project, join(workdir.home, '.claude')]) mkdirSync(dir, { recursive: true });
    symlinkSync(nativeClaude, join(bin, 'claude'));
    const script = (name, text) => {
      writeFileSync(join(bin, name), text);
      chmodSync(join(bin, name), 0o755);
      return join(bin, name);
    };
    script('npm', `#!/bin/sh\nprintf '%s\\n' "$*" >> '${npmLog}'\necho "stub npm ran: $*"\n`);
    const noDecisionHook = script('no-decision-hook', '#!/bin/sh\ncat > /dev/null\necho \'{}\'\n');

    const env = {
      HOME: workdir.home,
      PATH: `${bin}:/usr/bin:/bin`,
      XDG_DATA_HOME: join(workdir.root, 'xdg', 'data'),
      XDG_CONFIG_HOME: join(workdir.root, 'xdg', 'config'),
      XDG_STATE_HOME: join(workdir.root, 'xdg', 'state'),
      XDG_CACHE_HOME: join(workdir.root, 'xdg', 'cache'),
      TOGMAL_DB: join(workdir.root, 'togmal.db'),
      ANTHROPIC_BASE_URL: fake.url,
      ANTHROPIC_API_KEY: 'dummy-key',
      HTTPS_PROXY: fake.url,
      HTTP_PROXY: fake.url,
      NO_PROXY: '127.0.0.1,localhost',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      // The task tools (TaskCreate …) are off by default for this model in
      // 2.1.330; this turns them on as deferred tools (loaded by ToolSearch).
      CLAUDE_CODE_ENABLE_TODO_TOOLS: '1',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'e2e', GIT_AUTHOR_EMAIL: 'e2e@example.invalid',
      GIT_COMMITTER_NAME: 'e2e', GIT_COMMITTER_EMAIL: 'e2e@example.invalid',
    };
    // bypassPermissions is refused to root unless Claude Code is told it runs in a sandbox.
    if (process.getuid?.() === 0) env.IS_SANDBOX = '1';
    for (const name of ['ASAN_OPTIONS', 'UBSAN_OPTIONS', 'LSAN_OPTIONS']) {
      if (process.env[name] !== undefined) env[name] = process.env[name];
    }
    const run = (file, args, options = {}) => execFileSync(file, args,
      { env, cwd: project, encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'], ...options });

    // A throwaway repository with work that `git reset --hard` would lose.
    const notes = join(project, 'notes.txt');
    run('git', ['init', '-q', '-b', 'main']);
    writeFileSync(notes, 'committed\n');
    run('git', ['add', 'notes.txt']);
    run('git', ['commit', '-q', '-m', 'first']);
    writeFileSync(notes, DIRTY);

    /** The settings.json Claude Code reads: `base` with `permissions.allow` set to `allow`. */
    const writeSettings = (base, allow = []) => {
      const settings = structuredClone(base);
      if (allow.length > 0) settings.permissions = { allow };
      writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
    };

    let runs = 0;
    /**
     * One `claude -p` whose "model" answers `steps`, one tool call a turn.
     * Returns { calls: [{ name, input, result }], denials, sessionId, output }.
     */
    const claude = (steps, { args = [], extraEnv = {} } = {}) => new Promise((done, fail) => {
      const marker = `SCENARIO-${++runs}`;
      fake.setScript([{ marker, steps, final: `${marker} finished.` }]);
      const child = spawn(join(bin, 'claude'),
        ['-p', `${marker}: carry out the scripted calls.`, '--output-format', 'json', ...args],
        { env: { ...env, ...extraEnv }, cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => { stdout += chunk; });
      child.stderr.on('data', (chunk) => { stderr += chunk; });
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('error', fail);
      child.on('close', (status, signal) => {
        clearTimeout(timer);
        const where = `claude run ${marker} (${JSON.stringify(args)})`;
        let output;
        try {
          output = JSON.parse(stdout);
        } catch {
          fail(new Error(`${where}: exit ${status ?? signal}, not JSON on stdout:\n${stdout}\nstderr:\n${stderr}`));
          return;
        }
        const calls = fake.callsOf(marker);
        if (calls.length !== steps.length) {
          fail(new Error(`${where}: the model answered ${calls.length} of ${steps.length} calls: ` +
            `${JSON.stringify(output)}\nstderr:\n${stderr}`));
          return;
        }
        done({ calls, denials: output.permission_denials ?? [], sessionId: output.session_id, output, where });
      });
    });

    /** The call ran: a result that is not an error, and no denial for it. */
    const assertRan = (outcome, index, pattern) => {
      const call = outcome.calls[index];
      const what = `${outcome.where}: ${call.name} ${JSON.stringify(call.input)}`;
      assert.ok(call.result, `${what}: Claude Code sent no tool_result`);
      assert.ok(!outcome.denials.some((d) => d.tool_use_id === call.id),
        `${what}: in permission_denials (${call.result.text})`);
      assert.equal(call.result.is_error, false, `${what}: the tool_result is an error: ${call.result.text}`);
      if (pattern) assert.match(call.result.text, pattern, `${what}: tool_result`);
    };
    /** The call was refused by the permission system, with a reason matching `reason`. */
    const assertRefused = (outcome, index, reason) => {
      const call = outcome.calls[index];
      const what = `${outcome.where}: ${call.name} ${JSON.stringify(call.input)}`;
      assert.ok(call.result, `${what}: Claude Code sent no tool_result`);
      assert.ok(outcome.denials.some((d) => d.tool_use_id === call.id),
        `${what}: not in permission_denials; tool_result: ${call.result.text}`);
      assert.equal(call.result.is_error, true, `${what}: refused calls come back as errors`);
      assert.match(call.result.text, reason, `${what}: the refusal's reason`);
    };
    const npmRuns = () => (existsSync(npmLog) ? readFileSync(npmLog, 'utf8').split('\n').filter(Boolean) : []);

    await step(t, 'control: a hook that takes no decision leaves the call to Claude Code', async () => {
      const hooks = { hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: noDecisionHook }] }] } };
      writeSettings(hooks);
      // togmal's server given by --mcp-config here (the installer registers it below).
      const mcpConfig = JSON.stringify({ mcpServers: { togmal: { command: binary, args: ['serve'] } } });
      const refused = await claude([bash(L2_COMMAND), loadTools([TOGMAL_TOOL]), analyzePrompt],
        { args: ['--mcp-config', mcpConfig] });
      assertRefused(refused, 0, REFUSED_BY_HOST);
      assert.deepEqual(npmRuns(), [], 'a refused npm did not run');
      // An MCP tool is not run without an allow rule: running it needs togmal's allow.
      assertRan(refused, 1);
      assertRefused(refused, 2, /haven't granted it/);

      writeSettings(hooks, [L2_RULE]);
      assertRan(await claude([bash(L2_COMMAND)]), 0, /stub npm ran: install left-pad/);
      assert.deepEqual(npmRuns(), ['install left-pad']);

      writeSettings(hooks);
      assertRan(await claude([bash(L3_COMMANDS[0])], { args: ['--permission-mode', 'bypassPermissions'] }), 0);
      assert.equal(readFileSync(notes, 'utf8'), 'committed\n', 'with nothing to deny it, git reset --hard ran');
      writeFileSync(notes, DIRTY);
      rmSync(npmLog, { force: true });
    });

    // The real installer: the hook in settings.json, `claude mcp add` for the server.
    rmSync(settingsFile, { force: true });
    const installed = run(binary, ['install', 'claude-code']);
    assert.match(installed, /ran claude mcp add --scope user togmal -- /);
    const togmalSettings = JSON.parse(readFileSync(settingsFile, 'utf8'));
    for (const event of ['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'PermissionDenied', 'PostToolBatch']) {
      assert.match(togmalSettings.hooks[event]?.[0]?.hooks[0].command ?? '', /togmal hook$/, `${event} registered`);
    }
    const sessions = {};

    await step(t, 'togmal check reports the levels these scenarios rely on', () => {
      const check = (command) => JSON.parse(run(binary, ['check', '--json', command]));
      const l2 = check(L2_COMMAND);
      assert.equal(l2.level, 'L2', `${L2_COMMAND}: ${JSON.stringify(l2)}`);
      assert.equal(l2.decision, 'pass', `${L2_COMMAND}: L2 leaves the decision to the host: ${JSON.stringify(l2)}`);
      for (const command of L3_COMMANDS) {
        const l3 = check(command);
        assert.equal(l3.level, 'L3', `${command}: ${JSON.stringify(l3)}`);
        assert.equal(l3.decision, 'deny', `${command}: ${JSON.stringify(l3)}`);
      }
    });

    await step(t, 'a. a passed call runs when the person allows it, and is refused when not', async (t2) => {
      await step(t2, 'allowed by permissions.allow in settings.json', async () => {
        writeSettings(togmalSettings, [L2_RULE]);
        const outcome = await claude([bash(L2_COMMAND)]);
        sessions.allowedBySettings = outcome.sessionId;
        assertRan(outcome, 0, /stub npm ran: install left-pad/);
        assert.deepEqual(npmRuns(), ['install left-pad']);
      });
      await step(t2, 'allowed by --allowedTools', async () => {
        writeSettings(togmalSettings);
        const outcome = await claude([bash(L2_COMMAND)], { args: ['--allowedTools', L2_RULE] });
        sessions.allowedByFlag = outcome.sessionId;
        assertRan(outcome, 0, /stub npm ran: install left-pad/);
        assert.deepEqual(npmRuns(), ['install left-pad', 'install left-pad']);
      });
      await step(t2, 'no rule: Claude Code refuses it (print mode cannot ask)', async () => {
        writeSettings(togmalSettings);
        const before = npmRuns().length;
        const outcome = await claude([bash(L2_COMMAND)]);
        sessions.notAllowed = outcome.sessionId;
        // Claude Code's own refusal, not a question or a denial from togmal.
        assertRefused(outcome, 0, REFUSED_BY_HOST);
        assert.doesNotMatch(outcome.calls[0].result.text, /togmal/i);
        assert.equal(npmRuns().length, before, 'npm did not run');
      });
      await step(t2, 'bypassPermissions: the host has no gate, so togmal asks (print mode refuses)', async () => {
        writeSettings(togmalSettings);
        const before = npmRuns().length;
        const outcome = await claude([bash(L2_COMMAND)], { args: ['--permission-mode', 'bypassPermissions'] });
        sessions.bypass = outcome.sessionId;
        assertRefused(outcome, 0, /togmal/i);
        assert.equal(npmRuns().length, before, 'npm did not run');
      });
    });

    await step(t, 'b. an L3 call is denied whatever the settings say', async (t2) => {
      const steps = L3_COMMANDS.map(bash);
      const cases = [
        { name: 'Bash(git:*) in permissions.allow', allow: ['Bash(git:*)'], args: [] },
        { name: '--allowedTools Bash', allow: [], args: ['--allowedTools', 'Bash'] },
        { name: '--permission-mode bypassPermissions', allow: ['Bash'], args: ['--permission-mode', 'bypassPermissions'] },
      ];
      sessions.l3 = [];
      for (const c of cases) {
        await step(t2, c.name, async () => {
          writeSettings(togmalSettings, c.allow);
          const outcome = await claude(steps, { args: c.args });
          sessions.l3.push(outcome.sessionId);
          steps.forEach((_, i) => assertRefused(outcome, i, /togmal/i));
          assert.equal(readFileSync(notes, 'utf8'), DIRTY, 'the uncommitted work is still there');
        });
      }
    });

    await step(t, 'c. togmal\'s own MCP tools and the task tools run without a prompt', async (t2) => {
      writeSettings(togmalSettings);
      await step(t2, 'togmal_analyze_prompt, TaskCreate, TaskUpdate, TaskList, Agent', async () => {
        const outcome = await claude([
          loadTools([TOGMAL_TOOL, ...TASK_TOOLS]),
          analyzePrompt,
          { name: 'TaskCreate', input: { subject: 'Write the e2e test', description: 'Cover the four answers' } },
          { name: 'TaskUpdate', input: { taskId: '1', status: 'in_progress' } },
          { name: 'TaskList', input: {} },
          { name: 'Agent', input: { description: 'Look around', prompt: 'Answer done; use no tools.', subagent_type: 'Explore', run_in_background: false } },
        ]);
        sessions.tools = outcome.sessionId;
        assertRan(outcome, 0);
        assertRan(outcome, 1, /risk/i);
        assertRan(outcome, 2, /Task #1 created/);
        assertRan(outcome, 3, /Updated task #1/);
        assertRan(outcome, 4, /#1 \[in_progress\] Write the e2e test/);
        assertRan(outcome, 5);
      });
      await step(t2, 'TodoWrite (the task list when CLAUDE_CODE_ENABLE_TASKS=0)', async () => {
        const outcome = await claude([
          loadTools(['TodoWrite']),
          { name: 'TodoWrite', input: { todos: [{ content: 'Write the e2e test', status: 'in_progress', activeForm: 'Writing the e2e test' }] } },
        ], { extraEnv: { CLAUDE_CODE_ENABLE_TASKS: '0' } });
        sessions.todo = outcome.sessionId;
        assertRan(outcome, 0);
        assertRan(outcome, 1);
      });
    });

    await step(t, 'd. the audit trail holds each decision and the answer the host got', () => {
      const trail = run(binary, ['audit', 'tail', '--json', '-n', '1000']).split('\n').filter(Boolean)
        .map((line) => JSON.parse(line));
      const entries = trail.filter((e) => e.kind === 'decision');
      const decisionsOf = (session, toolName, command) => entries
        .filter((e) => e.session === session && e.tool_name === toolName &&
          (command === undefined || e.input?.command === command))
        .map((e) => e.decision);
      const expect = (session, toolName, command, decision) => {
        if (session === undefined) return; // its scenario failed before it ran; reported there
        assert.deepEqual(decisionsOf(session, toolName, command), [decision],
          `session ${session}: ${toolName} ${command ?? ''}; the decisions recorded: ` +
          JSON.stringify(entries.filter((e) => e.session === session)
            .map((e) => ({ tool: e.tool_name, decision: e.decision, level: e.level, input: e.input }))));
      };
      for (const session of [sessions.allowedBySettings, sessions.allowedByFlag, sessions.notAllowed]) {
        expect(session, 'Bash', L2_COMMAND, 'pass');
      }
      expect(sessions.bypass, 'Bash', L2_COMMAND, 'ask');
      for (const session of sessions.l3 ?? []) {
        for (const command of L3_COMMANDS) expect(session, 'Bash', command, 'deny');
      }
      for (const tool of ['ToolSearch', TOGMAL_TOOL, ...TASK_TOOLS, 'Agent']) expect(sessions.tools, tool, undefined, 'allow');
      for (const tool of ['ToolSearch', 'TodoWrite']) expect(sessions.todo, tool, undefined, 'allow');

      // What became of each call: an outcome for the passed and asked ones
      // only, naming the decision's tool_use_id.
      const outcomesOf = (session) => trail.filter((e) => e.kind === 'outcome' && e.session === session);
      const expectOutcome = (session, outcome) => {
        if (session === undefined) return;
        const decided = entries.filter((e) => e.session === session && ['pass', 'ask'].includes(e.decision));
        const outcomes = outcomesOf(session);
        assert.deepEqual(outcomes.map((e) => e.decision), outcome === undefined ? [] : [outcome],
          `session ${session}: outcomes recorded: ${JSON.stringify(outcomes)}`);
        if (outcome !== undefined) {
          assert.equal(outcomes[0].detail?.tool_use_id, decided[0]?.detail?.tool_use_id,
            `session ${session}: the outcome names the decision's call`);
        }
      };
      expectOutcome(sessions.allowedBySettings, 'ran');
      expectOutcome(sessions.allowedByFlag, 'ran');
      expectOutcome(sessions.notAllowed, 'refused');
      expectOutcome(sessions.bypass, 'refused');
      for (const session of sessions.l3 ?? []) expectOutcome(session, undefined);
      expectOutcome(sessions.tools, undefined);
    });

    const outside = fake.unknown.filter((u) => u.method === 'CONNECT');
    assert.deepEqual(outside, [], 'Claude Code tried to reach another host');
    passed = !failed;
  } finally {
    await fake.close();
    if (!passed && fake.unknown.length > 0) console.error('unanswered requests:', JSON.stringify(fake.unknown, null, 1));
    workdir.cleanup(passed);
  }
});
