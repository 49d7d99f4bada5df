import { pathSegment, requireParam } from './errors.js';
import type { ITransport, RequestOptions, TransportResponse } from './transport.js';
import type { AnyItem, ExportFormat, FieldType, ID, ManyItems, OneItem, QueryMany, QueryOne } from './types.js';

/** The optional last argument of the handler methods: overrides for this request. */
export interface HandlerOptions {
  readonly requestOptions?: RequestOptions;
}

const SYSTEM_PREFIX = 'svc_';

/** `/items/<c>`, or `/<name>` for a system collection `svc_<name>`. */
function endpointOf(collection: string): string {
  return collection.startsWith(SYSTEM_PREFIX) ? `/${collection.slice(SYSTEM_PREFIX.length)}` : `/items/${collection}`;
}

/** Request options for `query` with the caller's overrides on top (they replace `params`). */
export function requestWith(query: object | undefined, options?: HandlerOptions): RequestOptions {
  return { ...(query === undefined ? {} : { params: query as Record<string, unknown> }), ...options?.requestOptions };
}

/** A collection's endpoint and the transport to reach it. */
abstract class CollectionHandler {
  readonly endpoint: string;

  constructor(
    readonly collection: string,
    protected readonly transport: ITransport,
  ) {
    requireParam('collection', collection);
    this.endpoint = endpointOf(collection);
  }
}

/** Items of one collection through the REST item endpoints. */
export class ItemsHandler<T = AnyItem> extends CollectionHandler {
  async readOne(id: ID, query?: QueryOne, options?: HandlerOptions): Promise<OneItem<T>> {
    const response = await this.transport.get<T>(this.itemPath(id), requestWith(query, options));
    return response.data;
  }

  /**
   * Looks up the primary key in /fields, then reads the items whose key is in `ids`; both
   * requests carry the requestOptions (headers, signal), the read alone their `params`.
   */
  async readMany(ids: readonly ID[], query: QueryMany = {}, options?: HandlerOptions): Promise<ManyItems<T>> {
    const { params: _params, ...lookup } = options?.requestOptions ?? {};
    const fields = await this.transport.get<FieldType[]>(
      `/fields/${pathSegment('collection', this.collection)}`,
      lookup,
    );
    const pk = fields.data?.find((field) => field.schema?.is_primary_key === true)?.field;
    if (pk === undefined) throw new Error(`No primary key found for collection "${this.collection}"`);
    return this.readByQuery(
      { ...query, filter: { [pk]: { _in: ids }, ...query.filter }, sort: query.sort ?? pk },
      options,
    );
  }

  /**
   * The items `query` selects; with `export` (`csv`, `json`, `xml`, `yaml`) the file the
   * server answers instead, as its text.
   */
  readByQuery(query: QueryMany & { readonly export: ExportFormat }, options?: HandlerOptions): Promise<string>;
  readByQuery(query?: QueryMany, options?: HandlerOptions): Promise<ManyItems<T>>;
  async readByQuery(query?: QueryMany, options?: HandlerOptions): Promise<ManyItems<T> | string> {
    if (query?.export !== undefined) {
      const request = requestWith(query, options);
      return (await this.transport.get<never, string>(this.endpoint, { ...request, responseType: 'text' })).raw;
    }
    const response = await this.transport.get<T[]>(this.endpoint, requestWith(query, options));
    return { data: response.data ?? null, ...(response.meta === undefined ? {} : { meta: response.meta }) };
  }

  async createOne(item: Partial<T>, query?: QueryOne, options?: HandlerOptions): Promise<OneItem<T>> {
    return (await this.transport.post<T>(this.endpoint, item, requestWith(query, options))).data;
  }

  createMany(
    items: readonly Partial<T>[],
    query?: QueryMany,
    options?: HandlerOptions,
  ): Promise<TransportResponse<T[]>> {
    return this.transport.post<T[]>(this.endpoint, items, requestWith(query, options));
  }

  async updateOne(id: ID, item: Partial<T>, query?: QueryOne, options?: HandlerOptions): Promise<OneItem<T>> {
    return (await this.transport.patch<T>(this.itemPath(id), item, requestWith(query, options))).data;
  }

  updateMany(
    ids: readonly ID[],
    data: Partial<T>,
    query?: QueryMany,
    options?: HandlerOptions,
  ): Promise<TransportResponse<T[]>> {
    return this.transport.patch<T[]>(this.endpoint, { keys: ids, data }, requestWith(query, options));
  }

  /** Each item carries its primary key and its own changes. */
  updateBatch(
    items: readonly Partial<T>[],
    query?: QueryMany,
    options?: HandlerOptions,
  ): Promise<TransportResponse<T[]>> {
    return this.transport.patch<T[]>(this.endpoint, items, requestWith(query, options));
  }

  updateByQuery(
    updateQuery: QueryMany,
    data: Partial<T>,
    query?: QueryMany,
    options?: HandlerOptions,
  ): Promise<TransportResponse<T[]>> {
    return this.transport.patch<T[]>(this.endpoint, { query: updateQuery, data }, requestWith(query, options));
  }

  async deleteOne(id: ID, options?: HandlerOptions): Promise<void> {
    await this.transport.delete(this.itemPath(id), undefined, requestWith(undefined, options));
  }

  async deleteMany(ids: readonly ID[], options?: HandlerOptions): Promise<void> {
    await this.transport.delete(this.endpoint, ids, requestWith(undefined, options));
  }

  protected itemPath(id: ID): string {
    return `${this.endpoint}/${pathSegment('id', id)}`;
  }
}

/** A singleton collection (one item, e.g. settings): read and update without a key. */
export class SingletonHandler<T = AnyItem> extends CollectionHandler {
  async read(query?: QueryOne, options?: HandlerOptions): Promise<OneItem<T>> {
    return (await this.transport.get<T>(this.endpoint, requestWith(query, options))).data;
  }

  async update(data: Partial<T>, query?: QueryOne, options?: HandlerOptions): Promise<OneItem<T>> {
    return (await this.transport.patch<T>(this.endpoint, data, requestWith(query, options))).data;
  }
}
