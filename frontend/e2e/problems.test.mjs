// The Problems view against the real backend on the full fixture home: the header's count leads to it and
// agrees with it, the filters narrow it, Open file starts the editor the environment names at the line
// (a recording stand-in for $VISUAL), and a row leads to its plugin.

import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { execFileSync } from 'node:child_process';
import { launchBrowser, makeFixture, newPage, pluginBin, startServe, waitFor, waitReady } from './harness.mjs';

let fx, srv, browser, page, record;

before(async () => {
  fx = makeFixture();
  record = join(fx.dir, 'editor-argv.txt');
  const editor = join(fx.dir, 'editor-stand-in');
  writeFileSync(editor, `#!/bin/sh\nprintf '%s\\n' "$@" > '${record}.tmp' && mv '${record}.tmp' '${record}'\n`);
  chmodSync(editor, 0o755);
  srv = await startServe({ ...fx, env: { VISUAL: editor } });
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

/** The summary the command line prints for the same home. */
const summary = () =>
  JSON.parse(
    execFileSync(pluginBin(), ['catalog', '--json', '--home', fx.pbHome], {
      env: { ...process.env, HOME: fx.home },
      maxBuffer: 64 << 20,
    }).toString(),
  ).summary;

/** What the command line prints for the home: its text's last line, its snapshots as JSON. */
const cliText = (...args) =>
  execFileSync(pluginBin(), [...args, '--home', fx.pbHome], {
    env: { ...process.env, HOME: fx.home },
    maxBuffer: 64 << 20,
  }).toString();

test('every surface counts the same issues: header, overview, Has issues, Problems, catalog text and --json, snapshot', async () => {
  const doc = JSON.parse(cliText('catalog', '--json'));
  const { errors, warnings } = doc.summary.issues;
  assert.ok(errors > 0 && warnings > 0, 'the fixture has both');
  const inPlugins = doc.plugins.reduce((n, p) => n + p.issueCounts.errors + p.issueCounts.warnings, 0);
  assert.ok(errors + warnings > inPlugins, 'the fixture has issues outside its plugins (a standalone skill)');

  // the command line's text
  const text = cliText('catalog').trim().split('\n');
  assert.equal(text.at(-1), `${errors} errors, ${warnings} warnings`);
  // the newest snapshot the page's live catalog recorded
  await waitFor(async () => JSON.parse(cliText('snapshots', '--json')).length > 0, { message: 'a snapshot' });
  const newest = JSON.parse(cliText('snapshots', '--json'))[0];
  assert.deepEqual([newest.errors, newest.warnings], [errors, warnings], JSON.stringify(newest).slice(0, 400));

  // the header
  assert.equal(await page.getByTestId('header-problems').textContent(), `${errors} errors`);
  // the overview, shown while no plugin is selected
  const total = await page.getByTestId('overview-issues-total').textContent();
  assert.equal(total, `${errors} errors and ${warnings} warnings in the catalog, plugins and skills included.`);
  // Has issues: the rows with issues, and what no row holds
  await page.check('[data-testid="filter-issues"]');
  const rows = await page.locator('[data-testid="plugin-row"]').evaluateAll((els) => els.map((e) => e.dataset.id));
  const withIssues = doc.plugins.filter((p) => p.issueCounts.errors + p.issueCounts.warnings > 0).map((p) => p.id);
  assert.deepEqual(rows.sort(), withIssues.sort());
  const outside = page.getByTestId('issues-outside');
  assert.equal(await outside.textContent(), `+ ${errors + warnings - inPlugins} issues outside the plugins`);
  await outside.click();
  await page.waitForSelector('[data-testid="problem"]');
  const severities = await page
    .locator('[data-testid="problem"]')
    .evaluateAll((els) => els.map((e) => e.dataset.severity));
  assert.equal(severities.filter((s) => s === 'error').length, errors, 'Problems: errors');
  assert.equal(severities.filter((s) => s === 'warning').length, warnings, 'Problems: warnings');
  await page.click('[data-testid="tab-plugins"]');
  await page.uncheck('[data-testid="filter-issues"]');
});

test("the header's count opens the Problems view on the errors, and the counts agree", async () => {
  const cli = summary();
  const btn = page.getByTestId('header-problems');
  await btn.waitFor();
  const label = await btn.textContent();
  const errors = Number(/(\d+) error/.exec(label)?.[1]);
  assert.ok(errors > 0, label);
  assert.equal(errors, cli.issues.errors, 'the header and the command line count the same errors');
  await btn.click();
  await page.waitForSelector('[data-testid="problem"]');
  assert.equal(await page.inputValue('[data-testid="problems-severity"]'), 'error');
  const shown = await page.locator('[data-testid="problem"]').count();
  assert.equal(shown, errors, 'one row an error the header counts');
  const severities = await page
    .locator('[data-testid="problem"]')
    .evaluateAll((els) => [...new Set(els.map((e) => e.dataset.severity))]);
  assert.deepEqual(severities, ['error']);
  // all severities: errors and warnings together, errors first
  await page.selectOption('[data-testid="problems-severity"]', '');
  const all = await page.locator('[data-testid="problem"]').evaluateAll((els) => els.map((e) => e.dataset.severity));
  assert.ok(all.length > errors, 'warnings too');
  assert.equal(all.lastIndexOf('error'), errors - 1, 'errors first');
});

test('a code filter narrows the list to that code', async () => {
  await page.selectOption('[data-testid="problems-code"]', 'skill.name-mismatch');
  const codes = await page.locator('[data-testid="problem"]').evaluateAll((els) => els.map((e) => e.dataset.code));
  assert.ok(codes.length >= 1);
  assert.ok(
    codes.every((c) => c === 'skill.name-mismatch'),
    codes.join(),
  );
});

test('a source filter narrows the list to the problems of plugins, of standalone skills, or of the catalog', async () => {
  await page.selectOption('[data-testid="problems-code"]', '');
  await page.selectOption('[data-testid="problems-severity"]', '');
  const all = await page.locator('[data-testid="problem"]').evaluateAll((els) => els.map((e) => e.dataset.source));
  const seen = {};
  for (const source of ['plugin', 'skill', 'catalog']) {
    await page.selectOption('[data-testid="problems-source"]', source);
    const sources = await page
      .locator('[data-testid="problem"]')
      .evaluateAll((els) => els.map((e) => e.dataset.source));
    assert.ok(
      sources.every((s) => s === source),
      `${source}: ${sources}`,
    );
    seen[source] = sources.length;
  }
  assert.ok(seen.plugin > 0 && seen.skill > 0, JSON.stringify(seen));
  assert.equal(seen.plugin + seen.skill + seen.catalog, all.length, 'the three sources make up the whole list');
  await page.selectOption('[data-testid="problems-source"]', '');
});

test('Open file starts the editor at the line', async () => {
  rmSync(record, { force: true });
  const row = page.locator('[data-testid="problem"]:has([data-testid="problem-open"])').first();
  const where = await row.getByTestId('problem-where').textContent();
  const [, file, line] = /^(.*):(\d+)$/.exec(where);
  await row.getByTestId('problem-open').click();
  await waitFor(() => existsSync(record), { message: 'the editor stand-in to be started' });
  assert.deepEqual(readFileSync(record, 'utf8').trimEnd().split('\n'), [`+${line}`, file]);
  assert.match(await page.textContent('[data-testid="problems-opened"]'), /Opened /);
});

test('a row leads to its plugin', async () => {
  const row = page.locator('[data-testid="problem"]:has([data-testid="problem-plugin"])').first();
  const id = (await row.getByTestId('problem-plugin').textContent()).replace(/^Plugin /, '');
  await row.getByTestId('problem-plugin').click();
  await page.waitForSelector(`article[data-id="${id}"]`);
});

test("each plugin shows the catalog's one state; an invalid one opens on its issues, and its counts lead there", async () => {
  const doc = JSON.parse(
    execFileSync(pluginBin(), ['catalog', '--json', '--home', fx.pbHome], {
      env: { ...process.env, HOME: fx.home },
      maxBuffer: 64 << 20,
    }).toString(),
  );
  await page.click('[data-testid="tab-plugins"]');
  await page.waitForSelector('[data-testid="plugin-row"]');
  const shown = await page
    .locator('[data-testid="plugin-row"]')
    .evaluateAll((rows) =>
      Object.fromEntries(
        rows.map((r) => [r.dataset.id, r.querySelector('[data-testid="plugin-state"]')?.dataset.state]),
      ),
    );
  const want = Object.fromEntries(doc.plugins.map((p) => [p.id, p.state]));
  assert.deepEqual(shown, want, 'the list shows the state the command line reports, for every plugin');
  assert.ok(Object.values(want).includes('invalid') && Object.values(want).includes('valid'), JSON.stringify(want));

  const invalid = doc.plugins.find((p) => p.state === 'invalid' && p.issueCounts.errors > 0);
  await page.click(`[data-testid="plugin-row"][data-id="${invalid.id}"]`);
  const article = page.locator(`article[data-id="${invalid.id}"]`);
  await article.waitFor();
  assert.equal(
    await article.locator('.detail-head [data-testid="plugin-state"]').getAttribute('data-state'),
    'invalid',
  );
  // the Issues card comes straight after the header, before what the clients load
  const order = await article.evaluate((a) => [...a.children].map((c) => c.dataset.testid || c.tagName.toLowerCase()));
  assert.equal(order[1], 'detail-issues', order.join());
  await article.getByTestId('detail-counts').click();
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'detail-issues');

  const valid = doc.plugins.find((p) => p.state === 'valid');
  await page.click(`[data-testid="plugin-row"][data-id="${valid.id}"]`);
  const ok = page.locator(`article[data-id="${valid.id}"]`);
  await ok.waitFor();
  const okOrder = await ok.evaluate((a) => [...a.children].map((c) => c.dataset.testid || c.tagName.toLowerCase()));
  assert.equal(okOrder.at(-1), 'detail-issues', 'a valid package keeps its issues last');
});
