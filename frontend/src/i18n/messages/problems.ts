// Messages of the Problems view: English, and the same keys in Simplified Chinese. Keys are
// 'problems.<what>'; see ../index.ts for placeholders and plural forms.

import type { Msg } from '../index';

export const en = {
  'problems.title': 'Problems',
  'problems.about':
    'Every issue of the catalog in one list, errors first: what the header counts. Open a file at its line in your editor, or go to the plugin or skill it belongs to.',
  'problems.loading': 'Loading…',
  'problems.all': 'all',
  'problems.severity': 'Severity ',
  'problems.code': 'Code ',
  'problems.source': 'Source ',
  'problems.errors': { one: '{n} error', other: '{n} errors' },
  'problems.warnings': { one: '{n} warning', other: '{n} warnings' },
  'problems.infos': { one: '{n} note', other: '{n} notes' },
  'problems.source.plugin': 'plugins',
  'problems.source.skill': 'standalone skills',
  'problems.source.catalog': 'the catalog (settings, folders, names)',
  'problems.count': 'Showing {n} of {all}.',
  'problems.none': 'No problems: every package, skill and server is as its specification asks.',
  'problems.open': 'Open file',
  'problems.opened': 'Opened {file} ({command}).',
  'problems.openFailed': 'Not opened: {msg}',
  'problems.showPlugin': 'Plugin {id}',
  'problems.showSkill': 'Skill {id}',
  'problems.header': 'Show the problems',
} as const satisfies Record<string, Msg>;

export const zh: Record<keyof typeof en, Msg> = {
  'problems.title': '问题',
  'problems.about':
    '目录中的所有问题集中在一个列表中，错误在前：即标题栏统计的内容。可在编辑器中打开文件并定位到该行，或转到其所属的插件或技能。',
  'problems.loading': '正在加载…',
  'problems.all': '全部',
  'problems.severity': '严重程度 ',
  'problems.code': '代码 ',
  'problems.source': '来源 ',
  'problems.errors': { other: '{n} 个错误' },
  'problems.warnings': { other: '{n} 个警告' },
  'problems.infos': { other: '{n} 条提示' },
  'problems.source.plugin': '插件',
  'problems.source.skill': '独立技能',
  'problems.source.catalog': '目录（设置、文件夹、名称）',
  'problems.count': '显示 {all} 个中的 {n} 个。',
  'problems.none': '没有问题：每个包、技能和服务器都符合其规范。',
  'problems.open': '打开文件',
  'problems.opened': '已打开 {file}（{command}）。',
  'problems.openFailed': '未打开：{msg}',
  'problems.showPlugin': '插件 {id}',
  'problems.showSkill': '技能 {id}',
  'problems.header': '查看问题',
};
