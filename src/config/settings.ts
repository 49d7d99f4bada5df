/**
 * The one table of the settings `loadConfig` reads: name, default and meaning of each.
 * docs/configuration.md is rendered from it (`configuration-doc.ts`), and
 * test/unit/config/settings-table.test.ts fails when the two differ or when loadConfig reads
 * a variable this table does not list (or the table lists one it never reads).
 * `<NAME>` / `<KEY>` stand for a provider name or a storage location key, upper-cased.
 */
import { s, type SettingsSection } from './setting.js';
import { ACCOUNT_SETTINGS } from './settings-accounts.js';

export const SETTINGS: readonly SettingsSection[] = [
  {
    title: 'Server',
    settings: [
      s(
        'CONFIG_PATH',
        './.env',
        'a file of `NAME=value` lines read at start; the process environment wins over it. Named explicitly, it must exist',
      ),
      s(
        'NODE_ENV',
        '–',
        '`development` lets SECRET and ADMIN_PASSWORD keep an example value (one starting with `change-me`, as in docker-compose.yml); anywhere else such a value stops the start',
      ),
      s('HOST', '0.0.0.0', 'the address the API listens on'),
      s('PORT', '8055', 'the port the API listens on (`0`: any free port)'),
      s(
        'PUBLIC_URL',
        '/',
        'the address the service is reached at from outside: the OpenAPI server, and where mailed links lead by default',
      ),
      s(
        'LOG_LEVEL',
        'info',
        '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`; `debug` also prints the stack of a start-up failure',
      ),
      s(
        'LOG_STYLE',
        'pretty',
        '`pretty`: one readable line per entry, a request as `GET /items/articles 200 4ms id=7`; `raw`: one JSON object per line (a request with its headers, secrets redacted)',
      ),
      s(
        'MAX_PAYLOAD_SIZE',
        '1mb',
        'the largest JSON body, and text part of a multipart body, accepted (a bigger one is 400 INVALID_PAYLOAD, as in Directus)',
      ),
      s(
        'MAX_RELATIONAL_DEPTH',
        '10',
        'how deep `fields`, `filter`, `sort` and `deep` may follow relations (at least 2)',
      ),
      s('QUERY_LIMIT_DEFAULT', '100', 'items per read when the request gives no `limit`'),
      s('QUERY_LIMIT_MAX', 'Infinity', 'the largest `limit` a read may ask for (`-1` means this much)'),
      s('MAX_BATCH_MUTATION', 'Infinity', 'the most items one write may touch, nested ones included'),
      s('ROBOTS_TXT', 'every robot disallowed', 'the body of `GET /robots.txt`'),
      s('ROOT_REDIRECT', './admin', 'where `GET /` redirects (the web console); `false`: 404 ROUTE_NOT_FOUND'),
      s('TEMP_PATH', './data/tmp', 'where exports are assembled before they join the file library'),
      s(
        'EXTENSIONS_PATH',
        './extensions',
        'the folder of extensions loaded at start, as in Directus 10: packages (`package.json` with `directus:extension` of type `hook`, `endpoint`, `operation` or `bundle`), `hooks/<name>/index.js`, `endpoints/<name>/index.js`, `operations/<name>/api.js`, and `directus-extension-*` packages in its `node_modules`; a missing folder loads none (src/extensions/README.md)',
      ),
      s(
        'EXTENSIONS_SANDBOX_MEMORY',
        '100',
        'the memory, in MB, one call of a sandboxed extension (`"sandbox": { "enabled": true }` in its manifest) may use in its isolate (at least 8)',
      ),
      s(
        'EXTENSIONS_SANDBOX_TIMEOUT',
        '1000',
        'how long, in ms (or `1s`), one call of a sandboxed extension may run, its requests included',
      ),
      s('GRAPHQL_INTROSPECTION', 'true', 'whether GraphQL answers introspection queries'),
      s('GRAPHQL_QUERY_TOKEN_LIMIT', '5000', 'the most tokens a GraphQL document may have'),
      s(
        'GRAPHQL_QUERY_COST_LIMIT',
        '250000',
        'the most rows one GraphQL operation may ask for, refused (400 `GRAPHQL_VALIDATION`) before it runs: a list counts its `limit` as asked, whatever the table holds (`QUERY_LIMIT_DEFAULT` without one; `-1`: `QUERY_LIMIT_MAX`, so unlimited and refused while that is unlimited: read everything with REST `limit=-1`, which streams), nested lists multiply per parent row, one nested level counting at most 10000 rows (or `QUERY_LIMIT_MAX` when larger) unless its own `limit` is larger, `_aggregated` counts its groups. `Infinity`: no limit',
      ),
      s(
        'GRAPHQL_QUERY_ALIAS_LIMIT',
        '100',
        'the most aliased fields in one GraphQL operation, counted at every fragment spread; more: 400 `GRAPHQL_VALIDATION`. `Infinity`: no limit',
      ),
      s(
        'REQUEST_TIMEOUT',
        '1h',
        'the longest a request may take to arrive, body included: an import or upload streams its body as it is written, so a large one on a busy service takes minutes; slower: 400 `INVALID_PAYLOAD`. `0`: no limit (headers must still arrive within a minute)',
      ),
      s(
        'SHUTDOWN_TIMEOUT',
        '10s',
        'on SIGTERM, once the listener is closed, how long requests in flight may take before their connections are closed',
      ),
      s(
        'SHUTDOWN_DRAIN_DELAY',
        '0s',
        "on SIGTERM, how long the instance goes on serving while `/server/health` answers 503 `draining` and every answer closes its connection, so a load balancer takes it out before the listener closes (then SHUTDOWN_TIMEOUT). Behind a balancer: longer than its health-check interval times the failed checks it waits for (Kubernetes: the readiness probe's `periodSeconds` × `failureThreshold`). SIGINT (Ctrl-C) skips it",
      ),
    ],
  },
  {
    title: 'Database',
    settings: [
      s(
        'DB_CLIENT',
        'sqlite3',
        '`sqlite3`, `pg` (PostgreSQL) or `mysql` (MariaDB 10.5+: a start on MySQL or an older MariaDB stops and says so)',
      ),
      s('DB_FILENAME', './data/database.sqlite', 'the SQLite file (its folder is created)'),
      s('DB_HOST', '127.0.0.1', 'the database server (pg, mysql)'),
      s('DB_PORT', '5432 / 3306', 'its port (pg / mysql)'),
      s(
        'DB_DATABASE',
        '–',
        'the database to use; required for pg and mysql unless DB_CONNECTION_STRING is set. It must exist (`createdb <name>`)',
      ),
      s('DB_USER', '–', 'the user to log in as'),
      s('DB_PASSWORD', '–', 'its password'),
      s('DB_CONNECTION_STRING', '–', 'a `postgres://` URL instead of the separate settings (pg)'),
      s('DB_SEARCH_PATH', 'public', 'PostgreSQL schemas to look for tables in (comma list)'),
      s(
        'DB_PREPARED_STATEMENTS',
        'true',
        'PostgreSQL: `false` keeps every statement valid on any server connection, for PgBouncer (or another pooler) in transaction pooling: statements run unnamed (each is parsed and planned every time) and no session state is set (no `SET search_path` per connection, so DB_SEARCH_PATH must stay `public`: give the role its search_path instead). The service uses no LISTEN and no session advisory locks either way',
      ),
      s('DB_POOL__MIN', 'driver default', 'connections kept open'),
      s('DB_POOL__MAX', 'driver default', 'connections opened at most'),
      s('DB_EXCLUDE_TABLES', 'spatial_ref_sys,sysdiagrams', 'tables never served (comma list)'),
      s(
        'DB_HEALTHCHECK_THRESHOLD',
        '150',
        'milliseconds; a slower round trip makes `/server/health` say `warn`. Also how long the check waits for a pool connection: past it, it asks the database on a connection of its own (busy pool: `warn`; no answer: `error`)',
      ),
      s(
        'DB_CONNECT_WAIT',
        '60s',
        'how long a start (API, worker) waits for a database that is not reachable yet, retrying every second with one log line; `0`: fail at once',
      ),
      s('DB_SSL', 'false', '`true`: talk TLS to the database (pg, mysql)'),
      s('DB_SSL__REJECT_UNAUTHORIZED', 'true', 'with DB_SSL: refuse a server certificate that does not check out'),
      s(
        'DB_SSL__CA',
        '–',
        "with DB_SSL: the certificate (PEM) of the authority that signed the server's; `DB_SSL__CA_FILE` reads it from a file",
      ),
      s(
        'DB_REPLICA_HOST',
        '–',
        "PostgreSQL streaming replicas (comma list of hosts) for reads that need not see their caller's own latest write, taken in turn. Writes, reads inside a write, schema and permission loads stay on the primary; a replica that cannot be reached is left out for 5 s (its reads go to the primary, logged once)",
      ),
      s('DB_REPLICA_PORT', '5432', 'the port of the replicas: one for all, or a comma list, one per host'),
      s('DB_REPLICA_USER', 'DB_USER', 'the user on the replicas (one, or one per host)'),
      s('DB_REPLICA_PASSWORD', 'DB_PASSWORD', 'its password (one, or a comma list with several hosts)'),
      s('DB_REPLICA_DATABASE', 'DB_DATABASE', 'the database on the replicas (one, or one per host)'),
      s(
        'DB_REPLICA_READ_YOUR_WRITES',
        '5s',
        'after a write, how long the reads of the same caller (user, or address of an anonymous caller) stay on the primary, in this process; `0`: no window',
      ),
    ],
  },
  {
    title: 'Redis',
    settings: [
      s(
        'REDIS',
        '–',
        'a `redis://` URL: shared caches, rate limits and job queues for several instances. Without it all of these stay in the process',
      ),
      s('REDIS_HOST', '–', 'instead of REDIS: the Redis host'),
      s('REDIS_PORT', '6379', 'with REDIS_HOST: its port'),
      s('REDIS_USERNAME', '–', 'with REDIS_HOST: the user'),
      s('REDIS_PASSWORD', '–', 'with REDIS_HOST: the password'),
      s('REDIS_ENABLED', '–', '`false` ignores REDIS, REDIS_HOST and REDIS_SENTINELS'),
      s(
        'REDIS_SENTINELS',
        '–',
        'instead of REDIS: Redis behind Sentinels, a comma list of `host:port` (port 26379 when left out) or, as Directus 10 takes it, `json:[{"host":"…","port":26379}]`. Every client (caches, pub/sub, rate limits, login counters, the job queue) asks them for the primary and follows it after a failover; REDIS_USERNAME and REDIS_PASSWORD are then the primary\'s credentials',
      ),
      s(
        'REDIS_NAME',
        '–',
        "with REDIS_SENTINELS: the primary's name in the Sentinels' configuration (`sentinel monitor <name> …`)",
      ),
      s('REDIS_SENTINEL_NAME', '–', 'the same as REDIS_NAME'),
      s('REDIS_SENTINEL_USERNAME', '–', "with REDIS_SENTINELS: the Sentinels' own user"),
      s(
        'REDIS_SENTINEL_PASSWORD',
        '–',
        "with REDIS_SENTINELS: the Sentinels' own password (`requirepass` in their configuration)",
      ),
      s(
        'REDIS_COMMAND_TIMEOUT',
        '500ms',
        'a Redis command unanswered this long fails, and what needed it degrades (data cache bypassed, schema built per instance, exports 503, rate limits per RATE_LIMITER_REDIS_FALLBACK); each outage is logged once and Redis is used again once it answers',
      ),
    ],
  },
  {
    title: 'Live data (WebSockets)',
    settings: [
      s('WEBSOCKETS_ENABLED', 'false', 'serve live data: GraphQL subscriptions and the WebSocket protocol'),
      s('WEBSOCKETS_REST_ENABLED', 'true', 'the WebSocket protocol (auth, subscribe, items) at `WEBSOCKETS_REST_PATH`'),
      s('WEBSOCKETS_REST_PATH', '/websocket', 'where the WebSocket protocol is served'),
      s(
        'WEBSOCKETS_REST_AUTH',
        'handshake',
        '`public`: a connection without a token acts as the public role; `handshake`: the first message must be `auth` (or a token given when connecting); `strict`: a token when connecting (`access_token` query parameter or `Authorization` header), else 401',
      ),
      s(
        'WEBSOCKETS_REST_AUTH_TIMEOUT',
        '10',
        'seconds (or a duration such as `500ms`) a `handshake` connection may stay unauthenticated before it is closed',
      ),
      s(
        'WEBSOCKETS_REST_CONN_LIMIT',
        'Infinity',
        'connections the WebSocket protocol keeps open at once; more: the upgrade is refused with 403',
      ),
      s(
        'WEBSOCKETS_GRAPHQL_ENABLED',
        'true',
        'GraphQL subscriptions (graphql-ws) at `WEBSOCKETS_GRAPHQL_PATH` and its `/system`',
      ),
      s('WEBSOCKETS_GRAPHQL_PATH', '/graphql', 'where GraphQL subscriptions are served'),
      s(
        'WEBSOCKETS_GRAPHQL_CONN_LIMIT',
        'Infinity',
        'graphql-ws connections (both paths together) open at once; more: the upgrade is refused with 403',
      ),
      s('WEBSOCKETS_HEARTBEAT_ENABLED', 'true', 'ping every connection and close those that do not answer'),
      s('WEBSOCKETS_HEARTBEAT_PERIOD', '30', 'seconds (or a duration) between heartbeat pings'),
      s(
        'WEBSOCKETS_SUBSCRIPTION_LIMIT',
        '100',
        'subscriptions one connection may hold at once, on either protocol; more: an error for that `uid` (graphql-ws: for that subscription), LIMIT_EXCEEDED',
      ),
      s(
        'WEBSOCKETS_SUBSCRIPTION_USER_LIMIT',
        '500',
        'subscriptions one user may hold at once over all its connections to one instance, on either protocol (the public role: per client address); more: LIMIT_EXCEEDED as above',
      ),
      s(
        'WEBSOCKETS_MAX_MESSAGE_SIZE',
        '1mb',
        'the largest frame a client may send; bigger: the connection is closed (1009)',
      ),
      s(
        'WEBSOCKETS_MAX_BUFFERED_SIZE',
        '4mb',
        'bytes waiting for a client that does not read before it is disconnected (1008); other connections are not held up',
      ),
    ],
  },
  {
    title: 'Metrics',
    settings: [
      s(
        'METRICS_ENABLED',
        'false',
        '`true` serves Prometheus metrics at `GET /server/metrics`: requests by route and status, their latencies, database pool, job queue depth, data cache hits',
      ),
      s(
        'METRICS_TOKENS',
        '–',
        'comma-separated tokens a scraper sends as `Authorization: Metrics <token>`; admins may read the metrics without one',
      ),
    ],
  },
  ACCOUNT_SETTINGS,
  {
    title: 'CORS',
    settings: [
      s(
        'CORS_ENABLED',
        'false',
        'answer cross-origin requests: CORS headers on every answer, errors included, and preflight OPTIONS answered 204',
      ),
      s(
        'CORS_ORIGIN',
        'false',
        '`true` mirrors the request origin (any origin); a comma list of allowed origins (a listed request origin is mirrored, others get no `Access-Control-Allow-Origin`; `*` alone: any origin, without cookies); or `regex:<pattern>` matched against the request origin',
      ),
      s('CORS_METHODS', 'GET,POST,PATCH,DELETE', 'allowed methods (`Access-Control-Allow-Methods` of a preflight)'),
      s('CORS_ALLOWED_HEADERS', 'Content-Type,Authorization,Idempotency-Key', 'allowed request headers'),
      s(
        'CORS_EXPOSED_HEADERS',
        'Content-Range,Location,X-Export-Job,Idempotent-Replayed',
        'response headers scripts may read (the defaults let the client library follow an export and see a replayed write)',
      ),
      s('CORS_CREDENTIALS', 'true', 'allow cookies (`Access-Control-Allow-Credentials: true`)'),
      s('CORS_MAX_AGE', '18000', 'seconds browsers may keep a preflight answer'),
    ],
  },
  {
    title: 'Rate limits',
    settings: [
      s(
        'RATE_LIMITER_ENABLED',
        'false',
        'limit requests and WebSocket messages per client address; past the limit: 429 with `Retry-After` (a message: REQUESTS_EXCEEDED for its `uid`)',
      ),
      s('RATE_LIMITER_POINTS', '50', 'requests allowed per address per duration'),
      s('RATE_LIMITER_DURATION', '1', 'the duration, in seconds'),
      s('RATE_LIMITER_STORE', 'memory', '`redis` counts across instances (needs REDIS)'),
      s(
        'RATE_LIMITER_REDIS_FALLBACK',
        'memory',
        'while the Redis store fails: `memory` counts per instance, `open` does not limit, `closed` answers 503 (login counters always fall back to memory)',
      ),
      s('RATE_LIMITER_GLOBAL_ENABLED', 'false', 'limit all requests and WebSocket messages together'),
      s('RATE_LIMITER_GLOBAL_POINTS', '1000', 'requests allowed per duration'),
      s('RATE_LIMITER_GLOBAL_DURATION', '1', 'the duration, in seconds'),
      s(
        'RATE_LIMITER_LOGIN_ENABLED',
        'true',
        'limit failed logins per account and address; each attempt is counted before the password is checked, so concurrent attempts cannot pass the limit',
      ),
      s('RATE_LIMITER_LOGIN_POINTS', '10', 'failed logins allowed per duration'),
      s(
        'RATE_LIMITER_LOGIN_DURATION',
        '900',
        'the duration, in seconds; also how long the last active administrator is held (429) instead of suspended at `auth_login_attempts`',
      ),
      s(
        'RATE_LIMITER_LOGIN_ADDRESS_ENABLED',
        'true',
        'limit failed logins per address whatever the accounts (password spraying), counted before the password is checked; successful logins do not use it up',
      ),
      s('RATE_LIMITER_LOGIN_ADDRESS_POINTS', '50', 'failed logins allowed per address per duration'),
      s('RATE_LIMITER_LOGIN_ADDRESS_DURATION', '900', 'the duration, in seconds'),
      s('RATE_LIMITER_REGISTRATION_ENABLED', 'true', 'limit `POST /users/register` per address'),
      s('RATE_LIMITER_REGISTRATION_POINTS', '5', 'registrations allowed per duration'),
      s('RATE_LIMITER_REGISTRATION_DURATION', '60', 'the duration, in seconds'),
    ],
  },
  {
    title: 'Cache',
    settings: [
      s(
        'CACHE_ENABLED',
        'false',
        'keep answers of GET reads and GraphQL queries, per caller (never of svc_activity or svc_revisions, where job progress is read)',
      ),
      s('CACHE_STORE', 'memory', '`redis` shares the data cache between instances (needs REDIS)'),
      s('CACHE_TTL', '5m', 'how long an answer is kept'),
      s('CACHE_NAMESPACE', 'system-cache', 'key prefix in Redis: one per deployment sharing a Redis'),
      s(
        'CACHE_AUTO_PURGE',
        'false',
        'clear the data cache after every write (schema, role, permission and user changes always clear it)',
      ),
      s(
        'CACHE_AUTO_PURGE_IGNORE_LIST',
        'svc_activity,svc_presets',
        'collections whose writes leave the data cache alone',
      ),
      s(
        'CACHE_CONTROL_S_MAXAGE',
        '0',
        "`s-maxage` of cached answers' Cache-Control: seconds, `true` (the TTL) or `false` (none)",
      ),
      s('CACHE_SKIP_ALLOWED', 'false', "let a request's `Cache-Control: no-store` bypass the cache"),
      s(
        'CACHE_VALUE_MAX_SIZE',
        'false',
        'bigger answers are not kept; streamed `limit=-1` reads are kept only when this is set',
      ),
      s('CACHE_MEMORY_MAX_SIZE', '64mb', 'total size of the memory store (least recently used out first)'),
      s('CACHE_SCHEMA', 'true', 'keep the schema overview between requests'),
      s('CACHE_PERMISSIONS', 'true', "keep roles' compiled permissions between requests"),
    ],
  },
  {
    title: 'Files, exports and jobs',
    settings: [
      s('STORAGE_LOCATIONS', 'local', 'storage location keys (comma list); uploads go to the first'),
      s('STORAGE_LOCAL_ROOT', './uploads', 'the folder of the `local` location'),
      s('STORAGE_<KEY>_DRIVER', 'local for `local`', 'the driver of another location: `local` or `s3`'),
      s('STORAGE_<KEY>_ROOT', '–', 'the folder of another location (`local`); the key prefix in the bucket (`s3`)'),
      s(
        'STORAGE_<KEY>_KEY',
        '–',
        '`s3`: the access key id (with `_SECRET`; both unset: the AWS SDK finds credentials itself)',
      ),
      s('STORAGE_<KEY>_SECRET', '–', '`s3`: the secret access key'),
      s('STORAGE_<KEY>_BUCKET', '–', '`s3`: the bucket (required)'),
      s('STORAGE_<KEY>_REGION', 'us-east-1', '`s3`: the region'),
      s('STORAGE_<KEY>_ENDPOINT', '–', '`s3`: an S3-compatible server (MinIO...); unset: AWS'),
      s(
        'STORAGE_<KEY>_FORCE_PATH_STYLE',
        'false',
        '`s3`: address the bucket in the path (`http://host/bucket/key`), as most S3-compatible servers need',
      ),
      s('FILES_MAX_UPLOAD_SIZE', 'unlimited', 'bigger uploads are 413'),
      s(
        'FILES_MIME_TYPE_ALLOW_LIST',
        '*/*',
        'accepted upload types (comma list; `image/*` style allowed); others are 415',
      ),
      s('ASSETS_CACHE_TTL', '30d', '`max-age` of `/assets` answers'),
      s(
        'ASSETS_TRANSFORM_MAX_CONCURRENT',
        '25',
        'image transformations generated at once by this process; one more is 503 `SERVICE_UNAVAILABLE` (variants already stored are served regardless)',
      ),
      s(
        'ASSETS_TRANSFORM_IMAGE_MAX_DIMENSION',
        '6000',
        'the longest side of a generated image, and (squared) the most pixels of an image read for one: beyond either, 400 `ILLEGAL_ASSET_TRANSFORMATION` (decompression bombs stop at the header)',
      ),
      s('ASSETS_TRANSFORM_MAX_OPERATIONS', '5', 'the most entries of `transforms` one request may give'),
      s(
        'ASSETS_TRANSFORM_TIMEOUT',
        '7500ms',
        'how long generating one image may take; longer is answered 503 `SERVICE_UNAVAILABLE` with `Retry-After` at that time (the work itself is stopped within the next whole second, except an AVIF encoder, which holds its ASSETS_TRANSFORM_MAX_CONCURRENT place until it ends)',
      ),
      s(
        'ASSETS_TRANSFORM_AVIF_MAX_PIXELS',
        '4000000',
        'the most pixels (width × height) of an AVIF result, whose encoder no timeout stops: beyond, 400 `ILLEGAL_ASSET_TRANSFORMATION` naming this setting; `format=auto` gives WebP instead when the size is known from the file row',
      ),
      s(
        'IMPORT_IP_DENY_LIST',
        'local and private ranges',
        'addresses and CIDR ranges `/files/import` never fetches from, checked after DNS and on every redirect (default: every local interface, loopback, private, shared and link-local ranges, cloud metadata addresses)',
      ),
      s(
        'IMPORT_MAX_SIZE',
        '1gb',
        'the largest file `/utils/import` reads (`500mb`, `unlimited`...): past it the import is 400 `INVALID_PAYLOAD` and nothing is written',
      ),
      s('EXPORT_BATCH_SIZE', '5000', 'rows per read batch of exports and `limit=-1` reads'),
      s(
        'EXPORT_CSV_ESCAPE_FORMULAS',
        'true',
        "csv exports put `'` before a text cell starting with `=`, `+`, `-`, `@`, tab or carriage return, so spreadsheets do not run it (numbers untouched); `false` writes cells as they are",
      ),
      s(
        'ACTIVITY_RETENTION',
        'keep forever',
        '`svc_activity` rows older than this duration (e.g. `90d`) are deleted with their revisions, in the background; comment rows are kept',
      ),
      s(
        'REVISIONS_RETENTION',
        'keep forever',
        '`svc_revisions` rows whose activity is older than this duration are deleted in the background',
      ),
      s(
        'EXPORT_RETENTION',
        '7d',
        'exports older than this duration are deleted with their file (the `svc_files` row and the stored content) by the background cleanup, once across instances; `0` or `false` keeps them forever. The default of the project setting `export_retention` (`PATCH /settings`, the Studio settings page), which overrides it from the next cleanup run',
      ),
      s(
        'RETENTION_INTERVAL',
        '1h',
        'how often the retention pruner and the export cleanup run (the pruner also at start)',
      ),
      s('RETENTION_BATCH_SIZE', '1000', 'rows per DELETE statement of the pruner (short statements, no long locks)'),
      s('JOBS_ATTEMPTS', '3', 'tries of a background job before it is given up'),
      s(
        'JOBS_LOCK_DURATION',
        '30s',
        "how long a job's lock lasts without its worker renewing it: a dead worker's job runs again, as its next attempt, at most this plus JOBS_STALLED_INTERVAL after it died",
      ),
      s('JOBS_STALLED_INTERVAL', '30s', 'how often workers look for jobs whose worker died'),
      s('JOBS_CONCURRENCY', '1', 'jobs one worker runs at once'),
    ],
  },
  {
    title: 'Flows',
    settings: [
      s(
        'FLOWS_ENV_ALLOW_LIST',
        '–',
        'comma list of environment variables flows may read as `{{ $env.NAME }}`; no other variable is visible to a flow',
      ),
      s(
        'FLOWS_MAX_STEPS',
        '100',
        'operations one run may take: a chain that loops stops there, the run rejected with the reason in its log',
      ),
      s(
        'FLOWS_MAX_DEPTH',
        '5',
        'how deeply `trigger` operations may start flows from flows (a loop of flows stops there)',
      ),
      s(
        'FLOWS_FILTER_TIMEOUT',
        '5s',
        'how long a blocking (`filter`) flow may hold the write it runs before; past it the write is refused',
      ),
      s(
        'FLOWS_REQUEST_TIMEOUT',
        '10s',
        'idle time after which the `request` operation gives up on its URL (its addresses are checked against IMPORT_IP_DENY_LIST)',
      ),
      s('FLOWS_REQUEST_MAX_SIZE', '1mb', 'the largest answer the `request` operation reads'),
      s('FLOWS_SLEEP_MAX', '1m', 'the longest pause a `sleep` operation may take'),
      s(
        'FLOWS_CONCURRENCY',
        '10',
        'queued flow runs (after-commit events, async webhooks, schedules) one process runs at once; the rest wait their turn',
      ),
      s(
        'FLOWS_RETRY_ATTEMPTS',
        '10',
        "tries of a queued flow run that fails (a delivery the receiver refuses, in a flow with `retry`), with the queue's backoff: 1, 3, 7 s... apart, 10 tries span about 17 minutes; JOBS_ATTEMPTS counts the other jobs' tries, and these too in one process without REDIS",
      ),
      s(
        'FLOWS_EXEC_ALLOWED',
        'false',
        'whether flows may use the `exec` (Run Script) operation: its JavaScript runs in an isolate of its own (isolated-vm: no `require`, `process` or network, data in and out as JSON copies). Off, a flow saved with it is refused, and one already saved rejects at that step',
      ),
      s(
        'FLOWS_RUN_SCRIPT_MAX_MEMORY',
        '32',
        'the memory, in MB, one `exec` script may use (at least 8); past it the step rejects',
      ),
      s(
        'FLOWS_RUN_SCRIPT_TIMEOUT',
        '10000',
        'how long, in ms (or `10s`), one `exec` script may run, waiting included; past it the step rejects',
      ),
      s(
        'FLOWS_LOG_RETENTION',
        '–',
        'runs logged longer ago than this (`svc_activity` `run` rows and their revisions) are deleted, checked every minute; unset keeps them',
      ),
    ],
  },
  {
    title: 'E-mail',
    settings: [
      s(
        'EMAIL_TRANSPORT',
        'sendmail',
        '`sendmail` (the program at EMAIL_SENDMAIL_PATH) or `smtp`. Invites, password resets and registrations answer the same whether or not the mail leaves; an unusable transport is one warning at start and a `warn` in `/server/health` (`email:connection`). Left unset, an unusable sendmail means mail is "not configured": one info line at start, and `email:connection` is `ok` with that note',
      ),
      s('EMAIL_FROM', 'no-reply@example.com', 'the sender of every mail'),
      s('EMAIL_VERIFY_SETUP', 'true', 'check the transport at start'),
      s('EMAIL_SENDMAIL_PATH', '/usr/sbin/sendmail', 'the sendmail program'),
      s('EMAIL_SENDMAIL_NEW_LINE', 'unix', '`unix` or `windows` line ends for it'),
      s('EMAIL_SMTP_HOST', '–', 'the SMTP server'),
      s('EMAIL_SMTP_PORT', '587 (465 with EMAIL_SMTP_SECURE)', 'its port'),
      s('EMAIL_SMTP_USER', '–', 'login user'),
      s('EMAIL_SMTP_PASSWORD', '–', 'login password'),
      s('EMAIL_SMTP_POOL', 'false', 'keep connections open between mails'),
      s(
        'EMAIL_SMTP_SECURE',
        'false',
        '`true`: TLS from the first byte (port 465); `false`: STARTTLS when the server offers it',
      ),
      s('EMAIL_SMTP_IGNORE_TLS', 'false', '`true`: never STARTTLS'),
      s('EMAIL_SMTP_NAME', '–', 'the name this host gives in HELO'),
    ],
  },
];
