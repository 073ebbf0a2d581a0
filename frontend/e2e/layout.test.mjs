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
    await page.context().close();
  });
}
