/**
 * What the relational inputs share: the form-input signature they get from fields.tsx (passed
 * in, so this folder never imports it back), the related form's fields, and file addresses.
 */
import { useEffect, useState, type ReactElement } from 'react';
import { client } from '../../session.js';
import { mayWrite, type CollectionInfo, type FieldInfo } from '../catalogue.js';

export interface InputContext {
  readonly isCreate: boolean;
  readonly writable: (field: string) => boolean;
}

/** fields.tsx's `inputOf`: the input of one field of a form. */
export type InputOf = (f: FieldInfo, context: InputContext) => ReactElement | null;

export const FILES = 'svc_files';

/** A related collection's form in a dialog: its visible stored fields, without `without`. */
export function dialogInputs(
  collection: CollectionInfo,
  isCreate: boolean,
  inputOf: InputOf,
  without?: string,
): ReactElement[] {
  const action = isCreate ? 'create' : 'update';
  const writable = (field: string) => mayWrite(collection, action, field);
  return collection.fields
    .filter((f) => !f.hidden && f.type !== 'alias' && f.name !== without)
    .map((f) => inputOf(f, { isCreate, writable }))
    .filter((input): input is ReactElement => input !== null);
}

/** A file's contents with the session's token (an <img> sends no Authorization header). */
export function useAssetUrl(id: unknown, params: Readonly<Record<string, unknown>> = {}): string | undefined {
  const [url, setUrl] = useState<string>();
  const wanted = JSON.stringify(params);
  useEffect(() => {
    let isCurrent = true;
    if (id === null || id === undefined || id === '') {
      setUrl(undefined);
      return;
    }
    void client.auth.token.then((token) => {
      if (!isCurrent) return;
      const query = {
        ...(JSON.parse(wanted) as Record<string, unknown>),
        ...(token === null ? {} : { access_token: token }),
      };
      setUrl(client.assets.url(String(id), query));
    });
    return () => {
      isCurrent = false;
    };
  }, [id, wanted]);
  return url;
}

/** A thumbnail's transform: a square cover crop (`/assets/<id>?width=…&height=…&fit=cover`). */
export const thumbnail = (size: number) => ({ width: size, height: size, fit: 'cover' });

/** A file's name for people: its title, else its download name, else its key. */
export function fileName(file: Readonly<Record<string, unknown>> | undefined): string {
  if (file === undefined) return '';
  const name = file['title'] ?? file['filename_download'] ?? file['id'];
  return typeof name === 'string' || typeof name === 'number' ? String(name) : '';
}

export const isImage = (file: Readonly<Record<string, unknown>> | undefined): boolean =>
  typeof file?.['type'] === 'string' && file['type'].startsWith('image/');
