/**
 * A related item's form in a dialog (full screen on a phone): creating a new related item or
 * editing one, inside the parent's form. Its own react-admin <Form>, rendered in a portal: its
 * submit stops there, never reaching the parent's form.
 */
import type { FormEvent } from 'react';
import { Dialog, DialogActions, DialogContent, DialogTitle, useMediaQuery, type Theme } from '@mui/material';
import { Form, SaveButton, useTranslate } from 'react-admin';
import type { CollectionInfo } from '../catalogue.js';
import { dialogInputs, type InputOf } from './shared.js';
import { TextButton } from './text-button.js';

export interface ItemDialogProps {
  readonly collection: CollectionInfo;
  /** The item as it stands (edit), or initial values (create). */
  readonly record: Readonly<Record<string, unknown>>;
  readonly isCreate: boolean;
  readonly title: string;
  readonly inputOf: InputOf;
  /** A field the dialog does not show (the one pointing back at the parent). */
  readonly without?: string;
  /** The changed values (edit) or the new item's values (create). */
  readonly onSave: (values: Record<string, unknown>) => void | Promise<void>;
  readonly onClose: () => void;
}

/** What the form changed, without react-admin's `id` unless it is the key, without empty values on create. */
function changesOf(
  values: Record<string, unknown>,
  record: Readonly<Record<string, unknown>>,
  collection: CollectionInfo,
  isCreate: boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    if (key === 'id' && collection.primaryKey !== 'id') continue;
    if (isCreate ? value === undefined || value === '' : JSON.stringify(record[key]) === JSON.stringify(value))
      continue;
    out[key] = value;
  }
  return out;
}

export function ItemDialog(props: ItemDialogProps) {
  const { collection, record, isCreate, title, inputOf, without, onSave, onClose } = props;
  const translate = useTranslate();
  const isSmall = useMediaQuery<Theme>((theme) => theme.breakpoints.down('sm'));
  const titleId = `svc-item-dialog-${collection.name}`;
  return (
    <Dialog open onClose={onClose} fullScreen={isSmall} fullWidth maxWidth="sm" aria-labelledby={titleId}>
      <div onSubmit={(event: FormEvent) => event.stopPropagation()}>
        <Form
          record={record}
          onSubmit={(values: Record<string, unknown>) => onSave(changesOf(values, record, collection, isCreate))}
          resource={`content/${collection.name}`}
        >
          <DialogTitle id={titleId}>{title}</DialogTitle>
          <DialogContent>{dialogInputs(collection, isCreate, inputOf, without)}</DialogContent>
          <DialogActions>
            <TextButton label={translate('ra.action.cancel')} onClick={onClose} />
            <SaveButton label={translate('svc.relations.done')} alwaysEnable={isCreate} />
          </DialogActions>
        </Form>
      </div>
    </Dialog>
  );
}
