// Every area's messages, merged into one catalog per language. Each file in messages/ exports en
// (the keys and English text) and zh (the same keys, Simplified Chinese): zh's type is en's keys,
// so a key missing from either language does not compile, and e2e/i18n.test.mjs checks the same
// at run time along with the placeholders each translation keeps.

import type { Msg } from './index';
import * as activity from './messages/activity';
import * as assign from './messages/assign';
import * as bridge from './messages/bridge';
import * as budget from './messages/budget';
import * as common from './messages/common';
import * as dev from './messages/dev';
import * as install from './messages/install';
import * as launch from './messages/launch';
import * as plugins from './messages/plugins';
import * as problems from './messages/problems';
import * as settings from './messages/settings';
import * as shell from './messages/shell';
import * as skills from './messages/skills';
import * as timeline from './messages/timeline';

const en = {
  ...activity.en,
  ...assign.en,
  ...bridge.en,
  ...budget.en,
  ...common.en,
  ...dev.en,
  ...install.en,
  ...launch.en,
  ...plugins.en,
  ...problems.en,
  ...settings.en,
  ...shell.en,
  ...skills.en,
  ...timeline.en,
};

export type Key = keyof typeof en;

const zh: Record<Key, Msg> = {
  ...activity.zh,
  ...assign.zh,
  ...bridge.zh,
  ...budget.zh,
  ...common.zh,
  ...dev.zh,
  ...install.zh,
  ...launch.zh,
  ...plugins.zh,
  ...problems.zh,
  ...settings.zh,
  ...shell.zh,
  ...skills.zh,
  ...timeline.zh,
};

export const catalogs: Record<'en' | 'zh-CN', Record<Key, Msg>> = { en, 'zh-CN': zh };

/** Each area's catalogs, for the check that no two areas define the same key. */
export const areas: Record<string, { en: Record<string, Msg>; zh: Record<string, Msg> }> = {
  activity,
  assign,
  bridge,
  budget,
  common,
  dev,
  install,
  launch,
  plugins,
  problems,
  settings,
  shell,
  skills,
  timeline,
};
