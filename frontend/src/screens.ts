// The full-page states shown before a catalog is on screen: loading (with the progress of a
// first scan when the backend reports it) and error (with the message and Retry).

import { h, mount } from './dom';
import { t } from './i18n';
import type { ProgressEvent } from './types';

export function showLoading(screen: HTMLElement, progress?: ProgressEvent): void {
  screen.hidden = false;
  screen.dataset.testid = 'loading';
  const pct = progress && progress.total ? Math.round((100 * progress.done) / progress.total) : 0;
  mount(
    screen,
    h('div', { class: 'spinner', 'aria-hidden': 'true' }),
    h('h2', null, t('shell.loading.scanning')),
    h(
      'div',
      {
        class: 'progress',
        role: 'progressbar',
        'aria-label': t('shell.loading.progressLabel'),
        'aria-valuemin': 0,
        'aria-valuemax': progress?.total ?? 100,
        'aria-valuenow': progress?.done,
        'data-testid': 'progress',
      },
      h('div', { class: 'bar', style: `width:${pct}%` }),
    ),
    h(
      'p',
      { class: 'muted' },
      progress ? t('shell.loading.progress', { done: progress.done, n: progress.total }) : t('shell.loading.reading'),
    ),
  );
}

export function showError(screen: HTMLElement, message: string, retry: () => void): void {
  screen.hidden = false;
  screen.dataset.testid = 'error';
  mount(
    screen,
    h('h2', null, t('shell.error.title')),
    h('p', { class: 'error-text', 'data-testid': 'error-message' }, message),
    h(
      'button',
      { type: 'button', class: 'btn btn-primary', 'data-testid': 'retry', onclick: retry },
      t('shell.error.retry'),
    ),
  );
}
