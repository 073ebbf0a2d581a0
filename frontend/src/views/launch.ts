// Launching a target's agent (R1–R7 through Launch): the Launch card of the assignment detail.
// Launch(target, backend) builds the plan in Go and opens the agent in the user's terminal; the
// card shows the agent's exact command (copyable) and what the launch loads, or why it did not
// start: a refusal naming the colliding names, or, without a terminal, the command to run by hand.
// The backend reads the target from disk at spawn, so an unsaved draft is not what launches.
//
// MCP acknowledgments: the card launches with requireAck, so a portable MCP server that is not
// acknowledged for the target as it is now (a plugin that gained an mcp.json after it was assigned,
// a server whose command changed) stops the launch before any terminal opens, and the assignment
// view's acknowledgment dialog shows it (names and counts, never a value): Acknowledge and launch
// records it (Acknowledge, with the digest shown) and launches again; Launch without them launches
// with those servers left out, and the card lists them with an Acknowledge button for next time.

import { api, ApiError, errorText } from '../bridge';
import { badge, basename, h, mount } from '../dom';
import { type Key, t } from '../i18n';
import type { AckServer, Collision, LaunchResult, Plan, Target } from '../types';
import { backendSelect } from './subject';

/** Which buttons the acknowledgment dialog offers: before a save, before a launch, after one. */
export type AckMode = 'save' | 'launch' | 'later';

/** Opens the acknowledgment dialog; resolves with `ack`, `without` (launch only) or `cancel`. */
export type AckDialog = (servers: AckServer[], mode: AckMode) => Promise<string>;

/** The first 12 hex digits of a "sha256:…" digest, for people. */
export function shortDigest(d: string): string {
  return d.replace(/^sha256:/, '').slice(0, 12);
}

/** The servers a plan left out as not acknowledged, with what to acknowledge. */
export function unacknowledged(p: Plan): AckServer[] {
  return (p.dropped ?? []).flatMap((d) => (d.ack ? [d.ack] : []));
}

/** How a plugin is loaded, by the plan's "how"; another value is shown as it is. */
const HOW_LABEL: Record<string, Key> = {
  projected: 'launch.how.projected',
  'as-is': 'launch.how.as-is',
  skills: 'launch.how.skills',
  dropped: 'launch.how.dropped',
};

/** A collision's kind, for people; another kind is shown as it is. */
const KIND_LABEL: Record<string, Key> = {
  skill: 'launch.collision.kind.skill',
  namespace: 'launch.collision.kind.namespace',
  'mcp-server': 'launch.collision.kind.mcp-server',
};

interface Outcome {
  target: string;
  backend: string;
  res?: LaunchResult;
  error?: { code: string; message: string; collisions: Collision[]; hint: string };
}

/** The command a no-terminal error names for running by hand. */
/** A read-only block of code with a Copy button. */
export function codeBlock(text: string, testid: string, label: string): HTMLElement {
  const code = h('code', { 'data-testid': testid }, text);
  const copy = h(
    'button',
    {
      type: 'button',
      class: 'btn btn-small',
      'aria-label': t('launch.copy.label', { label }),
      'data-testid': `${testid}-copy`,
    },
    t('launch.copy'),
  );
  copy.addEventListener('click', () => {
    const done = (ok: boolean) => {
      copy.textContent = ok ? t('launch.copy.done') : t('launch.copy.selected');
      setTimeout(() => (copy.textContent = t('launch.copy')), 1600);
    };
    const select = () => {
      const r = document.createRange();
      r.selectNodeContents(code);
      const sel = window.getSelection();
      sel?.removeAllRanges();
      sel?.addRange(r);
      done(false);
    };
    if (navigator.clipboard?.writeText) navigator.clipboard.writeText(text).then(() => done(true), select);
    else select();
  });
  return h('div', { class: 'codeblock' }, h('pre', { tabindex: 0, 'aria-label': label }, code), copy);
}

export class LaunchPanel {
  readonly el: HTMLElement;
  private readonly select: HTMLSelectElement;
  private readonly button: HTMLButtonElement;
  private readonly note: HTMLElement;
  private readonly result: HTMLElement;
  private target: Target | null = null;
  private dirty = false;
  private busy = false;
  private outcome: Outcome | null = null;
  /** What the card acknowledged after a launch without them: keys plugin/server. */
  private acked = new Set<string>();
  private ackError = '';

  constructor(
    private readonly ask: AckDialog,
    private readonly onAcknowledged: () => void = () => {},
  ) {
    this.select = backendSelect({
      'aria-label': t('launch.backend'),
      'data-testid': 'launch-backend',
      id: 'launch-backend',
    });
    this.button = h(
      'button',
      { type: 'button', class: 'btn', 'data-testid': 'launch-button', onclick: () => void this.launch() },
      t('launch.button'),
    );
    this.note = h('p', { class: 'muted small' });
    this.result = h('div', { class: 'launch-result', 'data-testid': 'launch-result', 'aria-live': 'polite' });
    this.el = h(
      'section',
      { class: 'card launch-card', 'data-testid': 'launch', 'aria-labelledby': 'h-launch' },
      h('h3', { id: 'h-launch' }, t('launch.title')),
      h(
        'div',
        { class: 'row' },
        h('label', { for: 'launch-backend', class: 'muted small' }, t('launch.backend')),
        this.select,
        this.button,
        h('span', { class: 'grow' }),
      ),
      this.note,
      this.result,
    );
  }

  /** Shows the card for a target; a different target forgets the last outcome. */
  setTarget(tgt: Target, dirty: boolean): void {
    if (this.target?.id !== tgt.id) {
      this.outcome = null;
      this.select.value = '';
      this.acked.clear();
      this.ackError = '';
    }
    this.target = tgt;
    this.dirty = dirty;
    // Name the agent's own backend (its file's "backend", else claude) in the first option.
    const own = this.select.options[0];
    if (own) own.textContent = t('launch.backend.ownNamed', { backend: tgt.backend || 'claude' });
    const active = tgt.kind === 'active';
    this.button.disabled = this.busy || active;
    this.button.textContent = this.busy ? t('launch.launching') : t('launch.button');
    this.select.disabled = this.busy || active;
    this.note.dataset.testid = active ? 'launch-unavailable' : 'launch-note';
    this.note.className = active ? 'notice notice-info' : 'muted small';
    this.note.textContent = active ? t('launch.note.active') : dirty ? t('launch.note.dirty') : t('launch.note');
    this.render();
  }

  private async launch(): Promise<void> {
    const tgt = this.target;
    if (!tgt || this.busy) return;
    const backend = this.select.value;
    this.busy = true;
    this.outcome = null;
    this.acked.clear();
    this.ackError = '';
    this.setTarget(tgt, this.dirty);
    try {
      const res = await this.launchAsking(tgt, backend);
      this.outcome = res ? { target: tgt.id, backend, res } : null;
      if (!res) this.ackError = t('launch.notAcked');
    } catch (e) {
      const err = e instanceof ApiError ? e : new ApiError('transport', errorText(e));
      this.outcome = {
        target: tgt.id,
        backend,
        error: {
          code: err.code,
          message: err.message,
          collisions: err.body.collisions ?? [],
          hint: err.body.hint ?? '',
        },
      };
    } finally {
      this.busy = false;
      if (this.target) this.setTarget(this.target, this.dirty);
    }
  }

  /**
   * Launches with requireAck; when servers are not acknowledged, asks. Returns null when the user
   * cancelled (nothing started).
   */
  private async launchAsking(tgt: Target, backend: string): Promise<LaunchResult | null> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await api.launch(tgt.id, backend, true);
      } catch (e) {
        if (!(e instanceof ApiError) || e.code !== 'ack-needed' || attempt > 2) throw e;
        const servers = e.body.servers ?? [];
        const choice = await this.ask(servers, 'launch');
        if (choice === 'without') return api.launch(tgt.id, backend, false);
        if (choice !== 'ack') return null;
        try {
          await this.record(tgt.id, servers);
        } catch (err) {
          // a server changed after it was shown: launch again, which asks about it as it is now
          if (!(err instanceof ApiError) || err.code !== 'stale') throw err;
        }
      }
    }
  }

  /** Records the acknowledgment of servers as shown; a server changed since is asked again. */
  private async record(target: string, servers: AckServer[]): Promise<void> {
    await api.acknowledge(
      target,
      servers.map((s) => ({ plugin: s.plugin, server: s.server, digest: s.digest })),
    );
    for (const s of servers) this.acked.add(`${s.plugin}/${s.server}`);
    this.onAcknowledged();
  }

  /** Acknowledges, after a launch without them, the servers it left out: the next launch starts them. */
  private async acknowledgeLater(servers: AckServer[]): Promise<void> {
    const tgt = this.target;
    if (!tgt || (await this.ask(servers, 'later')) !== 'ack') return;
    try {
      await this.record(tgt.id, servers);
      this.ackError = '';
    } catch (e) {
      this.ackError = t('launch.ackFailed', { msg: errorText(e) });
    }
    this.render();
  }

  private render(): void {
    const o = this.outcome;
    if (this.busy) {
      mount(this.result, h('p', { class: 'muted small', role: 'status' }, t('launch.building')));
      return;
    }
    if (!o || o.target !== this.target?.id) {
      mount(
        this.result,
        this.ackError
          ? h('p', { class: 'notice notice-error', 'data-testid': 'launch-not-acked', role: 'alert' }, this.ackError)
          : null,
      );
      return;
    }
    if (o.res) {
      mount(this.result, ...this.started(o.res));
      return;
    }
    const e = o.error!;
    if (e.code === 'refused') {
      mount(
        this.result,
        h(
          'p',
          { class: 'notice notice-error', 'data-testid': 'launch-refused', role: 'alert' },
          t('launch.refused', { msg: e.message }),
        ),
        e.collisions.length
          ? h(
              'ul',
              { class: 'plain launch-collisions', 'data-testid': 'launch-collisions' },
              ...e.collisions.map((c) =>
                h(
                  'li',
                  { 'data-testid': 'launch-collision', 'data-name': c.name, 'data-kind': c.kind },
                  t('launch.collision.before', { kind: KIND_LABEL[c.kind] ? t(KIND_LABEL[c.kind]) : c.kind }),
                  h('code', { class: 'name-chip' }, c.name),
                  t('launch.collision.after', { plugins: c.plugins.join(t('launch.collision.and')) }),
                ),
              ),
            )
          : null,
      );
      return;
    }
    // The backend's hint is a command to copy (run the launch by hand, install the client), shown
    // apart from the sentence; the sentence is the page's own for the codes it knows.
    const sentence =
      e.code === 'no-terminal'
        ? t('launch.noTerminal')
        : e.code === 'client-missing'
          ? t('launch.clientMissing', { msg: e.message })
          : t('launch.notLaunched', { msg: e.message });
    mount(
      this.result,
      h(
        'p',
        { class: 'notice notice-error', 'data-testid': 'launch-error', 'data-code': e.code, role: 'alert' },
        sentence,
      ),
      e.hint
        ? codeBlock(
            e.hint,
            e.code === 'no-terminal' ? 'launch-manual' : 'launch-hint',
            t(e.code === 'no-terminal' ? 'launch.copy.manual' : 'launch.copy.install'),
          )
        : null,
      e.code === 'no-terminal' ? h('p', { class: 'muted small' }, e.message) : null,
    );
  }

  private started(r: LaunchResult): Array<Node | null> {
    const p = r.plan;
    return [
      ...this.leftOut(p),
      h(
        'p',
        { class: 'notice notice-ok', 'data-testid': 'launch-started', role: 'status' },
        t('launch.started', { target: p.target, backend: p.backend }),
      ),
      h('h4', null, t('launch.command')),
      codeBlock(r.command, 'launch-command', t('launch.copy.command')),
      r.terminal
        ? h(
            'p',
            { class: 'muted small' },
            t('launch.terminal'),
            h('span', { class: 'mono wrap', 'data-testid': 'launch-terminal' }, r.terminal),
          )
        : null,
      planDetails(p),
    ];
  }

  /** The servers a launch left out as not acknowledged, with a way to acknowledge them for next time. */
  private leftOut(p: Plan): Array<Node | null> {
    const servers = unacknowledged(p);
    if (!servers.length) return [];
    const pending = servers.filter((s) => !this.acked.has(`${s.plugin}/${s.server}`));
    const names = servers.map((s) => `${s.plugin}/${s.server}`).join(', ');
    return [
      h(
        'div',
        { class: 'notice notice-info', 'data-testid': 'launch-unacked', role: 'status' },
        pending.length
          ? t('launch.unacked', { n: servers.length, target: p.target, names })
          : t('launch.acked', { n: servers.length, names }),
        pending.length
          ? h(
              'button',
              {
                type: 'button',
                class: 'btn btn-small',
                'data-testid': 'launch-ack',
                onclick: () => void this.acknowledgeLater(pending),
              },
              t('launch.ack'),
            )
          : null,
      ),
      this.ackError ? h('p', { class: 'notice notice-error', role: 'alert' }, this.ackError) : null,
    ];
  }
}

/**
 * Why a launch left something out, in the page's words: a server not acknowledged gets a sentence (the
 * page acknowledges with a button, not the command line the backend's reason names); others keep
 * the backend's reason.
 */
export function dropReason(d: Plan['dropped'][number]): string {
  return d.ack ? t('launch.drop.notAcked') : d.reason;
}

const chips = (xs: string[] | null | undefined, testid: string): HTMLElement =>
  xs && xs.length
    ? h('span', { class: 'names', 'data-testid': testid }, ...xs.map((x) => h('code', { class: 'name-chip' }, x)))
    : h('span', { class: 'muted', 'data-testid': testid }, t('launch.none'));

/** What the launch loads and what it leaves out. */
/** What a skill's folder and `paths` let the agent read (Claude), or why nothing is granted (PI). */
function grantList(p: Plan): HTMLElement {
  if (p.grantsUnsupported) return h('span', { class: 'muted', 'data-testid': 'launch-grants' }, p.grantsUnsupported);
  const grants = p.grants ?? [];
  if (!grants.length) return h('span', { class: 'muted', 'data-testid': 'launch-grants' }, t('launch.none'));
  return h(
    'ul',
    { class: 'plain launch-reasons', 'data-testid': 'launch-grants' },
    ...grants.map((g) =>
      h(
        'li',
        { 'data-kind': g.kind },
        h('code', null, g.skill),
        ' ',
        h(
          'span',
          { class: 'muted small' },
          g.kind === 'skill-folder' ? t('launch.grant.folder') : t('launch.grant.paths'),
        ),
        ': ',
        h('span', { class: 'mono small wrap' }, g.path),
        h('span', { class: 'muted small' }, t('launch.grant.readOnly')),
      ),
    ),
  );
}

export function planDetails(p: Plan): HTMLElement {
  const row = (label: string, value: Node) => [h('dt', null, label), h('dd', null, value)];
  const reasons = (items: Array<{ key: string; reason: string }>, testid: string) =>
    items.length
      ? h(
          'ul',
          { class: 'plain launch-reasons', 'data-testid': testid },
          ...items.map((i) => h('li', null, h('code', null, i.key), ': ', h('span', { class: 'muted' }, i.reason))),
        )
      : h('span', { class: 'muted', 'data-testid': testid }, t('launch.none'));
  const plugins = h(
    'ul',
    { class: 'plain', 'data-testid': 'launch-plugins' },
    ...p.plugins.map((x) =>
      h(
        'li',
        null,
        h('code', null, x.id),
        ' ',
        badge(x.format, x.format === 'legacy' ? 'warning' : 'fmt-none'),
        ' ',
        h('span', { class: 'muted small' }, HOW_LABEL[x.how] ? t(HOW_LABEL[x.how]) : x.how),
        x.path
          ? h('span', { class: 'muted small mono', title: x.path }, t('launch.plan.from', { name: basename(x.path) }))
          : null,
      ),
    ),
  );
  return h(
    'dl',
    { class: 'meta launch-plan', 'data-testid': 'launch-plan' },
    ...row(
      t('launch.plan.plugins', { n: p.plugins.length }),
      p.plugins.length ? plugins : h('span', { class: 'muted' }, t('launch.none')),
    ),
    ...row(t('launch.plan.skills'), chips(p.skills, 'launch-skills')),
    ...row(t('launch.plan.servers'), chips(p.servers, 'launch-servers')),
    ...row(
      t('launch.plan.suppressed'),
      reasons(
        (p.suppressed ?? []).map((s) => ({ key: `${s.plugin}/${s.server}`, reason: s.reason })),
        'launch-suppressed',
      ),
    ),
    ...row(
      t('launch.plan.dropped'),
      reasons(
        (p.dropped ?? []).map((d) => ({
          key: d.name ? `${d.plugin} ${d.what} ${d.name}` : `${d.plugin} (${d.what})`,
          reason: dropReason(d),
        })),
        'launch-dropped',
      ),
    ),
    ...row(t('launch.plan.grants'), grantList(p)),
    ...row(
      t('launch.plan.refused'),
      reasons(
        (p.refused ?? []).map((r) => ({ key: `${r.skill} ${r.entry}`, reason: r.reason })),
        'launch-refused',
      ),
    ),
    ...(p.envKeys.length ? row(t('launch.plan.env'), chips(p.envKeys, 'launch-env')) : []),
    ...row(
      t('launch.plan.projection'),
      h(
        'span',
        { class: 'mono small wrap' },
        p.projection || '—',
        p.reused ? h('span', { class: 'muted' }, t('launch.plan.reused')) : null,
      ),
    ),
  );
}
