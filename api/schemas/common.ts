import { Type, type TSchema } from 'typebox';

export const ErrorResponse = Type.Object({
  error: Type.Object({
    code: Type.String({ description: 'Stable machine-readable code; branch on this.' }),
    message: Type.String({ description: 'Human-readable explanation, safe to show.' }),
    request_id: Type.String({ description: 'The X-Request-Id of the request (yours when sane, else generated).' }),
    param: Type.Optional(Type.String({ description: 'The request field the error is about.' })),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  }),
}, { description: 'Error envelope returned with every non-2xx status.' });

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 timestamp with offset' });

export function DataOf<T extends TSchema>(schema: T) {
  return Type.Object({ data: schema });
}

export function PageOf<T extends TSchema>(schema: T) {
  return Type.Object({
    data: Type.Array(schema),
    has_more: Type.Boolean(),
    next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page; null on the last page.' }),
  });
}

export const ListQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
};
