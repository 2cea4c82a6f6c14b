import { Type, type TSchema, type TUnsafe } from 'typebox';

/**
 * The key that names a schema as an OpenAPI component. Route schemas stay self-contained (Fastify
 * validates and serializes them as they are); the served document replaces each named schema with
 * a `$ref` to `#/components/schemas/<name>` (api/plugins/openapi-components.ts), so generated
 * clients get one `Domain`, one `Error`, one `DomainStatus` instead of a copy per operation.
 */
export const COMPONENT_KEY = 'x-component';

/** The definitions of named schemas, by name: their own description is the component's. */
export const namedSchemas = new Map<string, TSchema>();

/**
 * Names `schema` as the component `name` (mutates and returns it, so TypeBox's kind is kept). The
 * first schema given a name defines its description; the document refuses two different shapes
 * under one name (api/plugins/openapi-components.ts).
 */
export function named<T extends TSchema>(name: string, schema: T): T {
  if (!namedSchemas.has(name)) namedSchemas.set(name, schema);
  return Object.assign(schema, { [COMPONENT_KEY]: name });
}

/** The component name of a schema, if it has one. */
export function componentName(schema: TSchema): string | undefined {
  const name = (schema as Record<string, unknown>)[COMPONENT_KEY];
  return typeof name === 'string' ? name : undefined;
}

/**
 * A string from a fixed set, as JSON Schema's `enum` (what generators turn into one enum type),
 * not TypeBox's union of one-value literals (`anyOf` of `const`s: one class per value). Typed as
 * the union of the values; a refusal names them all (api/validation.ts, keyword `enum`).
 */
export function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string } = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export const ErrorObject = named('ErrorObject', Type.Object({
  code: Type.String({ description: 'Stable machine-readable code; branch on this.' }),
  message: Type.String({ description: 'Human-readable explanation, safe to show.' }),
  request_id: Type.String({ description: 'The X-Request-Id of the request (yours when sane, else generated).' }),
  param: Type.Optional(Type.String({ description: 'The request field the error is about.' })),
  details: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Facts about this error, by code (e.g. `reason` of a refused hostname, `cause` of a widget error).' })),
}, { description: 'What went wrong.' }));

export const ErrorResponse = named('Error', Type.Object({
  error: ErrorObject,
}, { description: 'Error envelope returned with every non-2xx status.' }));

/** RFC 3339, always UTC with milliseconds: what every timestamp of the API looks like. */
export const TIMESTAMP_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$';
export const Timestamp = Type.String({ format: 'date-time', pattern: TIMESTAMP_PATTERN, description: 'RFC 3339 timestamp, UTC with milliseconds (2026-11-26T15:04:27.666Z)' });

/**
 * `{data: schema}`: the answer of a read or write of one resource. Named `<Name>Response` when
 * the resource is named; `description` is the response's (the operation's own words).
 */
export function DataOf<T extends TSchema>(schema: T, description?: string) {
  const wrapper = Type.Object({ data: schema }, description ? { 'x-response-description': description } : {});
  const name = componentName(schema);
  return name ? named(`${name}Response`, wrapper) : wrapper;
}

/** One page of a list: named `<Name>List` when the item is named. */
export function PageOf<T extends TSchema>(schema: T, description?: string) {
  const page = Type.Object({
    data: Type.Array(schema, { description: 'This page, newest first' }),
    has_more: Type.Boolean({ description: 'True when another page follows' }),
    next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page; null on the last page.' }),
  }, description ? { 'x-response-description': description } : {});
  const name = componentName(schema);
  return name ? named(`${name}List`, page) : page;
}

export const ListQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Items per page, 1–100' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'The `next_cursor` of the previous page' })),
};

/** The `{id}` path parameter of a resource. */
export function IdParams(what: string) {
  return Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, description: `The ${what}'s id` }) });
}
