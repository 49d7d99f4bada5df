/**
 * Relational fields (catalogue `relation`): many-to-one pickers with inline create, file fields,
 * and the one-to-many, many-to-many, many-to-any and files lists inside the item form; their
 * columns in the list. fields.tsx dispatches every relational field here.
 */
import { lazy, Suspense, type ReactElement } from 'react';
import { FunctionField, ReferenceField, useGetManyAggregate, useTranslate } from 'react-admin';
import type { FieldInfo } from '../catalogue.js';
import { CONTENT } from '../providers.js';
import { FILES, type InputContext, type InputOf } from './shared.js';

// The inputs load with the first form that has one: the list pages do not need them.
const FileFieldInput = lazy(() => import('./file-input.js').then((m) => ({ default: m.FileFieldInput })));
const FileThumbnail = lazy(() => import('./file-input.js').then((m) => ({ default: m.FileThumbnail })));
const ManyToOneInput = lazy(() => import('./many-to-one.js').then((m) => ({ default: m.ManyToOneInput })));
const RelatedList = lazy(() => import('./related-list.js').then((m) => ({ default: m.RelatedList })));

/** Whether the field is an alias this module edits (o2m, m2m, m2a, files): the form shows it. */
export const isRelationalList = (f: FieldInfo): boolean =>
  f.relation !== undefined && f.relation.kind !== 'm2o' && f.relation.kind !== 'file';

/** The input of a relational field, or null when the form does not show it. */
export function relationalInput(f: FieldInfo, context: InputContext, inputOf: InputOf): ReactElement | null {
  const relation = f.relation;
  if (relation === undefined || (context.isCreate && f.isGenerated)) return null;
  const disabled = f.readonly || f.isGenerated || !context.writable(f.name);
  return (
    <Suspense key={f.name} fallback={null}>
      {lazyInput(f, relation, disabled, inputOf)}
    </Suspense>
  );
}

function lazyInput(f: FieldInfo, relation: NonNullable<FieldInfo['relation']>, disabled: boolean, inputOf: InputOf) {
  switch (relation.kind) {
    case 'm2o':
      return (
        <ManyToOneInput key={f.name} field={f} related={relation.collection} disabled={disabled} inputOf={inputOf} />
      );
    case 'file':
      return <FileFieldInput key={f.name} field={f} disabled={disabled} />;
    default:
      return <RelatedList key={f.name} field={f} relation={relation} disabled={disabled} inputOf={inputOf} />;
  }
}

function FileCell({ id }: { id: unknown }) {
  const isSet = id !== null && id !== undefined && id !== '';
  const { data } = useGetManyAggregate(`${CONTENT}${FILES}`, { ids: isSet ? [String(id)] : [] }, { enabled: isSet });
  return data?.[0] === undefined ? null : (
    <Suspense fallback={null}>
      <FileThumbnail file={data[0]} size={40} />
    </Suspense>
  );
}

function CountCell({ value }: { value: unknown }) {
  const translate = useTranslate();
  return <>{Array.isArray(value) ? translate('svc.relations.count', { smart_count: value.length }) : ''}</>;
}

/** The list column of a relational field: the related item by its display template, a file's thumbnail, a count. */
export function relationalColumn(f: FieldInfo): ReactElement {
  const common = { source: f.name, label: f.name, key: f.name };
  switch (f.relation?.kind) {
    case 'm2o':
      return <ReferenceField {...common} reference={`${CONTENT}${f.relation.collection}`} link="edit" />;
    case 'file':
      return (
        <FunctionField
          {...common}
          sortable={false}
          render={(record: Record<string, unknown>) => <FileCell id={record[f.name]} />}
        />
      );
    default:
      return (
        <FunctionField
          {...common}
          sortable={false}
          render={(record: Record<string, unknown>) => <CountCell value={record[f.name]} />}
        />
      );
  }
}
