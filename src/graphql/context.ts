import type { GraphQLSchema } from 'graphql';
import type { SchemaContext } from '../../catalog/ddl/context.js';
import type { CommandContext } from '../commands/types.js';
import type { FileLibrary } from '../files/file-library.js';
import type { ItemsService } from '../items/items-service.js';
import type { ReadContext, Reader } from '../query/index.js';
import { ItemLoaders } from './item-loaders.js';

/** What the system scope's server and utility fields ask of the process (http supplies it). */
export interface SystemServices {
  /** GET /server/info's data for the caller. */
  serverInfo(): Promise<Readonly<Record<string, unknown>>>;
  /** GET /server/specs/oas's document for the caller. */
  specsOas(): Promise<Readonly<Record<string, unknown>>>;
  /** GET /server/health's body for the caller. */
  health(): Promise<Readonly<Record<string, unknown>>>;
  /** /utils/cache/clear: every cache, on every instance. */
  clearCache(): Promise<void>;
  /** Schema changes (collections, fields, relations) and the cache they invalidate. */
  readonly schemaChanges: SchemaContext;
  /** The /auth operations for this request (its cookies included). */
  readonly auth: AuthOperations;
  /** svc_files rows with their contents: deletes remove the content, imports fetch it. */
  readonly files: FileLibrary;
}

/** The token response's `data`. */
export interface TokenData {
  readonly access_token?: string;
  readonly expires: number;
  readonly refresh_token?: string;
}

/**
 * POST /auth/login, /refresh, /logout, /password/request, /password/reset and the invite and
 * registration routes on a body of the same keys: the same checks and errors, cookies set on
 * the HTTP response.
 */
export interface AuthOperations {
  login(body: Readonly<Record<string, unknown>>): Promise<TokenData>;
  refresh(body: Readonly<Record<string, unknown>>): Promise<TokenData>;
  logout(body: Readonly<Record<string, unknown>>): Promise<void>;
  requestPasswordReset(body: Readonly<Record<string, unknown>>): Promise<void>;
  resetPassword(body: Readonly<Record<string, unknown>>): Promise<void>;
  /** POST /users/invite, /users/invite/accept, /users/register, GET /users/register/verify-email. */
  invite(body: Readonly<Record<string, unknown>>): Promise<void>;
  acceptInvite(body: Readonly<Record<string, unknown>>): Promise<void>;
  register(body: Readonly<Record<string, unknown>>): Promise<void>;
  verifyRegistration(body: Readonly<Record<string, unknown>>): Promise<void>;
}

/**
 * What every resolver of one request works with: the read side's context and reader (the
 * caller and what they may read), the request's by-key loaders, the write side's context for
 * mutations, the system services, and the caller's schemas (for `server_specs_graphql`).
 * (A type, not an interface: graphql-http wants an indexable context.)
 */
export type GraphqlContext = {
  readonly read: ReadContext;
  readonly reader: Reader;
  readonly loaders: ItemLoaders;
  readonly commands: CommandContext;
  /** The items service of a collection for this request's caller (src/items): every item read and write. */
  readonly items: (collection: string) => ItemsService;
  readonly system: SystemServices;
  readonly schemas: Readonly<Record<'items' | 'system', GraphQLSchema>>;
};

export interface GraphqlContextParts {
  readonly read: ReadContext;
  readonly reader: Reader;
  readonly commands: CommandContext;
  readonly items: (collection: string) => ItemsService;
  readonly system: SystemServices;
  readonly schemas: Readonly<Record<'items' | 'system', GraphQLSchema>>;
}

export function createGraphqlContext(parts: GraphqlContextParts): GraphqlContext {
  return { ...parts, loaders: new ItemLoaders(parts.read.overview, parts.items) };
}
