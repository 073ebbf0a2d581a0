// Messages of the bridge area: English, and the same keys in Simplified Chinese. Keys are
// 'bridge.<what>' and stay in this file; see ../index.ts for placeholders and plural forms.

import type { Msg } from '../index';

export const en = {
  'bridge.unreachable': 'cannot reach Plugboard ({msg})',
  'bridge.http': '{method}: HTTP {status} {statusText}',
  'bridge.notJSON': '{method}: the response is not JSON ({msg})',
  'bridge.noBinding': 'the desktop binding {method} is missing',
  // In a language other than English an error leads with one of these, then the backend's text
  'bridge.detail': '{said} ({msg})',
  'bridge.reason.exists': 'A plugin of that id is installed already',
  'bridge.reason.not-plugin': 'This is not one plugin package',
  'bridge.reason.rule': 'The package breaks a rule of installing; nothing was installed',
  'bridge.reason.tampered': 'The content is not what the lockfile records',
  'bridge.reason.not-ours': 'This folder was not installed by Plugboard',
  'bridge.reason.not-installable': 'Plugboard cannot install this marketplace entry',
  'bridge.reason.marketplace': 'The marketplace cannot be used',
  'bridge.reason.invalid-package': 'The package is not valid',
  'bridge.reason.in-use': 'The plugin is still assigned',
  'bridge.code.not-found': 'It was not found',
  'bridge.code.invalid': 'The input is not valid',
  'bridge.code.io': 'Reading, writing or fetching failed',
  'bridge.code.stale': 'The file changed after it was read',
  'bridge.code.refused': 'This was refused',
  'bridge.code.unsupported': 'This is not supported here',
} as const satisfies Record<string, Msg>;

export const zh: Record<keyof typeof en, Msg> = {
  'bridge.unreachable': '无法连接 Plugboard（{msg}）',
  'bridge.http': '{method}：HTTP {status} {statusText}',
  'bridge.notJSON': '{method}：响应不是 JSON（{msg}）',
  'bridge.noBinding': '缺少桌面绑定 {method}',
  'bridge.detail': '{said}（{msg}）',
  'bridge.reason.exists': '已安装同一 id 的插件',
  'bridge.reason.not-plugin': '这不是单个插件包',
  'bridge.reason.rule': '该包违反了安装规则，未安装任何内容',
  'bridge.reason.tampered': '内容与锁定文件记录的不一致',
  'bridge.reason.not-ours': '该文件夹不是 Plugboard 安装的',
  'bridge.reason.not-installable': 'Plugboard 无法安装这个市场条目',
  'bridge.reason.marketplace': '无法使用该市场',
  'bridge.reason.invalid-package': '该包无效',
  'bridge.reason.in-use': '该插件仍被分配使用',
  'bridge.code.not-found': '未找到',
  'bridge.code.invalid': '输入无效',
  'bridge.code.io': '读取、写入或获取失败',
  'bridge.code.stale': '文件在读取后已被更改',
  'bridge.code.refused': '操作被拒绝',
  'bridge.code.unsupported': '此处不支持',
};
