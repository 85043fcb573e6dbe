import { Type } from 'typebox';

export { Item, ItemVersion, Run } from '../../../read/view-schemas.ts';

export const ItemParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  item_id: Type.String({ minLength: 1, maxLength: 64 }),
});

export const RunParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  run_id: Type.String({ minLength: 1, maxLength: 64 }),
});

export const VersionParams = Type.Object({
  ...ItemParams.properties,
  version_number: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    description: 'From GET …/versions: 1 is the oldest superseded version.',
  }),
});
