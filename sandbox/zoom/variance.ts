// The variance profile: the same API, answered the way other parts of Zoom (or another reading of Zoom's
// documentation) answer it. Everything is chosen from a seed, so a test can name what the profile made
// impossible and expect exactly that to be reported. Off by default; the default sandbox is unchanged.
import type { FastifyReply } from 'fastify';
import { createRng, hash32, type Rng } from './prng.ts';
import type { ZoomMeeting, ZoomRecordingFile, ZoomTenant } from './tenant.ts';

export interface ZoomVarianceOptions {
  /** Seed of the choices below; default: the tenant's seed. */
  seed?: number;
}

/** What the profile did to the tenant, for tests to read (ground truth, never served). */
export interface ZoomVarianceReport {
  /** Listed, then deleted by the host when its download is first requested (404 from then on). */
  vanishingFile?: { meeting: ZoomMeeting; file: ZoomRecordingFile };
  /** Its download_url answers Zoom's HTML failure page every time. */
  failingFile?: { meeting: ZoomMeeting; file: ZoomRecordingFile };
  /** The one-to-one conversation of these two users whose messages request fails every time. */
  failingConversation?: { userIds: [string, string] };
}

/**
 * 404 bodies for a missing resource. Zoom's reference gives `{code, message}` with several codes for "not there"
 * (1001, 3001, 3301; more are undocumented) and gateways answer 404 with no body at all; all of them mean the
 * same thing to a client that reads HTTP semantics.
 */
const NOT_FOUND_STYLES: Array<(what: string) => { type: string; body: string }> = [
  (what) => ({
    type: 'application/json;charset=UTF-8',
    body: JSON.stringify({ code: 3001, message: `${what} does not exist.` }),
  }),
  (what) => ({
    type: 'application/json;charset=UTF-8',
    body: JSON.stringify({ code: 3301, message: `There is no ${what.toLowerCase()} for this meeting.` }),
  }),
  // An undocumented code: a client must not need to know it.
  (what) => ({
    type: 'application/json;charset=UTF-8',
    body: JSON.stringify({ code: 3322, message: `${what} not found.` }),
  }),
  (what) => ({
    type: 'application/json;charset=UTF-8',
    body: JSON.stringify({ code: 404, message: `Not found: ${what}.` }),
  }),
  () => ({ type: 'text/plain', body: '' }),
];

export class ZoomVariance {
  readonly report: ZoomVarianceReport = {};
  private readonly seed: number;
  /** Download keys already requested once (the vanishing file is deleted at that moment). */
  private readonly vanished = new Set<string>();

  constructor(opts: ZoomVarianceOptions, tenantSeed: number) {
    this.seed = opts.seed ?? tenantSeed;
  }

  /** Picks the broken pieces once the tenant exists: never two on the same meeting, never a meeting's only file. */
  choose(tenant: ZoomTenant): void {
    const rng = createRng(this.seed ^ 0x51ab1e);
    const live = tenant.meetings.filter((m) => tenant.findUser(m.host_id) && m.recording_files.length > 1);
    const pickFile = (taken: ZoomMeeting[]) => {
      const pool = live.filter((m) => !taken.includes(m));
      if (!pool.length) return undefined;
      const meeting = rng.pick(pool);
      return { meeting, file: rng.pick(meeting.recording_files) };
    };
    this.report.vanishingFile = pickFile([]);
    this.report.failingFile = pickFile(this.report.vanishingFile ? [this.report.vanishingFile.meeting] : []);
    const conversations = tenant.oneToOne.filter(
      (c) => c.messages.length > 0 && c.userIds.every((id) => tenant.findUser(id)),
    );
    if (conversations.length) this.report.failingConversation = { userIds: [...rng.pick(conversations).userIds] };
  }

  /** A 404 in one of the styles, always the same one for the same resource. */
  notFound(reply: FastifyReply, what: string, resource: string): FastifyReply {
    const style = NOT_FOUND_STYLES[hash32(resource, this.seed) % NOT_FOUND_STYLES.length](what);
    return reply.code(404).type(style.type).send(style.body);
  }

  /** True when this download must fail with the HTML page. */
  failsDownload(file: ZoomRecordingFile): boolean {
    return this.report.failingFile?.file.id === file.id;
  }

  /** Removes the vanishing file from its meeting the first time its download is asked for. */
  vanishOnDownload(tenant: ZoomTenant, file: ZoomRecordingFile): boolean {
    const target = this.report.vanishingFile;
    if (!target || target.file.id !== file.id) return this.vanished.has(file.downloadKey);
    if (!this.vanished.has(file.downloadKey)) {
      this.vanished.add(file.downloadKey);
      tenant.removeFile(file.id);
    }
    return true;
  }

  failsConversation(userId: string, peerId: string | undefined): boolean {
    const ids = this.report.failingConversation?.userIds;
    return !!ids && !!peerId && ids.includes(userId) && ids.includes(peerId) && userId !== peerId;
  }

  /** Drops some optional fields and adds fields this sandbox's clients have never seen; stable per object. */
  reshape(body: Record<string, unknown>, optional: readonly string[], identity: string): Record<string, unknown> {
    const rng = createRng(hash32(identity, this.seed));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(body)) if (!(optional.includes(k) && rng.chance(0.5))) out[k] = v;
    out[`x_${rng.pick(['sandbox', 'beta', 'internal'])}_${rng.int(1, 99)}`] = rng.chance(0.5)
      ? { nested: [rng.int(0, 9)], flag: true }
      : 'unknown';
    if (rng.chance(0.5)) out.feature_flags = [];
    return out;
  }
}

/**
 * A meeting UUID in one of the shapes the double-encoding rule is about: starting with `/` or `//`, containing
 * `//`, or (not needing it) a lone `/` just before the `==` padding next to a `+`.
 */
export function variantUuid(rng: Rng, base: string): string {
  const body = base.slice(0, 22).split('');
  switch (rng.int(0, 4)) {
    case 0:
      body[0] = '/';
      break;
    case 1:
      body[0] = body[1] = '/';
      break;
    case 2:
      body[7] = body[8] = '/';
      break;
    case 3:
      body[21] = '/';
      body[3] = '+';
      break;
    default:
      body[5] = '/';
      body[6] = '/';
      body[0] = '/';
      break;
  }
  return `${body.join('')}==`;
}
