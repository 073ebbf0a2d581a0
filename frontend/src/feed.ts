// The flow of catalog documents from the backend to the page. Every method that returns a
// document goes through call(); catalog:updated events go through updated(). A scan the page
// asked for is applied from the call's result, so the megabytes of a large catalog are fetched
// once; a scan someone else started (another window, a settings save, the watcher) is fetched
// quietly with Catalog, keeping whatever the user had selected.
//
// The backend numbers its scans: every document and every catalog:updated event carries the
// scan's seq. An event whose scan the page already shows is ignored, whichever reaches the page
// first, the call's answer or its event (they travel on different connections); an event of a
// newer scan fetches it, once any call in flight has been applied.

import { api } from './bridge';
import { coalesced } from './coalesce';
import type { CatalogDoc, UpdatedEvent } from './types';

export class CatalogFeed {
  private calls = 0;
  /** The scan the page shows. */
  private shown = 0;
  /** The newest scan an event announced. */
  private announced = 0;
  private readonly apply: (doc: CatalogDoc) => void;
  private readonly reloadFailed: (e: unknown) => void;

  constructor(apply: (doc: CatalogDoc) => void, reloadFailed: (e: unknown) => void) {
    this.apply = apply;
    this.reloadFailed = reloadFailed;
  }

  /** Runs a method that returns a catalog document and applies it. */
  async call(fn: () => Promise<CatalogDoc>): Promise<CatalogDoc> {
    this.calls++;
    let doc: CatalogDoc;
    try {
      doc = await fn();
    } finally {
      this.calls--;
    }
    this.shown = Math.max(this.shown, doc.seq ?? 0);
    this.apply(doc);
    if (this.calls === 0 && this.announced > this.shown) void this.reload();
    return doc;
  }

  /** A catalog:updated event. */
  updated(ev: UpdatedEvent | undefined): void {
    this.announced = Math.max(this.announced, ev?.seq ?? 0);
    if (this.calls === 0 && this.announced > this.shown) void this.reload();
  }

  /** Fetches the last scan without a loading screen; overlapping requests collapse into one more. */
  readonly reload = coalesced(async () => {
    try {
      await this.call(api.catalog);
    } catch (e) {
      this.reloadFailed(e);
    }
  });
}
