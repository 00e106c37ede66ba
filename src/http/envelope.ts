// The response envelope (spec, Errors): `{ok: true, data}` for success, with `nextCursor`
// beside `data` on lists; `{ok: false, error: <code>}` for failure, with `pointer` beside
// `error` when a request body was refused (the member at fault, never a message). Schemas
// here are used for serialisation and for docs, so responses can carry nothing undeclared.
import { type TSchema, Type } from '@sinclair/typebox';

export function okEnvelope<T extends TSchema>(data: T) {
  return Type.Object({ ok: Type.Literal(true), data }, { additionalProperties: false });
}

export function listEnvelope<T extends TSchema>(item: T) {
  return Type.Object(
    { ok: Type.Literal(true), data: Type.Array(item), nextCursor: Type.Union([Type.String(), Type.Null()]) },
    { additionalProperties: false },
  );
}

export const errorEnvelope = Type.Object(
  {
    ok: Type.Literal(false),
    error: Type.String(),
    pointer: Type.Optional(
      Type.String({
        description:
          'On a refused request body: a JSON Pointer (RFC 6901) to the member at fault, such as `/recipients/1/email` (`""` for the body as a whole). A pointer, never a message.',
      }),
    ),
  },
  { additionalProperties: false },
);

export function ok<T>(data: T): { ok: true; data: T } {
  return { ok: true, data };
}
