/**
 * A workaround for react-admin 5 on MUI 7: the Datagrid's row checkboxes get their
 * `aria-label` ("Select this row") on MUI's wrapper span instead of the input, which leaves the
 * input unnamed and the span with an attribute its role does not allow (axe: `label`,
 * `aria-prohibited-attr`). This moves the label to the input as rows appear.
 */
const SELECTOR = 'span.select-item[aria-label]';

function fix(root: ParentNode): void {
  for (const wrapper of root.querySelectorAll<HTMLElement>(SELECTOR)) {
    const input = wrapper.querySelector('input');
    const label = wrapper.getAttribute('aria-label');
    if (input === null || label === null) continue;
    input.setAttribute('aria-label', label);
    wrapper.removeAttribute('aria-label');
  }
}

export function startA11yFixes(): void {
  const observer = new MutationObserver(() => fix(document));
  observer.observe(document.body, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ['aria-label'],
  });
}
