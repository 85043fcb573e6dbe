import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('configuration', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8080);
    expect(c.host).toBe('127.0.0.1');
    expect(c.publicUrl).toBe('http://127.0.0.1:8080');
    expect(c.rateLimits).toEqual({ defaultPerMinute: 600, tokenPerMinute: 30, searchPerMinute: 300 });
    expect(c.zoom).toMatchObject({ oauthUrl: 'https://zoom.us', apiUrl: 'https://api.zoom.us/v2', lookbackDays: 180 });
    expect(c.microsoft).toMatchObject({
      loginUrl: 'https://login.microsoftonline.com',
      graphUrl: 'https://graph.microsoft.com/v1.0',
    });
    expect(c.sync.intervalMinutes).toBe(30);
    expect(c.databaseUrl).toBeUndefined();
  });

  it('passes request budget overrides to the connectors, keeping their defaults otherwise', async () => {
    const { createConnectors } = await import('../../src/connectors/index.ts');
    const [zoom, onedrive] = createConnectors(loadConfig({ ZOOM_REQUESTS_PER_SECOND: '12.5', MS_CONCURRENCY: '2' }));
    expect(zoom.limits.budget).toMatchObject({ ratePerSecond: 12.5, concurrency: 64, startConcurrency: 16 });
    expect(onedrive.limits.budget).toMatchObject({ ratePerSecond: 20, concurrency: 2 });
    const [zoomDefault] = createConnectors(loadConfig({}));
    expect(zoomDefault.limits.budget.ratePerSecond).toBe(48);
    // the operator's ZOOM_CONCURRENCY is the most; the start stays the connector's (the budget takes the lower)
    expect(createConnectors(loadConfig({ ZOOM_CONCURRENCY: '8' }))[0].limits.budget).toMatchObject({ concurrency: 8 });
    expect(() => loadConfig({ ZOOM_CONCURRENCY: '0' })).toThrow(/ZOOM_CONCURRENCY/);
  });

  it('keeps content up to 16 KiB in the database by default; 0 turns that off; more than 1 MiB is refused', () => {
    expect(loadConfig({}).blobDbMaxBytes).toBe(16384);
    expect(loadConfig({ BLOB_DB_MAX_BYTES: '0' }).blobDbMaxBytes).toBe(0);
    expect(loadConfig({ BLOB_DB_MAX_BYTES: '1048576' }).blobDbMaxBytes).toBe(1048576);
    expect(() => loadConfig({ BLOB_DB_MAX_BYTES: '1048577' })).toThrow(/BLOB_DB_MAX_BYTES/);
    expect(() => loadConfig({ BLOB_DB_MAX_BYTES: '-1' })).toThrow(/BLOB_DB_MAX_BYTES/);
  });

  it('opens PostgreSQL pools of 10 connections by default, DATABASE_POOL_SIZE from 2 to 200', () => {
    expect(loadConfig({}).databasePoolSize).toBe(10);
    expect(loadConfig({ DATABASE_POOL_SIZE: '4' }).databasePoolSize).toBe(4);
    expect(() => loadConfig({ DATABASE_POOL_SIZE: '1' })).toThrow(/DATABASE_POOL_SIZE/);
    expect(() => loadConfig({ DATABASE_POOL_SIZE: '201' })).toThrow(/DATABASE_POOL_SIZE/);
  });

  it('keeps content on disk by default and in S3 with BLOB_STORE=s3, which needs a bucket', () => {
    expect(loadConfig({}).blobStore).toEqual({ kind: 'fs' });
    expect(
      loadConfig({
        BLOB_STORE: 's3',
        S3_BUCKET: 'evidence',
        S3_PREFIX: 'custody/',
        S3_ENDPOINT: 'http://minio:9000',
        S3_REGION: 'eu-west-1',
        S3_FORCE_PATH_STYLE: 'true',
      }).blobStore,
    ).toEqual({
      kind: 's3',
      bucket: 'evidence',
      prefix: 'custody/',
      endpoint: 'http://minio:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
    });
    expect(loadConfig({ BLOB_STORE: 's3', S3_BUCKET: 'evidence' }).blobStore).toEqual({
      kind: 's3',
      bucket: 'evidence',
      prefix: '',
      endpoint: undefined,
      region: undefined,
      forcePathStyle: false,
    });
    expect(() => loadConfig({ BLOB_STORE: 's3' })).toThrow(/S3_BUCKET/);
    expect(() => loadConfig({ BLOB_STORE: 'gcs' })).toThrow(/BLOB_STORE/);
    expect(() => loadConfig({ BLOB_STORE: 's3', S3_BUCKET: 'evidence', S3_FORCE_PATH_STYLE: 'yes' })).toThrow(
      /S3_FORCE_PATH_STYLE/,
    );
  });

  it('derives PUBLIC_URL from PORT and trims trailing slashes', () => {
    expect(loadConfig({ PORT: '9001' }).publicUrl).toBe('http://127.0.0.1:9001');
    expect(loadConfig({ PUBLIC_URL: 'https://custody.example.com/' }).publicUrl).toBe('https://custody.example.com');
    expect(loadConfig({ ZOOM_API_URL: 'http://127.0.0.1:9/v2/' }).zoom.apiUrl).toBe('http://127.0.0.1:9/v2');
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://db'],
    ['PUBLIC_URL', 'custody.example.com'],
    ['LOG_LEVEL', 'loud'],
    ['CUSTODY_SECRET_KEY', 'short'],
    ['DATABASE_URL', 'mysql://admin:hunter2@db/custody'],
    ['SYNC_INTERVAL_MINUTES', '0'],
    ['ZOOM_LOOKBACK_DAYS', '-3'],
  ])('refuses a bad %s with a message naming it', (name, value) => {
    if (/SECRET|KEY|_URL$/.test(name))
      expect(() => loadConfig({ [name]: value })).not.toThrow(new RegExp(value.replace(/[/.]/g, '\\$&')));
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`\\b${name}\\b`));
  });
});
