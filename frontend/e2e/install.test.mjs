// Installing plugins from the page (issue 14) against the real backend on a copy of
// testdata/runtime/home: the Install dialog installs from a local folder and from a local git
// repository (progress lines shown, the new plugin listed and selected, its MCP servers not
// acknowledged); an invalid package is refused with its issues, then installed with Force; a
// marketplace added from a local folder lists its plugins, the search box filters them, and one
// installs as NAME@MARKETPLACE; Uninstall is refused while `plugboard assign` assigns the plugin,
// naming the target, and "Uninstall anyway" removes it; a new commit in the repository shows as
// "update available" after Check for updates, with its summary, and Update and Rollback move the
// plugin between the two versions.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launchBrowser, makeRuntimeFixture, newPage, pluginBin, startServe, waitReady } from './harness.mjs';

let fx, srv, browser, page;

const SCHEMA = 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json';

/** Writes a plugin package: plugin.json, one skill per name, and an mcp.json when servers are given. */
function writePlugin(dir, { name, version = '1.0.0', description = `The ${name} plugin`, skills = ['hello'], mcp }) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'plugin.json'), JSON.stringify({ $schema: SCHEMA, name, version, description }, null, 2));
  for (const s of skills) {
    mkdirSync(join(dir, 'skills', s), { recursive: true });
    writeFileSync(join(dir, 'skills', s, 'SKILL.md'), `---\nname: ${s}\ndescription: Says ${s}.\n---\n${s}\n`);
  }
  if (mcp) {
    writeFileSync(
      join(dir, 'mcp.json'),
      JSON.stringify({ $schema: 'https://agent-plugins.org/schemas/1.0.0/mcp.schema.json', mcpServers: mcp }, null, 2),
    );
  }
}

function git(dir, ...args) {
  return execFileSync('git', args, {
    cwd: dir,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Plugboard tests',
      GIT_AUTHOR_EMAIL: 'tests@example.com',
      GIT_COMMITTER_NAME: 'Plugboard tests',
      GIT_COMMITTER_EMAIL: 'tests@example.com',
      GIT_CONFIG_NOSYSTEM: '1',
      HOME: fx.home,
    },
  }).trim();
}

function cli(...args) {
  const env = { ...process.env, HOME: fx.home };
  delete env.PLUGBOARD_HOME;
  return execFileSync(pluginBin(), [...args, '--home', fx.pbHome], { env, encoding: 'utf8' });
}

function lockfile() {
  const p = join(fx.pbHome, 'plugins.lock.json');
  return existsSync(p) ? JSON.parse(readFileSync(p, 'utf8')).plugins : {};
}

before(async () => {
  fx = makeRuntimeFixture();
  srv = await startServe(fx);
  browser = await launchBrowser();
  page = await newPage(browser);
  await page.goto(srv.url);
  await waitReady(page);
});

after(async () => {
  await browser?.close();
  await srv?.stop();
  fx?.cleanup();
});

const dialog = () => page.getByTestId('install-dialog');
const row = (id) => page.locator(`[data-testid="plugin-row"][data-id="${id}"]`);

async function openDialog() {
  if (await dialog().isVisible()) return;
  await page.getByRole('button', { name: 'Install…' }).click();
  await dialog().waitFor();
}

/** Fills the source (and clears the options) and presses Install. */
async function installFrom(source, { name = '' } = {}) {
  await openDialog();
  await dialog().getByRole('textbox', { name: 'Source', exact: true }).fill(source);
  await dialog().getByRole('textbox', { name: 'Name (the plugin id)' }).fill(name);
  await dialog().getByRole('button', { name: 'Install', exact: true }).click();
}

/** Waits for the detail of plugin id to be the one shown, with its Installed card. */
async function waitSelected(id) {
  await page.locator(`[data-testid="detail"] article[data-id="${id}"] [data-testid="detail-installed"]`).waitFor();
  await row(id).and(page.locator('[aria-selected="true"]')).waitFor();
}

test('a plugin folder installs from the dialog: listed, selected, its servers not acknowledged', async () => {
  const src = join(fx.dir, 'src', 'greeter');
  writePlugin(src, {
    name: 'greeter',
    mcp: {
      weather: { type: 'stdio', command: 'weather-server', args: ['--port', '0'], env: { TOKEN: 'secret-value' } },
    },
  });
  assert.equal(await row('greeter').count(), 0);
  await installFrom(src);
  await dialog().waitFor({ state: 'detached' });
  await waitSelected('greeter');
  const card = page.getByTestId('detail-installed');
  assert.match(await card.getByTestId('install-outcome').innerText(), /Installed greeter from .*src\/greeter; valid\./);
  const server = card.locator('[data-testid="install-server"][data-name="weather"]');
  assert.match(await server.innerText(), /weather: stdio, runs weather-server \(2 arguments\)\s*not acknowledged/);
  assert.match(await card.getByTestId('install-servers').innerText(), /Launch card/);
  assert.doesNotMatch(await card.innerText(), /secret-value/);
  // the progress lines of the install, as the backend wrote them
  const progress = await card.locator('.progress-lines li').allTextContents();
  assert.ok(
    progress.some((l) => /^copying .*greeter/.test(l)),
    progress.join('\n'),
  );
  assert.ok(
    progress.some((l) => /^installed .* as plugins\/greeter$/.test(l)),
    progress.join('\n'),
  );
  assert.match(await card.getByTestId('installed-source').innerText(), /src\/greeter$/);
  assert.equal(lockfile().greeter.kind, 'folder');
  assert.ok(existsSync(join(fx.pbHome, 'plugins', 'greeter', 'plugin.json')));
});

test('a local git repository installs at its commit', async () => {
  const repo = join(fx.dir, 'src', 'hello-repo');
  writePlugin(repo, { name: 'hello-git', version: '0.1.0', skills: ['wave'] });
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'first');
  const commit = git(repo, 'rev-parse', 'HEAD');
  await installFrom(repo);
  await dialog().waitFor({ state: 'detached' });
  await waitSelected('hello-git');
  const card = page.getByTestId('detail-installed');
  assert.equal(await card.getByTestId('installed-commit').innerText(), commit.slice(0, 12));
  assert.match(await card.getByTestId('install-outcome').innerText(), new RegExp(`at ${commit.slice(0, 12)}; valid`));
  const progress = await card.locator('.progress-lines li').allTextContents();
  assert.ok(
    progress.some((l) => l.startsWith(`fetching ${repo}`)),
    progress.join('\n'),
  );
  assert.equal(lockfile()['hello-git'].commit, commit);
  assert.equal(await row('hello-git').count(), 1);
  const rollback = card.getByRole('button', { name: 'Rollback', exact: true });
  assert.equal(await rollback.isDisabled(), true, 'nothing to roll back to after an install');
  assert.match(await rollback.getAttribute('title'), /^Nothing to roll back to/);
});

test('an invalid package is refused with its issues, and installs with Force', async () => {
  const bad = join(fx.dir, 'src', 'sloppy');
  mkdirSync(bad, { recursive: true });
  writeFileSync(join(bad, 'plugin.json'), JSON.stringify({ name: 'sloppy', version: '1.0.0' }, null, 2));
  mkdirSync(join(bad, 'skills', 'hi'), { recursive: true });
  writeFileSync(join(bad, 'skills', 'hi', 'SKILL.md'), '---\nname: hi\ndescription: Hi.\n---\nHi.\n');
  await openDialog();
  assert.equal(await dialog().getByTestId('install-force').isVisible(), false, 'no Force before a refusal');
  await installFrom(bad);
  const issues = dialog().getByTestId('install-issues');
  await issues.waitFor();
  assert.match(
    await dialog().getByTestId('install-status').innerText(),
    /Not installed: .*sloppy is not a valid plugin/,
  );
  assert.match(
    (await issues.locator('[data-testid="issue"]').allInnerTexts()).join('\n'),
    /^plugin\.json:1: error: .*\$schema/m,
  );
  assert.equal(existsSync(join(fx.pbHome, 'plugins', 'sloppy')), false);
  assert.equal(lockfile().sloppy, undefined);

  const force = dialog().getByRole('checkbox', { name: /Force: install it even though it has errors/ });
  await force.check();
  await dialog().getByRole('button', { name: 'Install', exact: true }).click();
  await dialog().waitFor({ state: 'detached' });
  await waitSelected('sloppy');
  assert.match(await page.getByTestId('install-outcome').innerText(), /installed with Force: it has errors/);
  assert.ok(lockfile().sloppy);
});

test('a marketplace added from a folder lists its plugins; search filters; Install installs NAME@MARKETPLACE', async () => {
  const market = join(fx.dir, 'market');
  writePlugin(join(market, 'plugins', 'formatter'), { name: 'formatter', description: 'Formats code neatly' });
  writePlugin(join(market, 'plugins', 'linter'), {
    name: 'linter',
    description: 'Finds lint in prose',
    skills: ['lint'],
  });
  mkdirSync(join(market, '.claude-plugin'), { recursive: true });
  writeFileSync(
    join(market, '.claude-plugin', 'marketplace.json'),
    JSON.stringify(
      {
        name: 'team-tools',
        owner: { name: 'Team' },
        plugins: [
          { name: 'formatter', source: './plugins/formatter', description: 'Formats code neatly', version: '1.0.0' },
          { name: 'linter', source: './plugins/linter', description: 'Finds lint in prose', version: '1.0.0' },
        ],
      },
      null,
      2,
    ),
  );
  await openDialog();
  await dialog().getByTestId('market-none').waitFor();
  await dialog().getByRole('textbox', { name: 'Marketplace source' }).fill(market);
  await dialog().getByRole('button', { name: 'Add marketplace' }).click();
  const plugins = dialog().getByTestId('market-plugin');
  await dialog().locator('[data-testid="market"][data-name="team-tools"]').waitFor();
  assert.match(await dialog().getByTestId('market-status').innerText(), /Added marketplace team-tools \(2 plugins\)/);
  assert.deepEqual(await plugins.evaluateAll((els) => els.map((e) => e.dataset.id)), [
    'formatter@team-tools',
    'linter@team-tools',
  ]);
  // the search matches descriptions too
  await dialog()
    .getByRole('searchbox', { name: /Search marketplace plugins/ })
    .fill('prose');
  assert.deepEqual(await plugins.evaluateAll((els) => els.map((e) => e.dataset.id)), ['linter@team-tools']);
  await dialog().getByRole('button', { name: 'Install linter@team-tools' }).click();
  await dialog().waitFor({ state: 'detached' });
  await waitSelected('linter');
  assert.match(await page.getByTestId('install-outcome').innerText(), /Installed linter from linter@team-tools; valid/);
  assert.equal(lockfile().linter.source, join(market, 'plugins', 'linter'));
  assert.equal(JSON.parse(cli('marketplace', 'list', '--json')).marketplaces[0].name, 'team-tools');
});

test('a new commit: Check shows "update available" with the summary; Update, then Rollback', async () => {
  const repo = join(fx.dir, 'src', 'hello-repo');
  const first = git(repo, 'rev-parse', 'HEAD');
  writePlugin(repo, {
    name: 'hello-git',
    version: '0.2.0',
    skills: ['wave', 'bow'],
    mcp: { clock: { type: 'stdio', command: 'clock-server' } },
  });
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'second');
  const second = git(repo, 'rev-parse', 'HEAD');
  assert.equal(await row('hello-git').getByTestId('update-badge').count(), 0, 'no badge before a check');

  await page.getByRole('button', { name: 'Check for updates' }).click();
  await row('hello-git').getByTestId('update-badge').waitFor();
  assert.match(await page.getByTestId('plugins-notice').innerText(), /1 update available/);
  assert.equal(await row('greeter').getByTestId('update-badge').count(), 0, 'an unchanged folder has no badge');
  await row('hello-git').click();
  const state = page.locator('[data-testid="detail-installed"] [data-testid="update-state"]');
  await state.and(page.locator('[data-state="available"]')).waitFor();
  const summary = await page.getByTestId('update-summary').locator('li').allInnerTexts();
  assert.ok(summary.includes('version 0.1.0 → 0.2.0'), summary.join('\n'));
  assert.ok(summary.includes(`commit ${first.slice(0, 12)} → ${second.slice(0, 12)}`), summary.join('\n'));
  assert.ok(summary.includes('skills: added bow'), summary.join('\n'));
  assert.ok(summary.includes('MCP servers: added clock'), summary.join('\n'));
  assert.ok(
    summary.some((l) => /^MCP server clock needs acknowledgment/.test(l)),
    summary.join('\n'),
  );
  assert.equal(lockfile()['hello-git'].commit, first, 'a check changes nothing');

  await page.getByRole('button', { name: 'Update', exact: true }).click();
  const status = page.getByTestId('installed-status');
  await status.waitFor();
  assert.match(await status.innerText(), /Updated hello-git: version 0\.1\.0 → 0\.2\.0, commit /);
  await page.locator('[data-testid="installed-commit"]', { hasText: second.slice(0, 12) }).waitFor();
  await row('hello-git').locator('.pver', { hasText: '0.2.0' }).waitFor();
  assert.equal(await row('hello-git').getByTestId('update-badge').count(), 0);
  assert.equal(lockfile()['hello-git'].commit, second);
  assert.ok(existsSync(join(fx.pbHome, 'plugins', 'hello-git', 'skills', 'bow', 'SKILL.md')));

  const rollback = page.getByRole('button', { name: 'Rollback', exact: true });
  assert.equal(await rollback.isDisabled(), false, 'the update kept the version it replaced');
  assert.equal(
    await rollback.getAttribute('title'),
    `Put back the version the last update replaced (commit ${first.slice(0, 12)})`,
  );
  await rollback.click();
  await page.locator('[data-testid="installed-status"]', { hasText: 'Rolled back hello-git' }).waitFor();
  await page.locator('[data-testid="installed-commit"]', { hasText: first.slice(0, 12) }).waitFor();
  await row('hello-git').locator('.pver', { hasText: '0.1.0' }).waitFor();
  assert.equal(lockfile()['hello-git'].commit, first);
  assert.equal(existsSync(join(fx.pbHome, 'plugins', 'hello-git', 'skills', 'bow')), false);

  // A kept copy changed by hand is refused; the error goes once Check for updates gives a new state.
  writeFileSync(join(fx.pbHome, 'state', 'rollback', 'hello-git', 'plugin', 'extra.txt'), 'edited\n');
  await rollback.click();
  const failed = page.locator('[data-testid="installed-status"] [data-kind="error"]');
  await failed.waitFor();
  await page.getByRole('button', { name: 'Check for updates' }).click();
  await failed.waitFor({ state: 'detached' });
  assert.equal(lockfile()['hello-git'].commit, first, 'the refused rollback changed nothing');
});

test('an update of a legacy plugin lists the code Claude Code starts itself that it adds, by name and program only', async () => {
  const repo = join(fx.dir, 'src', 'legacy-repo');
  mkdirSync(join(repo, '.claude-plugin'), { recursive: true });
  writeFileSync(join(repo, '.claude-plugin', 'plugin.json'), JSON.stringify({ name: 'legacy-git', version: '1.0.0' }));
  mkdirSync(join(repo, 'skills', 'tidy'), { recursive: true });
  writeFileSync(join(repo, 'skills', 'tidy', 'SKILL.md'), '---\nname: tidy\ndescription: Tidies up.\n---\ntidy\n');
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'first');
  await installFrom(repo);
  await dialog().waitFor({ state: 'detached' });
  await waitSelected('legacy-git');

  writeFileSync(
    join(repo, '.lsp.json'),
    JSON.stringify({ go: { command: 'gopls', args: ['serve', '--token=PLANTED'] } }),
  );
  mkdirSync(join(repo, 'hooks'), { recursive: true });
  writeFileSync(
    join(repo, 'hooks', 'hooks.json'),
    JSON.stringify({
      hooks: { SessionStart: [{ hooks: [{ type: 'command', command: 'API_KEY=PLANTED ./hooks/start.sh --fast' }] }] },
    }),
  );
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'second');
  await page.getByRole('button', { name: 'Check for updates' }).click();
  await row('legacy-git').getByTestId('update-badge').waitFor();
  await row('legacy-git').click();
  await page
    .locator('[data-testid="detail-installed"] [data-testid="update-state"]')
    .and(page.locator('[data-state="available"]'))
    .waitFor();
  const summary = await page.getByTestId('update-summary').locator('li').allInnerTexts();
  const itself = ' — Claude Code starts it itself; Plugboard does not manage or acknowledge it';
  assert.ok(summary.includes('LSP server go added (.lsp.json; runs gopls)' + itself), summary.join('\n'));
  assert.ok(summary.includes('hook SessionStart added (hooks/hooks.json; runs start.sh)' + itself), summary.join('\n'));
  assert.ok(!summary.join('\n').includes('PLANTED'), summary.join('\n'));
});

test('Uninstall is refused while a target assigns the plugin; Uninstall anyway removes it', async () => {
  cli('assign', 'agent:coder', '--add', 'greeter', '--ack-mcp');
  await page.getByTestId('search').fill('greeter');
  await row('greeter').click();
  await page.locator('[data-testid="detail"] article[data-id="greeter"] [data-testid="detail-installed"]').waitFor();
  await page.getByRole('button', { name: 'Uninstall', exact: true }).click();
  await page.getByTestId('uninstall-dialog').waitFor();
  await page.getByTestId('uninstall-confirm').click();
  const status = page.getByTestId('installed-status');
  await status.waitFor();
  assert.match(await status.innerText(), /Not uninstalled: greeter is assigned to agent:coder/);
  // the agent, and the template slot that uses the agent's plugins
  assert.deepEqual(await page.getByTestId('uninstall-targets').locator('li').allInnerTexts(), [
    'agent:coder',
    'template:team/coder',
  ]);
  assert.ok(existsSync(join(fx.pbHome, 'plugins', 'greeter')), 'still installed');

  await page.getByRole('button', { name: 'Uninstall anyway' }).click();
  await row('greeter').waitFor({ state: 'detached' });
  assert.match(
    await page.getByTestId('plugins-notice').innerText(),
    /Uninstalled greeter; agent:coder, template:team\/coder still name it/,
  );
  assert.equal(existsSync(join(fx.pbHome, 'plugins', 'greeter')), false);
  assert.equal(lockfile().greeter, undefined);
  await page.getByTestId('search').fill('');
});

test('the Install dialog is modal: the page behind is inert, Tab stays in it, Escape and the backdrop close it and the focus returns to Install…', async () => {
  const opener = page.getByRole('button', { name: 'Install…' });
  const focusedTestid = () => page.evaluate(() => document.activeElement?.getAttribute('data-testid'));
  await opener.focus();
  await page.keyboard.press('Enter');
  const named = page.getByRole('dialog', { name: 'Install a plugin' });
  await named.waitFor();
  assert.equal(await named.evaluate((d) => d.matches('dialog:modal')), true, 'shown with showModal');
  assert.equal(await focusedTestid(), 'install-source', 'the first field has the focus');
  // the page behind takes no focus
  assert.equal(
    await page.evaluate(() => {
      const b = document.querySelector('[data-testid="search"]');
      b.focus();
      return document.activeElement === b;
    }),
    false,
  );
  for (let i = 0; i < 20; i++) {
    await page.keyboard.press(i < 10 ? 'Tab' : 'Shift+Tab');
    assert.ok(
      await page.evaluate(() => !!document.activeElement?.closest('[data-testid="install-dialog"]')),
      `Tab ${i}`,
    );
  }
  await page.keyboard.press('Escape');
  await dialog().waitFor({ state: 'detached' });
  assert.equal(await focusedTestid(), 'install-open', 'Escape: the focus is back on Install…');

  await opener.click();
  await dialog().waitFor();
  const box = await dialog().boundingBox();
  await page.mouse.click(box.x + 8, box.y + 8);
  assert.equal(await dialog().isVisible(), true, 'a click inside keeps it open');
  await page.mouse.click(box.x + box.width / 2, box.y + box.height + 20);
  await dialog().waitFor({ state: 'detached' });
  assert.equal(await focusedTestid(), 'install-open', 'backdrop: the focus is back on Install…');
});
