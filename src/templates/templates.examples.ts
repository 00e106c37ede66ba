// The examples of the contract's templates (issue 38), in the example workspace of
// documents.examples.ts: the service level agreement as a template, its two roles, a price
// asked of its user, and documents made from it (as sending.examples.ts makes one).
import { createdDocumentExample, signingUrlExample } from '../sending/sending.examples.ts';

export const templateId = '6a8c0e2f-4b6d-4f8a-9c1e-3a5c7e9b1d4f';
const clientRole = '7b9d1f3a-5c7e-4a9b-8d2f-4b6d8f0a2c5e';
const companyRole = '8c0e2a4b-6d8f-4b0c-9e3a-5c7e9a1b3d6f';

/** The service level agreement as a template: its PDF, its two roles and their fields. */
export const templateExample = {
  id: templateId,
  name: 'Service level agreement',
  title: 'Service level agreement',
  createdAt: '2026-03-01T10:00:00.000Z',
  updatedAt: '2026-03-01T10:20:00.000Z',
  documents: 12,
  text: 'Please sign the agreement for the coming year.',
  expiresInSeconds: 2592000,
  remindEveryDays: 3,
  file: {
    sha256: '1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a2c4e6a8b0d1f3a5c7e9b2d',
    bytes: 61204,
    pages: 2,
  },
  roles: [
    {
      id: clientRole,
      name: 'Client',
      role: 'signer',
      signingOrder: 1,
      signingMethod: 'standard',
      fields: [
        {
          id: '9d1f3b5c-7e9a-4c1d-8f4b-6d8f0b2c4e7a',
          type: 'signature',
          page: 2,
          x: 72,
          y: 120,
          width: 180,
          height: 48,
          required: true,
          label: null,
          maxLength: null,
          senderFills: false,
        },
        {
          id: 'ae2a4c6d-8f0b-4d2e-9a5c-7e9a1c3d5f8b',
          type: 'text',
          page: 1,
          x: 380,
          y: 640,
          width: 140,
          height: 20,
          required: true,
          label: 'Monthly fee',
          maxLength: null,
          senderFills: true,
        },
      ],
    },
    {
      id: companyRole,
      name: 'Company',
      role: 'signer',
      signingOrder: 2,
      signingMethod: 'email-code',
      fields: [
        {
          id: 'bf3b5d7e-9a1c-4e3f-8b6d-8f0b2d4e6a9c',
          type: 'signature',
          page: 2,
          x: 320,
          y: 120,
          width: 180,
          height: 48,
          required: true,
          label: null,
          maxLength: null,
          senderFills: false,
        },
      ],
    },
  ],
};

const {
  text: _text,
  expiresInSeconds: _e,
  remindEveryDays: _r,
  file: _f,
  roles: _roles,
  ...summary
} = templateExample;
/** The template as the list shows it. */
export const templateSummaryExample = summary;

/** `POST /templates`: the PDF (shortened here), the roles, their fields, a price asked of its user. */
export const templateBodyExample = {
  name: 'Service level agreement',
  title: 'Service level agreement',
  text: 'Please sign the agreement for the coming year.',
  file: 'JVBERi0xLjcKJcfsj6IKMSAwIG9iago8PC9UeXBlL0NhdGFsb2cvUGFnZXMgMiAwIFI+PgplbmRvYmoK…',
  roles: [
    { name: 'Client', role: 'signer', signingOrder: 1, signingMethod: 'standard' },
    { name: 'Company', role: 'signer', signingOrder: 2, signingMethod: 'email-code' },
  ],
  fields: [
    { role: 'Client', type: 'signature', page: 2, x: 72, y: 120, width: 180, height: 48 },
    {
      role: 'Client',
      type: 'text',
      page: 1,
      x: 380,
      y: 640,
      width: 140,
      height: 20,
      label: 'Monthly fee',
      senderFills: true,
    },
    { role: 'Company', type: 'signature', page: 2, x: 320, y: 120, width: 180, height: 48 },
  ],
  remindEveryDays: 3,
};

const { file: _file, ...replaceBody } = templateBodyExample;
/** `PUT /templates/{id}`: a replacement keeps the PDF, so no `file`. */
export const replaceBodyExample = replaceBody;

/** `POST /templates/{id}/documents`: two documents, the second with a mistyped address. */
export const useBodyExample = {
  items: [
    {
      recipients: {
        Client: { email: 'ann.lee@northwind.example', fullName: 'Ann Lee' },
        Company: { email: 'bob.ray@northwind.example', fullName: 'Bob Ray' },
      },
      values: { 'Monthly fee': '1,200 EUR' },
      send: true,
    },
    {
      recipients: {
        Client: { email: 'carl@', fullName: 'Carl Diaz' },
        Company: { email: 'bob.ray@northwind.example', fullName: 'Bob Ray' },
      },
      values: { 'Monthly fee': '900 EUR' },
      send: true,
    },
  ],
};

/** Its answer: the first made and sent, the second refused at its pointer. */
export const madeExample = {
  documents: [{ index: 0, document: { ...createdDocumentExample, signingUrls: [] } }],
  refused: [{ index: 1, error: 'invalid-body', pointer: '/items/1/recipients/Client/email' }],
};

/** The answer to an item with `delivery: "none"`: its links, for the integrator to deliver. */
export const madeDeliveryNoneExample = {
  documents: [{ index: 0, document: { ...createdDocumentExample, signingUrls: [signingUrlExample()] } }],
  refused: [],
};
