// Generated from docs/openapi.json by `npm run client:types`: do not edit by hand.

export type Document = {
  id: string;
  title: string;
  status: "draft" | "sent" | "viewed" | "signed" | "declined" | "expired";
  /** The public signing address, `{public_url}/sign/{id}` */
  url: string;
  /** ISO 8601 UTC with milliseconds and Z */
  createdAt: string;
  /** Null until the document is sent */
  sentAt: string | null;
  /** Null until every signer has signed */
  signedAt: string | null;
  /** Null when the document has no expiry */
  expiresAt: string | null;
  /** When the sender withdrew the document (its status is then `expired`, and `expiresAt` the same moment); null otherwise */
  withdrawnAt: string | null;
  /** Why an `expired` document ended: `withdrawn` by its sender, or `lapsed` when its time ran out; null for every other status */
  expiredReason: "withdrawn" | "lapsed" | null;
  /** Null when the document has no pricing block */
  value: Money | null;
};

export type Money = {
  /** In the currency's main unit (1234.5 is 1,234.50), excluding VAT */
  amount: number;
  /** ISO 4217 code */
  currency: string;
};

export type CompletedDocument = {
  id: string;
  title: string;
  status: "draft" | "sent" | "viewed" | "signed" | "declined" | "expired";
  /** The public signing address, `{public_url}/sign/{id}` */
  url: string;
  /** ISO 8601 UTC with milliseconds and Z */
  createdAt: string;
  /** Null until the document is sent */
  sentAt: string | null;
  /** Null until every signer has signed */
  signedAt: string | null;
  /** Null when the document has no expiry */
  expiresAt: string | null;
  /** When the sender withdrew the document (its status is then `expired`, and `expiresAt` the same moment); null otherwise */
  withdrawnAt: string | null;
  /** Why an `expired` document ended: `withdrawn` by its sender, or `lapsed` when its time ran out; null for every other status */
  expiredReason: "withdrawn" | "lapsed" | null;
  /** Null when the document has no pricing block */
  value: Money | null;
  files: Array<{
    /** original: the PDF the signers saw; sealed: it with the certificate of completion, sealed */
    kind: "original" | "sealed";
    /** The file's SHA-256, lower-case hex */
    sha256: string;
    bytes: number;
    pages: number | null;
  }>;
};

export type DocumentDetail = {
  id: string;
  title: string;
  status: "draft" | "sent" | "viewed" | "signed" | "declined" | "expired";
  /** The public signing address, `{public_url}/sign/{id}` */
  url: string;
  /** ISO 8601 UTC with milliseconds and Z */
  createdAt: string;
  /** Null until the document is sent */
  sentAt: string | null;
  /** Null until every signer has signed */
  signedAt: string | null;
  /** Null when the document has no expiry */
  expiresAt: string | null;
  /** When the sender withdrew the document (its status is then `expired`, and `expiresAt` the same moment); null otherwise */
  withdrawnAt: string | null;
  /** Why an `expired` document ended: `withdrawn` by its sender, or `lapsed` when its time ran out; null for every other status */
  expiredReason: "withdrawn" | "lapsed" | null;
  /** Null when the document has no pricing block */
  value: Money | null;
  /** The language of its certificate of completion (a BCP 47 tag, e.g. `de`), as the sender chose it; null: the workspace’s default language when it is sealed */
  language: string | null;
  recipients: Array<DetailRecipient>;
  events: Array<DocumentEvent>;
  /** The original PDF once the document has one (uploaded, or made from its text when sent), then the sealed PDF once made */
  files: Array<DocumentFile>;
};

export type Recipient = {
  id: string;
  email: string;
  fullName: string;
  /** `signer` must sign; `viewer` only receives the document */
  role: "signer" | "viewer";
  /** `standard`: the link, a typed name and consent; `email-code`: also a code mailed to them */
  signingMethod: "standard" | "email-code";
  /** Lower orders sign first; equal orders in parallel */
  signingOrder: number;
  /** Null until this recipient signs (always for viewers) */
  signedAt: string | null;
  /** The language of their mails and signing page (a BCP 47 tag, e.g. `de`, `pt-BR`), as the sender chose it or they switched to; null: the workspace’s default language */
  language: string | null;
};

export type DetailRecipient = {
  id: string;
  email: string;
  fullName: string;
  /** `signer` must sign; `viewer` only receives the document */
  role: "signer" | "viewer";
  /** `standard`: the link, a typed name and consent; `email-code`: also a code mailed to them */
  signingMethod: "standard" | "email-code";
  /** Lower orders sign first; equal orders in parallel */
  signingOrder: number;
  /** Null until this recipient signs (always for viewers) */
  signedAt: string | null;
  /** The language of their mails and signing page (a BCP 47 tag, e.g. `de`, `pt-BR`), as the sender chose it or they switched to; null: the workspace’s default language */
  language: string | null;
  /** Null unless this recipient declined to sign */
  declinedAt: string | null;
  /** The reason they gave when they declined; null when they gave none, or did not decline */
  declineReason: string | null;
  /** The fields placed for this recipient, in the order they were placed; empty for none */
  fields: Array<Field>;
};

export type Field = {
  id: string;
  /** signature, initials, date (the date signed, filled by Signet), name, email, text or checkbox */
  type: "signature" | "initials" | "date" | "name" | "email" | "text" | "checkbox";
  /** The page of the original PDF, from 1 */
  page: number;
  /** PDF points from the left of the page as displayed (after its rotation, within its crop box) */
  x: number;
  /** PDF points from the bottom of the page as displayed */
  y: number;
  /** PDF points */
  width: number;
  /** PDF points */
  height: number;
  required: boolean;
  /** Null for none */
  label: string | null;
  /** Whether it is filled: by the recipient (they fill all theirs when they sign), or by the sender when the document was made (`prefilled`) */
  filled: boolean;
  /** Once filled: the text entered or filled in (text, initials, name, email; date as YYYY-MM-DD), or a checkbox’s true or false. Null before, for an optional field left empty, and always for a signature (it is drawn in the sealed PDF; `filledAt` says when it was signed) */
  value: string | boolean | null;
  /** When the recipient signed, filling it (or, for a prefilled field, signing with its value shown); null until then */
  filledAt: string | null;
  /** The sender gave its value when the document was made (a text or checkbox field’s `value` on create): the recipient sees it and cannot change it */
  prefilled: boolean;
};

export type DocumentEvent = {
  id: string;
  type: "document.sent" | "document.opened" | "document.signed" | "document.completed" | "document.declined" | "document.expired";
  /** Null for events no recipient caused (`document.sent`, `document.completed`, …) */
  recipientEmail: string | null;
  /** ISO 8601 UTC with milliseconds and Z */
  createdAt: string;
};

export type DocumentFile = {
  /** original: the PDF the signers saw; sealed: it with the certificate of completion, sealed */
  kind: "original" | "sealed";
  /** The file's SHA-256, lower-case hex */
  sha256: string;
  bytes: number;
  pages: number | null;
  /** Answers the PDF (Content-Disposition: attachment) without authentication for 15 minutes; outside /v1. Treat it as a secret. */
  downloadUrl: string;
};

export type NewDocument = {
  /** At most 200 characters once trimmed */
  title: string;
  /** The document’s text. Without a `file`, it is made into the PDF at sending (a document needs a PDF, a text or a pricing table to be sent) */
  text?: string;
  /** 1 to 20, at least one signer */
  recipients: Array<RecipientInput>;
  /** Fields on the PDF’s pages for signers to fill; only with a PDF */
  fields?: Array<FieldInput>;
  /** A pricing table drawn on the PDF made from `text` (and the document’s `value`): `{currency, pricesIncludeVat, items: [{name, quantity, unitPrice, vatRate, billing}]}`, amounts as decimal strings. */
  pricing?: {
    /** ISO 4217 code, e.g. "EUR" */
    currency?: string;
    pricesIncludeVat?: boolean;
    items?: Array<{
      name: string;
      /** A decimal written as a string, e.g. "2" or "0.5" */
      quantity: string;
      /** A decimal written as a string, e.g. "19.99" */
      unitPrice: string;
      /** Percent, as a string, e.g. "20" */
      vatRate: string;
      billing: {
        type: "one-off";
      } | {
        type: "recurring";
        interval: "week" | "month" | "quarter" | "year";
        periods: number;
      };
    }>;
  } | null;
  /** How long after sending it can be signed; 30 days (2592000) by default */
  expiresInSeconds?: number;
  /** Remind pending signers every this many days (1, 2, 3, 5, 7, 14) until it expires; null (the default) for never */
  remindEveryDays?: 1 | 2 | 3 | 5 | 7 | 14 | null;
  /** The language of its certificate of completion, a BCP 47 tag: `en`, `de`, `fr`, `es`, `it`, `pt-BR`, `nl`, `pl`, `cs`, `sv`, `uk`, `tr`, `ja`, `zh-CN`, `ko`, `ar`, `he` (read as a recipient’s `language` is). Null or absent: the workspace’s default language when it is sealed. Each recipient’s mails and pages follow their own `language` */
  language?: string | null;
  /** True: sent at once; false (the default): a draft */
  send?: boolean;
  /** `email` (the default): Signet mails each recipient their link, reminders, a withdrawal and the signed PDF. `none`: Signet mails no recipient; sending answers each link in `signingUrls` for you to deliver, and `signing-url` makes a fresh one */
  delivery?: "email" | "none";
  /** The PDF, in base64 (JSON requests; a multipart request sends it as its `file` part) */
  file?: string;
};

export type NewDocumentPart = {
  /** At most 200 characters once trimmed */
  title: string;
  /** The document’s text. Without a `file`, it is made into the PDF at sending (a document needs a PDF, a text or a pricing table to be sent) */
  text?: string;
  /** 1 to 20, at least one signer */
  recipients: Array<RecipientInput>;
  /** Fields on the PDF’s pages for signers to fill; only with a PDF */
  fields?: Array<FieldInput>;
  /** A pricing table drawn on the PDF made from `text` (and the document’s `value`): `{currency, pricesIncludeVat, items: [{name, quantity, unitPrice, vatRate, billing}]}`, amounts as decimal strings. */
  pricing?: {
    /** ISO 4217 code, e.g. "EUR" */
    currency?: string;
    pricesIncludeVat?: boolean;
    items?: Array<{
      name: string;
      /** A decimal written as a string, e.g. "2" or "0.5" */
      quantity: string;
      /** A decimal written as a string, e.g. "19.99" */
      unitPrice: string;
      /** Percent, as a string, e.g. "20" */
      vatRate: string;
      billing: {
        type: "one-off";
      } | {
        type: "recurring";
        interval: "week" | "month" | "quarter" | "year";
        periods: number;
      };
    }>;
  } | null;
  /** How long after sending it can be signed; 30 days (2592000) by default */
  expiresInSeconds?: number;
  /** Remind pending signers every this many days (1, 2, 3, 5, 7, 14) until it expires; null (the default) for never */
  remindEveryDays?: 1 | 2 | 3 | 5 | 7 | 14 | null;
  /** The language of its certificate of completion, a BCP 47 tag: `en`, `de`, `fr`, `es`, `it`, `pt-BR`, `nl`, `pl`, `cs`, `sv`, `uk`, `tr`, `ja`, `zh-CN`, `ko`, `ar`, `he` (read as a recipient’s `language` is). Null or absent: the workspace’s default language when it is sealed. Each recipient’s mails and pages follow their own `language` */
  language?: string | null;
  /** True: sent at once; false (the default): a draft */
  send?: boolean;
  /** `email` (the default): Signet mails each recipient their link, reminders, a withdrawal and the signed PDF. `none`: Signet mails no recipient; sending answers each link in `signingUrls` for you to deliver, and `signing-url` makes a fresh one */
  delivery?: "email" | "none";
};

export type RecipientInput = {
  /** Their email address; each recipient’s differs (ignoring case and look-alike letters) */
  email: string;
  /** As it appears on the certificate; the signer types it to sign */
  fullName: string;
  /** `signer` (the default) must sign; `viewer` only receives it */
  role?: "signer" | "viewer";
  /** `standard` (the default): the link, a typed name and consent; `email-code`: also a code mailed to them */
  signingMethod?: "standard" | "email-code";
  /** Lower orders are mailed and sign first; equal orders in parallel. 1 by default */
  signingOrder?: number;
  /** The language of their mails and signing page, a BCP 47 tag: `en`, `de`, `fr`, `es`, `it`, `pt-BR`, `nl`, `pl`, `cs`, `sv`, `uk`, `tr`, `ja`, `zh-CN`, `ko`, `ar`, `he` (a region Signet has no catalogue of reads as its language, e.g. `de-AT` as `de`; stored as listed). Null or absent: the workspace’s default language */
  language?: string | null;
};

export type FieldInput = {
  /** The email of the signer who fills it, as given in `recipients` */
  recipient: string;
  /** signature, initials, date (the date signed, filled by Signet), name, email, text or checkbox */
  type: "signature" | "initials" | "date" | "name" | "email" | "text" | "checkbox";
  /** The page of the PDF, from 1 */
  page: number;
  /** PDF points from the left of the page as displayed */
  x: number;
  /** PDF points from the bottom of the page as displayed */
  y: number;
  /** PDF points, at least 6 */
  width: number;
  /** PDF points, at least 6 */
  height: number;
  /** True by default */
  required?: boolean;
  label?: string | null;
  maxLength?: number | null;
  /** Filled in by you now (text and checkbox fields only): the recipient sees the value and cannot change it, and it is drawn in the sealed PDF. Null or absent: the recipient fills it */
  value?: string | boolean | null;
};

export type DeletedDocument = {
  id: string;
  deleted: true;
};

export type WrittenDocument = {
  id: string;
  title: string;
  status: "draft" | "sent" | "viewed" | "signed" | "declined" | "expired";
  /** The public signing address, `{public_url}/sign/{id}` */
  url: string;
  /** ISO 8601 UTC with milliseconds and Z */
  createdAt: string;
  /** Null until the document is sent */
  sentAt: string | null;
  /** Null until every signer has signed */
  signedAt: string | null;
  /** Null when the document has no expiry */
  expiresAt: string | null;
  /** When the sender withdrew the document (its status is then `expired`, and `expiresAt` the same moment); null otherwise */
  withdrawnAt: string | null;
  /** Why an `expired` document ended: `withdrawn` by its sender, or `lapsed` when its time ran out; null for every other status */
  expiredReason: "withdrawn" | "lapsed" | null;
  /** Null when the document has no pricing block */
  value: Money | null;
  /** The language of its certificate of completion (a BCP 47 tag, e.g. `de`), as the sender chose it; null: the workspace’s default language when it is sealed */
  language: string | null;
  recipients: Array<DetailRecipient>;
  events: Array<DocumentEvent>;
  /** The original PDF once the document has one (uploaded, or made from its text when sent), then the sealed PDF once made */
  files: Array<DocumentFile>;
  /** The personal links this send made, for a document with `delivery: none` (each recipient whose turn has come; later ones when their turn comes, with `signing-url`). Empty for a mailed document, and for a draft */
  signingUrls: Array<SigningUrl>;
};

export type SigningUrl = {
  recipientId: string;
  email: string;
  /** The recipient’s personal signing link. A secret, shown once: whoever holds it acts as the recipient (an `email-code` signer also needs the code mailed to them) */
  url: string;
};

export type WebhookEndpoint = {
  id: string;
  /** Public HTTPS on port 443, as normalised when stored */
  url: string;
  events: Array<"document.sent" | "document.opened" | "document.signed" | "document.completed" | "document.declined" | "document.expired">;
  /** True on creation; false when switched off, by hand or after 20 consecutive failures */
  enabled: boolean;
  /** Null for none */
  description: string | null;
  /** ISO 8601 UTC with milliseconds and Z */
  createdAt: string;
  /** Consecutive failed attempts, across deliveries */
  failureCount: number;
  /** `failures` when Signet paused it; null when enabled or switched off by hand */
  disabledReason: "failures" | null;
};

export type CreatedWebhookEndpoint = {
  id: string;
  /** Public HTTPS on port 443, as normalised when stored */
  url: string;
  events: Array<"document.sent" | "document.opened" | "document.signed" | "document.completed" | "document.declined" | "document.expired">;
  /** True on creation; false when switched off, by hand or after 20 consecutive failures */
  enabled: boolean;
  /** Null for none */
  description: string | null;
  /** ISO 8601 UTC with milliseconds and Z */
  createdAt: string;
  /** Consecutive failed attempts, across deliveries */
  failureCount: number;
  /** `failures` when Signet paused it; null when enabled or switched off by hand */
  disabledReason: "failures" | null;
  /** The signing secret (`whsec_…`): in this response only, never again */
  secret: string;
};

export type RotatedWebhookEndpoint = {
  id: string;
  /** Public HTTPS on port 443, as normalised when stored */
  url: string;
  events: Array<"document.sent" | "document.opened" | "document.signed" | "document.completed" | "document.declined" | "document.expired">;
  /** True on creation; false when switched off, by hand or after 20 consecutive failures */
  enabled: boolean;
  /** Null for none */
  description: string | null;
  /** ISO 8601 UTC with milliseconds and Z */
  createdAt: string;
  /** Consecutive failed attempts, across deliveries */
  failureCount: number;
  /** `failures` when Signet paused it; null when enabled or switched off by hand */
  disabledReason: "failures" | null;
  secret: string;
  previousSecretExpiresAt: string | null;
};

export type DeletedWebhookEndpoint = {
  id: string;
  deleted: true;
};

export type WebhookDelivery = {
  /** The X-Service-Delivery-Id of every attempt */
  id: string;
  /** The `id` of the body */
  eventId: string;
  eventType: "document.sent" | "document.opened" | "document.signed" | "document.completed" | "document.declined" | "document.expired" | "ping";
  status: "pending" | "delivered" | "dropped";
  attempts: number;
  /** ISO 8601 UTC with milliseconds and Z */
  createdAt: string;
  /** When the next attempt is due; null unless pending */
  nextAttemptAt: string | null;
  /** Null until delivered */
  deliveredAt: string | null;
  /** Oldest first */
  attemptLog: Array<DeliveryAttempt>;
};

export type DeliveryAttempt = {
  /** 1 for the first attempt */
  attempt: number;
  /** ISO 8601 UTC with milliseconds and Z */
  startedAt: string;
  durationMs: number;
  statusCode: number | null;
  errorClass: string | null;
};

export type ResendResult = {
  deliveryId: string;
  attempt: number;
  delivered: boolean;
  statusCode: number | null;
  errorClass: string | null;
  durationMs: number;
};

export type Template = {
  id: string;
  name: string;
  /** The title of the documents made from it */
  title: string;
  createdAt: string;
  updatedAt: string;
  /** How many documents were made from it */
  documents: number;
  /** The message of the documents made from it */
  text: string;
  expiresInSeconds: number;
  remindEveryDays: number | null;
  file: {
    sha256: string;
    bytes: number;
    pages: number;
  };
  /** In order, each with the fields it fills */
  roles: Array<{
    id: string;
    /** How the role is called, e.g. "Client": unique in the template (case aside) */
    name: string;
    /** `signer` must sign; `viewer` only receives the document */
    role: "signer" | "viewer";
    /** Lower orders are mailed and sign first; equal orders in parallel */
    signingOrder: number;
    /** `standard`: the link, a typed name and consent; `email-code`: also a code mailed to them */
    signingMethod: "standard" | "email-code";
    /** The language its recipient's mails and signing page default to, a BCP 47 tag: `en`, `de`, `fr`, `es`, `it`, `pt-BR`, `nl`, `pl`, `cs`, `sv`, `uk`, `tr`, `ja`, `zh-CN`, `ko`, `ar`, `he` (read as a recipient’s `language` is). Null or absent: the workspace’s default language. A use of the template may give each person their own */
    language?: string | null;
    fields: Array<{
      id: string;
      /** signature, initials, date (the date signed, filled by Signet), name, email, text or checkbox */
      type: "signature" | "initials" | "date" | "name" | "email" | "text" | "checkbox";
      /** The page of the PDF, from 1 */
      page: number;
      /** PDF points from the left of the page as displayed */
      x: number;
      /** PDF points from the bottom of the page as displayed */
      y: number;
      /** PDF points, at least 6 */
      width: number;
      /** PDF points, at least 6 */
      height: number;
      required: boolean;
      label: string | null;
      maxLength: number | null;
      /** Whoever uses the template gives its value, by its label */
      senderFills: boolean;
    }>;
  }>;
};

export type TemplateSummary = {
  id: string;
  name: string;
  /** The title of the documents made from it */
  title: string;
  createdAt: string;
  updatedAt: string;
  /** How many documents were made from it */
  documents: number;
};

export type NewTemplate = {
  /** How the template is listed */
  name: string;
  /** The title of the documents made from it; at most 200 characters once trimmed */
  title: string;
  /** The message of the documents made from it */
  text?: string;
  /** 1 to 20, at least one signer */
  roles: Array<{
    /** How the role is called, e.g. "Client": unique in the template (case aside) */
    name: string;
    /** `signer` must sign; `viewer` only receives the document */
    role: "signer" | "viewer";
    /** Lower orders are mailed and sign first; equal orders in parallel */
    signingOrder: number;
    /** `standard`: the link, a typed name and consent; `email-code`: also a code mailed to them */
    signingMethod: "standard" | "email-code";
    /** The language its recipient's mails and signing page default to, a BCP 47 tag: `en`, `de`, `fr`, `es`, `it`, `pt-BR`, `nl`, `pl`, `cs`, `sv`, `uk`, `tr`, `ja`, `zh-CN`, `ko`, `ar`, `he` (read as a recipient’s `language` is). Null or absent: the workspace’s default language. A use of the template may give each person their own */
    language?: string | null;
  }>;
  /** Fields on the PDF’s pages, each for a signing role */
  fields?: Array<{
    /** The name of the signing role that fills it, as given in `roles` */
    role: string;
    /** signature, initials, date (the date signed, filled by Signet), name, email, text or checkbox */
    type: "signature" | "initials" | "date" | "name" | "email" | "text" | "checkbox";
    /** The page of the PDF, from 1 */
    page: number;
    /** PDF points from the left of the page as displayed */
    x: number;
    /** PDF points from the bottom of the page as displayed */
    y: number;
    /** PDF points, at least 6 */
    width: number;
    /** PDF points, at least 6 */
    height: number;
    /** True by default */
    required?: boolean;
    label?: string | null;
    maxLength?: number | null;
    /** True: whoever uses the template gives its value (a text or checkbox field, with a `label`: the value is asked for by it), and the signer sees it filled. False (the default): the signer fills it */
    senderFills?: boolean;
  }>;
  /** How long after sending its documents can be signed; 30 days (2592000) by default */
  expiresInSeconds?: number;
  /** Remind pending signers every this many days (1, 2, 3, 5, 7, 14); null (the default) for never */
  remindEveryDays?: 1 | 2 | 3 | 5 | 7 | 14 | null;
  /** The PDF, in base64: required to create a template; to replace one, without it the template keeps its PDF */
  file?: string;
};

export type TemplateDocuments = {
  /** 1 to 100 documents to make, each on its own: a refused item leaves the others made */
  items: Array<{
    /** Each role’s person, by the role’s name (case aside): every role needs one */
    recipients: {

    };
    /** The values the template asks of you (its fields with `senderFills`), by their label; fields sharing a label share the value. A required one needs a value; an optional one left out is left empty */
    values?: {

    };
    /** Instead of the template’s */
    title?: string;
    /** Instead of the template’s */
    text?: string;
    /** True: sent at once; false (the default): a draft */
    send?: boolean;
    /** As when creating a document: `none` mails no recipient */
    delivery?: "email" | "none";
  }>;
};

export type MadeDocuments = {
  /** The documents made, in the items’ order */
  documents: Array<{
    /** The item’s place in `items`, from 0 */
    index: number;
    document: WrittenDocument;
  }>;
  /** The items refused, in order: nothing was made for them */
  refused: Array<{
    index: number;
    /** The code the item alone would have been answered with */
    error: string;
    /** A JSON Pointer into the request body, e.g. `/items/3/recipients/Client/email` */
    pointer: string;
  }>;
};

export type DeletedTemplate = {
  id: string;
  deleted: true;
};

export type CreateDocumentBody = NewDocument;

export type WithdrawDocumentBody = {
  /** Kept in the document’s history and its certificate */
  reason?: string;
};

export type ReplaceDocumentBody = NewDocument;

export type CreateTemplateBody = NewTemplate;

export type ReplaceTemplateBody = NewTemplate;

export type UseTemplateBody = TemplateDocuments;

export type CreateWebhookEndpointBody = {
  url: string;
  events: Array<"document.sent" | "document.opened" | "document.signed" | "document.completed" | "document.declined" | "document.expired">;
  description?: string | null;
};

export type UpdateWebhookEndpointBody = {
  url?: string;
  events?: Array<"document.sent" | "document.opened" | "document.signed" | "document.completed" | "document.declined" | "document.expired">;
  description?: string | null;
  enabled?: boolean;
};

export type RotateWebhookEndpointSecretBody = {
  overlapHours?: number;
};

export const errorStatus = {
  "invalid-api-key": 401,
  "plan-required": 403,
  "rate-limited": 429,
  "invalid-query": 400,
  "invalid-cursor": 400,
  "invalid-id": 400,
  "not-found": 404,
  "invalid-json": 400,
  "invalid-body": 400,
  "invalid-url": 400,
  "unsafe-url": 400,
  "limit-reached": 409,
  "insufficient-scope": 403,
  "invalid-file": 400,
  "upload-limit-reached": 429,
  "document-not-draft": 409,
  "document-not-sendable": 409,
  "document-not-active": 409,
  "recipient-not-remindable": 409,
  "reminded-recently": 429,
  "document-delivered-by-mail": 409,
  "recipient-not-invited": 409,
  "invalid-idempotency-key": 400,
  "idempotency-key-reused": 409,
  "delivery-not-resendable": 409,
  "too-many-streams": 429,
  "method-not-allowed": 405,
  "payload-too-large": 413,
  "unsupported-media-type": 415,
  "malformed-request": 400,
  "request-timeout": 408,
  "header-too-large": 431,
  "internal-error": 500,
  "unavailable": 503
} as const;

export type ErrorCode = keyof typeof errorStatus;

export const webhookEventTypes = ["document.sent","document.opened","document.signed","document.completed","document.declined","document.expired","ping"] as const;

export type WebhookEventType = (typeof webhookEventTypes)[number];
