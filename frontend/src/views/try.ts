// The Try box (issue 13, item 3): one prompt as one turn of the agent on the launch's projection of
// a target (in the Assignments tab, beside Launch) or of a linked working copy (in Local
// development). It shows the answer, the skills the model invoked and the MCP tools it called, read
// by the backend from the activity records of that turn (Try in docs/api.md), and whether a warm
// agent of an earlier try answered.

import { ApiError, api, errorText } from '../bridge';
import { h } from '../dom';
import { fmtNumber, t } from '../i18n';
import type { TryResult } from '../types';
import { codeBlock, dropReason } from './launch';
import { backendSelect, labelOwnBackend, type LaunchSubject, subjectKey } from './subject';

export class TryPanel {
  readonly el: HTMLElement;
  private readonly prompt: HTMLTextAreaElement;
  private readonly select: HTMLSelectElement;
  private readonly button: HTMLButtonElement;
  private readonly result: HTMLElement;
  private subject: LaunchSubject | null = null;
  private busy = false;
  /** The outcome shown, for the subject it belongs to. */
  private outcome: { key: string; res?: TryResult; error?: string; code?: string; hint?: string } | null = null;

  constructor(idPrefix: string) {
    this.prompt = h('textarea', {
      id: `${idPrefix}-prompt`,
      rows: 3,
      class: 'grow',
      placeholder: t('launch.try.placeholder'),
      'data-testid': 'try-prompt',
    });
    this.select = backendSelect({ 'aria-label': t('launch.try.agent'), 'data-testid': 'try-backend' });
    this.button = h(
      'button',
      { type: 'button', class: 'btn', 'data-testid': 'try-button', onclick: () => void this.run() },
      t('launch.try.button'),
    );
    this.prompt.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) void this.run();
    });
    this.result = h('div', { class: 'try-result', 'data-testid': 'try-result', 'aria-live': 'polite' });
    this.el = h(
      'section',
      { class: 'card try-card', 'data-testid': 'try', 'aria-labelledby': `${idPrefix}-h` },
      h('h3', { id: `${idPrefix}-h` }, t('launch.try.title')),
      h('p', { class: 'muted small' }, t('launch.try.help')),
      h('label', { for: `${idPrefix}-prompt`, class: 'field-label' }, t('launch.try.prompt')),
      this.prompt,
      h('div', { class: 'row' }, this.select, this.button, h('span', { class: 'grow' })),
      this.result,
    );
    this.render();
  }

  /** Shows the box for a subject; another subject forgets the last outcome. */
  set(subject: LaunchSubject | null, ownBackend = ''): void {
    if (subjectKey(subject) !== subjectKey(this.subject)) this.outcome = null;
    this.subject = subject;
    labelOwnBackend(this.select, subject, ownBackend);
    this.render();
  }

  private async run(): Promise<void> {
    const s = this.subject;
    const prompt = this.prompt.value;
    if (!s || this.busy || !prompt.trim()) return;
    this.busy = true;
    const key = subjectKey(s);
    this.outcome = null;
    this.render();
    try {
      const res = await api.try(s.target ?? '', s.dir ?? '', this.select.value, prompt);
      this.outcome = { key, res };
    } catch (e) {
      const err = e instanceof ApiError ? e : new ApiError('transport', errorText(e));
      this.outcome = { key, error: err.message, code: err.code, hint: err.body?.hint };
    } finally {
      this.busy = false;
      this.render();
    }
  }

  /** Acknowledges a server the try left out, as it was shown (its digest): the next try starts it. */
  private async acknowledge(target: string, d: TryResult['dropped'][number], btn: HTMLButtonElement): Promise<void> {
    if (!d.ack) return;
    btn.disabled = true;
    try {
      await api.acknowledge(target, [{ plugin: d.ack.plugin, server: d.ack.server, digest: d.ack.digest }]);
      btn.replaceWith(h('span', { class: 'muted small', 'data-testid': 'try-acked' }, t('launch.try.acked')));
    } catch (e) {
      btn.replaceWith(h('span', { class: 'notice notice-error small' }, errorText(e)));
    }
  }

  private render(): void {
    const none = !this.subject;
    this.button.disabled = this.busy || none;
    this.button.textContent = this.busy ? t('launch.try.trying') : t('launch.try.button');
    this.prompt.disabled = none;
    this.select.disabled = this.busy || none;
    const o = this.outcome;
    if (this.busy) {
      this.result.replaceChildren(h('p', { class: 'muted small', role: 'status' }, t('launch.try.working')));
      return;
    }
    if (!o || o.key !== subjectKey(this.subject)) {
      this.result.replaceChildren();
      return;
    }
    if (o.error !== undefined) {
      // a missing client is said as Launch says it, with the install command to copy
      const said = h(
        'p',
        { class: 'notice notice-error', 'data-testid': 'try-error', 'data-code': o.code ?? '' },
        o.code === 'client-missing' ? t('launch.clientMissing', { msg: o.error }) : o.error,
      );
      this.result.replaceChildren(
        ...(o.code === 'client-missing' && o.hint
          ? [said, codeBlock(o.hint, 'try-hint', t('launch.copy.install'))]
          : [said]),
      );
      return;
    }
    const r = o.res!;
    this.result.replaceChildren(
      h(
        'dl',
        { class: 'try-facts' },
        h('dt', null, t('launch.try.skills')),
        h(
          'dd',
          { 'data-testid': 'try-skills' },
          r.skills.length
            ? h(
                'ul',
                { class: 'plain' },
                ...r.skills.map((s) =>
                  h(
                    'li',
                    { class: 'mono', 'data-skill': s.skill },
                    s.skill,
                    h(
                      'span',
                      { class: 'muted small' },
                      s.how === 'user' ? t('launch.try.slash') : t('launch.try.picked'),
                    ),
                  ),
                ),
              )
            : t('launch.none'),
        ),
        h('dt', null, t('launch.try.tools')),
        h(
          'dd',
          { 'data-testid': 'try-tools' },
          r.tools.length
            ? h(
                'ul',
                { class: 'plain' },
                ...r.tools.map((tool) =>
                  h(
                    'li',
                    { class: 'mono', 'data-tool': `${tool.server}/${tool.tool}` },
                    `${tool.server}/${tool.tool}`,
                    h(
                      'span',
                      { class: 'muted small' },
                      t(tool.failed ? 'launch.try.toolFailed' : 'launch.try.toolMs', { ms: tool.ms }),
                    ),
                  ),
                ),
              )
            : t('launch.none'),
        ),
      ),
      h('h4', null, t('launch.try.answer')),
      h(
        'pre',
        { class: 'try-answer wrap', 'data-testid': 'try-answer', tabindex: 0 },
        r.answer || t('launch.try.noText'),
      ),
      h(
        'p',
        { class: 'muted small', 'data-testid': 'try-meta', 'data-warm': String(r.warm) },
        t(r.warm ? 'launch.try.metaWarm' : 'launch.try.metaNew', {
          backend: r.backend,
          s: fmtNumber(r.ms / 1000, { minimumFractionDigits: 1, maximumFractionDigits: 1 }),
        }),
      ),
      ...(r.dropped.length
        ? [
            h(
              'details',
              { class: 'small', 'data-testid': 'try-dropped' },
              h('summary', null, t('launch.try.leftOut', { names: r.dropped.map(dropName).join(', ') })),
              h(
                'ul',
                { class: 'plain' },
                ...r.dropped.map((d) =>
                  h(
                    'li',
                    { 'data-drop': dropName(d) },
                    `${dropName(d)}: ${dropReason(d)}`,
                    d.ack
                      ? h(
                          'button',
                          {
                            type: 'button',
                            class: 'btn btn-small',
                            'data-testid': 'try-ack',
                            onclick: (e: Event) =>
                              void this.acknowledge(r.target, d, e.currentTarget as HTMLButtonElement),
                          },
                          t('launch.ack'),
                        )
                      : null,
                  ),
                ),
              ),
            ),
          ]
        : []),
    );
  }
}

function dropName(d: TryResult['dropped'][number]): string {
  return `${d.plugin}${d.name ? '/' + d.name : ''}`;
}
