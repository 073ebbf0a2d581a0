// The catalog document (`plugboard catalog --json`, the result of Catalog, Rescan, OpenWorkspace and
// SetWorkspaceTrust) and the settings envelope, as docs/api.md and the README describe them. Written from
// the JSON the CLI prints for testdata/homes/full; optional fields are the ones Go omits when empty.

export type Severity = 'error' | 'warning' | 'info';

/** One problem, with the file (relative to the plugin root for plugin issues) and the line when known. */
export interface Issue {
  severity: Severity;
  code: string;
  path: string;
  pointer?: string;
  line?: number;
  message: string;
}

export interface IssueCounts {
  errors: number;
  warnings: number;
}

export type PluginFormat = 'portable' | 'legacy' | 'cursor' | 'none';
export type PluginSource = 'plugboard' | 'cursor-local' | 'cursor-cache' | 'plugin-path' | 'inspect';

export interface Author {
  name?: string;
  email?: string;
  url?: string;
}

/** A `paths:` frontmatter entry of a skill, accepted or refused with the reason. */
export interface PathEntry {
  entry: string;
  accepted: boolean;
  reason?: string;
}

/** A skill as its plugin holds it (Plugin.skills). */
export interface PluginSkill {
  name: string;
  folder: string;
  path: string;
  description?: string;
  license?: string;
  compatibility?: string;
  allowedTools?: string[];
  metadata?: Record<string, string>;
  disableModelInvocation: boolean;
  modelInvocable: boolean;
  paths?: PathEntry[];
  valid: boolean;
  issues: Issue[];
}

/**
 * The sanitised view of an MCP server: stdio servers carry the executable's basename, the argument
 * count and the environment key names; remote servers the origin and the header names. Never a value.
 */
export interface McpSummary {
  executable?: string;
  args?: number;
  envKeys?: string[];
  origin?: string;
  headerNames?: string[];
}

export type McpType = 'stdio' | 'streamable-http' | 'sse' | 'http' | '';

export interface McpServer {
  name: string;
  type: McpType;
  valid: boolean;
  summary: McpSummary;
  issues: Issue[];
}

/** A plugin's MCP file; valid false means MCP is disabled for the plugin (a whole-file problem). */
export interface McpConfig {
  path: string;
  valid: boolean;
  servers: McpServer[];
  issues: Issue[];
}

// ---- what each client loads (backend/clients) -------------------------------------------------

/** The real agent clients the backend models beside the specification verdict. */
export type ClientName = 'claude' | 'cursor' | 'codex' | 'pi';

/** A command or agent file as a client lists it. */
export interface ClientComponent {
  /** As the client names it (claude: "plugin:name"). */
  name: string;
  description?: string;
  /** Relative to the package root. */
  file: string;
}

/** A part of the package a client leaves out, and why. */
export interface ClientDropped {
  path: string;
  reason: string;
  /** The rule id (see `plugboard rules`). */
  rule: string;
}

/** What one client would load from a package folder. */
export interface ClientVerdict {
  /** false: the folder is not a package for this client at all (why says so). */
  package: boolean;
  /** The client would load it (possibly with some parts dropped). */
  loads: boolean;
  /** The manifest file the client reads, relative; absent when it reads none. */
  manifest?: string;
  /** In words: why that manifest, or why it does not load. Absent in the list part (CatalogDoc.part). */
  why?: string;
  /** The namespace the client gives the package; absent for a client without namespaces (PI). */
  plugin?: string;
  /** The names the client exposes, as it spells them (claude: "plugin:name"). */
  skills: string[];
  /** Slash commands (claude). */
  commands?: ClientComponent[];
  /** Subagents (claude). */
  agents?: ClientComponent[];
  dropped: ClientDropped[];
  /** Severity error: the client refuses something. */
  issues: Issue[];
}

export type ClientVerdicts = Record<ClientName, ClientVerdict>;

export interface Plugin {
  id: string;
  path: string;
  /** The pluginDirs entry that assigns it (no revision folder for a cached Cursor plugin). */
  entry?: string;
  source: PluginSource;
  format: PluginFormat;
  valid: boolean;
  name: string;
  version: string;
  description?: string;
  author?: Author;
  homepage?: string;
  repository?: string;
  license?: string;
  keywords?: string[];
  manifest: string;
  skills: PluginSkill[];
  mcp: McpConfig | null;
  issues: Issue[];
  issueCounts: IssueCounts;
  /** Cursor plugins only. */
  marketplace?: string;
  revision?: string;
  unsupported?: string[];
  /** What each client loads from the folder, beside the specification verdict (valid, format, manifest, issues). */
  clients?: ClientVerdicts;
  /** "claude" when the user chose to launch this package, which the specification rejects, as Claude loads it. */
  launchAs?: string;
}

export type SkillSource = 'user' | 'plugin' | 'project' | 'cursor-plugin' | 'plugin-path' | 'builtin';

/** A skill in the precedence view (CatalogDoc.skills), first valid name wins. */
export interface SkillEntry {
  id: string;
  name: string;
  source: SkillSource;
  layer: number;
  trusted: boolean;
  plugin?: string;
  pluginSource?: PluginSource;
  path: string;
  description?: string;
  valid: boolean;
  modelInvocable: boolean;
  enabled: boolean;
  active: boolean;
  shadowedBy?: string;
  /** The clients that hide this skill behind shadowedBy ("plugboard": Plugboard's own order). */
  shadowedIn?: string[];
  shadows?: string[];
  /** Standalone skills only; a plugin skill's are in its plugin. */
  paths?: PathEntry[];
  issues?: Issue[];
}

export type ServerSource = 'user' | 'plugin' | 'project';

export interface ServerRef {
  source: ServerSource;
  plugin?: string;
  file: string;
  type: McpType;
  summary: McpSummary;
}

/** MCP servers merged by name: the winner and the declarations it hides. */
export interface MergedServer {
  name: string;
  winner: ServerRef;
  shadowed?: ServerRef[];
}

export interface Settings {
  skillPluginPaths: string[];
  skillsEnabled: Record<string, boolean>;
  trustedWorkspaces: string[];
  /** Per plugin id, the client it is launched as despite its spec verdict (SetLaunchAs writes it). */
  launchAs?: Record<string, string>;
  /** Days of skill and tool activity kept (older records are removed when activity is read); 0 keeps all. */
  activityRetentionDays?: number;
}

export interface Summary {
  plugins: number;
  validPlugins: number;
  skills: number;
  activeSkills: number;
  shadowedSkills: number;
  mcpServers: number;
  issues: IssueCounts;
}

export interface CatalogDoc {
  /** 'list' for CatalogList's part of a large catalog: plugins cut to what a row shows, no skills or MCP merge. */
  part?: 'list';
  home: string;
  plugboardHome: string;
  workspace?: string;
  workspaceTrusted: boolean;
  settings: Settings;
  plugins: Plugin[];
  skills: SkillEntry[];
  mcp: MergedServer[];
  issues: Issue[];
  summary: Summary;
  /** The scan's number (see UpdatedEvent); absent from a catalog nobody numbered. */
  seq?: number;
}

/** Result of Settings and SaveSettings. */
export interface SettingsEnvelope {
  settings: Settings;
  hash: string;
}

export type ErrorCode = 'stale' | 'invalid' | 'not-found' | 'io' | 'transport';

/** The error object the backend returns: `{code, message}`. */
export interface ApiErrorBody {
  code: string;
  message: string;
  /** `stale` from Assign/Revert: the target as it is on disk now. */
  current?: unknown;
  /** `ack-needed`: the MCP servers to acknowledge, sanitised. */
  servers?: AckServer[];
  /** `refused`: which names the rule is about. */
  names?: string[];
  /** `refused` for a name collision (Assign, Launch): which plugins share which name. */
  collisions?: Collision[];
  /** `refused` by an install method: which rule (`invalid-package`, `exists`, `in-use`, …; docs/api.md). */
  reason?: string;
  /** `refused` for an invalid package or marketplace file: its errors, each with its file and line. */
  issues?: Issue[];
  /** `refused` (`in-use`) by Uninstall: the targets that assign the plugin. */
  targets?: string[];
  /** Install, Update: the progress lines written before the failure. */
  progress?: string[];
}

/** Two or more plugins of one set that provide the same name. */
export interface Collision {
  kind: 'skill' | 'namespace' | 'mcp-server' | string;
  name: string;
  plugins: string[];
}

// ---- assignment (docs/api.md, "Assignment") ---------------------------------------------------

export type TargetKind = 'agent' | 'template-slot' | 'shell-binding' | 'active';

/** One pluginDirs entry of a target, as written. */
export interface TargetEntry {
  dir: string;
  id?: string;
  managed: boolean;
  known: boolean;
  valid: boolean;
}

export interface Target {
  id: string;
  kind: TargetKind;
  name: string;
  ref?: string;
  /** The agent's "backend" member (a slot or binding: its agent's); absent means claude. */
  backend?: string;
  file: string;
  readOnly: boolean;
  hash: string;
  /** A template slot (or shell binding) without its own pluginDirs: it uses its agent's. */
  inherits: boolean;
  entries: TargetEntry[];
  managed: string[];
  unmanaged: string[];
  effective: string[];
}

export interface TargetsDoc {
  targets: Target[];
  issues: Issue[];
}

export type AssignChange = { set: string[] } | { add: string[] } | { remove: string[] } | { defaults: true };

export interface AckServer {
  plugin: string;
  server: string;
  type: McpType;
  summary: McpSummary;
  /** What the server runs (sha256 of names and counts, never a value); an acknowledgment records it. */
  digest: string;
}

/** A server to acknowledge, with the digest the user was shown (Acknowledge). */
export interface AckRef {
  plugin: string;
  server: string;
  digest: string;
}

/** What Acknowledge recorded: nothing (history 0) when every server named was acknowledged already. */
export interface AckResult {
  target: string;
  acknowledged: AckServer[];
  history: number;
}

/** One acknowledgment a history entry recorded. */
export interface HistoryAck {
  plugin: string;
  server: string;
  type?: string;
  digest: string;
}

export interface AssignResult {
  outcome: { target: Target; before: string[]; after: string[]; acknowledged: string[]; written: boolean };
  history: number;
  warnings: unknown[];
}

export interface HistoryEntry {
  id: number;
  time: string;
  target: string;
  before: string[];
  after: string[];
  beforeUnset?: boolean;
  afterUnset?: boolean;
  beforeHash: string;
  afterHash: string;
  acknowledged: string[];
  revertOf?: number;
  actor: string;
  /** "ack" for an acknowledgment on its own (it changed no file); absent for a save. */
  kind?: string;
  /** What the entry acknowledged, with digests (empty for entries from before digests were recorded). */
  acks?: HistoryAck[];
}

export interface ProgressEvent {
  done: number;
  total: number;
}

export interface UpdatedEvent {
  summary: Summary;
  /** The scan's number; the document of that scan carries the same seq. */
  seq: number;
  /** The scan was a live reload (a file changed), not a call of this or another page. */
  reloaded?: boolean;
}

// ---- launching (docs/api.md, "Launching") ------------------------------------------------------

export type Backend = 'claude' | 'pi';

/** One plugin of a launch set and how the backend gets it. */
export interface PlanPlugin {
  id: string;
  dir: string;
  /** The folder launched when it is not dir: the revision of a cached Cursor plugin installed now. */
  path?: string;
  format: string;
  /** `projected`, `as-is` (a legacy folder), `skills` (PI) or `dropped`. */
  how: string;
}

/** A portable MCP server left out of the launch (R7), and why. */
export interface Suppressed {
  plugin: string;
  server: string;
  reason: string;
}

/** A component left out of the launch on its own (R5), and why. */
export interface Drop {
  plugin: string;
  what: 'plugin' | 'skill' | 'server' | 'mcp' | string;
  name?: string;
  reason: string;
  /** A server left out as not acknowledged: what to acknowledge (Acknowledge). */
  ack?: AckServer;
}

/** A launch ready to start. It carries environment key names, never a value. */
export interface Plan {
  backend: Backend | string;
  target: string;
  mode?: string;
  argv: string[];
  envKeys: string[];
  projection: string;
  fingerprint: string;
  reused: boolean;
  plugins: PlanPlugin[];
  skills: string[] | null;
  servers: string[] | null;
  suppressed: Suppressed[] | null;
  dropped: Drop[] | null;
  collisions: Collision[] | null;
  /** Paths the agent may read because a projected skill is in the launch, never write (issue 18). */
  grants?: { skill: string; path: string; kind: 'skill-folder' | 'paths-entry' | string }[] | null;
  /** `paths` entries of projected skills the launch does not grant, and why. */
  refused?: { skill: string; entry: string; reason: string }[] | null;
  /** Why the backend gets no grants (PI has no permission system). */
  grantsUnsupported?: string;
}

export interface LaunchResult {
  /** The agent's command line exactly as the launch runs it, shell-quoted. */
  command: string;
  /** The terminal command line that was started. */
  terminal: string;
  plan: Plan;
}

// ---- the live catalog (docs/api.md, "Live reload, local development, snapshots") ---------------

export type WatchStateName = 'ok' | 'issues' | 'reloading' | 'paused' | 'starting';

export interface WatchState {
  state: WatchStateName;
  paused: boolean;
  /** The watch limit was hit: periodic rescans instead of events. */
  limited: boolean;
}

/** One difference between two catalogs or two snapshots. */
export interface Change {
  kind: 'added' | 'removed' | 'changed';
  what: 'plugin' | 'skill' | 'server';
  id: string;
  path: string;
  detail?: string;
}

export interface ReloadedEvent {
  changes: Change[] | null;
  counts: { errors: number; warnings: number; infos?: number };
  full: boolean;
  ms: number;
  snapshot?: number;
  time: string;
  invalid?: string[];
}

export type LinkInto = 'home' | 'cursor';

/** A local development link (or synced copy) and the validation of what it points to. */
export interface LinkResult {
  name: string;
  into: LinkInto;
  dest: string;
  source: string;
  mode: 'link' | 'copy';
  sourceExists: boolean;
  alreadyLinked?: boolean;
  valid: boolean;
  errors: number;
  warnings: number;
  skipped?: string[];
}

/** A stored catalog snapshot's totals. */
export interface SnapshotInfo {
  id: number;
  time: string;
  hash: string;
  plugins: number;
  valid: number;
  errors: number;
  warnings: number;
}

export interface EventMap {
  'install:progress': InstallProgressEvent;
  'mcp:progress': MCPProgressEvent;
  'catalog:progress': ProgressEvent;
  'catalog:updated': UpdatedEvent;
  'catalog:reloaded': ReloadedEvent;
  'watch:state': WatchState;
  'targets:changed': null;
  'app:open': null;
}

/** One skill's recorded uses (plugboard activity --json). */
export interface SkillUse {
  id: string;
  plugin: string;
  uses: number;
  last: string;
  byTarget: Record<string, number> | null;
  /** Uses per local date ("YYYY-MM-DD"). */
  byDay: Record<string, number> | null;
}

/** One MCP tool's recorded calls (through plugboard mcp-stdio or mcp-proxy). */
export interface ToolUse {
  server: string;
  plugin: string;
  tool: string;
  calls: number;
  /** Calls answered with a JSON-RPC error or a result with isError. */
  errors: number;
  /** The median time from the call to its answer, in milliseconds. */
  p50ms: number;
  last: string;
  byTarget: Record<string, number> | null;
}

/** A skill of a plugin assigned to a target that the target never used since it was assigned. */
export interface UnusedSkill {
  id: string;
  plugin: string;
  target: string;
  assignedSince: string | null;
}

/** The Activity method's answer. */
export interface ActivityReport {
  skills: SkillUse[] | null;
  tools: ToolUse[] | null;
  unused: UnusedSkill[] | null;
}

/** The Try method's answer: one prompt as one turn of the agent (docs/api.md). */
export interface TryResult {
  target: string;
  backend: string;
  fingerprint: string;
  /** A warm agent of an earlier try answered (its conversation reset first). */
  warm: boolean;
  answer: string;
  skills: { skill: string; plugin: string; how: string }[];
  tools: { server: string; plugin: string; tool: string; ms: number; failed: boolean }[];
  ms: number;
  dropped: Drop[];
}

/** A folder the catalog looks in (Places). */
export interface Place {
  path: string;
  /** what it holds, for the page to word: plugins, cursor-local, cursor-cache, plugin-path, <client>-skills, … */
  kind: string;
  /** the same in English */
  what: string;
  found: boolean;
}

/** The XDG autostart entry that starts Plugboard at login, in the tray. */
export interface AutostartState {
  enabled: boolean;
  path: string;
}

/** The Version method's answer: `plugboard version --json`. */
export interface VersionInfo {
  version: string;
  commit?: string;
  modified?: boolean;
  buildDate?: string;
  go: string;
  wails?: string;
}

// ---- budget and MCP health (docs/api.md, Budget and CheckMCP) ----------------------------------

/** The Budget method's answer: `plugboard budget --json`, and the servers' last checks. */
export interface BudgetState {
  report: BudgetReport;
  servers: MCPHealth[];
}

export interface BudgetReport {
  backend: string;
  skills: {
    chars: number;
    tokens: number;
    listed: string[];
    cut: string[];
    budget?: number;
    mode?: string;
    sources: Record<string, string>;
    /** Characters of the entries of each source: target, user, project, client. */
    bySource: Record<string, number>;
    text: string;
  };
  mcp: {
    /** inline (every definition), deferred (Claude's tool search: names), gateway (PI's adapter). */
    mode: string;
    tools: number | null;
    serverTools: number;
    chars: number;
    tokens: number | null;
    servers: { plugin?: string; name: string; checked: boolean; ok: boolean; tools: number; chars: number }[];
    unchecked: string[];
  };
  total: number;
}

/** One MCP server's health check (`plugboard mcp check --json`'s servers). */
export interface MCPHealth {
  plugin: string;
  name: string;
  ok: boolean;
  protocolVersion?: string;
  serverInfo?: { name: string; version: string };
  tools: { name: string; descriptionChars: number; schemaBytes: number }[];
  prompts: number;
  resources: number;
  ms: number;
  readyMs: number;
  error?: string;
  stderr?: string;
  notAcknowledged?: boolean;
  ack?: string;
  digest?: string;
  cached: boolean;
  /** A check of the server as it is now is known. */
  checked: boolean;
  checkedAt?: string;
}

/** CheckMCP's progress: `done` of `total` servers checked, `next` the one starting ("" at the end). */
export interface MCPProgressEvent {
  done: number;
  total: number;
  next: string;
}

// ---- installing (docs/api.md, "Installing") ----------------------------------------------------

/** One progress line of an install or an update, as it happens. */
export interface InstallProgressEvent {
  line: string;
}

/** An MCP server of an installed package, as a person reviews it (never an env or header value). */
export interface InstallServer {
  name: string;
  type: string;
  executable?: string;
  args?: number;
  origin?: string;
  valid: boolean;
}

/** The Install method's answer: `plugboard install --json`, and its progress lines. */
export interface InstallResult {
  id: string;
  path: string;
  /** A URL without credentials, or an absolute path. */
  source: string;
  kind: 'git' | 'folder' | 'archive';
  ref?: string;
  subpath?: string;
  commit?: string;
  archive?: string;
  content: string;
  valid: boolean;
  forced?: boolean;
  replaced?: boolean;
  issues: Issue[];
  servers: InstallServer[];
  credentialsStripped?: boolean;
  /** PLUGIN@MARKETPLACE when the source was one. */
  marketplace?: string;
  progress: string[];
}

/** One entry of plugins.lock.json (Installed): how a plugin was installed. */
export interface InstalledPlugin {
  id: string;
  source: string;
  kind: 'git' | 'folder' | 'archive';
  ref?: string;
  path?: string;
  commit?: string;
  archive?: string;
  content: string;
  installedAt: string;
}

/** What Uninstall removed. */
export interface UninstallResult {
  id: string;
  path: string;
  source?: string;
  targets: string[];
  locked: boolean;
}

/** Where a marketplace's plugin comes from, as its file says. */
export interface MarketplaceSource {
  kind: string;
  path?: string;
  repo?: string;
  url?: string;
  ref?: string;
  sha?: string;
  package?: string;
  version?: string;
}

export interface MarketplacePlugin {
  name: string;
  version?: string;
  description?: string;
  source: MarketplaceSource;
  /** Plugboard can install it; reason says why not. */
  ok: boolean;
  reason?: string;
}

/** An added marketplace and its plugins as its file reads now (Marketplaces). */
export interface Marketplace {
  name: string;
  source: string;
  kind: 'git' | 'folder';
  path: string;
  ref?: string;
  commit?: string;
  addedAt: string;
  plugins: MarketplacePlugin[];
  issues: Issue[];
}

/** What AddMarketplace recorded. */
export interface AddedMarketplace {
  name: string;
  source: string;
  kind: 'git' | 'folder';
  path: string;
  plugins: number;
  warnings?: string[];
}

/** What RemoveMarketplace forgot. */
export interface RemovedMarketplace {
  name: string;
  source: string;
  kind: 'git' | 'folder';
  path: string;
  deleted: boolean;
}

/** One version of an installed plugin. */
export interface PluginVersion {
  commit?: string;
  archive?: string;
  /** The manifest's version; "" when it has none. */
  version: string;
  content: string;
}

/** What was added, removed and changed, by name. */
export interface NameDelta {
  added: string[];
  removed: string[];
  changed: string[];
}

/** An MCP server of a new version that needs acknowledgment, and for which targets. */
export interface NeedsAck extends AckServer {
  targets: string[];
  /** Targets whose acknowledgment of the previous declaration no longer matches. */
  lost: string[];
}

/** What CheckUpdates found, or Update did, for one installed plugin. */
export interface PluginUpdate {
  id: string;
  source: string;
  kind: string;
  ref?: string;
  from: PluginVersion;
  to: PluginVersion;
  changed: boolean;
  applied: boolean;
  pinned?: boolean;
  modified?: boolean;
  changes: {
    version?: [string, string];
    skills: NameDelta;
    commands: NameDelta;
    servers: NameDelta;
    needsAck: NeedsAck[];
  };
  error?: string;
}

export interface UpdateResult {
  updates: PluginUpdate[];
  progress: string[];
}
