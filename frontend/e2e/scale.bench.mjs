// Benchmark (make bench, not make test): the Plugins page over `plugboard serve` with a home of
// 1,000 plugins × 10 skills (about 9 MB of catalog JSON), in headless Chromium. Over LOADS loads
// (after one that may meet serve's startup scan) it measures first contentful paint, the time until
// the first plugin row is painted, and a search keystroke to the painted result in the Plugins list
// (which searches 10,000 skill names too) and in the Skills list (10,000 rows), and prints
//   BENCH first-contentful-paint-ms=<median> first-row-ms=<median> search-ms=<median> skill-search-ms=<median> plugins=1000
// It then reloads the page LOADS times in one tab (BENCH-reload), and opens it LOADS times in a new
// tab of that window (BENCH-new-tab): the loads above each start a new window, and with it
// Chromium's own window UI beside the page, on two cores.
// Nothing is asserted about time; e2e/scale.test.mjs checks what the page does at that size.
//
// Run: PLUGBOARD_BIN=build/bin/plugboard node e2e/scale.bench.mjs

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from './benchhome.mjs';
import { launchBrowser, newPage, startServe } from './harness.mjs';

const PLUGINS = 1000;
const SKILLS = 10;
const LOADS = Number(process.env.LOADS || 5);

/** Records, in the page, when the first plugin row reaches the screen and the largest progress seen. */
function instrument() {
  window.__pb = { firstRowDom: null, firstRow: null, progress: 0 };
  const mo = new MutationObserver(() => {
    const pb = window.__pb;
    const pg = document.querySelector('[data-testid="progress"]');
    if (pg) pb.progress = Math.max(pb.progress, Number(pg.getAttribute('aria-valuenow') || 0));
    if (pb.firstRowDom === null && document.querySelector('[data-testid="plugin-row"]')) {
      pb.firstRowDom = performance.now();
      // the next frame is painted after this callback; the timeout runs after that paint
      requestAnimationFrame(() => setTimeout(() => (pb.firstRow = performance.now()), 0));
    }
  });
  mo.observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['aria-valuenow'] });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * One keystroke in a search box, timed in the page: the query but its last character is typed
 * and settled first, then the last key is pressed; the time runs from the key event (its
 * timeStamp) to the end of the frame that paints the filtered list, which must hold one row.
 */
async function keystroke(page, box, row, query) {
  await page.fill(box, query.slice(0, -1));
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.evaluate((box) => {
    const input = document.querySelector(box);
    window.__key = null;
    input.addEventListener('keydown', (e) => (window.__key = { start: e.timeStamp, end: null }), { once: true });
    // listeners run in order: the view's own input listener, which filters and draws, runs first
    input.addEventListener(
      'input',
      () => requestAnimationFrame(() => setTimeout(() => (window.__key.end = performance.now()), 0)),
      { once: true },
    );
  }, box);
  await page.press(box, query.at(-1));
  await page.waitForFunction(() => window.__key?.end != null);
  const ms = await page.evaluate(() => window.__key.end - window.__key.start);
  const rows = await page.locator(row).count();
  if (rows !== 1) throw new Error(`search ${query} in ${box}: ${rows} rows, want 1`);
  return ms;
}

const dir = mkdtempSync(join(tmpdir(), 'pb-scale-bench-'));
const home = join(dir, 'home');
generate(join(home, '.plugboard'), PLUGINS, SKILLS);
const browser = await launchBrowser(); // first, so the first load meets serve's startup scan
const srv = await startServe({ home, pbHome: join(home, '.plugboard') });
try {
  // at.page: a tab to load the page in again (a reload); at.context: an open browser window to
  // load it in a new tab of; neither: a new window
  const load = async (at = {}) => {
    let page = at.page;
    if (page) {
      await page.reload();
    } else {
      page = at.context ? await at.context.newPage() : await newPage(browser);
      await page.addInitScript(instrument);
      await page.goto(srv.url);
    }
    await page.waitForSelector('[data-testid="plugin-row"]', { timeout: 60000 });
    await page.waitForFunction(() => window.__pb.firstRow !== null);
    const m = await page.evaluate(() => {
      const mark = (n) => performance.getEntriesByName(n)[0]?.startTime ?? NaN;
      return {
        fcp: performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint')?.startTime ?? NaN,
        firstRow: window.__pb.firstRow,
        progress: window.__pb.progress,
        request: mark('plugboard:catalog-request'),
        parsed: mark('plugboard:catalog-parsed'),
        listParsed: mark('plugboard:list-parsed'),
        shell: mark('plugboard:shell-built'),
        listHeaders: mark('plugboard:list-headers'),
        list:
          performance.getEntriesByType('resource').find((e) => e.name.endsWith('/api/CatalogList'))?.responseEnd ?? NaN,
        indexed: mark('plugboard:indexed'),
        response:
          performance.getEntriesByType('resource').find((e) => e.name.endsWith('/api/Catalog'))?.responseEnd ?? NaN,
        responseStart:
          performance.getEntriesByType('resource').find((e) => e.name.endsWith('/api/Catalog'))?.responseStart ?? NaN,
      };
    });
    return { page, m };
  };
  const cold = await load();
  await cold.page.context().close();
  const fcps = [];
  const rows = [];
  const searches = [];
  const skillSearches = [];
  const phases = [];
  for (let i = 0; i < LOADS; i++) {
    const { page, m } = await load();
    fcps.push(m.fcp);
    rows.push(m.firstRow);
    phases.push(m);
    const q = `p0${String(100 + i * 7).padStart(3, '0')}-skill-03`;
    searches.push(await keystroke(page, '[data-testid="search"]', '[data-testid="plugin-row"]', q));
    await page.click('[data-testid="tab-skills"]');
    await page.waitForSelector('[data-testid="skill-row"]');
    skillSearches.push(await keystroke(page, '[data-testid="skill-search"]', '[data-testid="skill-row"]', q));
    await page.context().close();
  }
  // The same page reloaded in one tab: a browser that is already open, where a new window also
  // starts Chromium's own window UI (its omnibox pop-up renderer) beside the page on two cores.
  // And in a new tab of that window each time (its HTTP cache warm, as a reload's is).
  const reloads = [];
  const tabs = [];
  const tab = (await load()).page;
  for (let i = 0; i < LOADS; i++) reloads.push((await load({ page: tab })).m.firstRow);
  for (let i = 0; i < LOADS; i++) {
    const { page, m } = await load({ context: tab.context() });
    tabs.push(m.firstRow);
    await page.close();
  }
  await tab.context().close();
  console.log(
    `BENCH first-contentful-paint-ms=${Math.round(median(fcps))} first-row-ms=${Math.round(median(rows))} ` +
      `search-ms=${median(searches).toFixed(1)} skill-search-ms=${median(skillSearches).toFixed(1)} plugins=${PLUGINS}`,
  );
  console.log(
    `BENCH-phases request-at-ms=${Math.round(median(phases.map((m) => m.request)))} ` +
      `fetch-and-parse-ms=${Math.round(median(phases.map((m) => m.parsed - m.request)))} ` +
      `(first-byte-ms=${Math.round(median(phases.map((m) => m.responseStart - m.request)))} ` +
      `body-ms=${Math.round(median(phases.map((m) => m.response - m.responseStart)))} ` +
      `parse-ms=${Math.round(median(phases.map((m) => m.parsed - m.response)))}) ` +
      `index-ms=${Math.round(median(phases.map((m) => m.indexed - m.parsed)))} (the whole document) ` +
      `shell-built-at-ms=${Math.round(median(phases.map((m) => m.shell)))} ` +
      `list-headers-at-ms=${Math.round(median(phases.map((m) => m.listHeaders)))} ` +
      `list-fetch-ms=${Math.round(median(phases.map((m) => m.list - m.request)))} ` +
      `list-parse-ms=${Math.round(median(phases.map((m) => m.listParsed - m.list)))} ` +
      `list-to-first-row-ms=${Math.round(median(phases.map((m) => m.firstRow - m.listParsed)))}`,
  );
  console.log(
    `BENCH-detail loads-fcp-ms=${fcps.map(Math.round).join(',')} loads-first-row-ms=${rows.map(Math.round).join(',')} ` +
      `search-ms=${searches.map((x) => x.toFixed(1)).join(',')} skill-search-ms=${skillSearches.map((x) => x.toFixed(1)).join(',')} ` +
      `first-load-first-row-ms=${Math.round(cold.m.firstRow)} first-load-progress-max=${cold.m.progress} ` +
      `(search: the last key of the query to the painted list of one row, timed in the page)`,
  );
  console.log(
    `BENCH-reload first-row-ms=${Math.round(median(reloads))} loads-first-row-ms=${reloads.map(Math.round).join(',')} ` +
      `(the page reloaded in one tab, after a first load there)`,
  );
  console.log(
    `BENCH-new-tab first-row-ms=${Math.round(median(tabs))} loads-first-row-ms=${tabs.map(Math.round).join(',')} ` +
      `(the page in a new tab of that window each time)`,
  );
} finally {
  await browser.close();
  await srv.stop();
  rmSync(dir, { recursive: true, force: true });
}
