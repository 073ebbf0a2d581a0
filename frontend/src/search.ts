// Search and filters over the catalog, indexed once per document: each plugin gets one lower-case
// text (id, name, description, skill names) so a query is a few substring tests per plugin.

import type { CatalogDoc, MergedServer, Plugin, SkillEntry } from './types';

export interface PluginFilter {
  query: string;
  format: string; // '' = any
  source: string; // '' = any
  hasIssues: boolean;
}

export interface SkillFilter {
  query: string;
  source: string;
  state: '' | 'active' | 'shadowed' | 'invalid' | 'disabled';
}

export interface CatalogIndex {
  doc: CatalogDoc;
  pluginText: string[];
  skillText: string[];
  mcpText: string[];
  pluginById: Map<string, Plugin>;
  /** Precedence-view entries of each plugin, by plugin id then skill name. */
  pluginSkills: Map<string, Map<string, SkillEntry>>;
  /** Skill path → the entry (for "shadowed by …" labels). */
  skillByPath: Map<string, SkillEntry>;
}

export function buildIndex(doc: CatalogDoc): CatalogIndex {
  const pluginText = doc.plugins.map((p) => {
    const parts = [p.id, p.name, p.description ?? ''];
    for (const s of p.skills) parts.push(s.name);
    return parts.join('\n').toLowerCase();
  });
  const skillText = doc.skills.map((s) =>
    [s.id, s.name, s.plugin ?? '', s.description ?? ''].join('\n').toLowerCase(),
  );
  const mcpText = doc.mcp.map((m) =>
    [m.name, m.winner.plugin ?? '', m.winner.source, m.winner.summary.origin ?? '', m.winner.summary.executable ?? '']
      .join('\n')
      .toLowerCase(),
  );
  const pluginById = new Map<string, Plugin>();
  for (const p of doc.plugins) pluginById.set(p.id, p);
  const pluginSkills = new Map<string, Map<string, SkillEntry>>();
  const skillByPath = new Map<string, SkillEntry>();
  for (const s of doc.skills) {
    skillByPath.set(s.path, s);
    if (!s.plugin) continue;
    let m = pluginSkills.get(s.plugin);
    if (!m) pluginSkills.set(s.plugin, (m = new Map()));
    m.set(s.name, s);
  }
  return { doc, pluginText, skillText, mcpText, pluginById, pluginSkills, skillByPath };
}

function terms(query: string): string[] {
  return query.toLowerCase().split(/\s+/).filter(Boolean);
}

function matches(text: string, ts: string[]): boolean {
  for (const t of ts) if (!text.includes(t)) return false;
  return true;
}

/** Indices of the plugins that pass the filter, in catalog order. */
export function filterPlugins(ix: CatalogIndex, f: PluginFilter): number[] {
  const ts = terms(f.query);
  const out: number[] = [];
  const ps = ix.doc.plugins;
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i];
    if (f.format && p.format !== f.format) continue;
    if (f.source && p.source !== f.source) continue;
    if (f.hasIssues && p.issueCounts.errors + p.issueCounts.warnings === 0) continue;
    if (ts.length && !matches(ix.pluginText[i], ts)) continue;
    out.push(i);
  }
  return out;
}

export function filterSkills(ix: CatalogIndex, f: SkillFilter, enabled: (s: SkillEntry) => boolean): number[] {
  const ts = terms(f.query);
  const out: number[] = [];
  const ss = ix.doc.skills;
  for (let i = 0; i < ss.length; i++) {
    const s = ss[i];
    if (f.source && s.source !== f.source) continue;
    if (f.state === 'active' && !s.active) continue;
    if (f.state === 'shadowed' && !s.shadowedBy) continue;
    if (f.state === 'invalid' && s.valid) continue;
    if (f.state === 'disabled' && enabled(s)) continue;
    if (ts.length && !matches(ix.skillText[i], ts)) continue;
    out.push(i);
  }
  return out;
}

export function filterServers(ix: CatalogIndex, query: string): number[] {
  const ts = terms(query);
  const out: number[] = [];
  for (let i = 0; i < ix.doc.mcp.length; i++) {
    if (ts.length && !matches(ix.mcpText[i], ts)) continue;
    out.push(i);
  }
  return out;
}

/** Number of valid servers of a plugin's MCP file; null when MCP is disabled or absent. */
export function validServers(p: Plugin): number | null {
  if (!p.mcp || !p.mcp.valid) return null;
  let n = 0;
  for (const s of p.mcp.servers) if (s.valid) n++;
  return n;
}

export function serverCount(m: MergedServer): number {
  return 1 + (m.shadowed?.length ?? 0);
}
