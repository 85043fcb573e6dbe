import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validateConfFilters } from '../../src/domain/filters/conf.ts';
import { validateEdriveFilters } from '../../src/domain/filters/edrive.ts';

describe('the OpenAPI examples of PATCH /v1/collections/{id}', () => {
  it('carry one complete conf and one complete edrive filter, each valid for its type', () => {
    const doc = JSON.parse(fs.readFileSync('docs/openapi.json', 'utf8'));
    const body = doc.paths['/v1/collections/{id}'].patch.requestBody.content['application/json'].schema;
    const [conf, edrive] = body.properties.sync_filters.examples;
    expect(Object.keys(conf).sort()).toEqual(['account_owners', 'chats', 'content_selections']);
    expect(validateConfFilters(conf)).toEqual([]);
    expect(Object.values(edrive).every((f) => (f as { filter_type: string }).filter_type === 'user_folders')).toBe(
      true,
    );
    expect(validateEdriveFilters(edrive)).toEqual([]);
    expect(validateEdriveFilters(conf)).not.toEqual([]);
  });
});
