/**
 * An item's form body: its fields' inputs laid out by `meta.width` (`half` fields two per row on
 * a wide screen, one per row on a phone; the others a full row), each with its `meta.note`, its
 * required mark, and its `meta.conditions` evaluated on the form's values as they change.
 */
import type { ReactElement } from 'react';
import { Box } from '@mui/material';
import { FormDataConsumer } from 'react-admin';
import { mayWrite, type CollectionInfo, type FieldInfo } from '../catalogue.js';
import { inputOf, visibleFields } from '../fields.js';
import { applyConditions } from './conditions.js';

interface SlotProps {
  readonly field: FieldInfo;
  readonly isCreate: boolean;
  readonly writable: (field: string) => boolean;
}

const isHalf = (f: FieldInfo) => f.width === 'half' || f.width === 'half-left' || f.width === 'half-right';

function Slot({ field, children }: { field: FieldInfo; children: ReactElement }) {
  return (
    <Box
      data-field={field.name}
      sx={{ gridColumn: isHalf(field) ? { xs: '1 / -1', md: 'auto' } : '1 / -1', minWidth: 0 }}
    >
      {children}
    </Box>
  );
}

function PlainField({ field, isCreate, writable }: SlotProps) {
  const input = inputOf(field, { isCreate, writable });
  return input === null ? null : <Slot field={field}>{input}</Slot>;
}

function ConditionalField({ field, isCreate, writable }: SlotProps) {
  return (
    <FormDataConsumer>
      {({ formData }) => {
        const state = applyConditions(field, formData as Record<string, unknown>);
        if (state.hidden) return null;
        const input = inputOf(field, { isCreate, writable, state });
        // A new key when the conditions change the input's rules: react-hook-form registers them anew.
        const key = `${String(state.required)}-${String(state.readonly)}-${JSON.stringify(state.options)}`;
        return input === null ? null : (
          <Slot field={field}>
            <Box key={key}>{input}</Box>
          </Slot>
        );
      }}
    </FormDataConsumer>
  );
}

export function FormFields({ collection, isCreate }: { collection: CollectionInfo; isCreate: boolean }) {
  const action = isCreate ? 'create' : 'update';
  const writable = (field: string) => mayWrite(collection, action, field);
  return (
    <Box
      sx={{
        display: 'grid',
        gridTemplateColumns: { xs: 'minmax(0, 1fr)', md: 'repeat(2, minmax(0, 1fr))' },
        columnGap: 3,
        width: '100%',
      }}
    >
      {visibleFields(collection).map((f) =>
        f.conditions.length > 0 ? (
          <ConditionalField key={f.name} field={f} isCreate={isCreate} writable={writable} />
        ) : (
          <PlainField key={f.name} field={f} isCreate={isCreate} writable={writable} />
        ),
      )}
    </Box>
  );
}
