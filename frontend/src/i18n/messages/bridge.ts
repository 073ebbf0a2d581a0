// Messages of the bridge area: English, and the same keys in Simplified Chinese. Keys are
// 'bridge.<what>' and stay in this file; see ../index.ts for placeholders and plural forms.

import type { Msg } from '../index';

export const en = {
  'bridge.unreachable': 'cannot reach Plugboard ({msg})',
  'bridge.http': '{method}: HTTP {status} {statusText}',
  'bridge.notJSON': '{method}: the response is not JSON ({msg})',
  'bridge.noBinding': 'the desktop binding {method} is missing',
} as const satisfies Record<string, Msg>;

export const zh: Record<keyof typeof en, Msg> = {
  'bridge.unreachable': '无法连接 Plugboard（{msg}）',
  'bridge.http': '{method}：HTTP {status} {statusText}',
  'bridge.notJSON': '{method}：响应不是 JSON（{msg}）',
  'bridge.noBinding': '缺少桌面绑定 {method}',
};
