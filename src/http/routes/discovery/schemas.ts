import { Type, type TSchema } from 'typebox';

// Responses are serialized through these schemas: every object keeps properties it does not declare
// (`additionalProperties: true`), so the documented fields are a floor, never a filter, and a provider's
// profile fields reach the client unchanged.
const open = <T extends Record<string, TSchema>>(properties: T, description?: string) =>
  Type.Object(properties, { additionalProperties: true, ...(description && { description }) });
const text = (description?: string) =>
  Type.Optional(Type.Union([Type.String(), Type.Null()], description ? { description } : {}));
const cursor = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

export const Limit = Type.Optional(
  Type.Integer({
    minimum: 1,
    maximum: 999_999_999_999_999,
    description:
      'Page size. `conf`: default and maximum 300. `edrive`: default 100, maximum 999. Larger values are clamped.',
  }),
);

const ConfUser = open(
  {
    id: Type.String({ description: 'Use it in `account_owners` filters.' }),
    data: open(
      { id: text(), first_name: text(), last_name: text(), email: text(), status: text('active, inactive or pending') },
      'The profile as the meeting platform returns it.',
    ),
  },
  'A meeting-platform user (`conf`).',
);

export const ConfUsersPage = open(
  {
    results: Type.Array(ConfUser),
    next_page_token: cursor('Pass it as `offset` for the next page; null on the last page.'),
  },
  '`conf` collections.',
);

const DriveUser = open(
  {
    id: Type.String({ description: 'Use it as a top-level key of `sync_filters`.' }),
    display_name: text(),
    mail: text(),
    user_principal_name: text(),
    job_title: text(),
    department: text(),
    office_location: text(),
  },
  'A drive user (`edrive`).',
);

export const DriveUsersPage = open(
  {
    entries: Type.Array(DriveUser),
    limit: Type.Integer({ description: 'The page size used.' }),
    next_marker: cursor('Pass it as `marker` for the next page; null on the last page.'),
  },
  '`edrive` collections.',
);

const Channel = open(
  { id: Type.String(), name: text(), is_private: Type.Optional(Type.Boolean()) },
  'A channel (`conf`).',
);

export const ChannelsPage = open({
  results: Type.Array(Channel),
  next_page_token: cursor('Pass it as `offset` for the next page; null on the last page.'),
});

const PathElement = open({ id: Type.String(), name: Type.String() });

const Folder = open(
  {
    id: Type.String({ description: 'Use it in `selected` and `excluded` entries.' }),
    name: Type.String(),
    link: text('Direct URL of the folder.'),
    size: Type.Optional(
      Type.Union([Type.Number(), Type.Null()], { description: 'Bytes of everything beneath the folder.' }),
    ),
    created_datetime: text('ISO 8601 UTC'),
    last_modified_datetime: text('ISO 8601 UTC'),
    sorted_path_elements: Type.Array(PathElement, { description: 'From the drive root to the folder.' }),
  },
  'A folder (`edrive`).',
);

export const FoldersPage = open({
  results: Type.Array(Folder),
  total_count_label: Type.String({ description: 'Human-readable count, e.g. "12 folders".' }),
  _next: cursor('Opaque: pass it as `cursor` for the next page; null on the last page.'),
});
