import { TenantModel, identityOf, isoSeconds } from './model.ts';
import { documentContent } from './documents.ts';
import { SeededRandom } from './rng.ts';
import type { MsDrive, MsTenant, MsUser } from './types.ts';

export interface SeedOptions {
  seed: number;
  users: number;
  usersWithoutDrive: number;
  folderDepth: number;
  foldersPerLevel: number;
  filesPerFolder: number;
  fileSize: number;
  /** the file name extensions to pick from (default: Office documents, PDF, text, CSV, PNG, JSON) */
  extensions?: readonly string[];
}

const GIVEN = [
  'Adele',
  'Alex',
  'Diego',
  'Grady',
  'Isaiah',
  'Johanna',
  'Joni',
  'Lee',
  'Lidia',
  'Lynne',
  'Megan',
  'Miriam',
  'Nestor',
  'Patti',
  'Pradeep',
];
const SURNAMES = [
  'Vance',
  'Wilber',
  'Siciliani',
  'Archie',
  'Langer',
  'Lorenz',
  'Sherman',
  'Gu',
  'Holloway',
  'Robbins',
  'Bowen',
  'Graham',
  'Wilke',
  'Fernandez',
  'Gupta',
];
const JOBS = [
  'Retail Manager',
  'Marketing Assistant',
  'HR Manager',
  'Designer',
  'Attorney',
  'Product Manager',
  'Developer',
];
const DEPARTMENTS = ['Retail', 'Marketing', 'HR', 'Operations', 'Legal', 'Engineering', 'Finance'];
const OFFICES = ['18/2111', '131/1104', '23/3101', '20/1109', '19/2106'];
const FOLDERS = ['Projects', 'Finance', 'Legal Holds', 'Q3 Planning', 'Archive', 'Customers', 'Résumés', 'Design'];
const FILE_STEMS = ['report', 'Budget 2024', 'notes', 'contract – signed', 'minutes', 'diagram', 'export', 'proposal'];
const EXTENSIONS = ['docx', 'xlsx', 'pdf', 'txt', 'csv', 'png', 'pptx', 'json'];
const SEED_EPOCH = Date.UTC(2023, 0, 2, 8, 0, 0);

export function buildTenant(opts: SeedOptions): TenantModel {
  const rng = new SeededRandom(opts.seed);
  const tenantId = rng.guid();
  const slug = `contoso${opts.seed % 1000}`;
  const tenant: MsTenant = {
    id: tenantId,
    domain: `${slug}.onmicrosoft.com`,
    displayName: `Contoso Sandbox ${opts.seed}`,
    users: [],
  };
  const model = new TenantModel(tenant, rng);
  const withDrive = Math.max(0, opts.users - opts.usersWithoutDrive);
  for (let i = 0; i < opts.users; i++) tenant.users.push(makeUser(rng, tenant, i, i >= withDrive ? i - withDrive : -1));
  let clock = SEED_EPOCH;
  const tick = () => {
    clock += rng.int(60, 5 * 86_400) * 1000;
    return isoSeconds(new Date(clock));
  };
  for (const user of tenant.users) {
    if (user.missingDrive) continue;
    user.drive = makeDrive(model, user, slug, opts, tick);
  }
  return model;
}

function makeUser(rng: SeededRandom, tenant: MsTenant, index: number, missingIndex: number): MsUser {
  const givenName = GIVEN[index % GIVEN.length];
  const surname = SURNAMES[(index * 7 + Math.floor(index / GIVEN.length)) % SURNAMES.length];
  const suffix = index < GIVEN.length ? '' : String(Math.floor(index / GIVEN.length));
  const alias = `${givenName}${surname[0]}${suffix}`;
  const user: MsUser = {
    id: rng.guid(),
    userPrincipalName: `${alias}@${tenant.domain}`,
    displayName: `${givenName} ${surname}`,
    givenName,
    surname,
    mail: `${alias}@${tenant.domain}`,
    jobTitle: rng.pick(JOBS),
    department: rng.pick(DEPARTMENTS),
    officeLocation: rng.pick(OFFICES),
    accountEnabled: true,
    userType: 'Member',
    drive: null,
  };
  if (missingIndex >= 0) {
    // Users without a OneDrive alternate between a guest (UPN with #EXT#) and a disabled room mailbox,
    // and between the two documented 404 bodies.
    if (missingIndex % 2 === 0) {
      const external = `${alias.toLowerCase()}_fabrikam.com`;
      user.userPrincipalName = `${external}#EXT#@${tenant.domain}`;
      user.mail = `${alias.toLowerCase()}@fabrikam.com`;
      user.userType = 'Guest';
      user.jobTitle = null;
      user.department = null;
      user.officeLocation = null;
    } else {
      user.displayName = `Conf Room ${surname}`;
      user.accountEnabled = false;
    }
    user.missingDrive = missingIndex % 2 === 0 ? 'mysiteNotFound' : 'fileNotFound';
  }
  return user;
}

function makeDrive(model: TenantModel, user: MsUser, slug: string, opts: SeedOptions, tick: () => string): MsDrive {
  const rng = model.rng;
  const personal = user.userPrincipalName.toLowerCase().replace(/[^a-z0-9]/g, '_');
  const created = tick();
  const drive: MsDrive = {
    id: rng.driveId(),
    ownerId: user.id,
    webUrl: `https://${slug}-my.sharepoint.com/personal/${personal}/Documents`,
    createdDateTime: created,
    rootId: '',
    items: new Map(),
    changeSeq: 0,
  };
  const by = identityOf(user);
  const root = model.newItem(drive, { name: 'root', parentId: null, kind: 'folder', by, at: created });
  drive.rootId = root.id;
  let fileCounter = 0;
  const fill = (parentId: string, depth: number) => {
    const usedNames = new Set<string>();
    for (let f = 0; f < opts.filesPerFolder; f++) {
      let name = `${rng.pick(FILE_STEMS)} ${++fileCounter}.${rng.pick(opts.extensions ?? EXTENSIONS)}`;
      while (usedNames.has(name.toLowerCase())) name = `copy of ${name}`;
      usedNames.add(name.toLowerCase());
      const size = rng.int(1, Math.max(1, opts.fileSize * 2));
      const content = documentContent(name, opts.seed, `${drive.id}/${fileCounter}`, size);
      const file = model.newItem(drive, { name, parentId, kind: 'file', by, at: tick(), content });
      file.lastModifiedDateTime = file.changedAt = tick();
    }
    if (depth >= opts.folderDepth) return;
    for (let d = 0; d < opts.foldersPerLevel; d++) {
      let name = FOLDERS[(d + depth * 3) % FOLDERS.length];
      if (d >= FOLDERS.length) name = `${name} ${d}`;
      while (usedNames.has(name.toLowerCase())) name = `${name} (2)`;
      usedNames.add(name.toLowerCase());
      const folder = model.newItem(drive, { name, parentId, kind: 'folder', by, at: tick() });
      fill(folder.id, depth + 1);
    }
  };
  fill(root.id, 0);
  return drive;
}
