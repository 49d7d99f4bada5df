/** Administration: the server's health (GET /server/health) and clearing the caches (POST /utils/cache/clear). */
import { errorText, h, statusLine } from '../dom.js';
import type { Page } from '../navigation.js';
import { client } from '../session.js';

interface Health {
  readonly status: string;
  readonly checks?: Readonly<
    Record<string, readonly { status?: string; observedValue?: unknown; observedUnit?: string; output?: string }[]>
  >;
}

export const adminPage: Page = async () => {
  const health = h('div', { class: 'card', 'aria-labelledby': 'health-title' });
  const refresh = h('button', { type: 'button', class: 'secondary' }, 'Check again');
  const load = async () => {
    health.replaceChildren(h('h2', { id: 'health-title' }, 'Server health'), h('p', { class: 'status' }, 'Checking…'));
    let answer: Health;
    try {
      answer = (await client.transport.get<never, Health>('/server/health')).raw;
    } catch (error) {
      // 503 answers the same body with status "error".
      const raw = (error as { response?: { raw?: unknown } }).response?.raw;
      if (typeof raw !== 'object' || raw === null) {
        health.append(h('p', { class: 'status error', role: 'alert' }, errorText(error)));
        return;
      }
      answer = raw as Health;
    }
    const rows = Object.entries(answer.checks ?? {}).flatMap(([name, checks]) =>
      checks.map((c) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, name),
          h('td', {}, c.status ?? ''),
          h('td', {}, c.observedValue === undefined ? '' : `${String(c.observedValue)} ${c.observedUnit ?? ''}`),
          h('td', {}, c.output ?? ''),
        ),
      ),
    );
    health.replaceChildren(
      h('h2', { id: 'health-title' }, 'Server health'),
      h(
        'p',
        { class: `health health-${answer.status}` },
        'Status: ',
        h('strong', { 'data-health': answer.status }, answer.status),
      ),
      rows.length === 0
        ? null
        : h(
            'div',
            { class: 'table-wrap' },
            h(
              'table',
              {},
              h(
                'thead',
                {},
                h(
                  'tr',
                  {},
                  ['Check', 'Status', 'Value', 'Output'].map((t) => h('th', { scope: 'col' }, t)),
                ),
              ),
              h('tbody', {}, rows),
            ),
          ),
      refresh,
    );
  };
  refresh.addEventListener('click', () => void load());
  await load();

  const cacheStatus = statusLine();
  const clear = h('button', { type: 'button' }, 'Clear caches');
  clear.addEventListener('click', () => {
    cacheStatus.textContent = 'Clearing…';
    client.utils.cache.clear().then(
      () => {
        cacheStatus.classList.remove('error');
        cacheStatus.textContent = `Caches cleared at ${new Date().toLocaleTimeString()}.`;
      },
      (error: unknown) => {
        cacheStatus.classList.add('error');
        cacheStatus.textContent = errorText(error);
      },
    );
  });
  const caches = h(
    'div',
    { class: 'card' },
    h('h2', {}, 'Caches'),
    h('p', {}, 'Clears the data cache and the schema cache of every instance.'),
    clear,
    cacheStatus,
  );
  return h('section', {}, h('h1', {}, 'Administration'), health, caches);
};
