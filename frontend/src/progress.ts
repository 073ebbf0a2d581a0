// The progress lines of an install, an update or a rollback, in the page's language. The backend
// (backend/install) writes them in English for the command line; the page knows their few shapes
// and says each in its own words, keeping the names and paths they carry. A line of another shape
// is shown as the backend wrote it.

import { type Key, t } from './i18n';

const STEPS: Array<[RegExp, Key, string[]]> = [
  [/^fetching (.+) …$/, 'install.step.fetching', ['what']],
  [/^unpacking (.+) …$/, 'install.step.unpacking', ['what']],
  [/^copying (.+) …$/, 'install.step.copying', ['what']],
  [/^validating (.+) …$/, 'install.step.validating', ['what']],
  [/^installed (.+) as (plugins\/.+)$/, 'install.step.installed', ['what', 'where']],
  [/^(.+) is up to date$/, 'install.step.upToDate', ['what']],
  [/^(.+) is pinned to commit (\S+): up to date$/, 'install.step.pinned', ['what', 'commit']],
  [/^(.+) has an update: (.+)$/, 'install.step.hasUpdate', ['what', 'change']],
  [/^updated ([^:]+): (.+); the previous version is kept .*$/, 'install.step.updated', ['what', 'change']],
];

/** line in the page's language, when it has one of the known shapes. */
export function progressLine(line: string): string {
  for (const [re, key, names] of STEPS) {
    const m = re.exec(line);
    if (m) return t(key, Object.fromEntries(names.map((n, i) => [n, m[i + 1]])));
  }
  return line;
}
