/**
 * react-admin's dataProvider and authProvider over the client library (cookie session, as the
 * console always had). Resources are named `content/<collection>` so the Studio's URLs stay
 * /admin/content/<collection>/<id>; the provider strips the prefix. Records carry `id` (react-
 * admin's key) copied from the collection's primary key.
 */
import { HttpError, useRefresh, type AuthProvider, type DataProvider, type RaRecord } from 'react-admin';
import { TransportError, type Filter, type ID } from '../../client/index.js';
import { errorEntries } from '../dom.js';
import { client, hasSession, rememberSignIn } from '../session.js';
import { collectionOf, mayReadSystem, readCatalogue, type Catalogue } from './catalogue.js';
import { itemsAsOf, joinFilters, type ListMeta } from './list/list-read.js';

export const CONTENT = 'content/';

export const collectionName = (resource: string): string =>
  resource.startsWith(CONTENT) ? resource.slice(CONTENT.length) : resource;

let catalogue: Promise<Catalogue> | undefined;

/** The session's catalogue, read once (forgotten at sign-in and sign-out, and by a schema change). */
export function sessionCatalogue(): Promise<Catalogue> {
  catalogue ??= readCatalogue();
  return catalogue;
}

/** Forgets the catalogue: the next read asks the API. */
function forgetCatalogue(): void {
  catalogue = undefined;
}

/**
 * Forgets the catalogue and refreshes react-admin's queries (its permissions among them): after a
 * schema change, or a change to what the user's catalogue says of them (their TFA).
 */
export function useCatalogueChanged(): () => void {
  const refresh = useRefresh();
  return () => {
    forgetCatalogue();
    refresh();
  };
}

async function primaryKeyOf(collection: string): Promise<string> {
  return collectionOf(await sessionCatalogue(), collection)?.primaryKey ?? 'id';
}

/**
 * The id a singleton's one item has in the Studio, whatever its key: the form reads and saves
 * it without a key (GET and PATCH /items/<collection>), and its first save makes the row.
 */
export const SINGLETON_ID = 'singleton';

async function isSingleton(collection: string): Promise<boolean> {
  return collectionOf(await sessionCatalogue(), collection)?.singleton === true;
}

const withId = (pk: string) => (item: Record<string, unknown>) => ({ ...item, id: item[pk] }) as RaRecord;

/** What is written: without react-admin's `id` unless it is the key, and without untouched fields. */
function writable(
  data: Record<string, unknown>,
  pk: string,
  previous?: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (key === 'id' && pk !== 'id') continue;
    if (previous !== undefined && JSON.stringify(previous[key]) === JSON.stringify(value)) continue;
    out[key] = value;
  }
  return out;
}

/**
 * The API's refusal as react-admin expects it: FAILED_VALIDATION entries naming a field become
 * `body.errors`, which the form shows under that field.
 */
function asHttpError(error: unknown): never {
  if (!(error instanceof TransportError)) throw error;
  const entries = errorEntries(error);
  const fields: Record<string, string> = {};
  for (const entry of entries) if (entry.field !== undefined) fields[entry.field] = entry.message;
  const message = entries.map((e) => e.message).join('; ');
  throw new HttpError(message, error.response?.status ?? 500, { errors: fields });
}

/** A list's filter: `q` is the search, `json` a raw filter (the escape hatch), the rest `_eq`. */
function toQuery(filter: Record<string, unknown>): { search?: string; filter?: Filter } {
  const clauses: Record<string, unknown>[] = [];
  let search: string | undefined;
  for (const [key, value] of Object.entries(filter)) {
    if (value === undefined || value === '' || value === null) continue;
    if (key === 'q') search = String(value);
    else if (key === 'json') clauses.push(JSON.parse(String(value)) as Record<string, unknown>);
    // `field@_op` (e.g. `timestamp@_gte`): one operator on the field (the activity log's range).
    else if (key.includes('@'))
      clauses.push({ [key.slice(0, key.indexOf('@'))]: { [key.slice(key.indexOf('@') + 1)]: value } });
    else if (Array.isArray(value)) clauses.push({ [key]: { _in: value } });
    else clauses.push({ [key]: { _eq: value } });
  }
  return {
    ...(search === undefined ? {} : { search }),
    ...(clauses.length === 0 ? {} : { filter: (clauses.length === 1 ? clauses[0] : { _and: clauses }) as Filter }),
  };
}

export const dataProvider: DataProvider = {
  async getList(resource, params) {
    const collection = collectionName(resource);
    const pk = await primaryKeyOf(collection);
    const { page = 1, perPage = 25 } = params.pagination ?? {};
    const sort =
      params.sort === undefined ? undefined : `${params.sort.order === 'DESC' ? '-' : ''}${params.sort.field}`;
    let query: ReturnType<typeof toQuery>;
    try {
      query = toQuery((params.filter ?? {}) as Record<string, unknown>);
    } catch (error) {
      throw new HttpError(`Filter (JSON): ${(error as Error).message}`, 400, {});
    }
    const extra = (params.meta ?? {}) as ListMeta;
    const fields = extra.fields ?? ['*'];
    const filter = joinFilters(query.filter, extra.filter);
    const selection = { ...query, ...(filter === undefined ? {} : { filter }) };
    if (extra.count === 'only') {
      const counted = await client
        .items(collection)
        .readByQuery({ ...selection, limit: 0, meta: 'filter_count' })
        .catch(asHttpError);
      return { data: [], total: counted.meta?.filter_count ?? 0 };
    }
    // count 'apart': one more row than the page tells whether a next page exists (the count,
    // costly on a large table, comes in its own request).
    const isApart = extra.count === 'apart';
    const answer = await client
      .items(collection)
      .readByQuery({
        ...selection,
        fields,
        ...(isApart
          ? { limit: perPage + 1, offset: (page - 1) * perPage }
          : { limit: perPage, page, meta: 'filter_count' }),
        ...(sort === undefined || sort === 'id' || sort === '-id' ? { sort: sort?.replace('id', pk) ?? pk } : { sort }),
      })
      .catch(asHttpError);
    const items = (answer.data ?? []) as Record<string, unknown>[];
    const pageRows = isApart ? items.slice(0, perPage) : items;
    const rows =
      extra.asOf === undefined
        ? pageRows
        : await itemsAsOf(
            collection,
            pk,
            pageRows,
            extra.asOf,
            fields,
            mayReadSystem(await sessionCatalogue(), 'svc_activity'),
          );
    const data = rows.map(withId(pk));
    if (isApart) return { data, pageInfo: { hasNextPage: items.length > perPage, hasPreviousPage: page > 1 } };
    return { data, total: answer.meta?.filter_count ?? data.length };
  },
  async getOne(resource, params) {
    const collection = collectionName(resource);
    if (await isSingleton(collection)) {
      const item = await client.singleton(collection).read().catch(asHttpError);
      return { data: { ...(item as Record<string, unknown>), id: SINGLETON_ID } as RaRecord };
    }
    const pk = await primaryKeyOf(collection);
    const version = (params.meta as { version?: string } | undefined)?.version;
    const item = await client
      .items(collection)
      .readOne(params.id as ID, version === undefined ? undefined : { version })
      .catch(asHttpError);
    if (item === null || item === undefined) throw new HttpError('Not found', 404, {});
    return { data: withId(pk)(item as Record<string, unknown>) };
  },
  async getMany(resource, params) {
    const collection = collectionName(resource);
    const pk = await primaryKeyOf(collection);
    if (params.ids.length === 0) return { data: [] };
    const answer = await client
      .items(collection)
      .readMany(params.ids as ID[])
      .catch(asHttpError);
    return { data: (answer.data ?? []).map((item) => withId(pk)(item as Record<string, unknown>)) };
  },
  async getManyReference(resource, params) {
    return dataProvider.getList(resource, {
      ...params,
      filter: { ...(params.filter as Record<string, unknown>), [params.target]: params.id },
    });
  },
  async create(resource, params) {
    const collection = collectionName(resource);
    const pk = await primaryKeyOf(collection);
    const created = await client
      .items(collection)
      .createOne(writable(params.data as Record<string, unknown>, pk))
      .catch(asHttpError);
    return { data: withId(pk)((created ?? {}) as Record<string, unknown>) };
  },
  async update(resource, params) {
    const collection = collectionName(resource);
    const pk = await primaryKeyOf(collection);
    const changes = writable(
      params.data as Record<string, unknown>,
      pk,
      params.previousData as Record<string, unknown>,
    );
    delete changes[pk];
    if (await isSingleton(collection)) {
      delete changes['id'];
      const saved = await client.singleton(collection).update(changes).catch(asHttpError);
      return { data: { ...params.previousData, ...(saved as Record<string, unknown>), id: SINGLETON_ID } as RaRecord };
    }
    // A content version open in the form (item/versions-panel.tsx): saves go to the version.
    const versionId = (params.meta as { versionId?: string } | undefined)?.versionId;
    const saved =
      Object.keys(changes).length === 0
        ? params.previousData
        : versionId !== undefined
          ? await client.versions.saveToContentVersion(versionId, changes).catch(asHttpError)
          : await client
              .items(collection)
              .updateOne(params.id as ID, changes)
              .catch(asHttpError);
    return { data: withId(pk)({ ...params.previousData, ...(saved ?? {}) } as Record<string, unknown>) };
  },
  async updateMany(resource, params) {
    const collection = collectionName(resource);
    const pk = await primaryKeyOf(collection);
    await client
      .items(collection)
      .updateMany(params.ids as ID[], writable(params.data as Record<string, unknown>, pk))
      .catch(asHttpError);
    return { data: params.ids };
  },
  async delete(resource, params) {
    await client
      .items(collectionName(resource))
      .deleteOne(params.id as ID)
      .catch(asHttpError);
    return { data: params.previousData ?? ({ id: params.id } as RaRecord) };
  },
  async deleteMany(resource, params) {
    await client
      .items(collectionName(resource))
      .deleteMany(params.ids as ID[])
      .catch(asHttpError);
    return { data: params.ids };
  },
} as DataProvider;

/** Thrown by `login` when the account asks for its TFA code: the page shows the code field. */
export class OtpRequired extends Error {}

export const authProvider: AuthProvider = {
  async login(params: { email: string; password: string; otp?: string }) {
    try {
      await client.auth.login({
        email: params.email,
        password: params.password,
        ...(params.otp === undefined || params.otp === '' ? {} : { otp: params.otp }),
      });
    } catch (error) {
      if (params.otp === undefined && errorEntries(error).some((e) => e.code === 'INVALID_OTP'))
        throw new OtpRequired('otp');
      throw error;
    }
    forgetCatalogue();
    rememberSignIn(true);
  },
  async logout() {
    forgetCatalogue();
    if ((await client.auth.token) !== null) {
      await client.auth.logout().catch(() => undefined);
    }
    client.storage.auth_token = null;
    rememberSignIn(false);
  },
  async checkAuth() {
    if (!(await hasSession())) throw { message: false };
  },
  async checkError(error: { status?: number }) {
    if (error.status === 401) {
      client.storage.auth_token = null;
      rememberSignIn(false);
      throw { message: false };
    }
  },
  async getIdentity() {
    const me = (await sessionCatalogue()).me;
    return me === null ? { id: '' } : { id: me.id, fullName: me.name };
  },
  async getPermissions() {
    if (!(await hasSession())) return null;
    return sessionCatalogue();
  },
};
