import type { EnvReader } from './env-reader.js';

/**
 * HASH_*: the argon2 costs of user passwords, `hash` fields and `/utils/hash/generate`, under
 * Directus's names. A hash carries its own costs, so changing them leaves existing hashes valid.
 */
export interface HashConfig {
  /** HASH_MEMORY_COST, in KiB, per lane. */
  readonly memoryCost: number;
  /** HASH_TIME_COST: passes over that memory. */
  readonly timeCost: number;
  /** HASH_PARALLELISM: lanes (threads), each with HASH_MEMORY_COST of memory. */
  readonly parallelism: number;
  /** HASH_LENGTH: bytes of output. */
  readonly hashLength: number;
  /** HASH_TYPE: 0 argon2d, 1 argon2i, 2 argon2id. */
  readonly type: 0 | 1 | 2;
  /** HASH_ASSOCIATED_DATA: a non-secret value bound into every hash. */
  readonly associatedData: string | undefined;
}

/**
 * OWASP's argon2id settings of 19 MiB and two passes on one lane: about 30 ms of one core per
 * login. Directus defaults to 4 MiB and three passes, cheaper and weaker; node-argon2's own
 * defaults (64 MiB on four lanes) cost a login ten times as much CPU as these.
 */
export const HASH_DEFAULTS: HashConfig = {
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
  hashLength: 32,
  type: 2,
  associatedData: undefined,
};

const HASH_TYPES = ['0', '1', '2'] as const;

export function readHashConfig(env: EnvReader): HashConfig {
  const parallelism = env.int('HASH_PARALLELISM', HASH_DEFAULTS.parallelism, { min: 1, max: 2 ** 24 - 1 });
  return {
    // argon2 needs at least 8 KiB per lane.
    memoryCost: env.int('HASH_MEMORY_COST', HASH_DEFAULTS.memoryCost, { min: 8 * parallelism, max: 2 ** 32 - 1 }),
    timeCost: env.int('HASH_TIME_COST', HASH_DEFAULTS.timeCost, { min: 1, max: 2 ** 32 - 1 }),
    parallelism,
    hashLength: env.int('HASH_LENGTH', HASH_DEFAULTS.hashLength, { min: 4, max: 1024 }),
    type: Number(env.oneOf('HASH_TYPE', HASH_TYPES, String(HASH_DEFAULTS.type) as '2')) as HashConfig['type'],
    associatedData: env.string('HASH_ASSOCIATED_DATA'),
  };
}
