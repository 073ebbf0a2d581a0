// Messages of the application shell: the header, tabs, loading and error screens, the save bar,
// the live status and the window title. Keys are 'shell.<what>'; see ../index.ts for
// placeholders and plural forms.

import type { Msg } from '../index';

export const en = {
  'shell.loading.scanning': 'Scanning plugins and skills…',
  'shell.loading.progressLabel': 'Scan progress',
  'shell.loading.progress': { one: '{done} of {n} plugin', other: '{done} of {n} plugins' },
  'shell.loading.reading': 'Reading the catalog',
  'shell.error.title': 'The catalog could not be loaded',
  'shell.error.retry': 'Retry',
} as const satisfies Record<string, Msg>;

export const zh: Record<keyof typeof en, Msg> = {
  'shell.loading.scanning': '正在扫描插件和技能…',
  'shell.loading.progressLabel': '扫描进度',
  'shell.loading.progress': { other: '{done} / {n} 个插件' },
  'shell.loading.reading': '正在读取目录',
  'shell.error.title': '无法加载目录',
  'shell.error.retry': '重试',
};
