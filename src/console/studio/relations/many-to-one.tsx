/**
 * A many-to-one picker: searches the related collection (the API's `search`), shows its items by
 * the collection's display template, and creates a new one inline (a dialog with the related
 * form; saved at once, then selected).
 */
import {
  AutocompleteInput,
  ReferenceInput,
  required,
  useCreate,
  useCreateSuggestionContext,
  useNotify,
  usePermissions,
  useTranslate,
} from 'react-admin';
import { collectionOf, type Catalogue, type CollectionInfo, type FieldInfo } from '../catalogue.js';
import { CONTENT } from '../providers.js';
import { ItemDialog } from './item-dialog.js';
import type { InputOf } from './shared.js';

/** The first text field of `collection`, which the typed search text fills in the new item. */
function textFieldOf(collection: CollectionInfo): string | undefined {
  const fromTemplate = /\{\{\s*(\w+)\s*\}\}/.exec(collection.displayTemplate ?? '')?.[1];
  const named = collection.fields.find((f) => f.name === fromTemplate && (f.type === 'string' || f.type === 'text'));
  return (named ?? collection.fields.find((f) => f.type === 'string' && !f.isPrimaryKey))?.name;
}

function CreateRelated({ collection, inputOf }: { collection: CollectionInfo; inputOf: InputOf }) {
  const { filter, onCancel, onCreate } = useCreateSuggestionContext();
  const translate = useTranslate();
  const notify = useNotify();
  const [create] = useCreate();
  const text = textFieldOf(collection);
  return (
    <ItemDialog
      collection={collection}
      record={text === undefined || filter === undefined || filter === '' ? {} : { [text]: filter }}
      isCreate
      title={translate('svc.relations.create_title', { collection: collection.name })}
      inputOf={inputOf}
      onSave={(values) =>
        create(
          `${CONTENT}${collection.name}`,
          { data: values },
          {
            onSuccess: (created) => onCreate(created),
            onError: (error) => notify(error instanceof Error ? error.message : String(error), { type: 'error' }),
          },
        )
      }
      onClose={onCancel}
    />
  );
}

export function ManyToOneInput({
  field,
  related,
  disabled,
  inputOf,
}: {
  field: FieldInfo;
  related: string;
  disabled: boolean;
  inputOf: InputOf;
}) {
  const { permissions } = usePermissions<Catalogue | null>();
  const collection = collectionOf(permissions ?? undefined, related);
  const canCreate = collection !== undefined && collection.can.create && !disabled;
  return (
    <ReferenceInput source={field.name} reference={`${CONTENT}${related}`}>
      <AutocompleteInput
        label={field.name}
        disabled={disabled}
        {...(field.required && !disabled ? { validate: required() } : {})}
        {...(field.note === undefined ? {} : { helperText: field.note })}
        {...(canCreate ? { create: <CreateRelated collection={collection} inputOf={inputOf} /> } : {})}
      />
    </ReferenceInput>
  );
}
