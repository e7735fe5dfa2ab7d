type Node = unknown;

/** A copy of a route schema in which each subschema with one of these `$id`s is titled by it. */
export function titleById(schema: Node, names: string[]): Node {
  if (Array.isArray(schema)) return schema.map((s) => titleById(s, names));
  if (!schema || typeof schema !== 'object') return schema;
  const record = schema as Record<string, Node>;
  const copy = Object.fromEntries(Object.entries(record).map(([k, v]) => [k, titleById(v, names)]));
  if (typeof record.$id === 'string' && names.includes(record.$id)) copy.title = record.$id;
  return copy;
}

/**
 * Resources the routes embed inline (titled by `titleById`) become named components referenced
 * by `$ref`: the reference page lists Account and Payment once, generated clients get one type each.
 */
export function hoistNamedSchemas(doc: { paths?: Record<string, unknown>; components?: { schemas?: Record<string, unknown> } }, names: string[]) {
  const components = ((doc.components ??= {}).schemas ??= {});
  const visit = (node: Node, key?: string): Node => {
    if (key === 'example' || key === 'examples') return node;
    if (Array.isArray(node)) return node.map((n) => visit(n));
    if (!node || typeof node !== 'object') return node;
    const record = node as Record<string, Node>;
    const inner = Object.fromEntries(Object.entries(record).map(([k, v]) => [k, visit(v, k)]));
    if (record.type === 'object' && typeof record.title === 'string' && names.includes(record.title)) {
      components[record.title] ??= inner;
      return { $ref: `#/components/schemas/${record.title}` };
    }
    return inner;
  };
  doc.paths = visit(doc.paths) as Record<string, unknown>;
  return doc;
}
