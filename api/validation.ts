// Request validation: JSON bodies are checked strictly (no type coercion, unknown fields
// rejected by the schemas); query strings and path params are coerced from text, as they must be.
import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({ allErrors: false, coerceTypes: coerce ? 'array' : false, useDefaults: true, removeAdditional: false, strict: false });
  addFormats.default(ajv);
  return ajv;
}

const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
};

/** The field an ajv error is about, as the client sent it (`param` in the error envelope). */
export function paramOf(error: ErrorObject | undefined): string | undefined {
  if (!error) return undefined;
  const params = error.params as Record<string, unknown>;
  const base = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const child = (params.missingProperty ?? params.additionalProperty) as string | undefined;
  if (child) return base ? `${base}.${child}` : child;
  return base || undefined;
}

export function describeValidationError(error: ErrorObject | undefined, part: string | undefined, all: readonly ErrorObject[] = []): string {
  if (!error) return 'the request is not valid';
  const param = paramOf(error);
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'const') {
    // A union of literals (a plan, a status) fails one `const` per branch: name every allowed value.
    const allowed = all.filter((e) => e.keyword === 'const' && e.instancePath === error.instancePath).map((e) => String((e.params as { allowedValue?: unknown }).allowedValue));
    if (allowed.length > 1) return `${param ?? part ?? 'body'} must be one of: ${allowed.join(', ')}`;
  }
  // A fixed set (a plan, a status, an event kind: StringEnum in api/schemas/common.ts): name every allowed value.
  if (error.keyword === 'enum') return `${param ?? part ?? 'body'} must be one of: ${((params.allowedValues as unknown[] | undefined) ?? []).map(String).join(', ')}`;
  if (error.keyword === 'required') return `${param} is required`;
  if (error.keyword === 'additionalProperties') return `${param} is not a known field${part === 'querystring' ? ' of the query string' : ''}`;
  if (error.keyword === 'type') return `${param ?? part ?? 'body'} must be of type ${String(params.type)}`;
  return `${param ?? part ?? 'body'} ${error.message ?? 'is not valid'}`;
}
