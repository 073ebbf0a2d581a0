// The page's layout at the window's default size (1280×800), in English and in Chinese, against the
// real backend on the full fixture home: each list's search field keeps its height, and nothing in
// the header is cut short (the tabs, the catalog summary, the problems count).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, makeFixture, newPage, startServe, waitReady } from './harness.mjs';

let fx, srv, browser;

before(async () => {
  fx = makeFixture();
  srv = await startServe(fx);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await srv?.stop();
  fx?.cleanup();
});

for (const locale of ['en-US', 'zh-CN']) {
  test(`${locale}: the search fields keep their height and the header cuts nothing short`, async () => {
    const page = await newPage(browser, { locale });
    await page.goto(srv.url);
    await waitReady(page);
    for (const tab of ['plugins', 'skills', 'mcp']) {
      await page.click(`[data-testid="tab-${tab}"]`);
      const search = page.locator(`[data-testid="panel-${tab}"] input[type="search"]`).first();
      await search.waitFor();
      const box = await search.boundingBox();
      assert.ok(box.height >= 28, `${tab}: the search field is ${box.height}px high`);
    }
    const cut = await page.evaluate(() =>
      [
        ...document.querySelectorAll(
          'header [data-testid="scan-state"], header [data-testid="header-problems"], header [role="tab"]',
        ),
      ]
        .filter((el) => el.offsetParent !== null && el.scrollWidth > el.clientWidth + 1)
        .map((el) => `${el.dataset.testid}: ${el.textContent} (${el.scrollWidth} > ${el.clientWidth})`),
    );
    assert.deepEqual(cut, [], 'cut short in the header');
    // a plugin row's short name is shown whole beside its state and client verdicts
    await page.click('[data-testid="tab-plugins"]');
    const names = await page.$$eval('[data-testid="plugin-row"] .pname', (els) =>
      els.filter((e) => e.textContent.length <= 12 && e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent),
    );
    assert.deepEqual(names, [], 'plugin names cut short in the list');
    await page.context().close();
  });
}

/** Hue (degrees, CIE LCh) and chroma of a CSS rgb() colour. */
function lch(rgb) {
  const [r, g, b] = rgb
    .match(/\d+(\.\d+)?/g)
    .slice(0, 3)
    .map((v) => {
      const c = Number(v) / 255;
      return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
  const f = (t) => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116);
  const x = f((0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047);
  const y = f(0.2126 * r + 0.7152 * g + 0.0722 * b);
  const z = f((0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883);
  const A = 500 * (x - y);
  const B = 200 * (y - z);
  return { hue: ((Math.atan2(B, A) * 180) / Math.PI + 360) % 360, chroma: Math.hypot(A, B) };
}

test("the Context bar's coloured parts are told apart by hue, in the light and the dark theme", async () => {
  const page = await newPage(browser);
  await page.goto(srv.url);
  await waitReady(page);
  for (const theme of ['light', 'dark']) {
    const colours = await page.evaluate((theme) => {
      document.documentElement.dataset.theme = theme;
      return ['target', 'user', 'project', 'client', 'mcp'].map((part) => {
        const el = document.createElement('span');
        el.className = `budget-seg seg-${part}`;
        document.body.append(el);
        const c = getComputedStyle(el).backgroundColor;
        el.remove();
        return [part, c];
      });
    }, theme);
    for (let i = 0; i < colours.length; i++)
      for (let j = i + 1; j < colours.length; j++) {
        const a = lch(colours[i][1]);
        const b = lch(colours[j][1]);
        assert.ok(a.chroma > 20 && b.chroma > 20, `${theme}: ${colours[i]} and ${colours[j]} are colours`);
        const d = Math.min(Math.abs(a.hue - b.hue), 360 - Math.abs(a.hue - b.hue));
        assert.ok(
          d >= 20,
          `${theme}: ${colours[i][0]} (${colours[i][1]}) and ${colours[j][0]} (${colours[j][1]}) are ${d.toFixed(1)}° apart in hue`,
        );
      }
  }
  await page.context().close();
});
