// Messages shared by the whole page: dialogs' common buttons and the settings draft's notices.
// Keys are 'common.<what>'; see ../index.ts for placeholders and plural forms.

import type { Msg } from '../index';

export const en = {
  'common.close': 'Close',
  'common.cancel': 'Cancel',
  'common.ok': 'OK',
  'common.discard.title': 'Discard unsaved changes?',
  'common.discard.keep': 'Keep editing',
  'common.discard.confirm': 'Discard',
  'common.settings.cannotRead': 'Cannot read settings: {msg}',
  'common.settings.alreadyListed': '{path} is already in the list',
  'common.settings.retentionInvalid': 'Keep activity for: give a whole number of days, or 0 to keep all of it.',
  'common.settings.saved': 'Settings saved; rescanning.',
  'common.settings.stale': 'settings changed on disk; reloaded',
  'common.settings.notSaved': 'Not saved: {msg}',
} as const satisfies Record<string, Msg>;

export const zh: Record<keyof typeof en, Msg> = {
  'common.close': '关闭',
  'common.cancel': '取消',
  'common.ok': '确定',
  'common.discard.title': '放弃未保存的更改？',
  'common.discard.keep': '继续编辑',
  'common.discard.confirm': '放弃',
  'common.settings.cannotRead': '无法读取设置：{msg}',
  'common.settings.alreadyListed': '{path} 已在列表中',
  'common.settings.retentionInvalid': '活动保留时长：请填写整数天数，填 0 表示全部保留。',
  'common.settings.saved': '设置已保存，正在重新扫描。',
  'common.settings.stale': '设置已在磁盘上被更改，已重新加载',
  'common.settings.notSaved': '未保存：{msg}',
};
