// The page's names for what the Go service sends and takes. The types of everything a Go type carries are
// generated from it (models.gen.ts, `go generate ./app/tsgen`; a test fails while it is stale), so a Go
// field renamed or made optional is a type error here rather than a silent undefined. What is left
// written by hand below is what no Go type has: the payloads Go emits as maps, the names of a few string
// sets Go keeps as plain strings, and the page's own narrowing of a generated type (each checked
// against it).

import type * as Go from './models.gen';

export type {
  AckRef,
  AckResult,
  AckServer,
  ActivityReport,
  AddedMarketplace,
  ApiErrorBody,
  Author,
  AutostartState,
  Backend,
  BudgetReport,
  BudgetState,
  Change,
  ClientComponent,
  ClientDropped,
  ClientVerdict,
  ClientVerdicts,
  Collision,
  Drop,
  HistoryAck,
  HistoryEntry,
  InstalledPlugin,
  InstallResult,
  InstallServer,
  Issue,
  IssueCounts,
  LaunchResult,
  LinkResult,
  Marketplace,
  MarketplacePlugin,
  MarketplaceSource,
  MCPHealth,
  McpConfig,
  McpServer,
  McpSummary,
  MergedServer,
  NameDelta,
  NeedsAck,
  PathEntry,
  Place,
  Plan,
  PlanPlugin,
  Plugin,
  PluginSkill,
  PluginUpdate,
  PluginVersion,
  ReloadedEvent,
  RemovedMarketplace,
  ServerRef,
  Settings,
  Severity,
  SkillEntry,
  SkillSource,
  SkillUse,
  SnapshotInfo,
  Summary,
  Suppressed,
  Target,
  TargetEntry,
  ToolUse,
  TryResult,
  UninstallResult,
  UnusedSkill,
  UpdateResult,
  VersionInfo,
  WatchState,
} from './models.gen';

/** The catalog document (Catalog, Rescan, OpenWorkspace, …), or CatalogList's part of it (`part: 'list'`). */
export type CatalogDoc = Go.CatalogList;

/** Result of Settings and SaveSettings. */
export type SettingsEnvelope = Go.SettingsState;

export type TargetsDoc = Go.TargetsState;

export type AssignResult = Go.SaveResult;

/** The real agent clients the backend models beside the specification verdict. */
export type ClientName = keyof Go.ClientVerdicts;

/** Target kinds (backend/assign: KindAgent, KindSlot, KindShellBinding, KindActive). */
export type TargetKind = 'agent' | 'template-slot' | 'shell-binding' | 'active';

export type LinkInto = 'home' | 'cursor';

/** What Assign takes: exactly one kind of change (assign.Change says so in words). */
export type AssignChange = { set: string[] } | { add: string[] } | { remove: string[] } | { defaults: true };

// ---- events Go emits as maps (app/service.go, budget.go, install.go) ---------------------------

export interface ProgressEvent {
  done: number;
  total: number;
}

export interface UpdatedEvent {
  summary: Go.Summary;
  /** The scan's number; the document of that scan carries the same seq. */
  seq: number;
  /** The scan was a live reload (a file changed), not a call of this or another page. */
  reloaded?: boolean;
}

/** CheckMCP's progress: `done` of `total` servers checked, `next` the one starting ("" at the end). */
export interface MCPProgressEvent {
  done: number;
  total: number;
  next: string;
}

/** One progress line of an install or an update, as it happens. */
export interface InstallProgressEvent {
  line: string;
}

export interface EventMap {
  'install:progress': InstallProgressEvent;
  'mcp:progress': MCPProgressEvent;
  'catalog:progress': ProgressEvent;
  'catalog:updated': UpdatedEvent;
  'catalog:reloaded': Go.ReloadedEvent;
  'watch:state': Go.WatchState;
  'clients:progress': Go.ClientsProgress;
  'clients:answered': { seq: number };
  'targets:changed': null;
  'app:open': null;
}

// ---- the page's narrowings hold for what Go takes (a compile-time check, no code) ---------------

type Holds<T extends true> = T;
export type Checks = [Holds<AssignChange extends Go.AssignChange ? true : false>];
