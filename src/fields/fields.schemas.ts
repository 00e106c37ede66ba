// **The** shape of a field, declared once as TypeBox schemas: the API's field (in the
// document detail, documents/documents.schemas.ts) and the sender's own description of one
// (field-rules.ts, `FieldInput`) are made of the same placement; their TypeScript types are
// derived from these (`Static<>`), never written again by hand.
import { type Static, Type } from '@sinclair/typebox';
import { Enum, Uuid } from '../http/schema-kinds.ts';
import { fieldTypes, fieldTypesInApi } from './field-types.ts';

/** Where a field is and what it asks: the part of a field its sender places. */
const fieldPlacement = {
  type: Enum(fieldTypes, { description: fieldTypesInApi }),
  page: Type.Integer({ minimum: 1, description: 'The page of the original PDF, from 1' }),
  x: Type.Number({
    description:
      'PDF points from the left of the page as displayed (after its rotation, within its crop box)',
  }),
  y: Type.Number({ description: 'PDF points from the bottom of the page as displayed' }),
  width: Type.Number({ description: 'PDF points' }),
  height: Type.Number({ description: 'PDF points' }),
  required: Type.Boolean(),
  label: Type.Union([Type.String(), Type.Null()], { description: 'Null for none' }),
};
export const FieldPlacementSchema = Type.Object(fieldPlacement);
export type FieldPlacement = Static<typeof FieldPlacementSchema>;

/** A field a recipient fills, placed on the original PDF (not its value: that is in the sealed PDF). */
export const FieldSchema = Type.Object({
  id: Uuid,
  ...fieldPlacement,
  filled: Type.Boolean({
    description:
      'Whether it is filled: by the recipient (they fill all theirs when they sign), or by the sender when the document was made (`prefilled`)',
  }),
  value: Type.Union([Type.String(), Type.Boolean(), Type.Null()], {
    description:
      'Once filled: the text entered or filled in (text, initials, name, email; date as YYYY-MM-DD), or a checkbox’s true or false. Null before, for an optional field left empty, and always for a signature (it is drawn in the sealed PDF; `filledAt` says when it was signed)',
  }),
  filledAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description:
      'When the recipient signed, filling it (or, for a prefilled field, signing with its value shown); null until then',
  }),
  prefilled: Type.Boolean({
    description:
      'The sender gave its value when the document was made (a text or checkbox field’s `value` on create): the recipient sees it and cannot change it',
  }),
});
/** A field as the API describes it (GET /documents/{id}). */
export type DocumentField = Static<typeof FieldSchema>;
