import type { Request } from 'express';
import { InvalidPayloadError } from '../errors.js';

// Reasons in Joi's wording, as the convention's clients know them.
// No spaces and no control characters (NUL included, which only PostgreSQL would refuse).
const EMAIL_PATTERN = /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u;

/** The JSON body as an object (an absent body is empty); anything else is INVALID_PAYLOAD. */
export function readBody(req: Request): Record<string, unknown> {
  const body: unknown = req.body;
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidPayloadError('"value" must be of type object');
  }
  return body as Record<string, unknown>;
}

export function readEmail(body: Record<string, unknown>): string {
  const email = body['email'];
  if (email === undefined) throw new InvalidPayloadError('"email" is required');
  if (typeof email !== 'string' || !EMAIL_PATTERN.test(email)) {
    throw new InvalidPayloadError('"email" must be a valid email');
  }
  return email;
}

export function readRequiredString(body: Record<string, unknown>, key: string): string {
  if (body[key] === undefined) throw new InvalidPayloadError(`"${key}" is required`);
  const value = readOptionalString(body, key);
  if (value === undefined || value === '') throw new InvalidPayloadError(`"${key}" is not allowed to be empty`);
  return value;
}

export function readOptionalString(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new InvalidPayloadError(`"${key}" must be a string`);
  return value;
}
