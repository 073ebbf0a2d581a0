// Shared set-up for the end-to-end tests: a temp copy of the fixture home, the real backend
// (`$PLUGBOARD_BIN serve`), and Debian's Chromium driven by playwright-core.

import { spawn } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = resolve(here, '..', '..');
export const fixtureRoot = join(repoRoot, 'testdata', 'homes', 'full');
export const CHROMIUM = process.env.PLUGBOARD_CHROMIUM || '/usr/bin/chromium';

/** The backend binary from $PLUGBOARD_BIN (absolute or relative to the repository). */
export function pluginBin() {
  const bin = process.env.PLUGBOARD_BIN;
  if (!bin) {
    throw new Error(
      'PLUGBOARD_BIN is not set: build the command line with `make cli` (which builds the page and embeds it) ' +
        'and run `PLUGBOARD_BIN=$PWD/../build/bin/plugboard npm run e2e`',
    );
  }
  return resolve(process.cwd(), bin);
}

/**
 * Copies testdata/homes/full (home and ws) into a fresh temp folder and lays out what git cannot
 * carry: the Cursor local-plugin symlink ~/.cursor/plugins/local/hf-skills -> ~/src/hf-skills, as
 * backend/catalog/catalog_test.go does.
 */
export function makeFixture() {
  const dir = mkdtempSync(join(tmpdir(), 'pb-e2e-'));
  cpSync(fixtureRoot, dir, { recursive: true, verbatimSymlinks: true });
  const home = join(dir, 'home');
  const local = join(home, '.cursor', 'plugins', 'local');
  mkdirSync(local, { recursive: true });
  symlinkSync(join(home, 'src', 'hf-skills'), join(local, 'hf-skills'));
  return {
    dir,
    home,
    pbHome: join(home, '.plugboard'),
    ws: join(dir, 'ws'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * The assignment fixture: a temp copy of testdata/assign/home as the Plugboard home (pbHome) and a
 * fresh, empty HOME beside it.
 */
export function makeAssignFixture() {
  const dir = mkdtempSync(join(tmpdir(), 'pb-e2e-assign-'));
  const pbHome = join(dir, 'pb');
  cpSync(join(repoRoot, 'testdata', 'assign', 'home'), pbHome, { recursive: true, verbatimSymlinks: true });
  const home = join(dir, 'home');
  mkdirSync(home);
  return { dir, home, pbHome, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The launch fixture: a temp copy of testdata/runtime/<name> (default home) as the Plugboard home (agents coder,
 * clash — two plugins with a skill "check" —, pi-coder, and template team with an __active__ slot)
 * and a fresh, empty HOME beside it.
 */
export function makeRuntimeFixture(name = 'home') {
  const dir = mkdtempSync(join(tmpdir(), 'pb-e2e-runtime-'));
  const pbHome = join(dir, 'pb');
  cpSync(join(repoRoot, 'testdata', 'runtime', name), pbHome, { recursive: true, verbatimSymlinks: true });
  const home = join(dir, 'home');
  mkdirSync(home);
  return { dir, home, pbHome, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A stand-in for a terminal emulator in dir: it writes the arguments it was started with, one a
 * line, to record (atomically, so a reader never sees half of them) and exits. It runs nothing.
 * opened() waits for the record, removes it and returns its lines: a test awaits it after every
 * launch that opens the terminal, which runs on its own (a launch does not wait for it), so that
 * it is done writing before the next launch and before the fixture is removed.
 */
export function terminalStandIn(dir) {
  const record = join(dir, 'terminal-argv.txt');
  const stand = join(dir, 'terminal-stand-in.sh');
  writeFileSync(stand, `#!/bin/sh\nprintf '%s\\n' "$@" > '${record}.tmp' && mv '${record}.tmp' '${record}'\n`);
  chmodSync(stand, 0o755);
  const opened = async () => {
    await waitFor(() => existsSync(record), { message: 'the terminal stand-in to be started' });
    const lines = readFileSync(record, 'utf8').trimEnd().split('\n');
    rmSync(record);
    return lines;
  };
  return { stand, record, opened };
}

/**
 * The env of a serve whose launches find `claude` and `pi` on PATH (stand-ins in dir/bin that
 * exit at once: the terminal is a stand-in too, so they never run), while the plan keeps argv[0]
 * the backend's name. A launch looks for its client before it opens a terminal.
 */
export function clientsOnPath(dir) {
  const bin = join(dir, 'client-stand-ins');
  mkdirSync(bin, { recursive: true });
  for (const name of ['claude', 'pi', 'copilot']) {
    writeFileSync(join(bin, name), '#!/bin/sh\nexit 0\n');
    chmodSync(join(bin, name), 0o755);
  }
  // Codex is not installed here, whatever this machine has on its PATH.
  return {
    PATH: `${bin}:${process.env.PATH}`,
    PLUGBOARD_CLAUDE_BIN: '',
    PLUGBOARD_PI_BIN: '',
    PLUGBOARD_COPILOT_BIN: '',
    PLUGBOARD_CODEX_BIN: join(dir, 'no-codex-here', 'codex'),
  };
}

/**
 * Starts `plugboard serve --addr 127.0.0.1:0 --home <pbHome>` with HOME=<home> (and env on top),
 * reads the first stdout line (the URL with the token) and returns it with a stop function.
 */
export async function startServe({ home, pbHome, args = [], env: extra = {} }) {
  const bin = pluginBin();
  const env = { ...process.env, HOME: home, ...extra };
  delete env.PLUGBOARD_HOME; // --home says where it is
  const proc = spawn(bin, ['serve', '--addr', '127.0.0.1:0', '--home', pbHome, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  const url = await new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`serve printed no URL in 20 s; stderr: ${stderr}`)), 20000);
    proc.once('error', (e) => {
      clearTimeout(timer);
      rej(new Error(`cannot start ${bin}: ${e.message}`));
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`serve exited with ${code} before printing its URL; stderr: ${stderr}`));
    });
    const rl = createInterface({ input: proc.stdout });
    rl.once('line', (line) => {
      clearTimeout(timer);
      res(line.trim());
    });
  });
  if (!/^http:\/\/127\.0\.0\.1:\d+\/\?token=\w+/.test(url)) throw new Error(`unexpected first line from serve: ${url}`);
  // serve's own shutdown is bounded: requests in flight get 2 s, then each warm agent of
  // the page's tries 2 s to exit on SIGTERM before serve kills its group. The test waits
  // for all of it, so no agent is left writing under HOME while the fixture is removed;
  // SIGKILL only ends a serve that hangs past that.
  const stop = async () => {
    if (proc.exitCode !== null) return;
    const done = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    const t = setTimeout(() => proc.kill('SIGKILL'), 15000);
    await done;
    clearTimeout(t);
  };
  return { url, origin: new URL(url).origin, proc, stop, stderr: () => stderr };
}

/**
 * Launches Debian's Chromium. playwright-core's launch() gives every browser a fresh temporary
 * user-data-dir, removed when the browser closes.
 */
export async function launchBrowser() {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** A page of a new browser context (fresh storage), sized like the desktop window. */
export async function newPage(browser, opts = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...opts });
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error('page error:', e.message));
  return page;
}

/** Waits until the page has a catalog (the plugin list is showing). */
/** Waits for the page to show the whole catalog document (not only the list part it draws first). */
export async function waitReady(page) {
  await page.waitForSelector('html[data-catalog="full"]', { state: 'attached', timeout: 20000 });
  await page.waitForSelector('[data-testid="plugin-row"], [data-testid="empty"]:not([hidden])', { timeout: 20000 });
}

/** data-id of every plugin row currently in the DOM. */
/** Loads the page at url, waits for the catalog, and opens the Assignments tab with its targets. */
export async function openAssignments(page, url) {
  await page.goto(url);
  await waitReady(page);
  await page.click('[data-testid="tab-assign"]');
  await page.waitForSelector('[data-testid="target"]');
}

/** Opens one target in the Assignments tab and waits for its detail. */
export async function selectTarget(page, id) {
  await page.click(`[data-testid="target"][data-id="${id}"]`);
  await page.waitForSelector(`[data-testid="assign-target"][data-id="${id}"]`);
}

export async function rowIds(page) {
  return page.$$eval('[data-testid="plugin-row"]', (els) => els.map((e) => e.getAttribute('data-id')));
}

export async function waitFor(fn, { timeout = 10000, interval = 100, message = 'condition' } = {}) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${message} (last: ${last})`);
    await new Promise((r) => setTimeout(r, interval));
  }
}
