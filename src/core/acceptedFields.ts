import type { FieldErrors } from './problem.ts';

/**
 * Reading a body whose schema check failed somewhere, to check the rest of it too: the domain
 * checks see only the fields the schema took, so every problem is listed once.
 */
export function objectOrEmpty(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** A field's value when the schema found nothing wrong with it (and it has the type asked for). */
export function accepted<T>(schemaErrors: FieldErrors, name: string, value: unknown, type: 'string' | 'number'): T | undefined {
  return !Object.hasOwn(schemaErrors, name) && typeof value === type ? (value as T) : undefined;
}
