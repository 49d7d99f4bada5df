import argon2 from 'argon2';
import { HASH_DEFAULTS, type HashConfig } from '../config/hashing.js';

let hashConfig: HashConfig = HASH_DEFAULTS;

/**
 * Sets the argon2 costs of new hashes (HASH_*) for this process: its entry point calls it with
 * the configuration it loaded (the server, the worker, the command line).
 */
export function useHashConfig(config: HashConfig): void {
  hashConfig = config;
}

/** argon2 hash of a password (or of any string for /utils/hash), with the HASH_* costs. */
export function hashPassword(password: string): Promise<string> {
  const { associatedData, ...costs } = hashConfig;
  return argon2.hash(password, {
    ...costs,
    ...(associatedData === undefined ? {} : { associatedData: Buffer.from(associatedData) }),
  });
}

/** False for a wrong password and for anything that is not an argon2 hash. */
export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}
