/**
 * An existing collection's settings (its meta): folder, icon, note, display template, singleton,
 * versioning, the manual sort field and the archive field with its values. Shows the plan first.
 */
import { useEffect, useState, type ReactElement } from 'react';
import { Box, Dialog, DialogContent, DialogTitle } from '@mui/material';
import { BooleanInput, Button, Form, SaveButton, SelectInput, TextInput, useTranslate } from 'react-admin';
import type { CollectionType } from '../../../client/index.js';
import { client } from '../../session.js';
import { PlanDialog } from './plan-dialog.js';
import { planCollectionUpdate, type Plan } from './plan.js';

const KEYS = [
  'group',
  'icon',
  'note',
  'display_template',
  'singleton',
  'versioning',
  'sort_field',
  'archive_field',
  'archive_value',
  'unarchive_value',
] as const;

export function CollectionSettings(props: {
  readonly collection: string;
  readonly fields: readonly string[];
  readonly folders: readonly string[];
  readonly onClose: () => void;
}): ReactElement {
  const { collection } = props;
  const translate = useTranslate();
  const [current, setCurrent] = useState<CollectionType | undefined>(undefined);
  const [plan, setPlan] = useState<Plan | null>(null);
  useEffect(() => {
    void client.collections.readOne(collection).then(setCurrent, () => undefined);
  }, [collection]);
  const defaults = Object.fromEntries(
    KEYS.map((k) => [k, current?.meta?.[k] ?? (k === 'singleton' || k === 'versioning' ? false : '')]),
  );
  const submit = (values: Record<string, unknown>) => {
    const meta: Record<string, unknown> = {};
    for (const k of KEYS) {
      const value = values[k];
      meta[k] = value === '' || value === undefined ? null : value;
    }
    setPlan(planCollectionUpdate(collection, meta));
  };
  const fieldChoices = props.fields.map((f) => ({ id: f, name: f }));
  return (
    <>
      <Dialog open={plan === null} onClose={props.onClose} fullWidth maxWidth="sm" aria-labelledby="settings-title">
        <DialogTitle id="settings-title">{translate('svc.datamodel.settings_of', { collection })}</DialogTitle>
        <DialogContent>
          {current !== undefined && (
            <Form defaultValues={defaults} onSubmit={submit}>
              <SelectInput
                source="group"
                label="svc.datamodel.group"
                choices={props.folders.filter((f) => f !== collection).map((f) => ({ id: f, name: f }))}
                emptyText="svc.datamodel.no_group"
              />
              <TextInput source="icon" label="svc.datamodel.icon" helperText="svc.datamodel.icon_help" />
              <TextInput source="note" label="svc.datamodel.note" />
              <TextInput
                source="display_template"
                label="svc.datamodel.display_template"
                helperText="svc.datamodel.display_template_help"
              />
              <BooleanInput source="singleton" label="svc.datamodel.singleton" />
              <BooleanInput source="versioning" label="svc.datamodel.versioning" />
              <SelectInput
                source="sort_field"
                label="svc.datamodel.sort_field"
                choices={fieldChoices}
                emptyText="svc.datamodel.none"
              />
              <SelectInput
                source="archive_field"
                label="svc.datamodel.archive_field"
                choices={fieldChoices}
                emptyText="svc.datamodel.none"
              />
              <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap' }}>
                <TextInput source="archive_value" label="svc.datamodel.archive_value" sx={{ flex: '1 1 160px' }} />
                <TextInput source="unarchive_value" label="svc.datamodel.unarchive_value" sx={{ flex: '1 1 160px' }} />
              </Box>
              <Box sx={{ display: 'flex', gap: 1, mt: 2 }}>
                <SaveButton label="svc.datamodel.review" alwaysEnable />
                <Button label="ra.action.cancel" onClick={props.onClose} />
              </Box>
            </Form>
          )}
        </DialogContent>
      </Dialog>
      <PlanDialog
        plan={plan}
        onClose={() => setPlan(null)}
        onDone={() => {
          setPlan(null);
          props.onClose();
        }}
      />
    </>
  );
}
