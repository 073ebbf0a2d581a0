// What the agent clients installed on this machine said they load (ClientAnswers): the backend
// asks them in the background after each scan, reports clients:progress as it goes and
// clients:answered at the end. The plugin detail shows each answer beside the model's verdict; a
// standalone skill's detail shows what each client said of its folder.
import { api, on } from './bridge';
import type { ClientAnswerResult, ClientsProgress, ClientsState, InstalledClient } from './models.gen';

const key = (client: string, what: string) => `${client}/${what}`;

export class ClientAnswers {
  private state: ClientsState | null = null;
  private byPlugin = new Map<string, ClientAnswerResult>();
  private listeners = new Set<() => void>();

  constructor() {
    on('clients:progress', (p) => {
      if (!this.state) return;
      this.state = { ...this.state, asking: p };
      this.notify();
    });
    on('clients:answered', () => void this.load());
  }

  /** Asks for the state again (at start and after each asking). A failed call keeps what was shown. */
  async load(): Promise<void> {
    let st: ClientsState;
    try {
      st = await api.clientAnswers();
    } catch (e) {
      console.warn('plugboard: ClientAnswers failed', e);
      return;
    }
    this.state = st;
    this.byPlugin = new Map(st.answers.map((r) => [key(r.client, r.skill ? `skill:${r.skill}` : r.plugin), r]));
    this.notify();
    // Until the first scan's asking has started (seq 0), and while an asking runs, ask again
    // now and then: its start and end are events too, but those sent before the event stream
    // was connected (a page opened during the first scan) never arrive.
    if ((st.seq === 0 || st.asking) && !this.again)
      this.again = setTimeout(() => ((this.again = undefined), void this.load()), 2000);
  }

  private again: ReturnType<typeof setTimeout> | undefined;

  /** An installed client's answer about one plugin of the last scan, if it has come. */
  answerFor(client: string, pluginId: string): ClientAnswerResult | undefined {
    return this.byPlugin.get(key(client, pluginId));
  }

  /** An installed client's answer about one standalone skill (its SKILL.md path), if it has come. */
  answerForSkill(client: string, skillPath: string): ClientAnswerResult | undefined {
    return this.byPlugin.get(key(client, `skill:${skillPath}`));
  }

  /** The agent clients looked for on this machine, found or not (empty until the first answer). */
  clients(): InstalledClient[] {
    return this.state?.clients ?? [];
  }

  /** How far the asking has come; undefined when none runs. */
  asking(): ClientsProgress | undefined {
    return this.state?.asking ?? undefined;
  }

  /** Calls fn after each change; returns the function that stops it. */
  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private notify(): void {
    for (const fn of this.listeners) fn();
  }
}
