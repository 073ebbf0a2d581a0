// A new user's whole path, in the page against the real backend, from an empty home: install a
// plugin from a folder, make an agent from the welcome view, assign the plugin (acknowledging its MCP
// server), read the Context card, Launch — the real claude (build/agents) answering a scripted model
// on loopback (./scriptmodel.mjs) — and revert the assignment. Nothing is typed but a folder and a
// name. $TERMINAL is a stand-in that runs the command the page opens it with, as a terminal would,
// with a prompt given the way a user would type one (claude -p), and keeps what claude printed.

import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launchBrowser, newPage, repoRoot, startServe, waitFor, waitReady } from './harness.mjs';
import { startScriptModel } from './scriptmodel.mjs';

const claude = join(repoRoot, 'build', 'agents', 'node_modules', '.bin', 'claude');
const PROMPT = 'NEW-USER please greet me';
let fx, srv, browser, page, model, src, turn;

/** A small Agent Plugins package: one skill and one stdio MCP server (that is never started). */
function writeGreeter(dir) {
  mkdirSync(join(dir, 'skills', 'greet'), { recursive: true });
  writeFileSync(
    join(dir, 'plugin.json'),
    JSON.stringify({
      $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
      name: 'greeter',
      version: '1.0.0',
      description: 'Greets the user',
    }),
  );
  writeFileSync(
    join(dir, 'skills', 'greet', 'SKILL.md'),
    '---\nname: greet\ndescription: Greets the user by name.\n---\nSay hello.\n',
  );
  writeFileSync(
    join(dir, 'mcp.json'),
    JSON.stringify({
      $schema: 'https://agent-plugins.org/schemas/1.0.0/mcp.schema.json',
      mcpServers: {
        names: { type: 'stdio', command: 'greeter-names-server', env: { NAMES_TOKEN: 'do-not-leak-7f3a' } },
      },
    }),
  );
}

/**
 * The terminal: drops -e, runs the command it was given with a prompt for the agent after "--", and
 * writes claude's stdout, stderr and exit status beside it (rc last, when it is done).
 */
function terminalThatRuns(dir) {
  const stand = join(dir, 'terminal.sh');
  turn = {
    out: join(dir, 'turn.jsonl'),
    err: join(dir, 'turn.err'),
    rc: join(dir, 'turn.rc'),
    argv: join(dir, 'turn.argv'),
  };
  writeFileSync(
    stand,
    `#!/bin/sh
shift
printf '%s\\n' "$@" > '${turn.argv}'
"$@" -- -p '${PROMPT}' --output-format stream-json --verbose --allowedTools Skill > '${turn.out}' 2> '${turn.err}' < /dev/null
echo $? > '${turn.rc}.tmp' && mv '${turn.rc}.tmp' '${turn.rc}'
`,
  );
  chmodSync(stand, 0o755);
  return stand;
}

before(async () => {
  if (!existsSync(claude)) throw new Error(`${claude} is not installed: make test installs it (make deps-agents)`);
  const dir = mkdtempSync(join(tmpdir(), 'pb-e2e-newuser-'));
  fx = { dir, home: join(dir, 'home'), pbHome: join(dir, 'home', '.plugboard') };
  mkdirSync(fx.home);
  src = join(dir, 'src', 'greeter');
  writeGreeter(src);
  model = await startScriptModel([
    { tool: 'Skill', input: { skill: 'greeter:greet' } },
    { text: 'Hello from greeter' },
  ]);
  srv = await startServe({
    ...fx,
    env: { TERMINAL: terminalThatRuns(dir), PLUGBOARD_CLAUDE_BIN: claude, ...model.claudeEnv },
  });
  browser = await launchBrowser();
  page = await newPage(browser);
  await page.goto(srv.url);
  await waitReady(page);
});

after(async () => {
  await browser?.close();
  await srv?.stop();
  await model?.close();
  if (fx) rmSync(fx.dir, { recursive: true, force: true });
});

const agentFile = () => join(fx.pbHome, 'agents', 'coder.json');

test('an empty home: the welcome view makes an agent', async () => {
  await page.getByTestId('welcome').waitFor();
  assert.match(await page.getByTestId('welcome-steps').innerText(), /Make an agent/);
  await page.getByTestId('welcome-agent').click();
  await page.waitForSelector('[data-testid="agent-dialog"]');
  assert.equal(await page.getAttribute('[data-testid="tab-assign"]', 'aria-selected'), 'true');
  await page.fill('[data-testid="agent-name"]', 'coder');
  await page.click('[data-testid="agent-create"]');
  await page.waitForSelector('[data-testid="assign-target"][data-id="agent:coder"]');
  assert.deepEqual(JSON.parse(readFileSync(agentFile(), 'utf8')).pluginDirs, []);
});

test('install a plugin from a folder, from the welcome view', async () => {
  await page.click('[data-testid="tab-plugins"]');
  await page.getByTestId('welcome-install').click();
  const dialog = page.getByTestId('install-dialog');
  await dialog.getByRole('textbox', { name: 'Source', exact: true }).fill(src);
  await dialog.getByRole('button', { name: 'Install', exact: true }).click();
  await page.locator('[data-testid="detail"] article[data-id="greeter"] [data-testid="detail-installed"]').waitFor();
  assert.match(await page.getByTestId('install-outcome').innerText(), /Installed greeter from .*; valid\./);
});

test('assign the plugin: Save asks to acknowledge its MCP server, then saves', async () => {
  await page.click('[data-testid="tab-assign"]');
  await page.locator('[data-testid="assign-check"][data-id="greeter"]').check();
  await page.click('[data-testid="assign-save"]');
  await page.waitForSelector('[data-testid="ack-dialog"]');
  const dialog = await page.textContent('[data-testid="ack-dialog"]');
  assert.match(dialog, /greeter-names-server/);
  assert.ok(!(await page.content()).includes('do-not-leak-7f3a'), 'no env value in the page');
  await page.click('[data-testid="ack-confirm"]');
  await page.locator('[data-testid="history-plus"]', { hasText: 'plugins/greeter' }).waitFor();
  assert.deepEqual(JSON.parse(readFileSync(agentFile(), 'utf8')).pluginDirs, ['plugins/greeter']);
});

test('the Context card says what the launch puts in front of the model', async () => {
  const card = page.getByTestId('assign-target').getByTestId('budget');
  await card.getByTestId('budget-listing').waitFor();
  assert.match(await card.getByTestId('budget-listing').textContent(), /Skill listing: [\d,]+ characters of Claude’s/);
  const text = await card.innerText();
  assert.match(text, /this set’s skills: ~\d+ tokens/);
  assert.match(text, /names\s+greeter/, 'the MCP server of the set');
});

test('Launch starts the real claude with the plugin; the model sees its skill and the turn uses it', async () => {
  await page.getByRole('button', { name: 'Launch', exact: true }).click();
  await page.waitForSelector('[data-testid="launch-started"]');
  assert.equal(await page.locator('[data-testid="ack-dialog"]').count(), 0, 'acknowledged at Save: not asked again');
  await waitFor(() => existsSync(turn.rc), { timeout: 180000, message: 'the launched claude to finish its turn' });
  const rc = readFileSync(turn.rc, 'utf8').trim();
  const out = readFileSync(turn.out, 'utf8');
  assert.equal(rc, '0', `claude exited ${rc}\n${readFileSync(turn.err, 'utf8')}\n${out}`);
  const result = out
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .find((e) => e.type === 'result');
  assert.equal(result?.result, 'Hello from greeter', out);
  assert.equal(model.remaining(), 0, 'the model was asked for every step of its script');
  const first = model.main()[0];
  assert.ok(JSON.stringify(first.body).includes('greeter:greet'), 'the model was offered the skill');
  assert.ok(JSON.stringify(first.body).includes(PROMPT), 'the prompt reached the model');
  const argv = readFileSync(turn.argv, 'utf8').trimEnd().split('\n');
  assert.deepEqual(argv.slice(1, 3), ['launch', 'agent:coder'], argv.join(' '));
});

test('revert the assignment from History, after a preview', async () => {
  const entry = page.locator('[data-testid="history-entry"]', { hasText: 'plugins/greeter' }).first();
  await entry.locator('[data-testid="history-revert"]').click();
  await page.waitForSelector('[data-testid="revert-dialog"]');
  assert.equal((await page.textContent('[data-testid="revert-minus"]')).trim(), '− plugins/greeter');
  await page.click('[data-testid="revert-confirm"]');
  await waitFor(() => JSON.parse(readFileSync(agentFile(), 'utf8')).pluginDirs.length === 0, {
    message: 'the revert to empty the agent',
  });
  await page.locator('[data-testid="assign-check"][data-id="greeter"]:not(:checked)').waitFor();
});
