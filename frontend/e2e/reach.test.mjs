// Reach (issue 11 item 6) against the real backend: a plugin Cursor installed from its marketplace
// (~/.cursor/plugins/cache/<marketplace>/<plugin>/<revision>) is in the assignment checklist by its
// id, is saved as an entry without the revision folder, asks for its MCP server's acknowledgment like
// a portable plugin, and every launch takes the revision installed then — also after a Cursor update.
// $TERMINAL is a recording stand-in, so nothing real is opened.

import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  launchBrowser,
  makeAssignFixture,
  newPage,
  openAssignments,
  selectTarget,
  startServe,
  terminalStandIn,
  waitFor,
  clientsOnPath,
} from './harness.mjs';

let fx, srv, browser, page, opened;
const cache = () => join(fx.home, '.cursor', 'plugins', 'cache');
const readAgent = (name) => JSON.parse(readFileSync(join(fx.pbHome, 'agents', `${name}.json`), 'utf8'));
const check = (id) => page.locator(`[data-testid="assign-check"][data-id="${id}"]`);

/** Writes revision rev of the Cursor plugin tool of marketplace mk: a skill and a stdio server. */
function cursorRevision(rev) {
  const dir = join(cache(), 'mk', 'tool', rev);
  const write = (rel, body) => {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), body);
  };
  write('.cursor-plugin/plugin.json', JSON.stringify({ name: 'tool', version: rev }));
  write('skills/tool-tip/SKILL.md', '---\nname: tool-tip\ndescription: A tip. Use when asked.\n---\nTip.\n');
  write('bin/serve', '#!/bin/sh\n');
  chmodSync(join(dir, 'bin', 'serve'), 0o755);
  write(
    '.mcp.json',
    JSON.stringify({ mcpServers: { 'tool-srv': { command: './bin/serve', env: { TOKEN: '${env:TOOL_TOKEN}' } } } }),
  );
  return dir;
}

before(async () => {
  fx = makeAssignFixture();
  cursorRevision('r1');
  let stand;
  ({ stand, opened } = terminalStandIn(fx.dir));
  srv = await startServe({ ...fx, env: { TERMINAL: stand, ...clientsOnPath(fx.dir) } });
  browser = await launchBrowser();
  page = await newPage(browser);
  await openAssignments(page, srv.url);
});

after(async () => {
  await browser?.close();
  await srv?.stop();
  fx?.cleanup();
});

async function launch() {
  const answer = page.waitForResponse((r) => r.url().endsWith('/api/Launch'));
  await page.getByRole('button', { name: 'Launch', exact: true }).click();
  const res = await (await answer).json();
  await opened();
  return res;
}

test('a Cursor marketplace plugin is assigned by its id, acknowledged, and saved without its revision', async () => {
  await selectTarget(page, 'agent:bare');
  const row = page.locator('[data-testid="assign-row"][data-id="tool@mk"]');
  assert.equal(await row.locator('[data-testid="assign-source"]').innerText(), 'Cursor marketplace');
  await check('tool@mk').check();
  await page.click('[data-testid="assign-save"]');
  await page.waitForSelector('[data-testid="ack-dialog"]');
  const servers = await page.$$eval('[data-testid="ack-server"]', (els) =>
    els.map((e) => `${e.dataset.plugin}/${e.dataset.server}`),
  );
  assert.deepEqual(servers, ['tool@mk/tool-srv']);
  await page.click('[data-testid="ack-confirm"]');
  await waitFor(async () => /^Saved/.test(await page.textContent('[data-testid="assign-status"]')), {
    message: 'saved',
  });
  assert.deepEqual(readAgent('bare').pluginDirs, ['~/.cursor/plugins/cache/mk/tool']);
});

test('launch takes the installed revision, and after a Cursor update the new one, from the same entry', async () => {
  await selectTarget(page, 'agent:bare');
  const first = await launch();
  assert.equal(first.plan.plugins[0].id, 'tool@mk');
  assert.equal(first.plan.plugins[0].path, join(cache(), 'mk', 'tool', 'r1'));
  assert.deepEqual(first.plan.servers, ['tool-srv'], 'acknowledged when it was assigned');
  assert.deepEqual(first.plan.skills, ['tool:tool-tip']);
  assert.match(await page.textContent('[data-testid="launch-plugins"]'), /tool@mk.*r1/);

  // Cursor installs r2 and points its index at it; r2 is given an older time, so the index decides.
  const r2 = cursorRevision('r2');
  const old = new Date(Date.now() - 3600_000);
  utimesSync(r2, old, old);
  writeFileSync(
    join(cache(), '.cloud-plugin-manifest.json'),
    JSON.stringify({ plugins: [{ marketplace: 'mk', pluginId: 'tool', gitSha: 'r2' }] }),
  );
  await page.click('[data-testid="rescan"]');
  await waitFor(async () => await check('tool@mk').isChecked(), { message: 'still assigned after the update' });
  const second = await launch();
  assert.equal(second.plan.plugins[0].path, r2);
  assert.notEqual(second.plan.fingerprint, first.plan.fingerprint);
  assert.deepEqual(second.plan.servers, ['tool-srv'], 'the same server: its acknowledgment holds');
  assert.deepEqual(readAgent('bare').pluginDirs, ['~/.cursor/plugins/cache/mk/tool'], 'the entry is not rewritten');
});
