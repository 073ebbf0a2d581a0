// What each client loads, against the real backend on a temp copy of testdata/assign/home with three
// more packages written here: a Claude plugin with commands/ and agents/, a folder whose root
// plugin.json the specification rejects (no $schema) beside a valid .claude-plugin/plugin.json, and
// a Claude manifest whose version is a number, which Claude Code refuses. The Plugins list shows a
// badge per client; the detail shows the Clients section, Claude's commands and agents, and for the
// spec-rejected folder the plain sentence and the "Launch as Claude loads it" toggle (SetLaunchAs);
// the assignment editor follows the choice. The real claude 2.1.328 (build/agents) is on the
// server's PATH: each verdict says it was judged by the model of that release, and the detail shows
// what that claude, asked in the background, said it loads.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  launchBrowser,
  makeAssignFixture,
  newPage,
  repoRoot,
  selectTarget,
  startServe,
  waitFor,
  waitReady,
} from './harness.mjs';

let fx, srv, browser, page, binDir;
const calls = []; // [method, args] of every SetLaunchAs the page sent

function write(root, files) {
  for (const [rel, text] of Object.entries(files)) {
    const p = join(root, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
}

const skill = (name, description) => `---\nname: ${name}\ndescription: ${description}\n---\nBody.\n`;

before(async () => {
  fx = makeAssignFixture();
  const plugins = join(fx.pbHome, 'plugins');
  write(join(plugins, 'cmdagents'), {
    '.claude-plugin/plugin.json': '{"name": "cmdagents", "version": "1.0.0", "description": "Commands and agents"}\n',
    'commands/review.md': '---\ndescription: Review the current diff\n---\nReview it.\n',
    'commands/ship.md': 'Ship it.\n',
    'agents/helper.md': '---\nname: helper\ndescription: Helps with chores\n---\nHelp.\n',
    'skills/hello/SKILL.md': skill('hello', 'Say hello'),
  });
  write(join(plugins, 'dual'), {
    'plugin.json': '{"name": "Dual Root"}\n',
    '.claude-plugin/plugin.json': '{"name": "dual", "version": "0.1.0"}\n',
    'skills/greet/SKILL.md': skill('greet', 'Greet someone'),
  });
  write(join(plugins, 'bad-author'), {
    '.claude-plugin/plugin.json': '{"name": "bad-author", "version": 1}\n',
    'skills/hi/SKILL.md': skill('hi', 'Say hi'),
  });
  write(join(plugins, 'native-code'), {
    '.claude-plugin/plugin.json': '{"name": "native-code", "version": "1.0.0"}\n',
    '.mcp.json':
      '{"mcpServers": {"db": {"command": "/opt/bin/node", "args": ["server.js"], "env": {"K": "PLANTED"}}}}\n',
    'skills/s/SKILL.md': skill('s', 'A skill'),
  });
  // a standalone skill in the user's ~/.claude/skills, which claude is asked about too
  write(join(fx.home, '.claude', 'skills'), { 'tidy/SKILL.md': skill('tidy', 'Tidy the workspace') });
  // the pinned claude 2.1.328, installed as a user has it: a `claude` on PATH
  binDir = mkdtempSync(join(tmpdir(), 'plugboard-e2e-bin-'));
  symlinkSync(
    join(repoRoot, 'build', 'agents', 'node_modules', 'claude-code-2.1.328', 'bin', 'claude.exe'),
    join(binDir, 'claude'),
  );
  srv = await startServe({ ...fx, env: { PATH: `${binDir}:/usr/bin:/bin` } });
  browser = await launchBrowser();
  page = await newPage(browser);
  page.on('request', (r) => {
    if (r.url().endsWith('/api/SetLaunchAs')) calls.push(JSON.parse(r.postData() ?? 'null'));
  });
  await page.goto(srv.url);
  await waitReady(page);
});

after(async () => {
  await browser?.close();
  await srv?.stop();
  fx?.cleanup();
  if (binDir) rmSync(binDir, { recursive: true, force: true });
});

async function badges(id) {
  return page.$$eval(`[data-testid="plugin-row"][data-id="${id}"] [data-testid="client-badge"]`, (els) =>
    Object.fromEntries(els.map((e) => [e.dataset.client, { state: e.dataset.state, title: e.title }])),
  );
}

async function openPlugin(id) {
  await page.click('[data-testid="tab-plugins"]');
  await page.click(`[data-testid="plugin-row"][data-id="${id}"]`);
  await page.waitForSelector(`[data-testid="detail"] article[data-id="${id}"]`);
}

test('the overview lists the agent clients on this machine, with where each version was read', async () => {
  const card = page.locator('[data-testid="installed-clients"]');
  await card.waitFor({ timeout: 20000 });
  const rows = await card
    .locator('[data-testid="installed-client"]')
    .evaluateAll((els) => els.map((e) => [e.dataset.client, e.dataset.found, e.innerText]));
  assert.deepEqual(
    rows.map(([c, f]) => [c, f]),
    [
      ['claude', 'true'],
      ['codex', 'false'],
      ['pi', 'false'],
      ['cursor-agent', 'false'],
    ],
  );
  assert.match(rows[0][2], /^claude 2\.1\.328 .*\/claude \(version from package\.json\)$/);
  assert.match(rows[1][2], /^codex not installed$/);
});

test('the Plugins list shows a badge per client: loads, does not load, not a package, each with why', async () => {
  const rowHeights = await page.$$eval('[data-testid="plugin-row"]', (els) => [
    ...new Set(els.map((e) => e.getBoundingClientRect().height)),
  ]);
  assert.deepEqual(rowHeights, [60], 'every row keeps the list height');
  for (const id of ['cmdagents', 'dual', 'bad-author', 'notes']) {
    const b = await badges(id);
    assert.deepEqual(Object.keys(b), ['claude', 'cursor', 'codex', 'pi'], id);
    for (const v of Object.values(b)) assert.ok(v.title.length > 10, `${id}: a badge without why: ${v.title}`);
  }
  const dual = await badges('dual');
  assert.equal(dual.claude.state, 'loads');
  assert.match(dual.claude.title, /\.claude-plugin\/plugin\.json/);
  assert.equal(dual.cursor.state, 'none');
  assert.match(dual.cursor.title, /not a Cursor plugin/);
  assert.equal((await badges('bad-author')).claude.state, 'refused');
  assert.equal((await badges('notes')).cursor.state, 'loads');
  const text = await page.locator('[data-testid="plugin-row"][data-id="dual"]').innerText();
  assert.match(text, /Claude/);
  assert.match(text, /invalid/);
});

test('the detail shows the Clients section and the commands and agents of a Claude plugin', async () => {
  await openPlugin('cmdagents');
  const detail = page.locator('[data-testid="detail"]');
  const spec = await detail.locator('[data-testid="spec-verdict"]').innerText();
  assert.match(spec, /legacy/);
  assert.match(spec, /\.claude-plugin\/plugin\.json/);
  assert.match(spec, /valid/);
  const clients = await detail
    .locator('[data-testid="detail-client"]')
    .evaluateAll((els) => els.map((e) => [e.dataset.client, e.dataset.state]));
  assert.deepEqual(clients, [
    ['claude', 'loads'],
    ['cursor', 'none'],
    ['codex', 'loads'],
    ['pi', 'loads'],
  ]);
  const claude = await detail.locator('[data-testid="detail-client"][data-client="claude"]').innerText();
  assert.match(claude, /Claude Code/);
  assert.match(claude, /reads \.claude-plugin\/plugin\.json/);
  assert.match(claude, /1 skill/);
  assert.match(claude, /cmdagents:hello/);
  const commands = await detail
    .locator('[data-testid="detail-command"]')
    .evaluateAll((els) => els.map((e) => [e.dataset.name, e.innerText]));
  assert.deepEqual(
    commands.map(([n]) => n),
    ['cmdagents:review', 'cmdagents:ship'],
  );
  assert.match(commands[0][1], /Review the current diff/);
  assert.match(commands[0][1], /commands\/review\.md/);
  const agents = await detail.locator('[data-testid="detail-agent"]').allInnerTexts();
  assert.equal(agents.length, 1);
  assert.match(agents[0], /cmdagents:helper/);
  assert.match(agents[0], /Helps with chores/);
  assert.match(agents[0], /agents\/helper\.md/);
  // a valid package has nothing to choose
  assert.equal(await detail.locator('[data-testid="launch-as-claude"]').count(), 0);
  assert.equal(await detail.locator('[data-testid="claude-only"]').count(), 0);
});

test('each verdict says what it was judged by, and the installed claude answers beside the model', async () => {
  await openPlugin('cmdagents');
  const claude = page.locator('[data-testid="detail-client"][data-client="claude"]');
  assert.equal(
    await claude.locator('[data-testid="client-judged-by"]').innerText(),
    'model of claude 2.1.328, claude 2.1.328 installed',
  );
  assert.match(
    await page
      .locator('[data-testid="detail-client"][data-client="codex"] [data-testid="client-judged-by"]')
      .innerText(),
    /^model of codex \S+, codex not installed$/,
  );
  // asked in the background after the scan: the answer replaces "Asking…" when it comes
  const asked = claude.locator('[data-testid="client-asked"]');
  await asked.waitFor({ timeout: 60000 });
  assert.equal(await asked.getAttribute('data-state'), 'agrees', await asked.innerText());
  assert.equal(await asked.innerText(), 'claude 2.1.328 on this machine loads what the model says');
  const token = new URL(srv.url).searchParams.get('token');
  const answers = await fetch(`${srv.origin}/api/ClientAnswers`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Plugboard-Token': token },
    body: '[]',
  }).then((r) => r.json());
  const mine = answers.answers.find((r) => r.plugin === 'cmdagents');
  assert.deepEqual(mine.answer.skills, ['cmdagents:hello'], JSON.stringify(mine));
  assert.deepEqual(mine.differs, []);
});

test("a standalone skill's detail says what the installed claude lists of its folder", async () => {
  await page.click('[data-testid="tab-skills"]');
  await page.click('[data-testid="skill-row"][data-id="tidy"]');
  const card = page.locator('[data-testid="skill-clients-asked"]');
  await card.waitFor({ timeout: 60000 });
  const asked = card.locator('[data-testid="client-asked"]');
  assert.equal(await asked.getAttribute('data-state'), 'agrees', await card.innerText());
  assert.equal(await asked.innerText(), 'claude 2.1.328 on this machine loads what the model says');
});

test('a legacy plugin says in one line what Claude Code starts itself from it', async () => {
  await openPlugin('native-code');
  const line = await page.locator('[data-testid="detail-native"]').innerText();
  assert.equal(
    line,
    'Claude Code starts these itself; Plugboard does not manage or acknowledge them: MCP server db (node)',
  );
  assert.doesNotMatch(await page.locator('[data-testid="detail"]').innerText(), /PLANTED|server\.js/);
});

test('a client that refuses the package says why, with its issues', async () => {
  await openPlugin('bad-author');
  const claude = page.locator('[data-testid="detail-client"][data-client="claude"]');
  assert.equal(await claude.getAttribute('data-state'), 'refused');
  const text = await claude.innerText();
  assert.match(text, /does not load/);
  assert.ok((await claude.locator('[data-testid="issue"][data-severity="error"]').count()) > 0, text);
});

test('spec rejects, Claude loads: the plain sentence, and the toggle calls SetLaunchAs', async () => {
  // before: the assignment editor keeps dual unassignable, with the same sentence
  await page.click('[data-testid="tab-assign"]');
  await selectTarget(page, 'agent:bare');
  const dualRow = page.locator('[data-testid="assign-row"][data-id="dual"]');
  assert.equal(await dualRow.locator('[data-testid="assign-check"]').isDisabled(), true);
  assert.match(
    await dualRow.locator('[data-testid="claude-only"]').innerText(),
    /The specification rejects this package, but Claude Code loads it: Claude reads \.claude-plugin\/plugin\.json/,
  );

  await openPlugin('dual');
  const detail = page.locator('[data-testid="detail"]');
  assert.match(await detail.locator('[data-testid="spec-verdict"]').innerText(), /INVALID/);
  const sentence = await detail.locator('[data-testid="claude-only"]').innerText();
  assert.match(
    sentence,
    /^The specification rejects this package, but Claude Code loads it: Claude reads \.claude-plugin\/plugin\.json/,
  );
  const toggle = detail.locator('[data-testid="launch-as-claude"]');
  assert.equal(await toggle.innerText(), 'Launch as Claude loads it');
  assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
  assert.match(await detail.locator('[data-testid="launch-as-state"]').innerText(), /^Off/);

  await toggle.click();
  await waitFor(() => calls.length === 1, { message: 'SetLaunchAs sent' });
  assert.deepEqual(calls[0], ['dual', 'claude']);
  await waitFor(
    async () =>
      (await page.getAttribute('[data-testid="detail"] [data-testid="launch-as-claude"]', 'aria-pressed')) === 'true',
    { message: 'the detail shows the toggle on' },
  );
  assert.match(await detail.locator('[data-testid="launch-as-state"]').innerText(), /^On: /);
  assert.match(await detail.locator('.detail-badges').innerText(), /launches as Claude loads it/);
  assert.equal(await detail.locator('[data-testid="launch-as-status"]').innerText(), '');
  // the choice is in settings.json
  const saved = JSON.parse(readFileSync(join(fx.pbHome, 'settings.json'), 'utf8'));
  assert.deepEqual(saved.launchAs, { dual: 'claude' });
  assert.equal(saved.shellBindings['main-shell'].agent, 'researcher', 'other members kept');

  // the assignment editor: assignable, with the note
  await page.click('[data-testid="tab-assign"]');
  await selectTarget(page, 'agent:bare');
  await waitFor(async () => (await dualRow.locator('[data-testid="launch-as-note"]').count()) === 1, {
    message: 'the launch-as note in the assignment editor',
  });
  assert.equal(await dualRow.locator('[data-testid="launch-as-note"]').innerText(), 'launches as Claude loads it');
  assert.equal(await dualRow.locator('[data-testid="assign-check"]').isDisabled(), false);
  assert.equal(await dualRow.locator('[data-testid="claude-only"]').count(), 0);

  // and off again
  await openPlugin('dual');
  await detail.locator('[data-testid="launch-as-claude"]').click();
  await waitFor(() => calls.length === 2, { message: 'SetLaunchAs sent again' });
  assert.deepEqual(calls[1], ['dual', '']);
  await waitFor(
    async () =>
      (await page.getAttribute('[data-testid="detail"] [data-testid="launch-as-claude"]', 'aria-pressed')) === 'false',
    { message: 'the detail shows the toggle off' },
  );
});
