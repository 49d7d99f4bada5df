/**
 * A list's row that the keyboard reaches and opens: react-admin's rows answer the mouse only (a
 * click on the row opens the item), so a clickable row here takes the focus (Tab), shows it, and
 * opens with Enter as a click would.
 */
import type { KeyboardEvent, ReactElement } from 'react';
import { DatagridRow, type DatagridRowProps } from 'react-admin';

const openOnEnter = (event: KeyboardEvent<HTMLTableRowElement>) => {
  // Enter on the row itself; its checkbox and links keep their own keys.
  if (event.key !== 'Enter' || event.target !== event.currentTarget) return;
  event.preventDefault();
  event.currentTarget.click();
};

export function KeyboardRow(props: DatagridRowProps): ReactElement {
  const isClickable = props.rowClick !== false && props.rowClick !== undefined;
  return (
    <DatagridRow
      {...props}
      {...(isClickable ? { tabIndex: 0, onKeyDown: openOnEnter } : {})}
      sx={{ '&:focus-visible': { outline: '2px solid', outlineColor: 'primary.main', outlineOffset: '-2px' } }}
    />
  );
}
