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
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://' })),
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
  DOCS_URL: Type.String({ default: 'https://custody.dev/docs/response-codes' }),
  SYNC_INTERVAL_MINUTES: Type.Number({ default: 30, exclusiveMinimum: 0 }),
  WORKERS: Type.Union([Type.Literal('inline'), Type.Literal('none')], { default: 'inline' }),
  WORKER_CONCURRENCY: Type.Integer({ default: 4, minimum: 1 }),
  ZOOM_CLIENT_ID: Type.Optional(Type.String({ minLength: 1 })),
  ZOOM_CLIENT_SECRET: Type.Optional(Type.String({ minLength: 1 })),
  ZOOM_OAUTH_URL: Type.String({ default: 'https://zoom.us', pattern: '^https?://' }),
  ZOOM_API_URL: Type.String({ default: 'https://api.zoom.us/v2', pattern: '^https?://' }),
  ZOOM_LOOKBACK_DAYS: Type.Integer({ default: 180, minimum: 1 }),
  ZOOM_REQUESTS_PER_SECOND: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  ZOOM_CONCURRENCY: Type.Optional(Type.Integer({ minimum: 1 })),
  MS_CLIENT_ID: Type.Optional(Type.String({ minLength: 1 })),
  MS_CLIENT_SECRET: Type.Optional(Type.String({ minLength: 1 })),
  MS_LOGIN_URL: Type.String({ default: 'https://login.microsoftonline.com', pattern: '^https?://' }),
  MS_GRAPH_URL: Type.String({ default: 'https://graph.microsoft.com/v1.0', pattern: '^https?://' }),
  MS_RESOURCE_UNITS_PER_SECOND: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  MS_CONCURRENCY: Type.Optional(Type.Integer({ minimum: 1 })),
});
type EnvValues = Static<typeof Env>;

export interface Config {
  dataDir: string;
  port: number;
  host: string;
  publicUrl: string;
  databaseUrl?: string;
  redisUrl?: string;
  secretKey?: string;
  logLevel: string;
  tokens: { accessTtlSeconds: number; refreshTtlSeconds: number };
  rateLimits: { defaultPerMinute: number; tokenPerMinute: number; searchPerMinute: number };
  docsUrl: string;
  sync: { intervalMinutes: number; workers: 'inline' | 'none'; concurrency: number };
  zoom: { clientId?: string; clientSecret?: string; oauthUrl: string; apiUrl: string; lookbackDays: number; budget: BudgetOverrides };
  microsoft: { clientId?: string; clientSecret?: string; loginUrl: string; graphUrl: string; budget: BudgetOverrides };
}

/** Per-credential request budget overrides; unset keeps the connector's default (just under the provider's limits). */
export interface BudgetOverrides {
  ratePerSecond?: number;
  concurrency?: number;
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
    throw new ConfigError(`invalid configuration: ${name} ${firstError.message}${shown}`);
  }
  const e = withDefaults as EnvValues;
  return {
    dataDir: path.resolve(e.DATA_DIR),
    port: e.PORT,
    host: e.HOST,
    publicUrl: (e.PUBLIC_URL ?? `http://127.0.0.1:${e.PORT}`).replace(/\/+$/, ''),
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    secretKey: e.CUSTODY_SECRET_KEY,
    logLevel: e.LOG_LEVEL,
    tokens: { accessTtlSeconds: e.ACCESS_TOKEN_TTL_SECONDS, refreshTtlSeconds: e.REFRESH_TOKEN_TTL_SECONDS },
    rateLimits: {
      defaultPerMinute: e.RATE_LIMIT_DEFAULT_PER_MINUTE,
      tokenPerMinute: e.RATE_LIMIT_TOKEN_PER_MINUTE,
      searchPerMinute: e.RATE_LIMIT_SEARCH_PER_MINUTE,
    },
    docsUrl: e.DOCS_URL,
    sync: { intervalMinutes: e.SYNC_INTERVAL_MINUTES, workers: e.WORKERS, concurrency: e.WORKER_CONCURRENCY },
    zoom: {
      clientId: e.ZOOM_CLIENT_ID,
      clientSecret: e.ZOOM_CLIENT_SECRET,
      oauthUrl: e.ZOOM_OAUTH_URL.replace(/\/+$/, ''),
      apiUrl: e.ZOOM_API_URL.replace(/\/+$/, ''),
      lookbackDays: e.ZOOM_LOOKBACK_DAYS,
      budget: defined({ ratePerSecond: e.ZOOM_REQUESTS_PER_SECOND, concurrency: e.ZOOM_CONCURRENCY }),
    },
    microsoft: {
      clientId: e.MS_CLIENT_ID,
      clientSecret: e.MS_CLIENT_SECRET,
      loginUrl: e.MS_LOGIN_URL.replace(/\/+$/, ''),
      graphUrl: e.MS_GRAPH_URL.replace(/\/+$/, ''),
      budget: defined({ ratePerSecond: e.MS_RESOURCE_UNITS_PER_SECOND, concurrency: e.MS_CONCURRENCY }),
    },
  };
}

function defined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
