import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Knex } from 'knex';
import type { Accountability } from '../access/accountability.js';
import {
  currentIdempotencyKey,
  findIdempotencyRecord,
  idempotencyCaller,
  parseIdempotencyKey,
  purgeIdempotencyKeys,
  replayOf,
  requestFingerprint,
  storeIdempotentAnswer,
  withIdempotencyKey,
  type IdempotencyClaim,
} from '../commands/idempotency.js';
import type { Logger } from '../logger/index.js';

/** The methods whose requests may carry an `Idempotency-Key` (the writes). */
const KEYED_METHODS: ReadonlySet<string> = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

/** Answers larger than this are not kept (a retry then gets IDEMPOTENCY_CONFLICT, not a second write). */
const MAX_STORED_ANSWER = 4 * 1024 * 1024;

/** A stored answer given again. */
export interface Replay {
  readonly status: number;
  readonly contentType: string | null;
  readonly body: string | null;
}

/**
 * request-door.ts: a write carrying `Idempotency-Key` is handled with its key in its async
 * context (commands/idempotency.ts: runWrite records it with the request's first write), and
 * its answer is kept for retries before it ends, if that write committed and the answer is not a
 * 5xx (a retry of a write whose answer failed gets IDEMPOTENCY_CONFLICT, never a second
 * write). A malformed key is INVALID_PAYLOAD (`refuse`). Other requests: `route` as is.
 */
export function withIdempotency(
  deps: { readonly db: Knex; readonly logger: Logger },
  req: IncomingMessage,
  res: ServerResponse,
  route: () => void,
  refuse: (error: unknown) => void,
): void {
  const header = req.headers['idempotency-key'];
  if (header === undefined || !KEYED_METHODS.has(req.method ?? '')) {
    route();
    return;
  }
  let key: string | undefined;
  try {
    key = parseIdempotencyKey(header);
  } catch (error) {
    refuse(error);
    return;
  }
  if (key === undefined) {
    route();
    return;
  }
  const claim: IdempotencyClaim = { key, state: 'open' };
  // Stored before the answer ends: a client that has the answer finds it on retry.
  captureAnswer(res, (answer) => {
    if (claim.state === 'open') claim.state = 'closed';
    if (claim.state !== 'recorded' || res.statusCode >= 500 || answer.body === undefined) return undefined;
    const now = Date.now();
    const stored = storeIdempotentAnswer(deps.db, claim, { ...answer, body: answer.body, status: res.statusCode });
    return stored
      .then(() => {
        purgeIdempotencyKeys(deps.db, now).catch((error: unknown) => {
          deps.logger.warn({ err: error }, 'expired Idempotency-Keys were not purged');
        });
      })
      .catch((error: unknown) => {
        deps.logger.warn({ err: error }, 'the answer of a write with an Idempotency-Key was not stored');
      });
  });
  withIdempotencyKey(claim, route);
}

/**
 * Once the caller is known and the body read (the Express app's middleware, the direct item
 * path): the key checked against the caller's earlier request with it, if any. Undefined (no
 * key: at once, without a promise) or a promise of undefined: go on (the key is recorded with
 * the write); a promise of a replay: answer it instead; rejected with UNPROCESSABLE_ENTITY (the
 * key came with another request) or IDEMPOTENCY_CONFLICT.
 */
export function checkIdempotencyKey(
  db: Knex,
  req: IncomingMessage & { readonly originalUrl?: string; readonly body?: unknown },
  accountability: Accountability,
): Promise<Replay | undefined> | undefined {
  const claim = currentIdempotencyKey();
  if (claim === undefined || claim.checked !== undefined) return undefined;
  const caller = idempotencyCaller(accountability);
  const fingerprint = requestFingerprint(req.method ?? '', req.originalUrl ?? req.url ?? '', req.body);
  return findIdempotencyRecord(db, claim.key, caller, Date.now()).then((record) => {
    if (record !== undefined) return replayOf(record, fingerprint);
    claim.checked = { caller, fingerprint };
    return undefined;
  });
}

/** The Express app's step after accountability and the JSON body: {@link checkIdempotencyKey}. */
export function idempotencyStep(db: Knex): RequestHandler {
  return (req, res, next) => {
    const pending = checkIdempotencyKey(db, req, req.accountability);
    if (pending === undefined) {
      next();
      return;
    }
    pending.then((replay) => {
      if (replay === undefined) next();
      else sendReplay(res, replay);
    }, next);
  };
}

/** A stored answer sent again, marked as such (`Idempotent-Replayed`). */
export function sendReplay(res: ServerResponse, replay: Replay): void {
  const headers: OutgoingHttpHeaders = { 'Idempotent-Replayed': 'true' };
  if (replay.contentType !== null) headers['Content-Type'] = replay.contentType;
  const body = replay.body === null || replay.body === '' ? undefined : Buffer.from(replay.body, 'utf8');
  if (body !== undefined) headers['Content-Length'] = String(body.length);
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) res.setHeader(name, value);
  res.writeHead(replay.status);
  res.end(body);
}

/**
 * Calls `beforeEnd` with the bytes and content type of the answer when it ends (node:http
 * keeps no copy of writeHead's headers), and ends it once the promise `beforeEnd` may return
 * settles. Bodies above MAX_STORED_ANSWER: `body` undefined.
 */
function captureAnswer(
  res: ServerResponse,
  beforeEnd: (answer: { body: string | undefined; contentType: string | null }) => Promise<void> | undefined,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let headType: string | null = null;
  const keep = (chunk: unknown, encoding: unknown): void => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function' || size > MAX_STORED_ANSWER) return;
    const bytes = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
    size += bytes.length;
    chunks.push(bytes);
  };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    keep(chunk, rest[0]);
    return write(chunk, ...rest);
  }) as ServerResponse['write'];
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    keep(chunk, rest[0]);
    const set = res.getHeader('content-type');
    const pending = beforeEnd({
      body: size > MAX_STORED_ANSWER ? undefined : Buffer.concat(chunks).toString('utf8'),
      contentType: set === undefined ? headType : String(set),
    });
    const finish = () => end(chunk, ...rest);
    if (pending === undefined) return finish();
    void pending.finally(finish);
    return res;
  }) as ServerResponse['end'];
  res.writeHead = (...args: unknown[]) => {
    const headers = args.find((a, i) => i > 0 && typeof a === 'object' && a !== null);
    for (const [name, value] of Object.entries(headers ?? {}))
      if (name.toLowerCase() === 'content-type') headType = String(value);
    return writeHead(...args);
  };
}
