// Generated from docs/openapi.json by `npm run client:types`: do not edit by hand.

export type Document = {
  id: string;
  title: string;
  status: string;
  url: string;
  /** ISO 8601 UTC with milliseconds and Z */
  createdAt: string;
  sentAt: string | null;
  signedAt: string | null;
  expiresAt: string | null;
  value: {
    amount: number;
    currency: string;
  } | null;
};

export type CompletedDocument = {
  id: string;
  title: string;
  status: string;
  url: string;
  /** ISO 8601 UTC with milliseconds and Z */
  createdAt: string;
  sentAt: string | null;
  signedAt: string | null;
  expiresAt: string | null;
  value: {
    amount: number;
    currency: string;
  } | null;
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
  status: string;
  url: string;
  /** ISO 8601 UTC with milliseconds and Z */
  createdAt: string;
  sentAt: string | null;
  signedAt: string | null;
  expiresAt: string | null;
  value: {
    amount: number;
    currency: string;
  } | null;
  recipients: Array<{
    id: string;
    email: string;
    fullName: string;
    role: string;
    signingMethod: string;
    signingOrder: number;
    signedAt: string | null;
    /** The fields placed for this recipient, in the order they were placed; empty for none */
    fields: Array<{
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
      label: string | null;
      /** Whether the recipient has filled it (they fill all theirs when they sign) */
      filled: boolean;
    }>;
  }>;
  events: Array<{
    id: string;
    type: string;
    recipientEmail: string | null;
    /** ISO 8601 UTC with milliseconds and Z */
    createdAt: string;
  }>;
  /** The original PDF once the document has one (uploaded, or made from its text when sent), then the sealed PDF once made */
  files: Array<{
    /** original: the PDF the signers saw; sealed: it with the certificate of completion, sealed */
    kind: "original" | "sealed";
    /** The file's SHA-256, lower-case hex */
    sha256: string;
    bytes: number;
    pages: number | null;
    /** Answers the PDF (Content-Disposition: attachment) without authentication for 15 minutes; outside /v1. Treat it as a secret. */
    downloadUrl: string;
  }>;
};

export type Recipient = {
  id: string;
  email: string;
  fullName: string;
  role: string;
  signingMethod: string;
  signingOrder: number;
  signedAt: string | null;
};

export type DocumentEvent = {
  id: string;
  type: string;
  recipientEmail: string | null;
  /** ISO 8601 UTC with milliseconds and Z */
  createdAt: string;
};

export type WebhookEndpoint = {
  id: string;
  url: string;
  events: Array<string>;
  enabled: boolean;
  description: string | null;
  createdAt: string;
  failureCount: number;
  disabledReason: "failures" | null;
};

export type CreatedWebhookEndpoint = {
  id: string;
  url: string;
  events: Array<string>;
  enabled: boolean;
  description: string | null;
  createdAt: string;
  failureCount: number;
  disabledReason: "failures" | null;
  secret: string;
};

export type RotatedWebhookEndpoint = {
  id: string;
  url: string;
  events: Array<string>;
  enabled: boolean;
  description: string | null;
  createdAt: string;
  failureCount: number;
  disabledReason: "failures" | null;
  secret: string;
  previousSecretExpiresAt: string | null;
};

export type WebhookDelivery = {
  id: string;
  eventId: string;
  eventType: string;
  status: "pending" | "delivered" | "dropped";
  attempts: number;
  createdAt: string;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  attemptLog: Array<{
    attempt: number;
    startedAt: string;
    durationMs: number;
    statusCode: number | null;
    errorClass: string | null;
  }>;
};

export type ResendResult = {
  deliveryId: string;
  attempt: number;
  delivered: boolean;
  statusCode: number | null;
  errorClass: string | null;
  durationMs: number;
};

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
