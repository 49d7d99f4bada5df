/**
 * Exports and imports. An export (POST /utils/export/:collection) runs in the background; its
 * svc_activity row (`action` export) holds {status, rows_done, rows_total, file, error}, polled
 * here into a progress bar, then the file is offered for download. An import uploads a CSV or
 * JSON file (POST /utils/import/:collection) with a bar of the bytes sent. Strings: `svc.transfer.*`.
 */
import { errorText, field, h, progressBar, showErrors, statusLine } from '../dom.js';
import { onLeave, type Page, type Translate } from '../navigation.js';
import { client } from '../session.js';

const POLL_MS = 400;

interface ExportStatus {
  readonly status: 'queued' | 'running' | 'retrying' | 'done' | 'failed';
  readonly rows_done: number;
  readonly rows_total: number | null;
  readonly file: string | null;
  readonly error: string | null;
}

export const transferPage: Page = async (_params, query, t) => {
  const collections = ((await client.collections.readAll()).data ?? [])
    .map((c) => c.collection)
    .filter((c) => !c.startsWith('svc_'));
  collections.sort();
  const chosen = query.get('collection');
  const select = (id: string) =>
    h(
      'select',
      { id, name: 'collection', required: true },
      collections.map((c) => h('option', { value: c, selected: c === chosen }, c)),
    );
  return h(
    'section',
    {},
    h('h1', {}, t('svc.transfer.title')),
    exportForm(select('export-collection'), t),
    importForm(select('import-collection'), t),
  );
};

function exportForm(collection: HTMLSelectElement, t: Translate): HTMLElement {
  const format = h(
    'select',
    { id: 'export-format', name: 'format' },
    ['csv', 'json', 'xml', 'yaml'].map((f) => h('option', { value: f }, f.toUpperCase())),
  );
  const fields = field(t('svc.transfer.fields'), 'fields', { placeholder: 'id,title' });
  const filter = field(t('svc.transfer.filter'), 'filter', {
    placeholder: '{"status":{"_eq":"published"}}',
    spellcheck: 'false',
  });
  const status = statusLine();
  const bar = progressBar(t('svc.transfer.export_progress'), t);
  bar.element.hidden = true;
  const result = h('div', { class: 'result' });
  const start = h('button', { type: 'submit' }, t('svc.transfer.start'));
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'export-title' },
    h('h2', { id: 'export-title' }, t('svc.transfer.export')),
    h('div', { class: 'field' }, h('label', { for: collection.id }, t('svc.transfer.collection')), collection),
    h('div', { class: 'field' }, h('label', { for: format.id }, t('svc.transfer.format')), format),
    fields.row,
    filter.row,
    start,
    status,
    bar.element,
    result,
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  onLeave(() => clearTimeout(timer));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    result.replaceChildren();
    let parsedFilter: unknown;
    if (filter.input.value.trim() !== '') {
      try {
        parsedFilter = JSON.parse(filter.input.value);
      } catch {
        showErrors(form, status, {
          errors: [{ message: t('svc.transfer.filter_invalid'), extensions: { field: 'filter' } }],
        });
        return;
      }
    }
    const names = fields.input.value
      .split(',')
      .map((f) => f.trim())
      .filter((f) => f !== '');
    const exportQuery = {
      ...(names.length === 0 ? {} : { fields: names }),
      ...(parsedFilter === undefined ? {} : { filter: parsedFilter }),
      limit: -1,
    };
    start.disabled = true;
    status.textContent = t('svc.transfer.starting');
    void (async () => {
      try {
        const since = await newestExportId();
        await client.transport.post(`/utils/export/${encodeURIComponent(collection.value)}`, {
          format: format.value,
          query: exportQuery,
        });
        bar.element.hidden = false;
        bar.set(0, null);
        const poll = async (): Promise<void> => {
          const row = await exportRow(collection.value, since);
          if (row === undefined) {
            timer = setTimeout(() => void poll().catch(fail), POLL_MS);
            return;
          }
          const progress = JSON.parse(String(row.comment)) as ExportStatus;
          bar.set(progress.rows_done, progress.rows_total);
          status.textContent = t(`svc.transfer.status.${progress.status}`);
          if (progress.status === 'done' && progress.file !== null) {
            bar.set(progress.rows_total ?? progress.rows_done, progress.rows_total ?? progress.rows_done);
            start.disabled = false;
            result.replaceChildren(await downloadLink(progress.file, t));
          } else if (progress.status === 'failed') {
            start.disabled = false;
            status.textContent = t('svc.transfer.failed', { error: progress.error ?? t('svc.transfer.no_reason') });
            status.classList.add('error');
          } else {
            timer = setTimeout(() => void poll().catch(fail), POLL_MS);
          }
        };
        await poll();
      } catch (error) {
        fail(error);
      }
    })();
    function fail(error: unknown): void {
      start.disabled = false;
      showErrors(form, status, error);
    }
  });
  return form;
}

async function newestExportId(): Promise<number> {
  const rows =
    (
      await client.activity.readByQuery({
        filter: { action: { _eq: 'export' } } as never,
        sort: '-id',
        limit: 1,
        fields: ['id'],
      })
    ).data ?? [];
  return Number((rows[0] as { id?: unknown } | undefined)?.id ?? 0);
}

async function exportRow(collection: string, since: number): Promise<{ comment: unknown } | undefined> {
  const filter = {
    action: { _eq: 'export' },
    collection: { _eq: collection },
    id: { _gt: since },
    user: { _eq: '$CURRENT_USER' },
  };
  const rows =
    (await client.activity.readByQuery({ filter: filter as never, sort: 'id', limit: 1, fields: ['id', 'comment'] }))
      .data ?? [];
  return rows[0] as { comment: unknown } | undefined;
}

/** The finished file: fetched through the client (the session's token), offered as a download. */
async function downloadLink(fileId: string, t: Translate): Promise<Node> {
  const file = await client.files.readOne(fileId, { fields: ['filename_download', 'filesize'] });
  const name = file?.filename_download ?? `export-${fileId}`;
  const bytes = (
    await client.transport.get<never, ArrayBuffer>(`/assets/${encodeURIComponent(fileId)}`, {
      responseType: 'arraybuffer',
    })
  ).raw;
  const url = URL.createObjectURL(new Blob([bytes]));
  onLeave(() => URL.revokeObjectURL(url));
  const link = h('a', { class: 'button', href: url, download: name }, t('svc.transfer.download', { name }));
  return h('p', {}, link);
}

function importForm(collection: HTMLSelectElement, t: Translate): HTMLElement {
  const file = field(t('svc.transfer.file'), 'file', {
    type: 'file',
    accept: '.csv,.json,text/csv,application/json',
    required: true,
  });
  const status = statusLine();
  const bar = progressBar(t('svc.transfer.upload_progress'), t);
  bar.element.hidden = true;
  const submit = h('button', { type: 'submit' }, t('svc.transfer.import'));
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'import-title' },
    h('h2', { id: 'import-title' }, t('svc.transfer.import')),
    h('div', { class: 'field' }, h('label', { for: collection.id }, t('svc.transfer.collection')), collection),
    file.row,
    submit,
    status,
    bar.element,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const chosen = file.input.files?.[0];
    if (chosen === undefined) return;
    const type = chosen.type !== '' ? chosen.type : chosen.name.endsWith('.json') ? 'application/json' : 'text/csv';
    const body = new FormData();
    body.append('file', new Blob([chosen], { type }), chosen.name);
    bar.element.hidden = false;
    bar.set(0, chosen.size);
    submit.disabled = true;
    status.textContent = t('svc.transfer.uploading');
    client.transport
      .post(`/utils/import/${encodeURIComponent(collection.value)}`, body, {
        onUploadProgress: (p) => bar.set(p.loaded, p.total),
      })
      .then(
        () => {
          status.classList.remove('error');
          status.textContent = t('svc.transfer.imported', { file: chosen.name, collection: collection.value });
        },
        (error: unknown) => {
          status.textContent = t('svc.transfer.import_failed', { error: errorText(error) });
          status.classList.add('error');
        },
      )
      .finally(() => (submit.disabled = false));
  });
  return form;
}
