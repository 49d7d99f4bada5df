/** A few DOM helpers: build elements, show errors where they belong. No framework. */
import type { Translate } from './navigation.js';

type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | null | undefined | EventListener>;

/** `h('button', {type: 'submit', onclick: go}, 'Save')`: attributes, `on*` listeners, children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

/** A labelled input: the label names it for screen readers; `error` is filled by showFieldErrors. */
export function field(
  label: string,
  name: string,
  attributes: Attributes = {},
): { row: HTMLDivElement; input: HTMLInputElement } {
  const id = `f-${name}-${Math.random().toString(36).slice(2, 8)}`;
  const input = h('input', { id, name, 'aria-describedby': `${id}-error`, ...attributes });
  const row = h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    input,
    h('p', { class: 'field-error', id: `${id}-error`, 'data-field': name, role: 'alert' }),
  );
  return { row, input };
}

/** A status line for a form: `role=status` so screen readers announce it. */
export function statusLine(): HTMLParagraphElement {
  return h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
}

/** The messages of a TransportError (the spec's `{errors:[{message, extensions}]}`), or the error's own. */
export function errorEntries(error: unknown): { message: string; code?: string; field?: string }[] {
  const errors = (error as { errors?: unknown }).errors;
  if (Array.isArray(errors) && errors.length > 0) {
    return errors.map((entry: { message?: unknown; extensions?: { code?: unknown; field?: unknown } }) => ({
      message: typeof entry.message === 'string' ? entry.message : 'Request failed',
      ...(typeof entry.extensions?.code === 'string' ? { code: entry.extensions.code } : {}),
      ...(typeof entry.extensions?.field === 'string' ? { field: entry.extensions.field } : {}),
    }));
  }
  return [{ message: error instanceof Error ? error.message : String(error) }];
}

export function errorText(error: unknown): string {
  return errorEntries(error)
    .map((e) => e.message)
    .join('; ');
}

/**
 * Puts each error naming a field (FAILED_VALIDATION's `extensions.field`) under that field of
 * `form`, marks the input invalid; the rest goes to `status`. Returns whether any went to a field.
 */
export function showErrors(form: HTMLElement, status: HTMLElement, error: unknown): void {
  clearErrors(form);
  const rest: string[] = [];
  for (const entry of errorEntries(error)) {
    const slot =
      entry.field === undefined
        ? null
        : form.querySelector<HTMLElement>(`.field-error[data-field="${CSS.escape(entry.field)}"]`);
    if (slot === null) {
      rest.push(entry.message);
      continue;
    }
    slot.textContent = entry.message;
    slot.previousElementSibling?.setAttribute('aria-invalid', 'true');
  }
  status.textContent = rest.join('; ');
  status.classList.toggle('error', rest.length > 0);
}

function clearErrors(form: HTMLElement): void {
  for (const slot of form.querySelectorAll<HTMLElement>('.field-error')) slot.textContent = '';
  for (const input of form.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
}

/**
 * A translated sentence with a link in it: `sentence(mark)` is the message with `%{link}` given
 * `mark`; the link goes where the mark is, so a translation may put it anywhere.
 */
export function withLink(sentence: (mark: string) => string, link: Node): [string, Node, string] {
  const mark = '\u0000';
  const [before = '', after = ''] = sentence(mark).split(mark);
  return [before, link, after];
}

/** A progress bar with its label; `set(done, total)` (total null: indeterminate). */
export function progressBar(
  label: string,
  t: Translate,
): {
  element: HTMLDivElement;
  set: (done: number, total: number | null) => void;
} {
  const id = `p-${Math.random().toString(36).slice(2, 8)}`;
  const bar = h('progress', { id, max: 100 });
  const text = h('span', { class: 'progress-text' });
  const element = h('div', { class: 'progress' }, h('label', { for: id }, label), bar, text);
  return {
    element,
    set(done, total) {
      if (total === null) {
        bar.removeAttribute('value');
        text.textContent = t('svc.transfer.rows', { smart_count: done });
        return;
      }
      const percent = total === 0 ? 100 : Math.min(100, Math.round((done / total) * 100));
      bar.value = percent;
      bar.setAttribute('aria-valuetext', `${percent} %`);
      text.textContent = t('svc.transfer.percent', { percent, done, total });
    },
  };
}
