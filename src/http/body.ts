import express, { type RequestHandler } from 'express';
import { UnsupportedMediaTypeError } from '../errors.js';

/** Content types a route may take besides JSON; each route that parses them says so. */
const OTHER_ACCEPTED_TYPES = ['multipart/form-data', 'application/graphql'];

/**
 * JSON request bodies up to MAX_PAYLOAD_SIZE. Malformed JSON and oversize bodies surface as
 * body-parser errors the error handler maps to INVALID_PAYLOAD; a non-empty body of any
 * other type is refused with 415 (reference/routes.md, [DEVIATION]).
 */
export function jsonBody(maxPayloadSize: number): RequestHandler[] {
  const parseJson = jsonParser(maxPayloadSize);
  const refuseOthers: RequestHandler = (req, _res, next) => {
    if (!hasBody(req.headers) || req.is(['json', '+json', ...OTHER_ACCEPTED_TYPES])) return next();
    const type = req.headers['content-type'] ?? '';
    next(new UnsupportedMediaTypeError(type.split(';')[0]?.trim() || 'none', 'Content-Type header'));
  };
  return [refuseOthers, parseJson];
}

/** The JSON parser alone (body-parser: it also reads plain node:http requests, fast-path.ts). */
export function jsonParser(maxPayloadSize: number): RequestHandler {
  return express.json({ limit: maxPayloadSize, type: ['application/json', 'application/*+json'] });
}

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}
