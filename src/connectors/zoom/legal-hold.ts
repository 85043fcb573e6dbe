// Files of Zoom's own Team Chat legal-hold matters (issue 20, `scopes_type=preservation`): when the grant holds the
// legal-hold scopes and the filters select chats, each owner's exports in every matter that holds them are
// collected with their bytes, kind `legal_hold_file`. Endpoints (../shared/reference/zoom-api.md §Team Chat
// "Related"; shapes from Zoom's @zoom/rivet team-chat typings `LegalHold*`): `GET /chat/legalhold/matters`
// (`legal_hold_matters[{matter_id, matter_name, matter_users[{user_id, email}], …}]`), `GET /chat/legalhold/matters/
// {matterId}/files?identifier=<user>` (`data[{file_key, file_count, file_start_date, file_end_date,
// ready_for_download, total_file_size}]`) and `GET …/files/download?file_key=` (a zip).
import type { CollectEvent, ItemInput } from '../types.ts';
import { pages } from './api.ts';
import { downloadSource } from './content.ts';
import { segment, type Owner } from './items.ts';
import type { ZoomRun } from './run.ts';
import type { ChatTarget, Position } from './state.ts';
import type { ZoomPage } from './wire.ts';

const PAGE = 300;

export interface HeldFile {
  file_key?: string;
  file_count?: number;
  file_start_date?: string;
  file_end_date?: string;
  ready_for_download?: boolean;
  total_file_size?: number;
}

interface FilesPage extends ZoomPage {
  data?: HeldFile[];
}

const mattersPath = (matterId: string, rest: string) =>
  `/chat/legalhold/matters/${encodeURIComponent(matterId)}${rest}`;

export async function* collectLegalHold(run: ZoomRun, owner: Owner, pos: Position): AsyncGenerator<CollectEvent> {
  if (!pos.targets) {
    // The matters that hold this owner, from the run's one listing (preservation.ts).
    pos.targets = structuredClone(run.preservation.legalHold?.[owner.id] ?? []);
    pos.target = 0;
    pos.page = null;
    yield run.checkpoint();
  }
  const targets = pos.targets;
  for (pos.target ??= 0; pos.target < targets.length; pos.target++) {
    const matter = targets[pos.target];
    for await (const { page, next } of pages<FilesPage>(
      run.api,
      'listing legal hold files',
      mattersPath(matter.id, '/files'),
      { identifier: owner.email || owner.id, page_size: PAGE },
      pos.page ?? null,
      run.now,
    )) {
      for (const f of page.data ?? []) if (f?.file_key) yield heldFileEvent(run, owner, matter, f);
      pos.page = next;
      if (next) yield run.checkpoint();
    }
    pos.page = null;
    yield run.checkpoint();
  }
}

function heldFileEvent(run: ZoomRun, owner: Owner, matter: ChatTarget, f: HeldFile): CollectEvent {
  const item = heldFileItem(owner, matter, f);
  if (f.ready_for_download === false) {
    // Zoom is still preparing the export: the next run lists the matter again and takes it then.
    return {
      type: 'error',
      reason: `the legal hold export ${f.file_key} of matter ${matter.name} for ${owner.email || owner.id} is not ready for download yet; the next run takes it`,
      kind: 'legal_hold_file',
      sourceId: item.sourceId,
      name: item.path,
      custodian: owner.id,
    };
  }
  const url = run.api.url(mattersPath(matter.id, '/files/download'), { file_key: f.file_key });
  // total_file_size is the held files' size, not necessarily the zip's: the download is not checked against it.
  return { type: 'item', item, content: downloadSource(run.ctx.http, url, undefined, run.isZoomHost) };
}

export function heldFileItem(owner: Owner, matter: ChatTarget, f: HeldFile): ItemInput {
  const key = f.file_key ?? '';
  const span = [f.file_start_date, f.file_end_date].filter(Boolean).join('_');
  const name = segment(`legal-hold-${span || key.slice(0, 12)}-${key.slice(0, 8)}.zip`, key);
  return {
    kind: 'legal_hold_file',
    sourceId: `${matter.id}|${key}`,
    name,
    path: `/${segment(owner.email, owner.id)}/chats/legal-hold/${segment(matter.name, matter.id)}/${name}`,
    custodian: owner.id,
    size: null,
    mimeType: 'application/zip',
    createdAt: null,
    modifiedAt: null,
    // Zoom may extend an export while the matter runs: a new count, size or end is a new version.
    version: `${f.file_count ?? ''}|${f.total_file_size ?? ''}|${f.file_end_date ?? ''}`,
    text: null,
    metadata: {
      matter_id: matter.id,
      matter_name: matter.name,
      file_key: key,
      file_count: f.file_count ?? null,
      file_start_date: f.file_start_date ?? null,
      file_end_date: f.file_end_date ?? null,
      total_file_size: f.total_file_size ?? null,
    },
  };
}
