import type { CommandContext } from '../commands/types.js';
import type { ReadContext, Reader } from '../query/index.js';
import { ItemLoaders } from './item-loaders.js';

/**
 * What every resolver of one request works with: the read side's context and reader (the
 * caller and what they may read), the request's by-key loaders, and the write side's context
 * for mutations. (A type, not an interface: graphql-http wants an indexable context.)
 */
export type GraphqlContext = {
  readonly read: ReadContext;
  readonly reader: Reader;
  readonly loaders: ItemLoaders;
  readonly commands: CommandContext;
};

export function createGraphqlContext(read: ReadContext, reader: Reader, commands: CommandContext): GraphqlContext {
  return { read, reader, commands, loaders: new ItemLoaders(read, reader) };
}
