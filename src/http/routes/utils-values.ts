import { Router } from 'express';
import { nanoid } from 'nanoid';
import { hashPassword, verifyPassword } from '../../access/passwords.js';
import { InvalidQueryError } from '../../errors.js';
import { readBody, readRequiredString } from '../payload.js';

const RANDOM_LENGTH = { min: 1, max: 500, fallback: 32 };

/**
 * GET /utils/random/string, POST /utils/hash/generate and /utils/hash/verify:
 * open to any caller.
 */
export function utilsValueRoutes(): Router {
  const router = Router();

  router.get('/random/string', (req, res) => {
    res.json({ data: nanoid(readRandomLength(req.query['length'])) });
  });

  router.post('/hash/generate', async (req, res) => {
    res.json({ data: await hashPassword(readRequiredString(readBody(req), 'string')) });
  });

  router.post('/hash/verify', async (req, res) => {
    const body = readBody(req);
    const string = readRequiredString(body, 'string');
    res.json({ data: await verifyPassword(readRequiredString(body, 'hash'), string) });
  });

  return router;
}

// 1..500 symbols of A-Za-z0-9_- (nanoid's alphabet), default 32.
function readRandomLength(value: unknown): number {
  if (value === undefined) return RANDOM_LENGTH.fallback;
  const length = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(length >= RANDOM_LENGTH.min && length <= RANDOM_LENGTH.max)) {
    throw new InvalidQueryError(`"length" must be an integer between ${RANDOM_LENGTH.min} and ${RANDOM_LENGTH.max}`);
  }
  return length;
}
