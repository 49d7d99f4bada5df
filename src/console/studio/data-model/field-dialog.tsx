/**
 * A field's form, in a dialog: new (a column of any type the API creates, or a relation: many-to-
 * one, a file or an image (to svc_files: the item form's file picker), one-to-many, many-to-many,
 * many-to-any, translations) or existing (its meta, default and type). Validation is a filter (the shared FilterBuilder), conditions a list of rules
 * (ConditionsEditor), each with a JSON switch. Submitting shows the
 * plan (PlanDialog); a type change of a field holding values asks to confirm its loss.
 */
import { useEffect, useRef, useState, type ReactElement } from 'react';
import { useFormContext } from 'react-hook-form';
import { Box, Dialog, DialogContent, DialogTitle, Typography } from '@mui/material';
import {
  ArrayInput,
  BooleanInput,
  Button,
  Form,
  FormDataConsumer,
  SaveButton,
  SelectArrayInput,
  SelectInput,
  SimpleFormIterator,
  TextInput,
  regex,
  required,
  usePermissions,
  useTranslate,
} from 'react-admin';
import type { FieldType, Filter } from '../../../client/index.js';
import { collectionOf, type Catalogue } from '../catalogue.js';
import { FilterBuilder } from '../filter-builder.js';
import { ConditionsEditor } from './conditions-editor.js';
import { PlanDialog } from './plan-dialog.js';
import {
  COLUMN_TYPES,
  DISPLAYS,
  INTERFACES,
  RELATION_KINDS,
  WIDTHS,
  countValues,
  planFieldUpdate,
  planNewField,
  type FieldDraft,
  type Plan,
  type SchemaView,
} from './plan.js';

const NAME = /^[a-z_][a-z0-9_]*$/;

/** The interfaces whose options are a list of choices (Directus's): only they show the choices editor. */
const CHOICE_INTERFACES = new Set([
  'select-dropdown',
  'select-radio',
  'select-multiple-checkbox',
  'select-multiple-dropdown',
]);

/**
 * The interface select of the kind picked: when the kind changes to one that does not offer the
 * interface chosen, its first is chosen (an image shows `file-image`, not an empty select). The
 * interface a field was opened with stays, even one this list does not name.
 */
function InterfaceInput(props: { readonly kind: string }): ReactElement {
  const { getValues, setValue } = useFormContext<Values>();
  const offered = INTERFACES[props.kind] ?? [];
  const opened = useRef(props.kind);
  useEffect(() => {
    if (props.kind === opened.current) return;
    opened.current = props.kind;
    if (!offered.includes(getValues('interface'))) setValue('interface', offered[0] ?? '', { shouldDirty: true });
  }, [props.kind, offered, getValues, setValue]);
  return (
    <SelectInput
      source="interface"
      label="svc.datamodel.interface"
      choices={offered.map((i) => ({ id: i, name: i }))}
      emptyText="svc.datamodel.none"
    />
  );
}

/** What the form edits; validation and conditions have editors of their own. */
type Values = Omit<FieldDraft, 'validation' | 'conditions'>;

function draftOf(field: FieldType | undefined): Values {
  const meta = field?.meta ?? {};
  const options = (meta['options'] ?? {}) as { choices?: { text?: unknown; value?: unknown }[] };
  const special = Array.isArray(meta['special']) ? (meta['special'] as string[]) : [];
  const relationKind = RELATION_KINDS.find((k) => special.includes(k));
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const def = field?.schema?.default_value;
  return {
    field: field?.field ?? '',
    kind: relationKind ?? field?.type ?? 'string',
    interface: text(meta['interface']),
    display: text(meta['display']),
    choices: (options.choices ?? []).map((c) => ({ text: String(c.text ?? c.value), value: String(c.value) })),
    defaultValue: def === null || def === undefined ? '' : String(def),
    required: meta['required'] === true,
    readonly: meta['readonly'] === true,
    hidden: meta['hidden'] === true,
    width: text(meta['width']) || 'full',
    note: text(meta['note']),
    related: '',
    allowed: [],
    relatedField: '',
  };
}

export function FieldDialog(props: {
  readonly collection: string;
  /** The field edited; undefined for a new one. */
  readonly field: FieldType | undefined;
  readonly open: boolean;
  readonly view: SchemaView;
  /** meta.sort of a new field. */
  readonly nextSort: number;
  readonly onClose: () => void;
  readonly onDone: () => void;
}): ReactElement {
  const { collection, field, view } = props;
  const translate = useTranslate();
  const { permissions } = usePermissions<Catalogue | null>();
  const info = permissions === null || permissions === undefined ? undefined : collectionOf(permissions, collection);
  const [validation, setValidation] = useState<Filter | null>(
    () => (field?.meta?.['validation'] ?? null) as Filter | null,
  );
  const [conditions, setConditions] = useState<Record<string, unknown>[] | null>(() =>
    Array.isArray(field?.meta?.['conditions']) ? (field.meta['conditions'] as Record<string, unknown>[]) : null,
  );
  const [areConditionsValid, setAreConditionsValid] = useState(true);
  const [plan, setPlan] = useState<Plan | null>(null);
  const isNew = field === undefined;
  const others = [...view.keys.keys()].filter((c) => c !== collection);

  const submit = async (values: Record<string, unknown>) => {
    // Invalid JSON is not applied: the editor says so, nothing is submitted.
    if (!areConditionsValid) return;
    const v = values as Values;
    const draft: FieldDraft = {
      ...v,
      field: isNew ? v.field : field.field,
      // No interface picked: the type's first (the item form reads it).
      interface: v.interface || (INTERFACES[v.kind]?.[0] ?? ''),
      display: v.display ?? '',
      defaultValue: v.defaultValue ?? '',
      note: v.note ?? '',
      related: v.related ?? '',
      relatedField: v.relatedField ?? '',
      allowed: v.allowed ?? [],
      choices: (v.choices ?? []).filter((c) => c.value !== undefined && c.value !== ''),
      validation: validation as Record<string, unknown> | null,
      conditions,
    };
    if (isNew) {
      setPlan(planNewField(collection, { ...draft, sort: props.nextSort }, view));
      return;
    }
    const typeChanged = field.type !== 'alias' && draft.kind !== field.type;
    const count = typeChanged ? await countValues(collection, field.field) : 0;
    const loss =
      count > 0
        ? {
            message: 'svc.datamodel.loss_type',
            params: { field: `${collection}.${field.field}`, smart_count: count, type: draft.kind },
          }
        : undefined;
    setPlan(planFieldUpdate(collection, field, draft, loss));
  };

  const kinds = [
    ...COLUMN_TYPES.map((t) => ({ id: t, name: `svc.datamodel.type.${t}` })),
    ...RELATION_KINDS.map((k) => ({ id: k, name: `svc.datamodel.relation.${k}` })),
  ];
  const title = isNew
    ? translate('svc.datamodel.new_field', { collection })
    : translate('svc.datamodel.edit_field', { field: `${collection}.${field.field}` });
  return (
    <>
      <Dialog
        open={props.open && plan === null}
        onClose={props.onClose}
        fullWidth
        maxWidth="md"
        aria-labelledby="field-title"
      >
        <DialogTitle id="field-title">{title}</DialogTitle>
        <DialogContent>
          <Form defaultValues={draftOf(field)} onSubmit={(values: Record<string, unknown>) => void submit(values)}>
            <TextInput
              source="field"
              label="svc.datamodel.field_name"
              validate={[required(), regex(NAME, 'svc.datamodel.name_rule')]}
              disabled={!isNew}
            />
            <SelectInput
              source="kind"
              label="svc.datamodel.field_type"
              choices={
                isNew || field.type !== 'alias'
                  ? kinds.filter((k) => isNew || !RELATION_KINDS.includes(k.id as never))
                  : kinds
              }
              validate={required()}
              disabled={!isNew && field.type === 'alias'}
            />
            <FormDataConsumer<Values>>
              {({ formData }) => (
                <>
                  {isNew && (formData.kind === 'm2o' || formData.kind === 'o2m' || formData.kind === 'm2m') && (
                    <TextInput
                      source="related"
                      label="svc.datamodel.related"
                      helperText={translate('svc.datamodel.related_help', { existing: others.join(', ') })}
                      validate={[required(), regex(NAME, 'svc.datamodel.name_rule')]}
                    />
                  )}
                  {isNew && formData.kind === 'translations' && (
                    <TextInput
                      source="related"
                      label="svc.datamodel.languages"
                      helperText="svc.datamodel.languages_help"
                    />
                  )}
                  {isNew && formData.kind === 'o2m' && (
                    <TextInput
                      source="relatedField"
                      label="svc.datamodel.related_field"
                      validate={[required(), regex(NAME, 'svc.datamodel.name_rule')]}
                    />
                  )}
                  {isNew && formData.kind === 'm2a' && (
                    <SelectArrayInput
                      source="allowed"
                      label="svc.datamodel.allowed"
                      choices={others.map((c) => ({ id: c, name: c }))}
                      validate={required()}
                    />
                  )}
                  <InterfaceInput kind={formData.kind} />
                  <SelectInput
                    source="display"
                    label="svc.datamodel.display"
                    choices={DISPLAYS.map((d) => ({ id: d, name: d }))}
                    emptyText="svc.datamodel.none"
                  />
                  {CHOICE_INTERFACES.has(formData.interface) && (
                    <ArrayInput source="choices" label="svc.datamodel.choices">
                      <SimpleFormIterator inline disableReordering>
                        <TextInput source="text" label="svc.datamodel.choice_text" helperText={false} />
                        <TextInput source="value" label="svc.datamodel.choice_value" helperText={false} />
                      </SimpleFormIterator>
                    </ArrayInput>
                  )}
                </>
              )}
            </FormDataConsumer>
            <TextInput source="defaultValue" label="svc.datamodel.default" />
            <Box sx={{ display: 'flex', flexWrap: 'wrap', columnGap: 2 }}>
              <BooleanInput source="required" label="svc.datamodel.required" />
              <BooleanInput source="readonly" label="svc.datamodel.readonly" />
              <BooleanInput source="hidden" label="svc.datamodel.hidden" />
            </Box>
            <SelectInput
              source="width"
              label="svc.datamodel.width"
              choices={WIDTHS.map((w) => ({ id: w, name: `svc.datamodel.widths.${w}` }))}
            />
            <TextInput source="note" label="svc.datamodel.note" />
            <Typography variant="subtitle2" component="h3" sx={{ mt: 1 }}>
              {translate('svc.datamodel.validation')}
            </Typography>
            {info !== undefined && permissions !== null && permissions !== undefined ? (
              <FilterBuilder
                collection={info}
                catalogue={permissions}
                value={validation}
                onChange={setValidation}
                validation
                label={translate('svc.datamodel.validation')}
              />
            ) : null}
            <Typography variant="subtitle2" component="h3" sx={{ mt: 1 }}>
              {translate('svc.datamodel.conditions')}
            </Typography>
            <ConditionsEditor
              collection={info}
              catalogue={permissions ?? undefined}
              value={conditions}
              onChange={setConditions}
              onValidity={setAreConditionsValid}
            />
            <Box sx={{ display: 'flex', gap: 1, mt: 2 }}>
              <SaveButton label="svc.datamodel.review" alwaysEnable />
              <Button label="ra.action.cancel" onClick={props.onClose} />
            </Box>
          </Form>
        </DialogContent>
      </Dialog>
      <PlanDialog
        plan={plan}
        onClose={() => setPlan(null)}
        onDone={() => {
          setPlan(null);
          props.onDone();
        }}
      />
    </>
  );
}
