// What the views share with the application shell.

import type { ClientAnswers } from '../clientAnswers';
import type { CatalogIndex } from '../search';
import type { SettingsModel } from '../settingsModel';
import type { CatalogDoc, SkillEntry } from '../types';

export type Tab = 'plugins' | 'skills' | 'mcp' | 'problems' | 'assign' | 'dev' | 'timeline' | 'activity' | 'settings';

export interface Ctx {
  index(): CatalogIndex | null;
  settings: SettingsModel;
  /** What the agent clients installed here said they load (asked after each scan). */
  answers: ClientAnswers;
  /** Switches to the Plugins tab with this plugin selected. */
  showPlugin(id: string): void;
  /** Switches to the Skills tab with this entry selected. */
  showSkill(entry: SkillEntry): void;
  /** Switches to the Problems tab, showing the problems of a severity ('' all). */
  showProblems(severity: string): void;
  /** Switches to a tab (the welcome view's ways in). */
  showTab(tab: Tab): void;
  /** Switches to Assignments with the New agent dialog open (the welcome view's next step). */
  newAgent(): void;
  /** Runs a method that scans and returns a catalog document (OpenWorkspace, SetWorkspaceTrust) and applies it. */
  docCall(fn: () => Promise<CatalogDoc>): Promise<CatalogDoc>;
}
