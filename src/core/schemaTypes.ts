import { Type, type TSchema, type Static } from 'typebox';

/**
 * Schema shapes that fast-json-stringify serializes on its fast path. `anyOf` (what TypeBox
 * makes of unions) makes it test every value against each branch; `enum` and a type list do not.
 */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export function Nullable<T extends TSchema>(schema: T) {
  const { type, ...rest } = schema as unknown as { type: string };
  return Type.Unsafe<Static<T> | null>({ ...rest, type: [type, 'null'] });
}
