// The catalog page against the real backend on the fixture home: the list, search, filters, the
// detail of alpha, secrets, keyboard, theme, and the Skills and MCP views.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, makeFixture, newPage, rowIds, startServe, waitFor, waitReady } from './harness.mjs';

const ALL = [
  'alpha',
  'broken',
  'empty-folder',
  'legacy-one',
  'hf-skills@cursor-local',
  'tool@acme',
  'solo@other',
  'plug@plugin-path',
];

let fx, srv, browser, page;
const bodies = []; // every response body the page received, as text
const pending = [];

before(async () => {
  fx = makeFixture();
  srv = await startServe(fx);
  browser = await launchBrowser();
  page = await newPage(browser);
  // Server-sent events never end, so their bodies are read in the page as they arrive.
  await page.addInitScript(() => {
    window.__sse = [];
    const ES = window.EventSource;
    window.EventSource = class extends ES {
      addEventListener(type, fn, opts) {
        super.addEventListener(
          type,
          (ev) => {
            window.__sse.push(String(ev.data));
            fn(ev);
          },
          opts,
        );
      }
    };
  });
  page.on('response', (r) => {
    if ((r.headers()['content-type'] ?? '').includes('text/event-stream')) return;
    pending.push(
      r.body().then(
        (b) => bodies.push({ url: r.url(), text: b.toString('utf8') }),
        () => {},
      ),
    );
  });
  await page.goto(srv.url);
  await waitReady(page);
});

after(async () => {
  await browser?.close();
  await srv?.stop();
  fx?.cleanup();
});

async function setSearch(value) {
  await page.fill('[data-testid="search"]', value);
}

async function resetFilters() {
  await setSearch('');
  await page.selectOption('[data-testid="filter-format"]', '');
  await page.selectOption('[data-testid="filter-source"]', '');
  await page.setChecked('[data-testid="filter-issues"]', false);
}

test('the list shows every plugin of the fixture home', async () => {
  const ids = await rowIds(page);
  assert.deepEqual([...ids].sort(), [...ALL].sort());
  assert.equal(await page.textContent('[data-testid="plugin-count"]'), '8 plugins');
  // each row carries format, validity, skill count, MCP indicator and issue counts
  const alpha = page.locator('[data-testid="plugin-row"][data-id="alpha"]');
  const text = await alpha.innerText();
  for (const want of ['alpha', '1.0.0', 'portable', 'with errors', '3 skills', '2 MCP', '2 errors', '1 warning']) {
    assert.ok(text.includes(want), `alpha row lacks ${want}: ${text}`);
  }
  assert.match(await page.locator('[data-testid="plugin-row"][data-id="broken"]').innerText(), /invalid/);
  // a plugin without a name shows its id
  assert.match(await page.locator('[data-testid="plugin-row"][data-id="empty-folder"]').innerText(), /empty-folder/);
});

test('search narrows the list (id, name, description, skill names)', async () => {
  const cases = [
    ['alpha', ['alpha']],
    ['hf-datasets', ['hf-skills@cursor-local']], // a skill name
    ['Alpha tools', ['alpha']], // the description
    ['acme', ['tool@acme']], // the name acme-tool of the package tool
    ['shared-name', ['alpha', 'hf-skills@cursor-local']],
  ];
  for (const [q, want] of cases) {
    await setSearch(q);
    await waitFor(async () => JSON.stringify((await rowIds(page)).sort()) === JSON.stringify([...want].sort()), {
      message: `search ${q} -> ${want}`,
    });
  }
  await setSearch('no-such-thing-anywhere');
  await page.waitForSelector('[data-testid="empty"]:not([hidden])');
  assert.equal((await rowIds(page)).length, 0);
  await resetFilters();
  assert.equal((await rowIds(page)).length, 8);
});

test('each filter narrows the list', async () => {
  const cases = [
    ['filter-format', 'portable', ['alpha', 'broken']],
    ['filter-format', 'legacy', ['legacy-one']],
    ['filter-format', 'cursor', ['hf-skills@cursor-local', 'tool@acme', 'solo@other', 'plug@plugin-path']],
    ['filter-format', 'none', ['empty-folder']],
    ['filter-source', 'plugboard', ['alpha', 'broken', 'empty-folder', 'legacy-one']],
    ['filter-source', 'cursor-local', ['hf-skills@cursor-local']],
    ['filter-source', 'cursor-cache', ['tool@acme', 'solo@other']],
    ['filter-source', 'plugin-path', ['plug@plugin-path']],
  ];
  for (const [testid, value, want] of cases) {
    await resetFilters();
    await page.selectOption(`[data-testid="${testid}"]`, value);
    assert.deepEqual((await rowIds(page)).sort(), [...want].sort(), `${testid}=${value}`);
  }
  await resetFilters();
  await page.setChecked('[data-testid="filter-issues"]', true);
  assert.deepEqual((await rowIds(page)).sort(), ['alpha', 'broken', 'empty-folder']);
  // filters combine
  await page.selectOption('[data-testid="filter-format"]', 'portable');
  await setSearch('broken');
  assert.deepEqual(await rowIds(page), ['broken']);
  await resetFilters();
});

test('selecting alpha shows its skills, sanitised MCP summaries and issues with file:line', async () => {
  await page.click('[data-testid="plugin-row"][data-id="alpha"]');
  const detail = page.locator('[data-testid="detail"]');
  await page.waitForSelector('[data-testid="detail"] article[data-id="alpha"]');
  const meta = await detail.locator('[data-testid="detail-meta"]').innerText();
  for (const want of [
    'alpha',
    '1.0.0',
    'Alpha tools',
    'portable',
    'plugboard',
    'plugin.json',
    '~/.plugboard/plugins/alpha',
  ]) {
    assert.ok(meta.includes(want), `metadata lacks ${want}`);
  }
  // skills: names, validity, trust, model invocation
  const skills = detail.locator('[data-testid="detail-skill"]');
  assert.deepEqual(await skills.evaluateAll((els) => els.map((e) => e.dataset.name)), [
    'alpha-only',
    'shared-name',
    'other-name',
  ]);
  const only = await detail.locator('[data-testid="detail-skill"][data-name="alpha-only"]').innerText();
  assert.match(only, /valid/);
  assert.match(only, /untrusted/);
  assert.match(only, /model-invocable/);
  // A plugin skill is namespaced (alpha:shared-name): no client hides it behind a user skill.
  const shared = await detail.locator('[data-testid="detail-skill"][data-name="shared-name"]').innerText();
  assert.doesNotMatch(shared, /shadowed/);
  const other = await detail.locator('[data-testid="detail-skill"][data-name="other-name"]').innerText();
  assert.match(other, /invalid/);
  assert.match(other, /wrong-folder/);
  // MCP: remote origin and header names; stdio executable basename, arg count, env key names
  const server = (n) => detail.locator(`[data-testid="detail-mcp-server"][data-name="${n}"]`).innerText();
  const api = await server('api');
  assert.match(api, /https:\/\/127\.0\.0\.1:9/);
  assert.match(api, /Authorization/);
  assert.doesNotMatch(api, /\/mcp|token|Bearer/);
  const db = await server('db');
  assert.match(db, /executable\s+db/);
  assert.match(db, /args\s+2/);
  assert.match(db, /DB_PASSWORD/);
  assert.doesNotMatch(db, /\.\/bin|PLUGIN_DATA/);
  assert.match(await server('bad'), /invalid/);
  // issues: path:line: severity: message [code], grouped by file
  const issues = await detail.locator('[data-testid="issue"]').allInnerTexts();
  const lines = issues.map((s) => s.replace(/\s+/g, ' ').trim());
  assert.ok(
    lines.some(
      (l) =>
        l.startsWith('mcp.json:19: warning: server "api": header "Authorization"') &&
        l.endsWith('[mcp.header-credential]'),
    ),
    lines.join('\n'),
  );
  assert.ok(
    lines.some((l) => l.startsWith('mcp.json:24: error:') && l.endsWith('[mcp.command-token]')),
    lines.join('\n'),
  );
  assert.ok(
    lines.some(
      (l) =>
        l.startsWith('skills/wrong-folder/SKILL.md:2: error: name "other-name"') && l.endsWith('[skill.name-mismatch]'),
    ),
    lines.join('\n'),
  );
  const files = await detail.locator('.issue-group').evaluateAll((els) => els.map((e) => e.dataset.file));
  assert.deepEqual(files, ['mcp.json', 'skills/wrong-folder/SKILL.md']);
});

test('Cursor plugins show marketplace, revision and components not supported yet', async () => {
  await page.click('[data-testid="plugin-row"][data-id="tool@acme"]');
  const meta = await page.locator('[data-testid="detail-meta"]').innerText();
  assert.match(meta, /Marketplace\s+acme/);
  assert.match(meta, /Revision\s+aaa111/);
  assert.match(meta, /commands/);
  assert.match(meta, /not supported yet/);
});

test('keyboard: / focuses search, Escape clears, arrows move the selection, Enter opens the detail', async () => {
  await page.click('[data-testid="tab-plugins"]');
  await page.locator('body').focus();
  await page.evaluate(() => document.activeElement?.blur());
  await page.keyboard.press('/');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'search');
  await page.keyboard.type('legacy');
  assert.deepEqual(await rowIds(page), ['legacy-one']);
  await page.keyboard.press('Escape');
  assert.equal(await page.inputValue('[data-testid="search"]'), '');
  assert.equal((await rowIds(page)).length, 8);
  // Down from the search box enters the list
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'plugin-list');
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  const sel = await page.getAttribute('[data-testid="plugin-row"][aria-selected="true"]', 'data-id');
  const ids = await rowIds(page);
  assert.equal(sel, ids[2]);
  assert.equal(
    await page.getAttribute('[data-testid="plugin-list"]', 'aria-activedescendant'),
    await page.getAttribute('[data-testid="plugin-row"][aria-selected="true"]', 'id'),
  );
  await page.keyboard.press('ArrowUp');
  const sel2 = await page.getAttribute('[data-testid="plugin-row"][aria-selected="true"]', 'data-id');
  assert.equal(sel2, ids[1]);
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'detail-title');
  assert.equal(await page.getAttribute('[data-testid="detail"] article', 'data-id'), sel2);
  // buttons are reachable with Tab: the header's controls are real buttons in tab order
  for (const id of ['rescan', 'theme-toggle']) {
    assert.equal(await page.evaluate((t) => document.querySelector(`[data-testid="${t}"]`).tabIndex, id), 0);
  }
});

test('the theme toggle switches to dark and back, and the choice persists', async () => {
  const theme = () => page.evaluate(() => document.documentElement.dataset.theme);
  const start = await theme();
  await page.click('[data-testid="theme-toggle"]');
  const flipped = start === 'dark' ? 'light' : 'dark';
  assert.equal(await theme(), flipped);
  assert.equal(
    await page.evaluate(() => document.documentElement.classList.contains('theme-dark')),
    flipped === 'dark',
  );
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await page.reload();
  await waitReady(page);
  assert.equal(await theme(), flipped, 'persisted in localStorage');
  assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), bg);
  await page.click('[data-testid="theme-toggle"]');
  assert.equal(await theme(), start);
});

test('the Skills view lists skills in precedence order with trust and shadowing', async () => {
  await page.click('[data-testid="tab-skills"]');
  await page.waitForSelector('[data-testid="skill-row"]');
  const rows = await page.$$eval('[data-testid="skill-row"]', (els) =>
    els.map((e) => ({ id: e.dataset.id, source: e.dataset.source, text: e.innerText })),
  );
  assert.equal(rows[0].id, 'shared-name');
  assert.equal(rows[0].source, 'user');
  assert.match(rows[0].text, /active/);
  // ~/.cursor/skills hides only the ~/.claude/skills copy, and only in Cursor (which reads both)
  assert.match(rows[0].text, /shadows 1/);
  const alphaShared = rows.find((r) => r.id === 'alpha:shared-name');
  assert.match(alphaShared.text, /untrusted/);
  assert.doesNotMatch(alphaShared.text, /shadowed/);
  const builtin = rows.find((r) => r.source === 'builtin');
  assert.equal(builtin.id, 'plugboard-authoring');
  assert.match(builtin.text, /shadowed/);
  // the skill detail names what shadows it, and in which client
  await page.locator('[data-testid="skill-row"][data-id="shared-name"]').nth(1).click();
  const detail = await page.locator('[data-testid="skill-detail"]').innerText();
  assert.match(detail, /Shadowed by/);
  assert.match(detail, /~\/\.cursor\/skills\/shared-name\/SKILL\.md in cursor/);
  // refused paths entries of a standalone skill, with the reasons
  await page.click('[data-testid="skill-row"][data-id="pb-skill"]');
  const paths = await page.locator('[data-testid="skill-paths"]').innerText();
  assert.match(paths, /references\s+accepted/);
  assert.match(paths, /\.\.\/escape\s+refused\s+"\.\." is not allowed/);
  assert.match(paths, /\.env\s+refused\s+.*credential/);
  // filter by source
  await page.selectOption('[data-testid="skill-filter-source"]', 'cursor-plugin');
  const sources = await page.$$eval('[data-testid="skill-row"]', (els) => [
    ...new Set(els.map((e) => e.dataset.source)),
  ]);
  assert.deepEqual(sources, ['cursor-plugin']);
  await page.selectOption('[data-testid="skill-filter-source"]', '');
});

test('the MCP view merges servers by name: winner and shadowed declarations', async () => {
  await page.click('[data-testid="tab-mcp"]');
  await page.waitForSelector('[data-testid="mcp-row"]');
  const names = await page.$$eval('[data-testid="mcp-row"]', (els) => els.map((e) => e.dataset.name));
  assert.deepEqual(names, ['api', 'db', 'github', 'hf']);
  await page.click('[data-testid="mcp-row"][data-name="db"]');
  const winner = await page.locator('[data-testid="mcp-winner"]').innerText();
  assert.match(winner, /user/);
  assert.match(winner, /~\/\.cursor\/mcp\.json/);
  assert.match(winner, /user-db/);
  assert.match(winner, /TOKEN/);
  const shadowed = await page.locator('[data-testid="mcp-shadowed"]').allInnerTexts();
  assert.equal(shadowed.length, 2);
  assert.ok(shadowed.some((s) => s.includes('alpha') && s.includes('DB_PASSWORD')));
  assert.ok(shadowed.some((s) => s.includes('hf-skills')));
  assert.equal(
    await page.locator('[data-testid="mcp-row"][data-name="proj"]').count(),
    0,
    'untrusted workspace MCP is not loaded',
  );
  await page.click('[data-testid="tab-plugins"]');
});

test('planted secrets never reach the page: not in its text, its markup, nor any response body', async () => {
  // visit every view and every plugin so each renderer has run
  for (const id of ALL) await page.click(`[data-testid="plugin-row"][data-id="${id}"]`);
  for (const t of ['skills', 'mcp', 'settings', 'plugins']) await page.click(`[data-testid="tab-${t}"]`);
  await page.click('[data-testid="rescan"]');
  await page.waitForSelector('[data-testid="scan-state"][data-state="ready"]');
  await Promise.all(pending);
  // for this small home, CatalogList is the whole document
  const catalogBodies = bodies.filter((b) => /\/api\/(Catalog|CatalogList|Rescan)$/.test(b.url));
  assert.ok(catalogBodies.length >= 2, `saw ${catalogBodies.length} catalog responses`);
  assert.ok(
    catalogBodies.every((b) => b.text.includes('DB_PASSWORD')),
    'bodies were captured',
  );
  for (const b of bodies) assert.ok(!b.text.includes('PLANTED'), `response ${b.url} carries a planted secret`);
  const sse = await page.evaluate(() => window.__sse);
  assert.ok(sse.length > 0, 'saw server-sent events');
  for (const d of sse) assert.ok(!d.includes('PLANTED'), 'an event carries a planted secret');
  const text = await page.evaluate(() => document.body.innerText + document.documentElement.outerHTML);
  assert.ok(!text.includes('PLANTED'));
  assert.ok(!text.includes('127.0.0.1:9/mcp'), 'URL paths are never shown');
});
