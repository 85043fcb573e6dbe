// The variance profile: the same Graph API, answered the way other tenants and other parts of SharePoint answer
// it (reference §2.3-§2.8, §6). Seeded, so a test can name what the profile made impossible. Off by default.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TenantModel } from './model.ts';
import { SeededRandom } from './rng.ts';
import type { MsItem } from './types.ts';

export interface MsVarianceOptions {
  /** Seed of the choices; default: the tenant's seed. */
  seed?: number;
}

export interface MsVarianceReport {
  /** Listed, then deleted by its owner when its content is first requested (404 from then on). */
  vanishingItem?: { userId: string; item: MsItem };
  /** Flagged as malware: every download of it is refused (403 malwareDetected, X-Virus-Infected). */
  failingItem?: { userId: string; item: MsItem };
}

/** 404 bodies for a missing item: the documented codes, a different casing, and the empty body Corso met. */
const NOT_FOUND_STYLES: Array<{ code?: string; message?: string }> = [
  { code: 'itemNotFound', message: 'The resource could not be found.' },
  { code: 'ResourceNotFound', message: 'Item does not exist' },
  { code: 'ItemNotFound', message: 'Item not found' },
  {},
];

function hashOf(text: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 2654435761) >>> 0;
  return h;
}

export class MsVariance {
  readonly report: MsVarianceReport = {};
  private readonly seed: number;

  constructor(opts: MsVarianceOptions, tenantSeed: number) {
    this.seed = opts.seed ?? tenantSeed;
  }

  choose(model: TenantModel): void {
    const rng = new SeededRandom(this.seed ^ 0x0dd5);
    const files: Array<{ userId: string; item: MsItem }> = [];
    for (const user of model.tenant.users) {
      if (!user.drive) continue;
      for (const item of model.preorder(user.drive)) if (item.kind === 'file') files.push({ userId: user.id, item });
    }
    if (files.length === 0) return;
    const first = rng.int(0, files.length - 1);
    this.report.vanishingItem = files[first];
    if (files.length > 1) this.report.failingItem = files[(first + rng.int(1, files.length - 1)) % files.length];
  }

  /** A 404 for a missing item, in a style fixed per item. */
  notFound(request: FastifyRequest, reply: FastifyReply, itemId: string, date: string): FastifyReply {
    const style = NOT_FOUND_STYLES[hashOf(itemId, this.seed) % NOT_FOUND_STYLES.length];
    if (!style.code) return reply.code(404).send();
    return reply
      .code(404)
      .header('content-type', 'application/json; charset=utf-8')
      .send({
        error: {
          code: style.code,
          message: style.message,
          innerError: { date, 'request-id': request.id, 'client-request-id': request.id },
        },
      });
  }

  /**
   * How a listing (delta, children) gives a file's `@microsoft.graph.downloadUrl`, fixed per item: left out (a
   * provider or a `$select` that omits it), already expired (listed long before its download), or valid.
   */
  listedDownloadUrl(itemId: string): 'absent' | 'expired' | 'valid' {
    return (['absent', 'expired', 'valid'] as const)[(hashOf(`download:${itemId}`, this.seed) >>> 7) % 3];
  }

  isFailing(item: MsItem): boolean {
    return this.report.failingItem?.item.id === item.id;
  }

  /** Deletes the vanishing item the first time its content is requested; true when it is (now) gone. */
  vanish(model: TenantModel, driveId: string, item: MsItem, at: string): boolean {
    const target = this.report.vanishingItem;
    if (!target || target.item.id !== item.id) return false;
    if (!item.deleted) {
      const found = model.driveById(driveId);
      item.deleted = true;
      if (found) model.touch(found.drive, item, at);
    }
    return true;
  }

  /** Drops some optional properties and adds ones no client has seen; stable per object. */
  reshape(body: Record<string, unknown>, optional: readonly string[], identity: string): Record<string, unknown> {
    const rng = new SeededRandom(hashOf(identity, this.seed));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(body)) if (!(optional.includes(k) && rng.int(0, 1) === 1)) out[k] = v;
    if (rng.int(0, 1) === 1) out.shared = { scope: 'users', owner: { user: { displayName: 'Someone' } } };
    out[`x_sandbox_${rng.int(1, 99)}`] = { note: 'a property this client has never seen' };
    return out;
  }
}

/** driveItem properties Graph may leave out (ODB delta, 0-byte files, older items). */
export const OPTIONAL_ITEM_PROPERTIES = [
  'webUrl',
  'fileSystemInfo',
  'eTag',
  'createdDateTime',
  'cTag',
  'createdBy',
  'lastModifiedBy',
];
export const OPTIONAL_USER_PROPERTIES = [
  'jobTitle',
  'officeLocation',
  'businessPhones',
  'mobilePhone',
  'preferredLanguage',
  'givenName',
  'surname',
];
