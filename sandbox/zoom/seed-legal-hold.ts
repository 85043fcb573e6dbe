// Team Chat legal-hold matters (issue 20, `scopes_type=preservation`; reference §Team Chat "Related", shapes from
// Zoom's @zoom/rivet team-chat typings `LegalHold*`): an admin's matters, each over some users and a span of time,
// and per user the exported files of their held chat history (`file_key`, `file_count`, `file_start_date`,
// `file_end_date`, `ready_for_download`, `total_file_size`), downloaded as a zip by `file_key`. Drawn from a stream
// of its own, so the default tenant's data never shifts.
import { sentence } from './content.ts';
import { BASE64URL, HEX, createRng } from './prng.ts';
import type { ZoomUser } from './tenant.ts';

const DAY = 86_400_000;

export interface ZoomLegalHoldFile {
  file_key: string;
  /** Whose held history the export is (the `identifier` of the files list). */
  userId: string;
  file_count: number;
  file_start_date: string;
  file_end_date: string;
  /** An export still being prepared: listed, not yet downloadable. */
  ready_for_download: boolean;
}

export interface ZoomLegalHoldMatter {
  matter_id: string;
  matter_name: string;
  matter_start_date: string;
  matter_end_date: string;
  matter_creation_date: string;
  userIds: string[];
  files: ZoomLegalHoldFile[];
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Two matters over two or three custodians each; one to two exports per held user, one of them not ready. */
export function makeLegalHoldMatters(
  seed: number,
  now: number,
  custodians: ZoomUser[],
  bodies: Map<string, Buffer>,
): ZoomLegalHoldMatter[] {
  if (custodians.length === 0) return [];
  const rng = createRng(seed ^ 0x1e6a1);
  const matters: ZoomLegalHoldMatter[] = [];
  for (let i = 0; i < 2; i++) {
    const start = now - rng.int(60, 150) * DAY;
    const held = [...custodians]
      .sort(() => (rng.chance(0.5) ? 1 : -1))
      .slice(0, Math.min(custodians.length, rng.int(2, 3)));
    const files: ZoomLegalHoldFile[] = [];
    for (const u of held) {
      for (let k = rng.int(1, 2); k > 0; k--) {
        const file_key = rng.chars(BASE64URL, 32);
        const text = `${u.email} ${file_key}\n${sentence(rng.int(0, 1000))}\n`.repeat(rng.int(2, 30));
        // A zip's local file header signature, then the held messages (the sandbox does not build a real archive).
        bodies.set(file_key, Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from(text, 'utf8')]));
        files.push({
          file_key,
          userId: u.id,
          file_count: rng.int(1, 40),
          file_start_date: day(start),
          file_end_date: day(now - rng.int(0, 20) * DAY),
          ready_for_download: true,
        });
      }
    }
    matters.push({
      matter_id: `${rng.chars(HEX, 8)}-${rng.chars(HEX, 4)}-${rng.chars(HEX, 4)}`,
      matter_name: `Matter ${i + 1}: ${sentence(rng.int(0, 1000)).split(' ').slice(0, 3).join(' ')}`,
      matter_start_date: day(start),
      matter_end_date: day(now + 365 * DAY),
      matter_creation_date: new Date(start).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      userIds: held.map((u) => u.id),
      files,
    });
  }
  // The first matter's last export is still being prepared.
  const last = matters[0].files[matters[0].files.length - 1];
  if (last) last.ready_for_download = false;
  return matters;
}
