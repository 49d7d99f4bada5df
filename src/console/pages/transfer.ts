/**
 * Exports and imports. An export (POST /utils/export/:collection) runs in the background; its
 * svc_activity row (`action` export) holds {status, rows_done, rows_total, file, error}, polled
 * here into a progress bar, then the file is offered for download. An import uploads a CSV or
 * JSON file (POST /utils/import/:collection) with a bar of the bytes sent.
 */
import { errorText, field, h, progressBar, showErrors, statusLine } from '../dom.js';
import { onLeave, type Page } from '../navigation.js';
import { client } from '../session.js';

const POLL_MS = 400;

interface ExportStatus {
  readonly status: 'queued' | 'running' | 'retrying' | 'done' | 'failed';
  readonly rows_done: number;
  readonly rows_total: number | null;
  readonly file: string | null;
  readonly error: string | null;
}

export const transferPage: Page = async (_params, query) => {
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
    h('h1', {}, 'Export and import'),
    exportForm(select('export-collection')),
    importForm(select('import-collection')),
  );
};

function exportForm(collection: HTMLSelectElement): HTMLElement {
  const format = h(
    'select',
    { id: 'export-format', name: 'format' },
    ['csv', 'json', 'xml', 'yaml'].map((f) => h('option', { value: f }, f.toUpperCase())),
  );
  const fields = field('Fields (comma separated, empty for all)', 'fields', { placeholder: 'id,title' });
  const filter = field('Filter (JSON)', 'filter', {
    placeholder: '{"status":{"_eq":"published"}}',
    spellcheck: 'false',
  });
  const status = statusLine();
  const bar = progressBar('Export progress');
  bar.element.hidden = true;
  const result = h('div', { class: 'result' });
  const start = h('button', { type: 'submit' }, 'Start export');
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'export-title' },
    h('h2', { id: 'export-title' }, 'Export'),
    h('div', { class: 'field' }, h('label', { for: collection.id }, 'Collection'), collection),
    h('div', { class: 'field' }, h('label', { for: format.id }, 'Format'), format),
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
          errors: [{ message: 'Not JSON, e.g. {"status":{"_eq":"published"}}', extensions: { field: 'filter' } }],
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
    status.textContent = 'Starting…';
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
          status.textContent = `Export ${progress.status}`;
          if (progress.status === 'done' && progress.file !== null) {
            bar.set(progress.rows_total ?? progress.rows_done, progress.rows_total ?? progress.rows_done);
            start.disabled = false;
            result.replaceChildren(await downloadLink(progress.file));
          } else if (progress.status === 'failed') {
            start.disabled = false;
            status.textContent = `Export failed: ${progress.error ?? 'no reason given'}`;
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
async function downloadLink(fileId: string): Promise<Node> {
  const file = await client.files.readOne(fileId, { fields: ['filename_download', 'filesize'] });
  const name = file?.filename_download ?? `export-${fileId}`;
  const bytes = (
    await client.transport.get<never, ArrayBuffer>(`/assets/${encodeURIComponent(fileId)}`, {
      responseType: 'arraybuffer',
    })
  ).raw;
  const url = URL.createObjectURL(new Blob([bytes]));
  onLeave(() => URL.revokeObjectURL(url));
  const link = h('a', { class: 'button', href: url, download: name }, `Download ${name}`);
  return h('p', {}, link);
}

function importForm(collection: HTMLSelectElement): HTMLElement {
  const file = field('File (CSV or JSON)', 'file', {
    type: 'file',
    accept: '.csv,.json,text/csv,application/json',
    required: true,
  });
  const status = statusLine();
  const bar = progressBar('Upload progress');
  bar.element.hidden = true;
  const submit = h('button', { type: 'submit' }, 'Import');
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'import-title' },
    h('h2', { id: 'import-title' }, 'Import'),
    h('div', { class: 'field' }, h('label', { for: collection.id }, 'Collection'), collection),
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
    status.textContent = 'Uploading…';
    client.transport
      .post(`/utils/import/${encodeURIComponent(collection.value)}`, body, {
        onUploadProgress: (p) => bar.set(p.loaded, p.total),
      })
      .then(
        () => {
          status.classList.remove('error');
          status.textContent = `Imported ${chosen.name} into ${collection.value}.`;
        },
        (error: unknown) => {
          status.textContent = `Import failed: ${errorText(error)}`;
          status.classList.add('error');
        },
      )
      .finally(() => (submit.disabled = false));
  });
  return form;
}
