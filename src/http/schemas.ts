import { Type, type TSchema } from 'typebox';

export const ErrorBody = Type.Object(
  {
    code: Type.String({ examples: ['00404_not_found'] }),
    id: Type.String({ description: 'Equals the X-Correlation-ID response header. Quote it when contacting support.' }),
    title: Type.String(),
    detail: Type.String(),
    links: Type.Object({ about: Type.String() }),
    source: Type.Union([Type.Null(), Type.Object({ pointer: Type.String() })]),
  },
  {
    $id: 'Error',
    description: 'The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749).',
  },
);

/** The error responses a route can give, for the OpenAPI document. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, Type.Ref('Error')]));
}

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const Created = Type.Object({ onna_id: Type.String() });

export const NoContent = Type.Null({ description: 'No content' });

export const PageQuery = Type.Object({
  cursor: Type.Optional(Type.String({ maxLength: 512, description: 'The `cursor` of the previous page.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
});
