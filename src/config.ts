import path from 'node:path';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';

/**
 * The one configuration object. It is read from the environment once, at boot, validated against this schema,
 * and passed down; nothing else in the code base reads process.env.
 */
const Env = Type.Object({
  DATA_DIR: Type.String({ default: './data', minLength: 1 }),
  PORT: Type.Integer({ default: 8080, minimum: 0, maximum: 65535 }),
  HOST: Type.String({ default: '127.0.0.1', minLength: 1 }),
  PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  DATABASE_POOL_SIZE: Type.Integer({ default: 10, minimum: 2, maximum: 200 }),
  // 'true': statements sent again go by name (pg-statements.ts); off by default until its mixed figures are understood
  DATABASE_PREPARED_STATEMENTS: Type.Union([Type.Literal('true'), Type.Literal('false')], { default: 'false' }),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://' })),
  BLOB_STORE: Type.Union([Type.Literal('fs'), Type.Literal('s3')], { default: 'fs' }),
  S3_BUCKET: Type.Optional(Type.String({ minLength: 3, maxLength: 63 })),
  S3_PREFIX: Type.String({ default: '' }),
  S3_ENDPOINT: Type.Optional(Type.String({ pattern: '^https?://' })),
  S3_REGION: Type.Optional(Type.String({ minLength: 1 })),
  S3_FORCE_PATH_STYLE: Type.Union([Type.Literal('true'), Type.Literal('false')], { default: 'false' }),
  BLOB_DB_MAX_BYTES: Type.Integer({ default: 16384, minimum: 0, maximum: 1048576 }),
  CUSTODY_SECRET_KEY: Type.Optional(Type.String({ minLength: 32 })),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  ACCESS_TOKEN_TTL_SECONDS: Type.Integer({ default: 3600, minimum: 60 }),
  REFRESH_TOKEN_TTL_SECONDS: Type.Integer({ default: 30 * 24 * 3600, minimum: 60 }),
  RATE_LIMIT_DEFAULT_PER_MINUTE: Type.Integer({ default: 600, minimum: 1 }),
  RATE_LIMIT_TOKEN_PER_MINUTE: Type.Integer({ default: 30, minimum: 1 }),
  RATE_LIMIT_SEARCH_PER_MINUTE: Type.Integer({ default: 300, minimum: 1 }),
  HTTP_HEADERS_TIMEOUT_SECONDS: Type.Number({ default: 10, exclusiveMinimum: 0 }),
  HTTP_BODY_TIMEOUT_SECONDS: Type.Number({ default: 10, exclusiveMinimum: 0 }),
  HTTP_REQUEST_TIMEOUT_SECONDS: Type.Number({ default: 30, exclusiveMinimum: 0 }),
  HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: Type.Number({ default: 10, exclusiveMinimum: 0 }),
  DOCS_URL: Type.String({ default: 'https://custody.dev/docs/response-codes' }),
  SYNC_INTERVAL_MINUTES: Type.Number({ default: 30, exclusiveMinimum: 0 }),
  WORKERS: Type.Union([Type.Literal('inline'), Type.Literal('none')], { default: 'inline' }),
  WORKER_CONCURRENCY: Type.Integer({ default: 4, minimum: 1 }),
  EVENT_STREAM_POLL_MS: Type.Integer({ default: 500, minimum: 10 }),
  EVENT_STREAM_HEARTBEAT_MS: Type.Integer({ default: 15_000, minimum: 10 }),
  JOB_SWEEP_SECONDS: Type.Number({ default: 15, exclusiveMinimum: 0 }),
  RUN_LEASE_SECONDS: Type.Number({ default: 60, minimum: 1 }),
  UNIT_STALL_SECONDS: Type.Number({ default: 300, exclusiveMinimum: 0 }),
  ZOOM_CLIENT_ID: Type.Optional(Type.String({ minLength: 1 })),
  ZOOM_CLIENT_SECRET: Type.Optional(Type.String({ minLength: 1 })),
  ZOOM_OAUTH_URL: Type.String({ default: 'https://zoom.us', pattern: '^https?://' }),
  ZOOM_API_URL: Type.String({ default: 'https://api.zoom.us/v2', pattern: '^https?://' }),
  ZOOM_LOOKBACK_DAYS: Type.Integer({ default: 180, minimum: 1 }),
  ZOOM_REQUESTS_PER_SECOND: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  ZOOM_CONCURRENCY: Type.Optional(Type.Integer({ minimum: 1 })),
  ZOOM_MAX_REQUESTS_PER_SECOND: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  MS_CLIENT_ID: Type.Optional(Type.String({ minLength: 1 })),
  MS_CLIENT_SECRET: Type.Optional(Type.String({ minLength: 1 })),
  MS_LOGIN_URL: Type.String({ default: 'https://login.microsoftonline.com', pattern: '^https?://' }),
  MS_GRAPH_URL: Type.String({ default: 'https://graph.microsoft.com/v1.0', pattern: '^https?://' }),
  MS_RESOURCE_UNITS_PER_SECOND: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  MS_CONCURRENCY: Type.Optional(Type.Integer({ minimum: 1 })),
  MS_MAX_RESOURCE_UNITS_PER_SECOND: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  MS_CHANGE_NOTIFICATIONS: Type.Union([Type.Literal('auto'), Type.Literal('off')], { default: 'auto' }),
  ZOOM_WEBHOOK_SECRET_TOKEN: Type.Optional(Type.String({ minLength: 1 })),
  EVENT_COALESCE_SECONDS: Type.Number({ default: 3, minimum: 0 }),
  GRAPH_SUBSCRIPTION_MINUTES: Type.Integer({ default: 42_300, minimum: 45, maximum: 42_300 }),
  SUBSCRIPTION_CHECK_SECONDS: Type.Number({ default: 60, minimum: 1 }),
  METRICS_PORT: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
  WEBHOOKS_ALLOW_PRIVATE: Type.Union([Type.Literal('true'), Type.Literal('false')], { default: 'false' }),
});
type EnvValues = Static<typeof Env>;

export interface Config {
  dataDir: string;
  port: number;
  host: string;
  publicUrl: string;
  databaseUrl?: string;
  /** PostgreSQL connections per pool of this process (the store's, and each of graphile-worker's). */
  databasePoolSize: number;
  /** PostgreSQL: statements sent again go by name, prepared once per connection (DATABASE_PREPARED_STATEMENTS). */
  databasePreparedStatements: boolean;
  redisUrl?: string;
  /** Where content lives: `fs` under dataDir/blobs, or an S3 bucket (credentials from the AWS chain). */
  blobStore:
    | { kind: 'fs' }
    | { kind: 's3'; bucket: string; prefix: string; endpoint?: string; region?: string; forcePathStyle: boolean };
  /** Content up to this many bytes is kept in the database, not in the blob store (0: none). */
  blobDbMaxBytes: number;
  secretKey?: string;
  logLevel: string;
  tokens: { accessTtlSeconds: number; refreshTtlSeconds: number };
  rateLimits: { defaultPerMinute: number; tokenPerMinute: number; searchPerMinute: number };
  docsUrl: string;
  http: HttpLimits;
  /** sweepSeconds: the safety-net sweep (repairs, due schedules, runs of dead workers); leaseSeconds: a run's lease (heartbeat every quarter). */
  /** unitStallSeconds: a unit that makes no progress this long is stopped and retried like a crash (UNIT_STALL_SECONDS). */
  sync: {
    intervalMinutes: number;
    workers: 'inline' | 'none';
    concurrency: number;
    sweepSeconds: number;
    leaseSeconds: number;
    unitStallSeconds: number;
  };
  /** The event stream reads the `events` table every pollMs (so runs in other processes show too). */
  eventStream: { pollMs: number; heartbeatMs: number };
  zoom: {
    clientId?: string;
    clientSecret?: string;
    oauthUrl: string;
    apiUrl: string;
    lookbackDays: number;
    budget: BudgetOverrides;
  };
  microsoft: {
    clientId?: string;
    clientSecret?: string;
    loginUrl: string;
    graphUrl: string;
    budget: BudgetOverrides;
    changeNotifications: 'auto' | 'off';
  };
  events: EventsConfig;
  /** allowPrivate: deliver to loopback, private and link-local addresses too (tests, a receiver on the same host). */
  webhooks: { allowPrivate: boolean };
  /** unset: `GET /metrics` on the API port; set: on its own listener on this port (workers too). */
  metricsPort?: number;
}

/** Provider change events (Zoom webhooks, Graph change notifications). */
export interface EventsConfig {
  /** The Zoom Marketplace app's event Secret Token; unset: POST /v1/webhooks/zoom answers 401 to everything. */
  zoomSecretToken?: string;
  /** Events for one collection arriving within this window become one targeted run. */
  coalesceMs: number;
  /** Lifetime requested for each Graph subscription (Graph's maximum for drives is 42,300 minutes). */
  graphSubscriptionMinutes: number;
  /** How often worker processes create, renew and delete change subscriptions. */
  subscriptionCheckMs: number;
}

/** Timeouts of the HTTP edge, in milliseconds. */
export interface HttpLimits {
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

/** Per-credential request budget overrides; unset keeps the connector's default (just under the provider's limits). */
export interface BudgetOverrides {
  ratePerSecond?: number;
  concurrency?: number;
  /** The operator's ceiling on the learned rate, fleet-wide; unset: none. */
  maxRatePerSecond?: number;
}

export class ConfigError extends Error {}

const NUMERIC = new Set(
  Object.entries(Env.properties)
    .filter(([, s]) => (s as { type?: string }).type === 'integer' || (s as { type?: string }).type === 'number')
    .map(([k]) => k),
);

/** Builds the config from an environment map; throws ConfigError naming the variable on a bad value. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(Env.properties)) {
    const value = env[key];
    if (value === undefined || value === '') continue;
    raw[key] = NUMERIC.has(key) && /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
  }
  const withDefaults = Value.Default(Env, raw) as Record<string, unknown>;
  const firstError = [...Value.Errors(Env, withDefaults)][0];
  if (firstError) {
    const name = firstError.instancePath.replace(/^\//, '') || JSON.stringify(firstError.params);
    // Secrets and URLs that can carry passwords are named, never echoed.
    const shown = /SECRET|KEY|_URL$/.test(name) ? '' : ` (got ${JSON.stringify(env[name] ?? '')})`;
    const choices = choicesOf(name);
    const message = choices ? `must be one of ${choices.join(', ')}` : firstError.message;
    throw new ConfigError(`invalid configuration: ${name} ${message}${shown}`);
  }
  const e = withDefaults as EnvValues;
  if (e.BLOB_STORE === 's3' && !e.S3_BUCKET)
    throw new ConfigError('invalid configuration: S3_BUCKET is required when BLOB_STORE=s3');
  if (e.HTTP_HEADERS_TIMEOUT_SECONDS > e.HTTP_REQUEST_TIMEOUT_SECONDS) {
    throw new ConfigError(
      'invalid configuration: HTTP_HEADERS_TIMEOUT_SECONDS must not exceed HTTP_REQUEST_TIMEOUT_SECONDS',
    );
  }
  return {
    dataDir: path.resolve(e.DATA_DIR),
    port: e.PORT,
    host: e.HOST,
    publicUrl: (e.PUBLIC_URL ?? `http://127.0.0.1:${e.PORT}`).replace(/\/+$/, ''),
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    databasePreparedStatements: e.DATABASE_PREPARED_STATEMENTS === 'true',
    redisUrl: e.REDIS_URL,
    blobDbMaxBytes: e.BLOB_DB_MAX_BYTES,
    blobStore:
      e.BLOB_STORE === 's3'
        ? {
            kind: 's3',
            bucket: e.S3_BUCKET!,
            prefix: e.S3_PREFIX,
            endpoint: e.S3_ENDPOINT,
            region: e.S3_REGION,
            forcePathStyle: e.S3_FORCE_PATH_STYLE === 'true',
          }
        : { kind: 'fs' },
    secretKey: e.CUSTODY_SECRET_KEY,
    logLevel: e.LOG_LEVEL,
    tokens: { accessTtlSeconds: e.ACCESS_TOKEN_TTL_SECONDS, refreshTtlSeconds: e.REFRESH_TOKEN_TTL_SECONDS },
    rateLimits: {
      defaultPerMinute: e.RATE_LIMIT_DEFAULT_PER_MINUTE,
      tokenPerMinute: e.RATE_LIMIT_TOKEN_PER_MINUTE,
      searchPerMinute: e.RATE_LIMIT_SEARCH_PER_MINUTE,
    },
    docsUrl: e.DOCS_URL,
    http: {
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_SECONDS * 1000,
      bodyTimeoutMs: e.HTTP_BODY_TIMEOUT_SECONDS * 1000,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_SECONDS * 1000,
      keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
    },
    sync: {
      intervalMinutes: e.SYNC_INTERVAL_MINUTES,
      workers: e.WORKERS,
      concurrency: e.WORKER_CONCURRENCY,
      sweepSeconds: e.JOB_SWEEP_SECONDS,
      leaseSeconds: e.RUN_LEASE_SECONDS,
      unitStallSeconds: e.UNIT_STALL_SECONDS,
    },
    eventStream: { pollMs: e.EVENT_STREAM_POLL_MS, heartbeatMs: e.EVENT_STREAM_HEARTBEAT_MS },
    zoom: {
      clientId: e.ZOOM_CLIENT_ID,
      clientSecret: e.ZOOM_CLIENT_SECRET,
      oauthUrl: e.ZOOM_OAUTH_URL.replace(/\/+$/, ''),
      apiUrl: e.ZOOM_API_URL.replace(/\/+$/, ''),
      lookbackDays: e.ZOOM_LOOKBACK_DAYS,
      budget: defined({
        ratePerSecond: e.ZOOM_REQUESTS_PER_SECOND,
        concurrency: e.ZOOM_CONCURRENCY,
        maxRatePerSecond: e.ZOOM_MAX_REQUESTS_PER_SECOND,
      }),
    },
    microsoft: {
      clientId: e.MS_CLIENT_ID,
      clientSecret: e.MS_CLIENT_SECRET,
      loginUrl: e.MS_LOGIN_URL.replace(/\/+$/, ''),
      graphUrl: e.MS_GRAPH_URL.replace(/\/+$/, ''),
      budget: defined({
        ratePerSecond: e.MS_RESOURCE_UNITS_PER_SECOND,
        concurrency: e.MS_CONCURRENCY,
        maxRatePerSecond: e.MS_MAX_RESOURCE_UNITS_PER_SECOND,
      }),
      changeNotifications: e.MS_CHANGE_NOTIFICATIONS,
    },
    events: {
      zoomSecretToken: e.ZOOM_WEBHOOK_SECRET_TOKEN,
      coalesceMs: Math.round(e.EVENT_COALESCE_SECONDS * 1000),
      graphSubscriptionMinutes: e.GRAPH_SUBSCRIPTION_MINUTES,
      subscriptionCheckMs: Math.round(e.SUBSCRIPTION_CHECK_SECONDS * 1000),
    },
    webhooks: { allowPrivate: e.WEBHOOKS_ALLOW_PRIVATE === 'true' },
    metricsPort: e.METRICS_PORT,
  };
}

/** The allowed values of a variable that is a choice (LOG_LEVEL, BLOB_STORE, …); undefined for the others. */
function choicesOf(name: string): string[] | undefined {
  const schema = (Env.properties as unknown as Record<string, { anyOf?: Array<{ const?: unknown }> }>)[name];
  const choices = schema?.anyOf?.map((c) => c.const).filter((c) => c !== undefined);
  return choices?.length ? choices.map(String) : undefined;
}

/**
 * The environment variables `custody serve` and `custody worker` read, one line each, written from the schema
 * above (names, types, allowed values, bounds, defaults): the `--help` of those commands prints it.
 */
export function environmentHelp(): string {
  const required = new Set<string>((Env as { required?: string[] }).required ?? []);
  const props = Env.properties as unknown as Record<string, Record<string, unknown>>;
  const width = Math.max(...Object.keys(props).map((k) => k.length)) + 2;
  const lines = Object.entries(props).map(([name, schema]) => {
    const facts: string[] = [];
    const choices = choicesOf(name);
    if (choices) facts.push(choices.join(' | '));
    else if (schema.type === 'integer' || schema.type === 'number') {
      const {
        minimum: lo,
        maximum: hi,
        exclusiveMinimum: above,
      } = schema as { minimum?: number; maximum?: number; exclusiveMinimum?: number };
      const bounds =
        lo !== undefined && hi !== undefined
          ? ` ${lo}..${hi}`
          : lo !== undefined
            ? ` >= ${lo}`
            : above !== undefined
              ? ` > ${above}`
              : '';
      facts.push(`${schema.type === 'integer' ? 'integer' : 'number'}${bounds}`);
    } else if (typeof schema.pattern === 'string') facts.push(`matching ${schema.pattern}`);
    else if (typeof schema.minLength === 'number' && schema.minLength > 1)
      facts.push(`at least ${schema.minLength} characters`);
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- config defaults are scalars
    if (schema.default !== undefined) facts.push(`default ${schema.default === '' ? '""' : String(schema.default)}`);
    else if (!required.has(name)) facts.push('optional');
    return `  ${name.padEnd(width)}${facts.join(', ')}`;
  });
  return `Environment variables (validated at start; see docs/configuration.md):\n${lines.join('\n')}`;
}

function defined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** What the API commands of the CLI (`custody login`, `custody collections …`) read: where the server is, where the profile lives. */
export interface CliConfig {
  /** CUSTODY_URL; `--url` and the stored profile come first. */
  url?: string;
  /** CUSTODY_CONFIG_DIR, default ~/.config/custody: holds `profile.json` (mode 0600). */
  configDir: string;
}

export function loadCliConfig(env: Record<string, string | undefined> = process.env): CliConfig {
  const home = env.HOME || env.USERPROFILE || '.';
  return {
    url: env.CUSTODY_URL || undefined,
    configDir: path.resolve(env.CUSTODY_CONFIG_DIR || path.join(home, '.config', 'custody')),
  };
}
