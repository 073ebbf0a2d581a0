// Messages of the skills area: English, and the same keys in Simplified Chinese. Keys are
// 'skills.<what>' and stay in this file; see ../index.ts for placeholders and plural forms.

import type { Msg } from '../index';

export const en = {
} as const satisfies Record<string, Msg>;

export const zh: Record<keyof typeof en, Msg> = {
};
