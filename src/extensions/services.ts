import type { Accountability } from '../access/accountability.js';
import { InvalidPayloadError } from '../errors.js';
import { isPlainObject } from '../is-plain-object.js';
import { parseQuery, type Query } from '../query/index.js';
import { toDirectusSchema, type DirectusCollection, type DirectusField } from './directus-schema.js';
import type { SchemaOverview } from '../../catalog/overview/types.js';

type Item = Record<string, unknown>;
type PrimaryKey = string | number;

/**
 * The items floor's service as the facades call it (items/items-service.ts: Directus 10's
 * method names, our parsed Query), made per collection and caller.
 */
export interface ItemsBackend {
  readByQuery(query: Query): Promise<Item[]>;
  readOne(key: PrimaryKey, query?: Query): Promise<Item>;
  readMany(keys: readonly PrimaryKey[], query?: Query): Promise<Item[]>;
  readSingleton(query?: Query): Promise<Item>;
  createOne(data: Item): Promise<PrimaryKey>;
  createMany(data: readonly Item[]): Promise<PrimaryKey[]>;
  updateOne(key: PrimaryKey, data: Item): Promise<PrimaryKey>;
  updateMany(keys: readonly PrimaryKey[], data: Item): Promise<PrimaryKey[]>;
  updateBatch(data: readonly Item[]): Promise<PrimaryKey[]>;
  updateByQuery(query: Query, data: Item): Promise<PrimaryKey[]>;
  upsertOne(data: Item): Promise<PrimaryKey>;
  upsertMany(data: readonly Item[]): Promise<PrimaryKey[]>;
  upsertSingleton(data: Item): Promise<PrimaryKey>;
  deleteOne(key: PrimaryKey): Promise<PrimaryKey>;
  deleteMany(keys: readonly PrimaryKey[]): Promise<PrimaryKey[]>;
  deleteByQuery(query: Query): Promise<PrimaryKey[]>;
}

export interface ServicesDeps {
  /** The items service of `collection` for `accountability` (null: the service's own admin work). */
  readonly items: (collection: string, accountability: Accountability | null) => ItemsBackend;
  readonly getOverview: () => Promise<SchemaOverview>;
  /** Sends a mail as the service does (EMAIL_*); undefined when mail is not wired. */
  readonly sendMail?: (message: MailMessage) => Promise<void>;
}

export interface MailMessage {
  readonly to: string | readonly string[];
  readonly subject: string;
  readonly text?: string;
  readonly html?: string;
}

/** What Directus's service constructors take: `{ schema, accountability, knex }`; only accountability counts here. */
interface ServiceOptions {
  readonly accountability?: Partial<Accountability> | null;
  readonly schema?: unknown;
  readonly knex?: unknown;
}

/** `context.services`: constructors as extensions use them (`new services.ItemsService(collection, options)`). */
export type ExtensionServices = Readonly<Record<string, unknown>>;

/** Directus's system collections are ours under `svc_`. */
function collectionName(collection: string): string {
  return collection.startsWith('directus_') ? `svc_${collection.slice('directus_'.length)}` : collection;
}

/**
 * The caller a service acts for: the accountability it was given (the request's, or one an
 * extension built: missing parts are null), or none for the service's own admin work.
 */
function callerOf(options: ServiceOptions | undefined): Accountability | null {
  const given = options?.accountability;
  if (given === undefined || given === null) return null;
  return Object.freeze({
    user: given.user ?? null,
    role: given.role ?? null,
    admin: given.admin === true,
    app: given.app === true,
    ip: given.ip ?? null,
    userAgent: given.userAgent ?? null,
    origin: given.origin ?? null,
  });
}

/** A Directus query object (`{ filter, fields, sort, limit, ... }`) as the read side's Query. */
function queryOf(query: unknown): Query {
  if (query === undefined || query === null) return {};
  if (!isPlainObject(query)) throw new InvalidPayloadError('A query must be an object');
  return parseQuery(query);
}

/** Builds `context.services` over the items service, the schema overview and the mailer. */
export function extensionServices(deps: ServicesDeps): ExtensionServices {
  class ItemsService {
    readonly collection: string;
    readonly accountability: Accountability | null;
    readonly #items: ItemsBackend;

    constructor(collection: string, options?: ServiceOptions) {
      this.collection = collectionName(collection);
      this.accountability = callerOf(options);
      this.#items = deps.items(this.collection, this.accountability);
    }

    readByQuery(query?: unknown): Promise<Item[]> {
      return this.#items.readByQuery(queryOf(query));
    }
    readOne(key: PrimaryKey, query?: unknown): Promise<Item> {
      return this.#items.readOne(key, queryOf(query));
    }
    readMany(keys: readonly PrimaryKey[], query?: unknown): Promise<Item[]> {
      return this.#items.readMany(keys, queryOf(query));
    }
    readSingleton(query?: unknown): Promise<Item> {
      return this.#items.readSingleton(queryOf(query));
    }
    createOne(data: Item): Promise<PrimaryKey> {
      return this.#items.createOne(data);
    }
    createMany(data: readonly Item[]): Promise<PrimaryKey[]> {
      return this.#items.createMany(data);
    }
    updateOne(key: PrimaryKey, data: Item): Promise<PrimaryKey> {
      return this.#items.updateOne(key, data);
    }
    updateMany(keys: readonly PrimaryKey[], data: Item): Promise<PrimaryKey[]> {
      return this.#items.updateMany(keys, data);
    }
    updateBatch(data: readonly Item[]): Promise<PrimaryKey[]> {
      return this.#items.updateBatch(data);
    }
    updateByQuery(query: unknown, data: Item): Promise<PrimaryKey[]> {
      return this.#items.updateByQuery(queryOf(query), data);
    }
    upsertOne(data: Item): Promise<PrimaryKey> {
      return this.#items.upsertOne(data);
    }
    upsertMany(data: readonly Item[]): Promise<PrimaryKey[]> {
      return this.#items.upsertMany(data);
    }
    upsertSingleton(data: Item): Promise<PrimaryKey> {
      return this.#items.upsertSingleton(data);
    }
    deleteOne(key: PrimaryKey): Promise<PrimaryKey> {
      return this.#items.deleteOne(key);
    }
    deleteMany(keys: readonly PrimaryKey[]): Promise<PrimaryKey[]> {
      return this.#items.deleteMany(keys);
    }
    deleteByQuery(query: unknown): Promise<PrimaryKey[]> {
      return this.#items.deleteByQuery(queryOf(query));
    }
  }

  /** A Directus service over one system collection: its items, with the service's own rules. */
  const systemService = (collection: string) =>
    class extends ItemsService {
      constructor(options?: ServiceOptions) {
        super(collection, options);
      }
    };

  /** CollectionsService: the schema's collections, as Directus shapes them (admins' view). */
  class CollectionsService {
    async readByQuery(): Promise<DirectusCollection[]> {
      return Object.values(toDirectusSchema(await deps.getOverview()).collections);
    }
    async readOne(collection: string): Promise<DirectusCollection | undefined> {
      return toDirectusSchema(await deps.getOverview()).collections[collectionName(collection)];
    }
  }

  /** FieldsService: a collection's fields (or every collection's), as Directus shapes them. */
  class FieldsService {
    async readAll(collection?: string): Promise<(DirectusField & { collection: string })[]> {
      const { collections } = toDirectusSchema(await deps.getOverview());
      const wanted = collection === undefined ? Object.values(collections) : [collections[collectionName(collection)]];
      return wanted.flatMap((c) =>
        c === undefined ? [] : Object.values(c.fields).map((f) => ({ ...f, collection: c.collection })),
      );
    }
    async readOne(collection: string, field: string): Promise<(DirectusField & { collection: string }) | undefined> {
      return (await this.readAll(collection)).find((f) => f.field === field);
    }
  }

  /** MailService: `send({ to, subject, text | html })` through the service's transport. */
  class MailService {
    async send(message: MailMessage): Promise<void> {
      if (deps.sendMail === undefined) throw new Error('mail is not configured for extensions');
      await deps.sendMail(message);
    }
  }

  return Object.freeze({
    ItemsService,
    UsersService: systemService('svc_users'),
    RolesService: systemService('svc_roles'),
    FilesService: systemService('svc_files'),
    FoldersService: systemService('svc_folders'),
    ActivityService: systemService('svc_activity'),
    RevisionsService: systemService('svc_revisions'),
    PermissionsService: systemService('svc_permissions'),
    SettingsService: systemService('svc_settings'),
    CollectionsService,
    FieldsService,
    MailService,
  });
}
