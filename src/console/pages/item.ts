/** One item: its scalar fields as a form, saved with PATCH (validation errors at the field). */
import { clearErrors, field as labelledField, h, showErrors, statusLine } from '../dom.js';
import type { Page } from '../navigation.js';
import { display, inputTypeOf, readFields } from '../schema.js';
import { client } from '../session.js';

export const itemPage: Page = async (params) => {
  const collection = params['collection'] ?? '';
  const id = params['id'] ?? '';
  const fields = await readFields(collection);
  const item = ((await client.items(collection).readOne(id)) ?? {}) as Record<string, unknown>;
  const base = `/admin/content/${encodeURIComponent(collection)}`;
  const inputs = new Map<string, { input: HTMLInputElement | HTMLTextAreaElement; type: string }>();
  const rows: Node[] = [];
  for (const f of fields.all) {
    if (!(f.field in item)) continue;
    const type = inputTypeOf(f, fields.primaryKey);
    if (type === undefined) {
      rows.push(
        h('div', { class: 'field' }, h('span', { class: 'label' }, f.field), h('output', {}, display(item[f.field]))),
      );
      continue;
    }
    const value = item[f.field];
    if (type === 'textarea') {
      const { row, input } = labelledField(f.field, f.field);
      const area = h('textarea', {
        id: input.id,
        name: f.field,
        rows: 4,
        'aria-describedby': input.getAttribute('aria-describedby'),
      });
      area.value = value === null || value === undefined ? '' : String(value);
      input.replaceWith(area);
      inputs.set(f.field, { input: area, type });
      rows.push(row);
      continue;
    }
    const { row, input } = labelledField(f.field, f.field, { type });
    if (type === 'checkbox') input.checked = value === true || value === 1;
    else input.value = toInputValue(value, type);
    if (f.type === 'float' || f.type === 'decimal') input.step = 'any';
    inputs.set(f.field, { input, type });
    rows.push(row);
  }
  const status = statusLine();
  const form = h(
    'form',
    { class: 'card item-form' },
    rows,
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Save')),
    status,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearErrors(form);
    const changes: Record<string, unknown> = {};
    for (const [name, { input, type }] of inputs) {
      const next = fromInputValue(input, type);
      if (JSON.stringify(next) !== JSON.stringify(normalise(item[name], type))) changes[name] = next;
    }
    if (Object.keys(changes).length === 0) {
      status.textContent = 'Nothing changed.';
      return;
    }
    status.textContent = 'Saving…';
    client
      .items(collection)
      .updateOne(id, changes)
      .then(
        (saved) => {
          Object.assign(item, changes, saved ?? {});
          status.classList.remove('error');
          status.textContent = 'Saved.';
        },
        (error: unknown) => showErrors(form, status, error),
      );
  });
  return h(
    'section',
    {},
    h('p', { class: 'crumbs' }, h('a', { href: base }, collection), ' / ', id),
    h('h1', {}, `${collection} ${id}`),
    h('p', {}, h('a', { href: `${base}/${encodeURIComponent(id)}/history` }, 'History')),
    form,
  );
};

function toInputValue(value: unknown, type: string): string {
  if (value === null || value === undefined) return '';
  if (type === 'datetime-local') return String(value).replace(/Z$/, '').slice(0, 19);
  return String(value);
}

function normalise(value: unknown, type: string): unknown {
  if (type === 'checkbox') return value === true || value === 1;
  if (value === null || value === undefined) return null;
  if (type === 'number') return Number(value);
  return toInputValue(value, type);
}

function fromInputValue(input: HTMLInputElement | HTMLTextAreaElement, type: string): unknown {
  if (type === 'checkbox') return (input as HTMLInputElement).checked;
  if (input.value === '') return null;
  if (type === 'number') return Number(input.value);
  return input.value;
}
