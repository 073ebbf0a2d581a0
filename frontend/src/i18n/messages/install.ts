// Messages of the install area: English, and the same keys in Simplified Chinese. Keys are
// 'install.<what>' and stay in this file; see ../index.ts for placeholders and plural forms.
// Used by views/install.ts: the Install dialog, the marketplace browser, and the Installed card of
// a plugin's detail (updates, rollback, uninstall).

import type { Msg } from '../index';

export const en = {
  // lists of names and parts of a sentence
  'install.listSep': ', ',
  'install.atCommit': ' at {commit}',

  // what an update changes
  'install.change.version': 'version {from} → {to}',
  'install.change.commit': 'commit {from} → {to}',
  'install.change.none': '(none)',
  'install.change.content': 'its content changed',
  'install.change.sep': ', ',
  'install.delta.line': '{what}: {parts}',
  'install.delta.sep': '; ',
  'install.delta.added': 'added {names}',
  'install.delta.removed': 'removed {names}',
  'install.delta.changed': 'changed {names}',
  'install.delta.skills': 'skills',
  'install.delta.commands': 'commands',
  'install.delta.servers': 'MCP servers',
  'install.ack.forTargets':
    'MCP server {server} needs acknowledgment for {targets} (in the Launch card of each): a launch leaves it out until then',
  'install.ack.eachTarget':
    'MCP server {server} needs acknowledgment in each target that assigns it: a launch leaves it out until then',
  'install.modified': 'the installed folder was edited by hand: the update replaces it (Rollback brings it back)',
  'install.native':
    '{what} {name} {change} ({file}; runs {runs}) — Claude Code starts it itself; Plugboard does not manage or acknowledge it',
  'install.native.mcp': 'MCP server',
  'install.native.hook': 'hook',
  'install.native.lsp': 'LSP server',
  'install.native.added': 'added',
  'install.native.changed': 'changed',
  'install.native.removed': 'removed',

  // a refusal's override and hint
  'install.force.invalidPackage':
    'Force: install it even though it has errors (it stays unassignable until they are fixed)',
  'install.force.exists': 'Force: replace the installed plugin of that id',
  'install.hint.exists': 'Tick Force below to replace it, uninstall it first, or give another name.',

  // an MCP server an install brought
  'install.server.runs': {
    one: '{name}: {type}, runs {executable} ({n} argument)',
    other: '{name}: {type}, runs {executable} ({n} arguments)',
  },
  'install.server.connects': '{name}: {type}, connects to {origin}',

  // Check for updates
  'install.check.button': 'Check for updates',
  'install.check.buttonFor': 'Check {id} for updates',
  'install.check.checking': 'Checking…',
  'install.check.nothing': 'No plugin was installed with Install, so there is nothing to update.',
  'install.check.available': { one: '{n} update available', other: '{n} updates available' },
  'install.check.allCurrent': 'Every installed plugin is up to date',
  'install.check.summary': '{summary}.',
  'install.check.someFailed': {
    one: '{summary}; {n} plugin could not be checked (see its detail).',
    other: '{summary}; {n} plugins could not be checked (see its detail).',
  },
  'install.check.notChecked': 'Not checked: {msg}',
  'install.check.updatesNotChecked': 'Updates not checked: {msg}',
  'install.badge.update': 'update available',
  'install.badge.updateTitle': 'Check for updates found a new version; see its detail',

  // the toolbar and the catalog after an install
  'install.open': 'Install…',
  'install.catalogUnread': 'Installed {id}, but the catalog could not be read again: {msg}. Rescan.',

  // the Installed card
  'install.card.title': 'Installed',
  'install.card.source': 'Source',
  'install.card.kind': 'Kind',
  'install.card.ref': 'Ref',
  'install.card.path': 'Path',
  'install.card.commit': 'Commit',
  'install.card.archive': 'Archive',
  'install.card.installed': 'Installed',
  'install.card.reading': 'Reading plugins.lock.json…',
  'install.card.update': 'Update',
  'install.card.rollback': 'Rollback',
  'install.card.rollbackTo': 'Put back the version the last update replaced',
  'install.card.rollbackToCommit': 'Put back the version the last update replaced (commit {commit})',
  'install.card.rollbackNone': 'Nothing to roll back to: an update keeps the version it replaces',
  'install.card.uninstall': 'Uninstall',
  'install.card.uninstallAnyway': 'Uninstall anyway',
  'install.progress': 'Progress',
  'install.step.fetching': 'fetching {what} …',
  'install.step.unpacking': 'unpacking {what} …',
  'install.step.copying': 'copying {what} …',
  'install.step.validating': 'validating {what} …',
  'install.step.installed': 'installed {what} as {where}',
  'install.step.upToDate': '{what} is up to date',
  'install.step.pinned': '{what} is pinned to commit {commit}: up to date',
  'install.step.hasUpdate': '{what} has an update: {change}',
  'install.step.updated': 'updated {what}: {change}; the previous version is kept for Rollback',

  // the outcome of the last install
  'install.outcome.installed': 'Installed {id} from {from}{at}; {how}.',
  'install.outcome.replaced': 'Replaced {id} from {from}{at}; {how}.',
  'install.outcome.forced': 'installed with Force: it has errors',
  'install.outcome.valid': 'valid',
  'install.outcome.invalid': 'invalid by the specification',
  'install.outcome.credentials':
    'The user name or password in the URL was used for this fetch only and is not stored; give git a credential helper for later updates.',
  'install.outcome.servers': {
    one: '{n} MCP server, not acknowledged: a launch leaves them out until you acknowledge them. Assign the plugin in Assignments, then acknowledge them in the Launch card of its target.',
    other:
      '{n} MCP servers, not acknowledged: a launch leaves them out until you acknowledge them. Assign the plugin in Assignments, then acknowledge them in the Launch card of its target.',
  },
  'install.outcome.notAcked': 'not acknowledged',

  // what the last check found
  'install.state.pinned': 'Pinned to commit {commit}: up to date (install another ref to move it).',
  'install.state.current': 'Up to date.',
  'install.state.available': 'Update available',

  // Update
  'install.update.busy': 'Updating…',
  'install.update.current': '{id} is up to date: nothing to update.',
  'install.update.pinned': '{id} is pinned to commit {commit}: nothing to update.',
  'install.update.done': 'Updated {id}: {changes}. The previous version is kept: Rollback brings it back.',
  'install.update.needAck': {
    one: '{text} {n} MCP server ({names}) need acknowledgment in the Launch card before a launch starts them.',
    other: '{text} {n} MCP servers ({names}) need acknowledgment in the Launch card before a launch starts them.',
  },
  'install.update.failed': 'Not updated: {msg}',

  // Rollback
  'install.rollback.busy': 'Rolling back…',
  'install.rollback.done':
    'Rolled back {id} to the version the last update replaced. Rollback again returns to the newer one.',
  'install.rollback.doneAt':
    'Rolled back {id} to the version the last update replaced (commit {commit}). Rollback again returns to the newer one.',
  'install.rollback.failed': 'Not rolled back: {msg}',

  // Uninstall
  'install.uninstall.title': 'Uninstall {id}?',
  'install.uninstall.body': 'Its folder {path} and its entry in plugins.lock.json are removed.',
  'install.uninstall.bodyAgain':
    'Its folder {path} and its entry in plugins.lock.json are removed. Install it again from {source} to get it back.',
  'install.uninstall.cancel': 'Cancel',
  'install.uninstall.confirm': 'Uninstall',
  'install.uninstall.busy': 'Uninstalling…',
  'install.uninstall.done': 'Uninstalled {id}.',
  'install.uninstall.doneStill': 'Uninstalled {id}; {targets} still name it: remove it there in Assignments.',
  'install.uninstall.catalogError': 'Uninstalled {id}; {msg}',
  'install.uninstall.failed': 'Not uninstalled: {msg}',

  // the Install dialog
  'install.dialog.title': 'Install a plugin',
  'install.dialog.formLabel': 'Install from a source',
  'install.dialog.source': 'Source',
  'install.dialog.sourceHelp':
    'A git URL, GitHub owner/repo, the full path of a plugin folder, a local git repository or a .zip/.tar.gz file, or PLUGIN@MARKETPLACE.',
  'install.dialog.ref': 'Ref',
  'install.dialog.refLabel': 'Ref (git)',
  'install.dialog.refPlaceholder': 'default branch',
  'install.dialog.path': 'Path inside the source',
  'install.dialog.pathPlaceholder': 'its root',
  'install.dialog.name': 'Name (the plugin id)',
  'install.dialog.namePlaceholder': "the manifest's name",
  'install.dialog.install': 'Install',
  'install.dialog.installing': 'Installing…',
  'install.dialog.relative': "{source} is a relative path: type the folder's or archive's full path (or ~/…).",
  'install.dialog.noSource': 'Type a source first.',
  'install.dialog.notInstalled': 'Not installed: {msg}',
  'install.dialog.notInstalledHint': 'Not installed: {msg} {hint}',

  // the marketplace browser
  'install.market.title': 'Marketplaces',
  'install.market.searchPlaceholder': 'Search marketplace plugins',
  'install.market.searchLabel': 'Search marketplace plugins by name or description',
  'install.market.sourceLabel': 'Marketplace source',
  'install.market.sourcePlaceholder': '/path/to/marketplace or owner/name',
  'install.market.nameLabel': 'Marketplace name',
  'install.market.namePlaceholder': "the file's name",
  'install.market.addTitle': 'Add a marketplace',
  'install.market.add': 'Add marketplace',
  'install.market.adding': 'Adding…',
  'install.market.listError': 'Marketplaces: {msg}',
  'install.market.loading': 'Loading marketplaces…',
  'install.market.none':
    'No marketplace is added. Add one below: a folder holding .claude-plugin/marketplace.json, a git URL or GitHub owner/name.',
  'install.market.plugins': { one: '{n} plugin', other: '{n} plugins' },
  'install.market.removeLabel': 'Remove marketplace {name}',
  'install.market.remove': 'Remove',
  'install.market.noMatch': 'No plugin of this marketplace matches the search.',
  'install.market.cannotInstall': 'Cannot be installed: {reason}',
  'install.market.installLabel': 'Install {id}',
  'install.market.noSource': 'Type the marketplace’s source first.',
  'install.market.added': {
    one: 'Added marketplace {name} ({n} plugin).',
    other: 'Added marketplace {name} ({n} plugins).',
  },
  'install.market.addedWarnings': {
    one: 'Added marketplace {name} ({n} plugin). Warnings: {warnings}',
    other: 'Added marketplace {name} ({n} plugins). Warnings: {warnings}',
  },
  'install.market.notAdded': 'Not added: {msg}',
  'install.market.removed': 'Removed marketplace {name}; its clone is deleted.',
  'install.market.removedKept': 'Removed marketplace {name}; the folder {path} is left as it is.',
  'install.market.notRemoved': 'Not removed: {msg}',
} as const satisfies Record<string, Msg>;

export const zh: Record<keyof typeof en, Msg> = {
  'install.listSep': '、',
  'install.atCommit': '（提交 {commit}）',

  'install.change.version': '版本 {from} → {to}',
  'install.change.commit': '提交 {from} → {to}',
  'install.change.none': '（无）',
  'install.change.content': '内容有变化',
  'install.change.sep': '，',
  'install.delta.line': '{what}：{parts}',
  'install.delta.sep': '；',
  'install.delta.added': '新增 {names}',
  'install.delta.removed': '移除 {names}',
  'install.delta.changed': '更改 {names}',
  'install.delta.skills': '技能',
  'install.delta.commands': '命令',
  'install.delta.servers': 'MCP 服务器',
  'install.ack.forTargets':
    'MCP 服务器 {server} 需要为 {targets} 确认（在各自的“启动”卡片中）：确认之前，启动时不会包含它',
  'install.ack.eachTarget': 'MCP 服务器 {server} 需要在分配了它的每个目标中确认：确认之前，启动时不会包含它',
  'install.modified': '已安装的文件夹被手动编辑过：更新会替换它（回滚可将其恢复）',
  'install.native':
    '{what} {name} {change}（{file}；运行 {runs}）— 由 Claude Code 自行启动，Plugboard 不管理也不确认它',
  'install.native.mcp': 'MCP 服务器',
  'install.native.hook': '钩子',
  'install.native.lsp': 'LSP 服务器',
  'install.native.added': '已添加',
  'install.native.changed': '已更改',
  'install.native.removed': '已移除',

  'install.force.invalidPackage': '强制：即使有错误也安装（修复错误之前无法分配）',
  'install.force.exists': '强制：替换已安装的同 ID 插件',
  'install.hint.exists': '勾选下方的“强制”以替换它，或先卸载它，或换一个名称。',

  'install.server.runs': { other: '{name}：{type}，运行 {executable}（{n} 个参数）' },
  'install.server.connects': '{name}：{type}，连接到 {origin}',

  'install.check.button': '检查更新',
  'install.check.buttonFor': '检查 {id} 的更新',
  'install.check.checking': '正在检查…',
  'install.check.nothing': '没有通过“安装”安装的插件，因此没有可更新的内容。',
  'install.check.available': { other: '有 {n} 个可用更新' },
  'install.check.allCurrent': '所有已安装的插件均为最新',
  'install.check.summary': '{summary}。',
  'install.check.someFailed': { other: '{summary}；{n} 个插件无法检查（请查看其详情）。' },
  'install.check.notChecked': '未检查：{msg}',
  'install.check.updatesNotChecked': '未检查更新：{msg}',
  'install.badge.update': '有可用更新',
  'install.badge.updateTitle': '“检查更新”发现了新版本；请查看其详情',

  'install.open': '安装…',
  'install.catalogUnread': '已安装 {id}，但无法重新读取目录：{msg}。请重新扫描。',

  'install.card.title': '已安装',
  'install.card.source': '来源',
  'install.card.kind': '类型',
  'install.card.ref': '引用',
  'install.card.path': '路径',
  'install.card.commit': '提交',
  'install.card.archive': '归档文件',
  'install.card.installed': '安装时间',
  'install.card.reading': '正在读取 plugins.lock.json…',
  'install.card.update': '更新',
  'install.card.rollback': '回滚',
  'install.card.rollbackTo': '恢复上次更新替换掉的版本',
  'install.card.rollbackToCommit': '恢复上次更新替换掉的版本（提交 {commit}）',
  'install.card.rollbackNone': '没有可回滚的版本：更新时会保留被替换的版本',
  'install.card.uninstall': '卸载',
  'install.card.uninstallAnyway': '仍然卸载',
  'install.progress': '进度',
  'install.step.fetching': '正在获取 {what} …',
  'install.step.unpacking': '正在解包 {what} …',
  'install.step.copying': '正在复制 {what} …',
  'install.step.validating': '正在验证 {what} …',
  'install.step.installed': '已将 {what} 安装为 {where}',
  'install.step.upToDate': '{what} 已是最新',
  'install.step.pinned': '{what} 固定在提交 {commit}：已是最新',
  'install.step.hasUpdate': '{what} 有更新：{change}',
  'install.step.updated': '已更新 {what}：{change}；旧版本已保留，可回滚',

  'install.outcome.installed': '已从 {from}{at} 安装 {id}；{how}。',
  'install.outcome.replaced': '已从 {from}{at} 替换 {id}；{how}。',
  'install.outcome.forced': '已强制安装：它有错误',
  'install.outcome.valid': '有效',
  'install.outcome.invalid': '按规范无效',
  'install.outcome.credentials':
    'URL 中的用户名或密码仅用于本次获取，不会被保存；如需日后更新，请为 git 配置凭据助手（credential helper）。',
  'install.outcome.servers': {
    other:
      '{n} 个 MCP 服务器未确认：确认之前，启动时不会包含它们。请先在“分配”中分配该插件，再在其目标的“启动”卡片中确认它们。',
  },
  'install.outcome.notAcked': '未确认',

  'install.state.pinned': '已固定到提交 {commit}：已是最新（如需移动，请安装其他引用）。',
  'install.state.current': '已是最新。',
  'install.state.available': '有可用更新',

  'install.update.busy': '正在更新…',
  'install.update.current': '{id} 已是最新：无需更新。',
  'install.update.pinned': '{id} 已固定到提交 {commit}：无需更新。',
  'install.update.done': '已更新 {id}：{changes}。旧版本已保留：回滚可将其恢复。',
  'install.update.needAck': {
    other: '{text}{n} 个 MCP 服务器（{names}）需要先在“启动”卡片中确认，启动时才会启动它们。',
  },
  'install.update.failed': '未更新：{msg}',

  'install.rollback.busy': '正在回滚…',
  'install.rollback.done': '已将 {id} 回滚到上次更新所替换的版本。再次回滚可回到较新的版本。',
  'install.rollback.doneAt': '已将 {id} 回滚到上次更新所替换的版本（提交 {commit}）。再次回滚可回到较新的版本。',
  'install.rollback.failed': '未回滚：{msg}',

  'install.uninstall.title': '卸载 {id}？',
  'install.uninstall.body': '其文件夹 {path} 及其在 plugins.lock.json 中的条目将被删除。',
  'install.uninstall.bodyAgain':
    '其文件夹 {path} 及其在 plugins.lock.json 中的条目将被删除。如需恢复，可从 {source} 重新安装。',
  'install.uninstall.cancel': '取消',
  'install.uninstall.confirm': '卸载',
  'install.uninstall.busy': '正在卸载…',
  'install.uninstall.done': '已卸载 {id}。',
  'install.uninstall.doneStill': '已卸载 {id}；{targets} 仍引用它：请在“分配”中将其移除。',
  'install.uninstall.catalogError': '已卸载 {id}；{msg}',
  'install.uninstall.failed': '未卸载：{msg}',

  'install.dialog.title': '安装插件',
  'install.dialog.formLabel': '从来源安装',
  'install.dialog.source': '来源',
  'install.dialog.sourceHelp':
    'git URL、GitHub owner/repo、插件文件夹的完整路径、本地 git 仓库、.zip/.tar.gz 文件，或 PLUGIN@MARKETPLACE。',
  'install.dialog.ref': '引用',
  'install.dialog.refLabel': '引用（git）',
  'install.dialog.refPlaceholder': '默认分支',
  'install.dialog.path': '来源中的路径',
  'install.dialog.pathPlaceholder': '根目录',
  'install.dialog.name': '名称（插件 ID）',
  'install.dialog.namePlaceholder': '清单中的名称',
  'install.dialog.install': '安装',
  'install.dialog.installing': '正在安装…',
  'install.dialog.relative': '{source} 是相对路径：请输入文件夹或归档文件的完整路径（或 ~/…）。',
  'install.dialog.noSource': '请先输入来源。',
  'install.dialog.notInstalled': '未安装：{msg}',
  'install.dialog.notInstalledHint': '未安装：{msg} {hint}',

  'install.market.title': '市场',
  'install.market.searchPlaceholder': '搜索市场插件',
  'install.market.searchLabel': '按名称或描述搜索市场插件',
  'install.market.sourceLabel': '市场来源',
  'install.market.sourcePlaceholder': '/path/to/marketplace 或 owner/name',
  'install.market.nameLabel': '市场名称',
  'install.market.namePlaceholder': '文件中的名称',
  'install.market.addTitle': '添加市场',
  'install.market.add': '添加市场',
  'install.market.adding': '正在添加…',
  'install.market.listError': '市场：{msg}',
  'install.market.loading': '正在加载市场…',
  'install.market.none':
    '尚未添加市场。可在下方添加：包含 .claude-plugin/marketplace.json 的文件夹、git URL 或 GitHub owner/name。',
  'install.market.plugins': { other: '{n} 个插件' },
  'install.market.removeLabel': '移除市场 {name}',
  'install.market.remove': '移除',
  'install.market.noMatch': '此市场中没有与搜索匹配的插件。',
  'install.market.cannotInstall': '无法安装：{reason}',
  'install.market.installLabel': '安装 {id}',
  'install.market.noSource': '请先输入市场的来源。',
  'install.market.added': { other: '已添加市场 {name}（{n} 个插件）。' },
  'install.market.addedWarnings': { other: '已添加市场 {name}（{n} 个插件）。警告：{warnings}' },
  'install.market.notAdded': '未添加：{msg}',
  'install.market.removed': '已移除市场 {name}；其克隆副本已删除。',
  'install.market.removedKept': '已移除市场 {name}；文件夹 {path} 保持原样。',
  'install.market.notRemoved': '未移除：{msg}',
};
