// Named schemas become OpenAPI components. Route schemas carry their shared shapes inline (Fastify
// validates and serializes each route with a self-contained schema); a schema marked with
// `named()` (api/schemas/common.ts) is replaced, wherever it appears in the served document, by a
// `$ref` to `#/components/schemas/<name>`. Generators then make one `Domain` type, not one per
// operation and status. Innermost first, so a component refers to the components inside it.
import { COMPONENT_KEY } from '../schemas/common.ts';
import type { TSchema } from 'typebox';

type Json = unknown;
type JsonObject = Record<string, Json>;

const isObject = (v: Json): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON with sorted keys: two schemas are the same shape when these are equal. */
function stable(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  if (isObject(value)) return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${stable(value[k])}`).join(',')}}`;
  return JSON.stringify(value);
}

/** Keys whose values are data, not schemas: nothing inside them is hoisted. */
const DATA_KEYS = new Set(['example', 'examples', 'default', 'enum', 'const']);

/**
 * Replaces every named schema in `sections` of `doc` by a `$ref`, adding the component to
 * `doc.components.schemas`. A use whose description differs from the definition's keeps it beside
 * the `$ref` (OpenAPI 3.1 allows it). Two different shapes under one name are a programming error.
 */
export function hoistComponents(doc: JsonObject, definitions: ReadonlyMap<string, TSchema>, sections: readonly string[] = ['paths', 'webhooks']): void {
  const components = ((doc.components ??= {}) as JsonObject);
  const schemas = ((components.schemas ??= {}) as JsonObject);
  const shapes = new Map<string, string>();

  const visit = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(visit);
    if (!isObject(node)) return node;
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(node)) out[k] = DATA_KEYS.has(k) ? v : visit(v);
    const name = out[COMPONENT_KEY];
    if (typeof name !== 'string') return out;
    const { [COMPONENT_KEY]: _name, description, ...shape } = out;
    const key = stable(shape);
    const known = shapes.get(name);
    if (known === undefined) {
      const defined = (definitions.get(name) as { description?: unknown } | undefined)?.description;
      const own = typeof defined === 'string' ? defined : undefined;
      schemas[name] = own === undefined ? shape : { ...shape, description: own };
      shapes.set(name, key);
    } else if (known !== key) {
      throw new Error(`the OpenAPI component ${name} has two different shapes:\n${known}\n${key}`);
    }
    const ref: JsonObject = { $ref: `#/components/schemas/${name}` };
    if (typeof description === 'string' && description !== (schemas[name] as JsonObject).description) ref.description = description;
    return ref;
  };

  for (const section of sections) {
    if (doc[section] !== undefined) doc[section] = visit(doc[section]);
  }
  // Components in name order: stable, and easy to find in a reader.
  components.schemas = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)));
}
