import express, { type Request, type RequestHandler } from 'express';
import type { DbClient } from '../db-client.js';
import { findUnstorableText } from '../db/storable-text.js';
import { InvalidPayloadError, UnsupportedMediaTypeError } from '../errors.js';
import { MAX_DOCUMENT_DEPTH, nestsDeeperThan, tooDeepMessage } from '../query/index.js';

/** Content types a route may take besides JSON; each route that parses them says so. */
const OTHER_ACCEPTED_TYPES = ['multipart/form-data', 'application/graphql'];

/**
 * JSON request bodies up to MAX_PAYLOAD_SIZE. Malformed JSON and oversize bodies surface as
 * body-parser errors the error handler maps to INVALID_PAYLOAD; a non-empty body of any
 * other type is refused with 415 (a deviation from Directus 10).
 */
export function jsonBody(maxPayloadSize: number, dialect: DbClient): RequestHandler[] {
  const parseJson = jsonParser(maxPayloadSize, dialect);
  const refuseOthers: RequestHandler = (req, _res, next) => {
    if (!hasBody(req.headers) || req.is(['json', '+json', ...OTHER_ACCEPTED_TYPES])) {
      next();
      return;
    }
    const type = req.headers['content-type'] ?? '';
    next(new UnsupportedMediaTypeError(type.split(';')[0]?.trim() || 'none', 'Content-Type header'));
  };
  return [refuseOthers, parseJson];
}

/** `\u` in the raw body: only a JSON escape can write NUL or a lone surrogate into a string. */
const ESCAPE = Buffer.from('\\u');
const HAS_ESCAPES = Symbol('body has \\u escapes');
type MarkedRequest = Request & { [HAS_ESCAPES]?: true };
const TOO_DEEP = tooDeepMessage('The JSON body');

/**
 * The JSON parser alone (body-parser: it also reads plain node:http requests, fast-path.ts).
 * Bodies in Content-Encoding gzip, deflate or br are decoded, MAX_PAYLOAD_SIZE applying to the
 * decoded size; other encodings are 415. Strings the database cannot store (storable-text.ts)
 * are INVALID_PAYLOAD before any route sees them, whatever the route does with them; so is a
 * body nesting deeper than MAX_DOCUMENT_DEPTH, before it is parsed.
 */
export function jsonParser(maxPayloadSize: number, dialect: DbClient): RequestHandler {
  const parse = express.json({
    limit: maxPayloadSize,
    type: ['application/json', 'application/*+json'],
    verify: (req, _res, buf) => {
      // Before JSON.parse, and before the routes walk the result one call per level.
      // (body-parser wraps what verify throws: a plain error, answered as INVALID_PAYLOAD below.)
      if (nestsDeeperThan(buf, MAX_DOCUMENT_DEPTH, 'json')) throw Object.assign(new Error(TOO_DEEP), { status: 400 });
      if (buf.includes(ESCAPE)) (req as MarkedRequest)[HAS_ESCAPES] = true;
    },
  });
  return (req, res, next) => {
    parse(req, res, (error?: unknown) => {
      if (error instanceof Error && error.message === TOO_DEEP) {
        next(new InvalidPayloadError(TOO_DEEP));
        return;
      }
      if (error !== undefined) {
        next(error);
        return;
      }
      if ((req as MarkedRequest)[HAS_ESCAPES] !== true) {
        next();
        return;
      }
      const reason = findUnstorableText(dialect, req.body);
      next(reason === undefined ? undefined : new InvalidPayloadError(reason));
    });
  };
}

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}
