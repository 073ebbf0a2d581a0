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

/**
 * The indexes of one catalog document. Only what the first screen needs (the plugin list) is
 * built at once; the skill and MCP texts and maps are built on first use, so a 10,000-skill
 * catalog reaches the screen sooner.
 */
export class CatalogIndex {
  readonly doc: CatalogDoc;
  /** Lower-case search text of each plugin: id, name, description, skill names. */
  readonly pluginText: string[];
  readonly pluginById = new Map<string, Plugin>();
  private skillTextCache?: string[];
  private mcpTextCache?: string[];
  private byPath?: Map<string, SkillEntry>;
  private byPlugin?: Map<string, Map<string, SkillEntry>>;

  constructor(doc: CatalogDoc) {
    this.doc = doc;
    this.pluginText = doc.plugins.map((p) => {
      const parts = [p.id, p.name, p.description ?? ''];
      for (const s of p.skills) parts.push(s.name);
      return parts.join('\n').toLowerCase();
    });
    for (const p of doc.plugins) this.pluginById.set(p.id, p);
  }

  get skillText(): string[] {
    return (this.skillTextCache ??= this.doc.skills.map((s) =>
      [s.id, s.name, s.plugin ?? '', s.description ?? ''].join('\n').toLowerCase(),
    ));
  }

  get mcpText(): string[] {
    return (this.mcpTextCache ??= this.doc.mcp.map((m) => {
      const w = m.winner;
      return [m.name, w.plugin ?? '', w.source, w.summary.origin ?? '', w.summary.executable ?? '']
        .join('\n')
        .toLowerCase();
    }));
  }

  /** Skill path → the entry (for "shadowed by …" labels). */
  get skillByPath(): Map<string, SkillEntry> {
    if (!this.byPath) {
      this.byPath = new Map();
      for (const s of this.doc.skills) this.byPath.set(s.path, s);
    }
    return this.byPath;
  }

  /** Precedence-view entries of each plugin, by plugin id then skill name. */
  get pluginSkills(): Map<string, Map<string, SkillEntry>> {
    if (!this.byPlugin) {
      this.byPlugin = new Map();
      for (const s of this.doc.skills) {
        if (!s.plugin) continue;
        let m = this.byPlugin.get(s.plugin);
        if (!m) this.byPlugin.set(s.plugin, (m = new Map()));
        m.set(s.name, s);
      }
    }
    return this.byPlugin;
  }
}

export function buildIndex(doc: CatalogDoc): CatalogIndex {
  return new CatalogIndex(doc);
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
