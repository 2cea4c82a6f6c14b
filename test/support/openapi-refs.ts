// The served OpenAPI document names its shared shapes as components (`$ref`s); ajv and the tests'
// walkers want one self-contained schema. A `$ref`'s siblings (a use's own description) are kept.
type Json = any;

export function resolveRefs(doc: Json, schema: Json): Json {
  if (Array.isArray(schema)) return schema.map((s) => resolveRefs(doc, s));
  if (schema && typeof schema === 'object') {
    if (typeof schema.$ref === 'string') {
      const name = /^#\/components\/schemas\/(.+)$/.exec(schema.$ref)?.[1];
      if (!name || !doc.components?.schemas?.[name]) throw new Error(`unresolvable $ref ${schema.$ref}`);
      const { $ref: _ref, ...siblings } = schema;
      return { ...resolveRefs(doc, doc.components.schemas[name]), ...siblings };
    }
    return Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$id').map(([k, v]) => [k, resolveRefs(doc, v)]));
  }
  return schema;
}
