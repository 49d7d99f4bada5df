/**
 * The new collection form: name, folder or table, primary key (name and type), singleton, folder
 * it sits in, icon, note, display template, versioning, and the optional system fields (status
 * with its archive values, sort, who and when created and updated). Submitting shows the plan.
 */
import { useState, type ReactElement } from 'react';
import { Box, Stack } from '@mui/material';
import {
  BooleanInput,
  CheckboxGroupInput,
  Form,
  FormDataConsumer,
  SaveButton,
  SelectInput,
  TextInput,
  regex,
  required,
} from 'react-admin';
import { PlanDialog } from './plan-dialog.js';
import { PRIMARY_KEY_TYPES, SYSTEM_FIELDS, planCollection, type CollectionDraft, type Plan } from './plan.js';

const NAME = /^[a-z_][a-z0-9_]*$/;

const DEFAULTS: CollectionDraft = {
  collection: '',
  isFolder: false,
  primaryKey: 'id',
  primaryKeyType: 'integer',
  singleton: false,
  group: '',
  icon: '',
  note: '',
  displayTemplate: '',
  versioning: false,
  systemFields: ['status', 'sort', 'user_created', 'date_created', 'user_updated', 'date_updated'],
};

export function CollectionForm(props: {
  readonly folders: readonly string[];
  readonly onCreated: (collection: string) => void;
}): ReactElement {
  const [plan, setPlan] = useState<Plan | null>(null);
  const [name, setName] = useState('');
  const submit = (values: Record<string, unknown>) => {
    const draft = { ...DEFAULTS, ...values } as CollectionDraft;
    const clean = {
      ...draft,
      group: draft.group ?? '',
      icon: draft.icon ?? '',
      note: draft.note ?? '',
      displayTemplate: draft.displayTemplate ?? '',
    };
    setName(clean.collection);
    setPlan(planCollection(clean));
  };
  const name_rule = regex(NAME, 'svc.datamodel.name_rule');
  return (
    <>
      <Form defaultValues={DEFAULTS} onSubmit={submit}>
        <Stack sx={{ maxWidth: 640 }}>
          <TextInput
            source="collection"
            label="svc.datamodel.collection_name"
            validate={[required(), name_rule]}
            helperText="svc.datamodel.name_rule"
          />
          <BooleanInput source="isFolder" label="svc.datamodel.is_folder" helperText="svc.datamodel.is_folder_help" />
          <FormDataConsumer<CollectionDraft>>
            {({ formData }) =>
              formData.isFolder ? null : (
                <>
                  <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap' }}>
                    <TextInput
                      source="primaryKey"
                      label="svc.datamodel.primary_key"
                      validate={[required(), name_rule]}
                      sx={{ flex: '1 1 200px' }}
                    />
                    <SelectInput
                      source="primaryKeyType"
                      label="svc.datamodel.primary_key_type"
                      choices={PRIMARY_KEY_TYPES.map((t) => ({ id: t, name: `svc.datamodel.pk.${t}` }))}
                      validate={required()}
                      sx={{ flex: '1 1 200px' }}
                    />
                  </Box>
                  <BooleanInput source="singleton" label="svc.datamodel.singleton" />
                  <BooleanInput source="versioning" label="svc.datamodel.versioning" />
                  <CheckboxGroupInput
                    source="systemFields"
                    label="svc.datamodel.system_fields"
                    choices={SYSTEM_FIELDS.map((f) => ({ id: f, name: `svc.datamodel.system.${f}` }))}
                    row={false}
                  />
                  <TextInput
                    source="displayTemplate"
                    label="svc.datamodel.display_template"
                    helperText="svc.datamodel.display_template_help"
                  />
                </>
              )
            }
          </FormDataConsumer>
          <SelectInput
            source="group"
            label="svc.datamodel.group"
            choices={props.folders.map((f) => ({ id: f, name: f }))}
            emptyText="svc.datamodel.no_group"
          />
          <TextInput source="icon" label="svc.datamodel.icon" helperText="svc.datamodel.icon_help" />
          <TextInput source="note" label="svc.datamodel.note" multiline />
          <Box>
            <SaveButton label="svc.datamodel.review" alwaysEnable />
          </Box>
        </Stack>
      </Form>
      <PlanDialog
        plan={plan}
        onClose={() => setPlan(null)}
        onDone={() => {
          setPlan(null);
          props.onCreated(name);
        }}
      />
    </>
  );
}
