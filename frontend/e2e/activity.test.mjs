// The Activity view against the real backend on a copy of testdata/runtime/home. Skill uses of
// today are recorded the way a launched claude's hook records them (the real `plugboard activity
// record`, fed the hook's JSON on stdin, with the projection's activity index). The recorder always
// records "now", so the uses of earlier days and the MCP tool calls (whose recorder another change
// brings) are appended to $PLUGBOARD_HOME/state/activity.spool.jsonl in the store's own format (one
// JSON store.Activity a line): the real backend imports that spool when it opens the store, as it
// does for a hook that found the database busy. legacy-tools is taken off agent:coder and assigned
// again with the real `plugboard assign`, so its assignment has a recorded save.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { launchBrowser, makeRuntimeFixture, newPage, pluginBin, startServe, waitReady } from './harness.mjs';

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.now();
let fx, srv, browser, page;

/** The local date as the report's byDay and the chart's bars name it. */
function dayKey(d) {
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/** The chart's bars for a period of `days`: each local day from the day days×24 h ago to today. */
function periodDays(days) {
  const out = [];
  const start = new Date(NOW - days * DAY);
  const d = new Date(start.getFullYear(), start.getMonth(), start.getDate());
  const today = dayKey(new Date());
  for (; dayKey(d) <= today; d.setDate(d.getDate() + 1)) out.push(dayKey(d));
  return out;
}

function env() {
  return { ...process.env, HOME: fx.home, PLUGBOARD_HOME: fx.pbHome };
}

function cli(...args) {
  return execFileSync(pluginBin(), args, { env: env(), encoding: 'utf8' });
}

/** What a claude launched for agent:coder runs after the model's Skill call of review:check. */
function recordSkillCall(callID) {
  const index = join(fx.dir, 'activity.json');
  writeFileSync(
    index,
    JSON.stringify({
      v: 1,
      home: fx.pbHome,
      backend: 'claude',
      fingerprint: 'sha256:e2e',
      skills: { 'review:check': { plugin: 'review', version: '1.2.0', hash: 'sha256:e2e-check' } },
    }),
  );
  const hook = {
    session_id: 'e2e-session',
    hook_event_name: 'PostToolUse',
    tool_name: 'Skill',
    tool_use_id: callID,
    tool_input: { skill: 'review:check', args: 'never stored' },
    tool_response: { success: true, commandName: 'review:check' },
  };
  execFileSync(pluginBin(), ['activity', 'record', index], {
    input: JSON.stringify(hook),
    env: { ...env(), PLUGBOARD_ACTIVITY_TARGET: 'agent:coder' },
  });
}

const spooled = [];
/** Appends one record to the spool in the store's format (see the top of this file). */
function spool(rec) {
  const line = { backend: 'claude', fingerprint: 'sha256:e2e', session: 'e2e-spool', how: 'model', ...rec };
  spooled.push(line);
  appendFileSync(join(fx.pbHome, 'state', 'activity.spool.jsonl'), JSON.stringify(line) + '\n');
}

const AGO_2 = new Date(NOW - 2 * DAY);
const AGO_3 = new Date(NOW - 3 * DAY);
const AGO_20 = new Date(NOW - 20 * DAY);
const AGO_200 = new Date(NOW - 200 * DAY);
const TOOL_TIME = new Date(NOW - DAY);
const FORMULA = '=HYPERLINK("http://x","y")';

before(async () => {
  fx = makeRuntimeFixture();
  recordSkillCall('toolu_1');
  recordSkillCall('toolu_2');
  recordSkillCall('toolu_2'); // the same call reported twice is one use
  const skill = (key, time, skillId, plugin, target) =>
    spool({ key, time: time.toISOString(), target, skill: skillId, plugin, version: '1.2.0', hash: 'sha256:e2e' });
  for (const k of ['a', 'b', 'c']) skill(`e2e-2d-${k}`, AGO_2, 'review:check', 'review', 'agent:coder');
  skill('e2e-20d', AGO_20, 'review:check', 'review', 'agent:coder');
  skill('e2e-slot', AGO_3, 'review:explain', 'review', 'template:team/coder');
  skill('e2e-old', AGO_200, 'other:check', 'other', 'agent:clash'); // older than the retention set below
  const tool = (key, server, name, ms, failed) =>
    spool({
      key,
      time: TOOL_TIME.toISOString(),
      target: 'agent:coder',
      kind: 'tool',
      plugin: 'review',
      server,
      tool: name,
      ms,
      failed,
    });
  tool('e2e-t1', 'lint', 'run_lint', 80, false);
  tool('e2e-t2', 'lint', 'run_lint', 200, true);
  tool('e2e-t3', 'lint', 'run_lint', 120, false);
  tool('e2e-t4', 'docs', FORMULA, 40, false);
  // a recorded save that assigns legacy-tools to agent:coder (today)
  cli('assign', 'agent:coder', '--remove', 'legacy-tools');
  cli('assign', 'agent:coder', '--add', 'legacy-tools', '--ack-mcp');
  srv = await startServe(fx);
  browser = await launchBrowser();
  page = await newPage(browser);
  await page.goto(srv.url);
  await waitReady(page);
  await page.click('[data-testid="tab-activity"]');
});

after(async () => {
  await browser?.close();
  await srv?.stop();
  fx?.cleanup();
});

/** Chooses a period and waits until the view shows it. */
async function period(p, days) {
  await p.selectOption('[data-testid="activity-range"]', String(days));
  await p.locator(`[data-testid="activity-body"][data-days="${days}"]:not([data-loading])`).waitFor();
}

const skillRow = (p, id) => p.locator(`[data-testid="activity-skill"][data-id="${id}"]`);

/** The bars of a skill's chart: {day: uses}. */
async function bars(p, id) {
  return skillRow(p, id)
    .locator('[data-testid="activity-chart"] rect')
    .evaluateAll((els) => els.map((e) => [e.dataset.day, Number(e.dataset.uses)]));
}

test('Activity shows the uses per skill, a chart of them per day, and the assigned skills never used', async () => {
  await period(page, 30);
  const row = skillRow(page, 'review:check');
  assert.equal(await row.locator('[data-testid="activity-uses"]').innerText(), '6');
  assert.match(await row.innerText(), /agent:coder 6/);
  // one bar per day of the period, each with the uses of its day
  const want30 = Object.fromEntries(periodDays(30).map((d) => [d, 0]));
  want30[dayKey(new Date())] += 2;
  want30[dayKey(AGO_2)] += 3;
  want30[dayKey(AGO_20)] += 1;
  assert.deepEqual(Object.fromEntries(await bars(page, 'review:check')), want30);
  const label = await row.locator('[data-testid="activity-chart"]').getAttribute('aria-label');
  assert.match(label, /^review:check: uses per day, the last 30 days: /);
  const quiet = periodDays(30).length - 3;
  assert.match(
    label,
    new RegExp(`: 1 use on [^;]+; 3 uses on [^;]+; 2 uses on [^;]+\\. None on the other ${quiet} days\\.$`),
  );
  const explain = skillRow(page, 'review:explain');
  assert.equal(await explain.locator('[data-testid="activity-uses"]').innerText(), '1');
  assert.match(await explain.innerText(), /template:team\/coder 1/);
  assert.equal(await skillRow(page, 'other:check').count(), 0, 'a use 200 days ago is not in 30 days');

  // the assigned skills agent:coder did not use
  const never = page.locator('[data-testid="activity-unused-skill"][data-target="agent:coder"]');
  const ids = await never.evaluateAll((els) => els.map((e) => e.dataset.id));
  assert.ok(ids.includes('review:explain'), `unused: ${ids}`);
  assert.ok(!ids.includes('review:check'), 'a used skill is not unused');
  // legacy-tools was assigned today: not yet 30 days
  assert.equal(await page.locator('[data-testid="activity-stale"][data-target="agent:coder"]').count(), 0);
  assert.ok(!(await page.content()).includes('never stored'), 'no argument reaches the page');

  await period(page, 7);
  assert.equal(await row.locator('[data-testid="activity-uses"]').innerText(), '5');
  const want7 = Object.fromEntries(periodDays(7).map((d) => [d, 0]));
  want7[dayKey(new Date())] += 2;
  want7[dayKey(AGO_2)] += 3;
  assert.deepEqual(Object.fromEntries(await bars(page, 'review:check')), want7);

  // all time: a bar per week (weeks from Monday), from the week of the first use to this one
  await period(page, 0);
  const chart = row.locator('[data-testid="activity-chart"]');
  assert.equal(await chart.getAttribute('data-unit'), 'week');
  const weeks = await bars(page, 'other:check');
  const monday = (d) => {
    const m = new Date(d.getFullYear(), d.getMonth(), d.getDate());
    m.setDate(m.getDate() - ((m.getDay() + 6) % 7));
    return dayKey(m);
  };
  assert.equal(weeks[0][0], monday(AGO_200));
  assert.equal(weeks.at(-1)[0], monday(new Date()));
  assert.deepEqual(
    weeks.filter(([, n]) => n > 0),
    [[monday(AGO_200), 1]],
  );
  const total = (await bars(page, 'review:check')).reduce((s, [, n]) => s + n, 0);
  assert.equal(total, 6);
  assert.equal((await bars(page, 'review:check')).find(([d]) => d === monday(new Date()))[1] >= 2, true);
});

test('the MCP tools table lists each tool with its calls, errors and median time', async () => {
  await period(page, 30);
  const tools = page.locator('[data-testid="activity-tool"]');
  const rows = await tools.evaluateAll((els) =>
    els.map((e) =>
      ['tool-server', 'tool-plugin', 'tool-name', 'tool-calls', 'tool-errors', 'tool-p50'].map(
        (t) => e.querySelector(`[data-testid="${t}"]`).textContent,
      ),
    ),
  );
  assert.deepEqual(rows, [
    ['lint', 'review', 'run_lint', '3', '1', '120 ms'],
    ['docs', 'review', FORMULA, '1', '0', '40 ms'],
  ]);
});

test('Export CSV downloads the period’s skills and tools, quoted, with formulas made text', async () => {
  await period(page, 30);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="activity-export"]')]);
  assert.equal(download.suggestedFilename(), `plugboard-activity-30-days-${dayKey(new Date())}.csv`);
  const got = readFileSync(await download.path(), 'utf8');
  // review:check was last used by the recorder's call: its time, as the CLI reads it
  const rep = JSON.parse(cli('activity', '--json', '--since', '30d'));
  const sec = (t) => new Date(t).toISOString().replace(/\.\d+Z$/, 'Z');
  const checkLast = sec(rep.skills.find((s) => s.id === 'review:check').last);
  const want =
    'kind,skill,plugin,server,tool,uses,calls,errors,p50ms,last,agent:coder,template:team/coder\r\n' +
    `skill,review:check,review,,,6,,,,${checkLast},6,0\r\n` +
    `skill,review:explain,review,,,1,,,,${sec(AGO_3)},0,1\r\n` +
    `tool,,review,lint,run_lint,,3,1,120,${sec(TOOL_TIME)},3,0\r\n` +
    `tool,,review,docs,"'=HYPERLINK(""http://x"",""y"")",,1,0,40,${sec(TOOL_TIME)},1,0\r\n`;
  assert.equal(got, want);
});

test('the retention set in Settings is saved to settings.json and removes older activity', async () => {
  await page.click('[data-testid="tab-settings"]');
  const field = page.locator('[data-testid="settings-retention"]');
  assert.equal(await field.inputValue(), '0');
  await field.fill('-3');
  await page.locator('[data-testid="savebar"][data-state="warn"]').waitFor();
  await field.fill('90');
  await page.click('[data-testid="settings-save"]');
  await page.locator('[data-testid="savebar"][data-state="ok"]').waitFor();
  const saved = JSON.parse(readFileSync(join(fx.pbHome, 'settings.json'), 'utf8'));
  assert.equal(saved.activityRetentionDays, 90);

  // the next read of the activity removes the use of 200 days ago, and only it
  await page.click('[data-testid="tab-activity"]');
  await period(page, 0);
  await skillRow(page, 'review:check').waitFor();
  assert.equal(await skillRow(page, 'other:check').count(), 0);
  assert.equal(await skillRow(page, 'review:check').locator('[data-testid="activity-uses"]').innerText(), '6');
  const rep = JSON.parse(cli('activity', '--json'));
  assert.deepEqual(
    rep.skills.map((s) => s.id),
    ['review:check', 'review:explain'],
    'the record is gone from the store',
  );

  // the value comes back from the backend
  await page.reload();
  await waitReady(page);
  await page.click('[data-testid="tab-settings"]');
  await page.locator('[data-testid="settings-retention"]').waitFor();
  await page.waitForFunction(() => document.querySelector('[data-testid="settings-retention"]').value === '90');
  await page.click('[data-testid="tab-activity"]');
});

test('a plugin assigned 30 days ago and never used is removed from its target through the guarded save', async () => {
  // The page is opened as if 31 and a half days had passed since legacy-tools was assigned (the backend's
  // clock is real): the only way to have a 30-day-old recorded save without waiting for one.
  const later = await newPage(browser);
  await later.clock.setFixedTime(new Date(NOW + 31.5 * DAY));
  await later.goto(srv.url);
  await waitReady(later);
  await later.click('[data-testid="tab-activity"]');
  await later.locator('[data-testid="activity-body"][data-days="30"]:not([data-loading])').waitFor();

  const item = later.locator('[data-testid="activity-stale"][data-target="agent:coder"][data-plugin="legacy-tools"]');
  assert.match(await item.innerText(), /Assigned .*\(31 days ago\)\. Never used: /);
  const remove = item.locator('[data-testid="activity-remove"]');
  assert.equal(await remove.innerText(), 'Remove from agent:coder');
  // the slot that uses coder's plugins is told what to do instead
  const slot = later.locator(
    '[data-testid="activity-stale"][data-target="template:team/coder"][data-plugin="legacy-tools"]',
  );
  assert.equal(await slot.locator('[data-testid="activity-remove"]').count(), 0);
  assert.match(
    await slot.innerText(),
    /This slot uses the plugins of agent coder: remove legacy-tools from agent:coder/,
  );
  // review was partly used on coder: not listed; assigned before the history began: told, not offered
  assert.equal(
    await later.locator('[data-testid="activity-stale"][data-target="agent:coder"][data-plugin="review"]').count(),
    0,
  );
  const clash = later.locator('[data-testid="activity-stale"][data-target="agent:clash"][data-plugin="review"]');
  assert.match(await clash.innerText(), /Assigned before the history began/);
  assert.equal(await clash.locator('[data-testid="activity-remove"]').count(), 0);

  // the file changes on disk after the page read it: the remove is refused, nothing is written
  const file = join(fx.pbHome, 'agents', 'coder.json');
  const edited = JSON.stringify(JSON.parse(readFileSync(file, 'utf8')), null, 2) + '\n';
  writeFileSync(file, edited);
  await remove.click();
  const status = later.locator('[data-testid="activity-status"]');
  await later.locator('[data-testid="activity-status"][data-kind="error"]').waitFor();
  assert.match(await status.innerText(), /^Not removed: agent:coder changed on disk since this page read it/);
  assert.equal(readFileSync(file, 'utf8'), edited, 'the file is as it was changed');

  // read again, the remove goes through (the button waits for the new read)
  await remove.click();
  await later.locator('[data-testid="activity-status"][data-kind="ok"]').waitFor();
  const done = await status.innerText();
  const m = done.match(/^Removed legacy-tools from agent:coder \(history #(\d+)\)/);
  assert.ok(m, done);
  assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')).pluginDirs, ['plugins/review']);
  const history = JSON.parse(cli('history', '--json', 'agent:coder')).entries;
  assert.equal(history[0].id, Number(m[1]));
  assert.deepEqual(history[0].after, ['plugins/review']);
  assert.ok(history[0].before.includes('plugins/legacy-tools'));
  assert.equal(history[0].actor, 'http');
  await item.waitFor({ state: 'detached' });
  await later.context().close();
});
