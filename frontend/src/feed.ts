// The flow of catalog documents from the backend to the page. Every method that returns a
// document goes through call(); catalog:updated events go through updated(). A scan the page
// asked for is applied from the call's result, so the megabytes of a large catalog are fetched
// once; a scan someone else started (another window, a settings save, the watcher) is fetched
// quietly with Catalog, keeping whatever the user had selected. A live reload (a file changed;
// catalog:updated with reloaded: true) is never a call's own scan, even when its summary equals
// the call's: a skill's description can change without changing any count.

import { api } from './bridge';
import { coalesced } from './coalesce';
import type { CatalogDoc, Summary } from './types';

/** A call in flight and the catalog:updated events seen meanwhile. */
interface Pending {
  events: number;
  summary: string;
  /** A live reload happened during the call. */
  live: boolean;
}

export class CatalogFeed {
  private readonly pending = new Set<Pending>();
  private lastSummary = '';
  private readonly apply: (doc: CatalogDoc) => void;
  private readonly reloadFailed: (e: unknown) => void;

  constructor(apply: (doc: CatalogDoc) => void, reloadFailed: (e: unknown) => void) {
    this.apply = apply;
    this.reloadFailed = reloadFailed;
  }

  /**
   * Runs a method that returns a catalog document and applies it. Rescan, OpenWorkspace and
   * SetWorkspaceTrust scan once each (scans = true), so one event during the call is the call's
   * own; Catalog scans only when there is no scan yet, and then its event carries the same
   * summary. Any other event meanwhile means someone else scanned: reload once the call is done.
   */
  async call(fn: () => Promise<CatalogDoc>, scans: boolean): Promise<CatalogDoc> {
    const p: Pending = { events: 0, summary: '', live: false };
    this.pending.add(p);
    let doc: CatalogDoc;
    try {
      doc = await fn();
    } finally {
      this.pending.delete(p);
    }
    this.lastSummary = JSON.stringify(doc.summary);
    this.apply(doc);
    const own = scans || p.summary === this.lastSummary ? 1 : 0;
    if (p.live || p.events > own) void this.reload();
    return doc;
  }

  /** A catalog:updated event; reloaded when the watcher's live reload made it. */
  updated(summary: Summary | undefined, reloaded = false): void {
    if (this.pending.size > 0) {
      const s = JSON.stringify(summary ?? null);
      for (const p of this.pending) {
        p.events++;
        p.summary = s;
        if (reloaded) p.live = true;
      }
      return;
    }
    void this.reload();
  }

  /** Fetches the last scan without a loading screen; overlapping requests collapse into one more. */
  readonly reload = coalesced(async () => {
    try {
      await this.call(api.catalog, false);
    } catch (e) {
      this.reloadFailed(e);
    }
  });
}
