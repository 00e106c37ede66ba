// Schema pieces every area's TypeBox schemas share, in a module that imports no area (so
// fields/ and documents/ can both build on them without importing each other): a closed
// list of strings, and the service's ids.
import { Kind, Type, TypeRegistry } from '@sinclair/typebox';

/** An id the service made: a lower-case UUID. */
export const Uuid = Type.String({ format: 'uuid' });

// A closed list of strings as a JSON Schema `enum` (a TypeBox union of literals is an anyOf
// of consts), with a kind of its own so that TypeBox's Value checks it too (the endpoint
// form of the web application reads its errors with Value.Errors).
if (!TypeRegistry.Has('StringEnum')) {
  TypeRegistry.Set<{ enum: string[] }>(
    'StringEnum',
    (schema, value) => typeof value === 'string' && schema.enum.includes(value),
  );
}

/** One of the closed list `values`. */
export function Enum<T extends string>(values: readonly T[], options: { description?: string } = {}) {
  return Type.Unsafe<T>({ [Kind]: 'StringEnum', type: 'string', enum: [...values], ...options });
}
