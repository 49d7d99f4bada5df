/**
 * The item page's history, drafts and live side (issue "The Studio, part 1"): what ItemEdit
 * (content.tsx) takes from here. `useItemStudio` gives the Edit its props (the open version's
 * meta for reads and saves, the conflict check on save, the notification after it), a key that
 * renews the form after a revert, the sidebar (`aside`: history and the time control, comments,
 * versions, who else has the item open, changes made elsewhere) and a watcher of the form's
 * state. `LiveRefresh` keeps a collection's list current; `HistoryRedirect` serves the old
 * /content/<c>/<id>/history address.
 */
import { useCallback, useEffect, useRef, useState, type ReactElement } from 'react';
import { Alert, Box, Card, CardContent, Tab, Tabs } from '@mui/material';
import { useQueryClient } from '@tanstack/react-query';
import { useFormState } from 'react-hook-form';
import { useNotify, useRecordContext, useRefresh, useTranslate } from 'react-admin';
import { useParams, useSearchParams } from 'react-router-dom';
import type { ID } from '../../../client/index.js';
import { client } from '../../session.js';
import type { CollectionInfo } from '../catalogue.js';
import { visibleFields } from '../fields.js';
import { CommentsPanel } from './comments-panel.js';
import { ConflictDialog, type Conflict, type ConflictChoice } from './conflict-dialog.js';
import { HistoryPanel } from './history-panel.js';
import { touches, useLiveChanges } from './live.js';
import { useSystemAccess } from './access.js';
import { Presence } from './presence.js';
import { useVersions, VERSION_STATUS, VersionsPanel } from './versions-panel.js';

type Panel = 'history' | 'comments' | 'versions';

/** Fields the service sets on every write: their change alone is no conflict. */
const STAMPS = new Set(['date-updated', 'user-updated', 'date-created', 'user-created']);

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Sits inside the form: tells the sidebar whether the editor has unsaved changes. */
function FormWatch({ dirty }: { dirty: { current: boolean } }) {
  const { isDirty } = useFormState();
  dirty.current = isDirty;
  return null;
}

interface AsideProps {
  readonly collection: CollectionInfo;
  readonly version: string | undefined;
  readonly onSwitch: (key: string | undefined) => void;
  readonly onWritten: () => void;
  readonly conflict: Conflict | null;
  readonly isDirty: () => boolean;
  readonly isSaving: () => boolean;
}

function ItemAside({ collection, version, onSwitch, onWritten, conflict, isDirty, isSaving }: AsideProps) {
  const translate = useTranslate();
  const record = useRecordContext();
  const refresh = useRefresh();
  const [params, setParams] = useSearchParams();
  const [elsewhere, setElsewhere] = useState<'changed' | 'deleted' | null>(null);
  const may = useSystemAccess();
  const panels: Panel[] = [
    ...(may('svc_revisions', 'read') ? (['history'] as const) : []),
    ...(may('svc_comments', 'read') ? (['comments'] as const) : []),
    ...(collection.versioning && may('svc_versions', 'read') ? (['versions'] as const) : []),
  ];
  const requested = params.get('panel');
  const panel = panels.find((p) => p === requested) ?? panels[0];
  const id = record?.id as ID | undefined;
  const pk = collection.primaryKey;

  useLiveChanges(collection.name, pk, (message) => {
    if (id === undefined || !touches(message, pk, id)) return;
    if (message.event === 'delete') {
      if (!isSaving()) setElsewhere('deleted');
    } else if (isDirty() && !isSaving()) setElsewhere('changed');
    else {
      setElsewhere(null);
      refresh();
    }
  });
  useEffect(() => setElsewhere(null), [record]);

  if (id === undefined) return null;
  const props = { collection, id, onWritten };
  return (
    <Box
      component="aside"
      aria-label={translate('svc.item.sidebar')}
      sx={{ width: { xs: '100%', md: 380 }, flexShrink: 0, ml: { md: 2 }, mt: { xs: 2, md: 0 } }}
    >
      <Card>
        <CardContent sx={{ px: 1.5 }}>
          <Presence collection={collection.name} item={String(id)} />
          {elsewhere !== null && (
            <Alert severity="warning" sx={{ mb: 1 }} role="status">
              {translate(elsewhere === 'deleted' ? 'svc.item.deleted_elsewhere' : 'svc.item.changed_elsewhere')}
            </Alert>
          )}
          {version !== undefined && (
            <Alert severity="info" sx={{ mb: 1 }}>
              {translate('svc.item.draft_open', { name: version })}
            </Alert>
          )}
          {panel !== undefined && (
            <>
              <Tabs
                value={panel}
                onChange={(_, value: Panel) => {
                  const next = new URLSearchParams(params);
                  next.set('panel', value);
                  setParams(next, { replace: true });
                }}
                variant="fullWidth"
                aria-label={translate('svc.item.sidebar')}
              >
                {panels.map((value) => (
                  <Tab
                    key={value}
                    value={value}
                    label={translate(`svc.item.${value}`)}
                    id={`studio-tab-${value}`}
                    aria-controls="studio-panel"
                  />
                ))}
              </Tabs>
              <Box role="tabpanel" id="studio-panel" aria-labelledby={`studio-tab-${panel}`} sx={{ pt: 1.5 }}>
                {panel === 'history' && <HistoryPanel {...props} />}
                {panel === 'comments' && <CommentsPanel {...props} />}
                {panel === 'versions' && <VersionsPanel {...props} version={version} onSwitch={onSwitch} />}
              </Box>
            </>
          )}
        </CardContent>
      </Card>
      <ConflictDialog conflict={conflict} />
    </Box>
  );
}

export interface ItemStudio {
  /** Props for react-admin's <Edit>. */
  readonly editProps: {
    readonly aside: ReactElement | undefined;
    readonly sx: Record<string, unknown>;
    readonly queryOptions: { meta?: Record<string, unknown> };
    readonly mutationOptions: { meta?: Record<string, unknown>; onSuccess: () => void };
    readonly transform: (
      data: Record<string, unknown>,
      options?: { previousData?: Record<string, unknown> },
    ) => Promise<Record<string, unknown>>;
  };
  /** The form's key: a new one after a revert, a restore or a promote renews the form. */
  readonly formKey: string;
  /** A child of the form (renders nothing). */
  readonly watcher: ReactElement;
}

/** Called by ItemEdit before it knows its collection (hooks come first): `undefined` then. */
export function useItemStudio(collection: CollectionInfo | undefined): ItemStudio {
  const { id = '' } = useParams<{ id: string }>();
  const [params, setParams] = useSearchParams();
  const notify = useNotify();
  const refresh = useRefresh();
  const queryClient = useQueryClient();
  const [generation, setGeneration] = useState(0);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const dirty = useRef(false);
  const savingUntil = useRef(0);
  const tookTheirs = useRef(false);
  const version = params.get('version') ?? undefined;
  const name = collection?.name ?? '';
  const may = useSystemAccess();
  const { data: versions } = useVersions(
    name,
    id,
    collection?.versioning === true && version !== undefined && may('svc_versions', 'read'),
  );
  const versionId = versions?.find((v) => v.key === version)?.id;
  const meta = version === undefined ? undefined : { version, ...(versionId === undefined ? {} : { versionId }) };

  const onWritten = useCallback(() => {
    refresh();
    setGeneration((g) => g + 1);
  }, [refresh]);
  const onSwitch = useCallback(
    (key: string | undefined) => {
      const next = new URLSearchParams(params);
      if (key === undefined) next.delete('version');
      else next.set('version', key);
      setParams(next, { state: { focus: VERSION_STATUS } });
      setGeneration((g) => g + 1);
    },
    [params, setParams],
  );

  const transform = async (data: Record<string, unknown>, options?: { previousData?: Record<string, unknown> }) => {
    // While saving, a change of this item is most likely the save itself: no warning.
    savingUntil.current = Date.now() + 10_000;
    const base = options?.previousData;
    if (version !== undefined || base === undefined || collection === undefined) return data;
    const theirs = ((await client.items(name).readOne(id)) ?? {}) as Record<string, unknown>;
    const fields = visibleFields(collection)
      .filter((f) => !f.isPrimaryKey && !f.special.some((s) => STAMPS.has(s)) && f.name in theirs)
      .map((f) => f.name)
      .filter((name) => !same(theirs[name], base[name]));
    if (fields.length === 0) return data;
    const choice = await new Promise<ConflictChoice>((resolve) => {
      setConflict({ fields, mine: data, base, theirs, resolve });
    });
    setConflict(null);
    savingUntil.current = Date.now() + 10_000;
    if (choice.kind === 'mine') return data;
    if (choice.kind === 'theirs') {
      // Nothing written (the form's values as it was opened), then the form shows theirs.
      tookTheirs.current = true;
      return base;
    }
    const merged = { ...data };
    for (const [field, side] of Object.entries(choice.pick)) if (side === 'theirs') merged[field] = theirs[field];
    return merged;
  };

  const onSuccess = () => {
    savingUntil.current = 0;
    void queryClient.invalidateQueries({ queryKey: ['studio.item.history'] });
    if (tookTheirs.current) {
      tookTheirs.current = false;
      notify('svc.item.took_theirs', { type: 'info' });
      onWritten();
      return;
    }
    notify(version === undefined ? 'ra.notification.updated' : 'svc.item.saved_to_draft', {
      type: 'info',
      messageArgs: { smart_count: 1, name: version ?? '' },
    });
  };

  const aside = collection && (
    <ItemAside
      collection={collection}
      version={version}
      onSwitch={onSwitch}
      onWritten={onWritten}
      conflict={conflict}
      isDirty={() => dirty.current}
      isSaving={() => Date.now() < savingUntil.current}
    />
  );
  return {
    editProps: {
      aside,
      // The sidebar goes under the form on a narrow screen.
      sx: { '& .RaEdit-main': { flexWrap: { xs: 'wrap', md: 'nowrap' } } },
      queryOptions: meta === undefined ? {} : { meta },
      mutationOptions: { ...(meta === undefined ? {} : { meta }), onSuccess },
      transform,
    },
    formKey: `${version ?? 'main'}-${generation}`,
    watcher: <FormWatch dirty={dirty} />,
  };
}

/** Keeps a collection's list current: each change elsewhere reads the page again. */
export function LiveRefresh({ collection }: { collection: CollectionInfo }) {
  const refresh = useRefresh();
  useLiveChanges(collection.name, collection.primaryKey, () => refresh());
  return null;
}
