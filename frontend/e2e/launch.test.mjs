// Launch from the assignment view against the real backend on a copy of testdata/runtime/home
// (agents coder, clash — plugins other and review both have a skill "check" —, pi-coder, and the
// template team with a defaults slot and an __active__ slot). $TERMINAL is a recording stand-in,
// so nothing real is opened: the page must show the agent's exact command and the terminal must
// be told to run `plugboard launch` for the target.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  launchBrowser,
  makeRuntimeFixture,
  newPage,
  openAssignments,
  pluginBin,
  selectTarget,
  startServe,
  clientsOnPath,
  terminalStandIn,
  waitReady,
} from './harness.mjs';

let fx, srv, browser, page, stand, record, terminalArgv;

// The agents' own executables are not what is tested: keep argv[0] the backend's name, found on PATH.
let noBins;

before(async () => {
  fx = makeRuntimeFixture();
  noBins = clientsOnPath(fx.dir);
  // The fixture's MCP servers are acknowledged for the targets launched here (ack.test.mjs shows
  // what the page does without).
  for (const target of ['agent:coder', 'agent:pi-coder', 'template:team/coder']) {
    execFileSync(pluginBin(), ['ack', target, '--home', fx.pbHome], { env: { ...process.env, HOME: fx.home } });
  }
  // terminalArgv: the lines the terminal stand-in was started with (awaited after each launch).
  ({ stand, record, opened: terminalArgv } = terminalStandIn(fx.dir));
  srv = await startServe({ ...fx, env: { TERMINAL: stand, ...noBins } });
  browser = await launchBrowser();
  page = await newPage(browser);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: srv.origin });
  await openAssignments(page, srv.url);
});

after(async () => {
  await browser?.close();
  await srv?.stop();
  fx?.cleanup();
});

const launchButton = () => page.getByRole('button', { name: 'Launch', exact: true });

/** Clicks Launch and returns the backend's answer to the Launch call. */
async function launch() {
  rmSync(record, { force: true });
  const answer = page.waitForResponse((r) => r.url().endsWith('/api/Launch'));
  await launchButton().click();
  return (await answer).json();
}

test('Launch on an agent shows the exact command and opens the terminal with plugboard launch', async () => {
  await selectTarget(page, 'agent:coder');
  assert.equal(await page.getByRole('combobox', { name: 'Backend' }).inputValue(), '', "the agent's own by default");
  const res = await launch();
  const shown = await page.textContent('[data-testid="launch-command"]');
  assert.equal(shown, res.command, 'the command exactly as the backend built it');
  assert.ok(shown.startsWith('claude --plugin-dir '), shown);
  assert.deepEqual(await terminalArgv(), [
    '-e',
    realpathSync(pluginBin()),
    'launch',
    'agent:coder',
    '--backend',
    'claude',
    '--home',
    fx.pbHome,
  ]);
  assert.match(await page.textContent('[data-testid="launch-started"]'), /agent:coder with claude/);
  // what the launch loads
  const skills = await page.textContent('[data-testid="launch-skills"]');
  for (const s of ['review:check', 'review:explain', 'legacy-tools:grep-help']) assert.ok(skills.includes(s), skills);
  const servers = await page.textContent('[data-testid="launch-servers"]');
  assert.ok(servers.includes('lint') && servers.includes('docs'), servers);
  assert.match(await page.textContent('[data-testid="launch-plugins"]'), /legacy-tools.*as it is/);
  assert.ok(!(await page.content()).includes('do-not-leak'), 'no MCP env or header value in the page');
  // Copy puts exactly that command on the clipboard
  await page.getByRole('button', { name: 'Copy command' }).click();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), res.command);
});

test("the backend choice: pi for coder; pi-coder's own is pi and the invalid plugin is dropped", async () => {
  await selectTarget(page, 'agent:coder');
  await page.getByRole('combobox', { name: 'Backend' }).selectOption('pi');
  const res = await launch();
  assert.ok(res.command.startsWith('pi '), res.command);
  assert.equal(await page.textContent('[data-testid="launch-command"]'), res.command);
  assert.deepEqual((await terminalArgv()).slice(3, 6), ['agent:coder', '--backend', 'pi']);

  await selectTarget(page, 'agent:pi-coder');
  assert.equal(await page.getByRole('combobox', { name: 'Backend' }).inputValue(), '', 'reset for another target');
  const own = await launch();
  assert.equal(own.plan.backend, 'pi');
  assert.deepEqual((await terminalArgv()).slice(3, 6), ['agent:pi-coder', '--backend', 'pi']);
  const dropped = await page.textContent('[data-testid="launch-dropped"]');
  assert.match(dropped, /broken/);
  assert.match(dropped, /\$schema/, 'with the reason');
});

test('the backend picker offers the clients installed here and says how to install the others; Copilot CLI launches', async () => {
  await selectTarget(page, 'agent:coder');
  const option = (v) => page.locator(`[data-testid="launch-backend"] option[value="${v}"]`);
  await page.waitForFunction(
    () => document.querySelector('[data-testid="launch-backend"] option[value="codex"]')?.disabled,
  );
  assert.match(await option('codex').textContent(), /Codex \(not installed\)/);
  assert.match(await option('codex').getAttribute('title'), /npm install -g @openai\/codex/);
  for (const v of ['claude', 'pi', 'copilot']) assert.equal(await option(v).isDisabled(), false, v);
  await page.getByRole('combobox', { name: 'Backend' }).selectOption('copilot');
  const res = await launch();
  assert.equal(res.plan.backend, 'copilot');
  assert.match(res.command, /^COPILOT_HOME=\S+\/runtime\/copilot-home\/[0-9a-f]{32} copilot --plugin-dir /, res.command);
  assert.match(res.command, /--additional-mcp-config @/);
  assert.deepEqual(res.plan.envKeys, ['PLUGBOARD_ACTIVITY_TARGET', 'COPILOT_HOME']);
  assert.deepEqual((await terminalArgv()).slice(3, 6), ['agent:coder', '--backend', 'copilot']);
  const skills = await page.textContent('[data-testid="launch-skills"]');
  for (const s of ['check', 'explain', 'grep-help']) assert.ok(skills.includes(s), skills);
  assert.ok(!(await page.content()).includes('do-not-leak'), 'no MCP env or header value in the page');
});

test('a colliding set is refused, naming the skill, and no terminal is opened', async () => {
  await selectTarget(page, 'agent:clash');
  rmSync(record, { force: true });
  await launchButton().click();
  await page.waitForSelector('[data-testid="launch-refused"]');
  assert.match(await page.textContent('[data-testid="launch-refused"]'), /"check"/);
  const c = page.locator('[data-testid="launch-collision"][data-name="check"]');
  assert.equal(await c.count(), 1);
  assert.match(await c.textContent(), /skill check is provided by other and review/);
  assert.equal(await page.locator('[data-testid="launch-command"]').count(), 0);
  assert.equal(existsSync(record), false, 'the terminal was not started');
});

test('read-only targets: a defaults slot launches; the __active__ slot cannot, and says why', async () => {
  await selectTarget(page, 'template:team/coder');
  const res = await launch();
  assert.ok(res.command.startsWith('claude --plugin-dir '), res.command);
  assert.equal((await terminalArgv())[3], res.plan.target);
  await page.waitForSelector('[data-testid="launch-command"]');

  await selectTarget(page, 'template:team/__active__');
  assert.equal(await launchButton().isDisabled(), true);
  assert.match(await page.textContent('[data-testid="launch-unavailable"]'), /__active__.*Launch that agent instead/);
  assert.equal(await page.locator('[data-testid="launch-command"]').count(), 0, 'the last outcome is not shown');
});

test('a missing client is said before any terminal opens, and by Try, with its install command to copy', async () => {
  const other = await startServe({
    ...fx,
    env: { TERMINAL: stand, ...noBins, PLUGBOARD_CLAUDE_BIN: join(fx.dir, 'no-such-claude') },
  });
  const p = await newPage(browser);
  try {
    rmSync(record, { force: true });
    await p.goto(other.url);
    await waitReady(p);
    await p.click('[data-testid="tab-assign"]');
    await p.click('[data-testid="target"][data-id="agent:coder"]');
    await p.getByRole('button', { name: 'Launch', exact: true }).click();
    await p.waitForSelector('[data-testid="launch-error"][data-code="client-missing"]');
    assert.match(
      await p.textContent('[data-testid="launch-error"]'),
      /Claude Code \(.*no-such-claude\) is not installed/,
    );
    assert.equal(await p.textContent('[data-testid="launch-hint"]'), 'npm install -g @anthropic-ai/claude-code');
    assert.equal(existsSync(record), false, 'no terminal was opened');
    // Try says it the same way, with the same command to copy
    await p.fill('[data-testid="try-prompt"]', 'hello');
    await p.click('[data-testid="try-button"]');
    await p.waitForSelector('[data-testid="try-error"][data-code="client-missing"]');
    assert.match(await p.textContent('[data-testid="try-error"]'), /Claude Code \(.*no-such-claude\) is not installed/);
    assert.equal(await p.textContent('[data-testid="try-hint"]'), 'npm install -g @anthropic-ai/claude-code');
  } finally {
    await p.context().close();
    await other.stop();
  }
});

test('without a terminal the page shows the command to run by hand', async () => {
  const other = await startServe({ ...fx, env: { TERMINAL: join(fx.dir, 'no-such-terminal'), ...noBins } });
  const p = await newPage(browser);
  try {
    await p.goto(other.url);
    await waitReady(p);
    await p.click('[data-testid="tab-assign"]');
    await p.click('[data-testid="target"][data-id="agent:coder"]');
    await p.getByRole('button', { name: 'Launch', exact: true }).click();
    await p.waitForSelector('[data-testid="launch-error"][data-code="no-terminal"]');
    const manual = await p.textContent('[data-testid="launch-manual"]');
    assert.ok(manual.endsWith(`launch agent:coder --backend claude --home ${fx.pbHome}`), manual);
    assert.ok(manual.startsWith(realpathSync(pluginBin())), manual);
  } finally {
    await p.context().close();
    await other.stop();
  }
});
