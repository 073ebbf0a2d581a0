// Messages of the budget area: English, and the same keys in Simplified Chinese. Keys are
// 'budget.<what>' and stay in this file; see ../index.ts for placeholders and plural forms.

import type { Msg } from '../index';

export const en = {
  'budget.title': 'Context',
  'budget.help':
    'What a launch puts in front of the model before the first prompt, and whether its MCP servers answer. Tokens are estimated (characters / 4).',
  'budget.agentLabel': 'Agent to measure for',
  'budget.check': 'Check now',
  'budget.checking': 'Checking…',
  'budget.progress': 'Checking {name} ({done} of {total})…',
  'budget.checked': 'Checked.',
  'budget.starting': 'Starting the servers…',
  'budget.checkFailed': 'The check failed: {msg}',
  'budget.measuring': 'Measuring…',
  'budget.source.target': 'this set’s skills',
  'budget.source.user': 'your own skills',
  'budget.source.project': 'the project’s skills',
  'budget.source.client': 'the client’s own',
  'budget.source.header': 'the listing’s header',
  'budget.source.mcp': 'MCP tools',
  'budget.total.tokens': '~{n} tokens',
  'budget.total.known': ' for {backend}: skills {chars} characters, MCP tools {mcp}',
  'budget.total.atLeast':
    ' for {backend}: skills {chars} characters, MCP tools at least {mcp} ({unchecked} not checked)',
  'budget.total.unknown': ' for {backend}: skills {chars} characters, MCP tools not known until checked',
  'budget.bar.part': '{label} ~{n} tokens',
  'budget.bar.sep': ', ',
  'budget.bar.title': '{label}: {chars} characters, ~{n} tokens',
  'budget.legend': '{label}: ~{n} tokens',
  'budget.notCounted': 'The client’s own system prompt and built-in tools come on top and are not counted here.',
  'budget.listing.fits':
    'Skill listing: {chars} characters of Claude’s {budget}-character budget, {entries} entries, all with their descriptions.',
  'budget.listing.over': 'Skill listing: {chars} characters of Claude’s {budget}-character budget, {entries} entries.',
  'budget.listing.codex':
    'Skill listing: about {tokens} tokens as Codex counts them, against its budget of {budget} tokens (2% of the model’s context window), {entries} entries.',
  'budget.cut.shortened': {
    one: 'Past the budget, Codex shortens this skill’s description: the model sees only its start.',
    other: 'Past the budget, Codex shortens the descriptions of these {n} skills: the model sees only their start.',
  },
  'budget.cut.omitted': {
    one: 'Past the budget, Codex lists skills by name only and leaves this one out: the model never sees it.',
    other: 'Past the budget, Codex lists skills by name only and leaves these {n} out: the model never sees them.',
  },
  'budget.cut': {
    one: 'Past the budget, this skill is listed by name only: the model never sees its description, so it rarely picks it.',
    other:
      'Past the budget, these {n} skills are listed by name only: the model never sees their descriptions, so it rarely picks them.',
  },
  'budget.mcp.title': 'MCP servers',
  'budget.mcp.none': 'No MCP servers in this launch.',
  'budget.mode.inline': 'Claude sends every tool’s definition',
  'budget.mode.deferred': 'Claude’s tool search: the model sees tool names, and a definition once it searches for it',
  'budget.mode.gateway':
    'PI’s MCP adapter: one mcp tool and one proxy tool per server; the model lists their tools when it needs them',
  'budget.health.legacy': 'a legacy plugin’s server: Claude starts it itself, and the check does not',
  'budget.health.notAcked': 'not acknowledged for this launch, so it does not start',
  'budget.ack': 'Acknowledge',
  'budget.ackTitle':
    'Let this launch start {server}: it runs local code or reaches the network (recorded in the history)',
  'budget.ackFailed': 'Not acknowledged: {msg}',
  'budget.health.unchecked': 'not checked since its config last changed',
  'budget.health.checkedAt': ' · checked {date}',
  'budget.health.ok': { one: 'ok: {n} tool, ready in {ms} ms', other: 'ok: {n} tools, ready in {ms} ms' },
  'budget.health.truncated': ' (it offers more {what} than a check keeps: only the first 1,000 are counted)',
  'budget.health.okInfo': {
    one: 'ok: {name} {version}, {n} tool, ready in {ms} ms',
    other: 'ok: {name} {version}, {n} tools, ready in {ms} ms',
  },
  'budget.health.failed': 'failed: {msg}',
  'budget.health.noAnswer': 'no answer',
} as const satisfies Record<string, Msg>;

export const zh: Record<keyof typeof en, Msg> = {
  'budget.title': '上下文',
  'budget.help':
    '一次启动在第一条提示词之前向模型提供的内容，以及其 MCP 服务器是否响应。token 数为估算值（字符数 / 4）。',
  'budget.agentLabel': '按哪个智能体测算',
  'budget.check': '立即检查',
  'budget.checking': '正在检查…',
  'budget.progress': '正在检查 {name}（第 {done} 个，共 {total} 个）…',
  'budget.checked': '检查完毕。',
  'budget.starting': '正在启动服务器…',
  'budget.checkFailed': '检查失败：{msg}',
  'budget.measuring': '正在测算…',
  'budget.source.target': '这组插件的技能',
  'budget.source.user': '你自己的技能',
  'budget.source.project': '项目的技能',
  'budget.source.client': '客户端自带的技能',
  'budget.source.header': '列表的标题部分',
  'budget.source.mcp': 'MCP 工具',
  'budget.total.tokens': '约 {n} token',
  'budget.total.known': '（{backend}）：技能 {chars} 个字符，MCP 工具 {mcp} 个字符',
  'budget.total.atLeast': '（{backend}）：技能 {chars} 个字符，MCP 工具至少 {mcp} 个字符（{unchecked} 个未检查）',
  'budget.total.unknown': '（{backend}）：技能 {chars} 个字符，MCP 工具在检查前未知',
  'budget.bar.part': '{label} 约 {n} token',
  'budget.bar.sep': '，',
  'budget.bar.title': '{label}：{chars} 个字符，约 {n} token',
  'budget.legend': '{label}：约 {n} token',
  'budget.notCounted': '客户端自带的系统提示词和内置工具另计，不包含在此处。',
  'budget.listing.fits': '技能列表：占用 Claude {budget} 字符预算中的 {chars} 个字符，共 {entries} 项，均带描述。',
  'budget.listing.over': '技能列表：占用 Claude {budget} 字符预算中的 {chars} 个字符，共 {entries} 项。',
  'budget.listing.codex':
    '技能列表：按 Codex 的计法约 {tokens} 个 token，其预算为 {budget} 个 token（模型上下文窗口的 2%），共 {entries} 项。',
  'budget.cut.shortened': {
    other: '超出预算后，Codex 缩短这 {n} 个技能的描述：模型只能看到开头部分。',
  },
  'budget.cut.omitted': {
    other: '超出预算后，Codex 只列名称并略去这 {n} 个技能：模型完全看不到它们。',
  },
  'budget.cut': {
    other: '超出预算的 {n} 个技能仅列出名称：模型看不到它们的描述，因此很少选用。',
  },
  'budget.mcp.title': 'MCP 服务器',
  'budget.mcp.none': '此次启动中没有 MCP 服务器。',
  'budget.mode.inline': 'Claude 会发送每个工具的定义',
  'budget.mode.deferred': 'Claude 的工具搜索：模型先看到工具名称，搜索某个工具后才看到它的定义',
  'budget.mode.gateway': 'PI 的 MCP 适配器：每个服务器一个 mcp 工具和一个代理工具；模型在需要时列出它们的工具',
  'budget.health.legacy': '旧式插件的服务器：由 Claude 自行启动，检查不会启动它',
  'budget.health.notAcked': '未针对此次启动确认，因此不会启动',
  'budget.ack': '确认',
  'budget.ackTitle': '允许此次启动运行 {server}：它会运行本地代码或访问网络（记录在历史中）',
  'budget.ackFailed': '未确认：{msg}',
  'budget.health.unchecked': '自上次更改配置以来未检查',
  'budget.health.checkedAt': ' · 检查于 {date}',
  'budget.health.ok': { other: '正常：{n} 个工具，{ms} 毫秒后就绪' },
  'budget.health.truncated': '（它提供的 {what} 超过检查保留的数量：只计前 1,000 个）',
  'budget.health.okInfo': { other: '正常：{name} {version}，{n} 个工具，{ms} 毫秒后就绪' },
  'budget.health.failed': '失败：{msg}',
  'budget.health.noAnswer': '无响应',
};
