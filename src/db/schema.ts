// Row types of every table, as Kysely sees them. Rows stay inside repositories and
// services; routes only ever see API objects.
import type { ColumnType, Generated } from 'kysely';
import type { DocumentStatus, RecipientRole, signingMethods } from '../documents/lifecycle.ts';
import type { FieldType } from '../fields/field-types.ts';
import type { KeyedSentence } from '../i18n/messages.ts';

export type { RecipientRole };

type Timestamp = ColumnType<Date, Date, Date>;
/** numeric columns come back as strings (exact decimals) and are written as strings. */
type Decimal = ColumnType<string, string, string>;

export type Plan = 'free' | 'max';
/** How a document reaches its recipients: Signet's mails, or the integrator's own channel. */
export type Delivery = 'email' | 'none';
/** What an API key may do (migration 0030; keys/api-key-scope.ts says what each allows). */
export type ApiKeyScope = 'read' | 'write';
/** Defined with the state machine (documents/lifecycle.ts), the one list of statuses. */
export type { DocumentStatus };
export type SigningMethod = (typeof signingMethods)[number];

export interface WorkspacesTable {
  id: string;
  name: string;
  plan: Plan;
  created_at: Timestamp;
  /** An IANA time zone the web app and the mails show times in (migration 0029). */
  time_zone: Generated<string>;
  /** The language of recipients and certificates that have none of their own (migration 0042). */
  default_language: Generated<string>;
  /** The brand (migration 0045): the name recipients know the company by; null: `name`. */
  brand_name: ColumnType<string | null, string | null | undefined, string | null>;
  /** Its accent colour, `#rrggbb`; null: Signet's. */
  brand_accent: ColumnType<string | null, string | null | undefined, string | null>;
  /** Whether recipients' pages say "Sent with Signet". */
  brand_sent_with: Generated<boolean>;
}

export interface ApiKeysTable {
  id: string;
  workspace_id: string;
  name: string;
  secret_hash: string;
  hint: string;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
  /** Within a minute; null until the key authenticates a request. */
  last_used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  scope: ColumnType<ApiKeyScope, ApiKeyScope | undefined, ApiKeyScope>;
}

export interface DocumentsTable {
  id: string;
  workspace_id: string;
  /** The member who made it (migration 0047): its recipients' mails reply to them; null for the API, a public link, the CLI. */
  created_by: ColumnType<string | null, string | null | undefined, string | null>;
  title: string;
  body: Generated<string>;
  status: DocumentStatus;
  created_at: Timestamp;
  sent_at: Timestamp | null;
  signed_at: Timestamp | null;
  expires_at: Timestamp | null;
  pricing: ColumnType<unknown, string | null, string | null> | null;
  value_amount: Decimal | null;
  value_currency: string | null;
  expires_in_seconds: Generated<number>;
  /** The PDF that was uploaded, or made from the text body when the document was sent. */
  original_sha256: ColumnType<string | null, string | null | undefined, string | null>;
  /** The original was made from the text body when the document was sent. */
  original_from_text: Generated<boolean>;
  /** The sealed PDF, once the worker has made it. */
  sealed_sha256: ColumnType<string | null, string | null | undefined, string | null>;
  /** Set while the seal is owed: when the worker may (next) try. */
  seal_due_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  seal_attempts: Generated<number>;
  seal_error: ColumnType<string | null, string | null | undefined, string | null>;
  /** The fingerprint (SHA-256 of the certificate, hex) of the seal that sealed it; null before issue 33. */
  sealed_by: ColumnType<string | null, string | null | undefined, string | null>;
  /** When the sender withdrew it (it is then `expired`). */
  withdrawn_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Pending signers are reminded every this many days until it expires; null: never. */
  remind_every_days: ColumnType<number | null, number | null | undefined, number | null>;
  /** Lower-cased title and recipients' names and addresses, kept by triggers (migration 0027). */
  search_text: ColumnType<string, never, never>;
  /** `email`: Signet mails the recipients; `none`: the integrator delivers the links (migration 0031). */
  delivery: ColumnType<Delivery, Delivery | undefined, Delivery>;
  /** The template it was made from (migration 0034), null for none or once the template is deleted. */
  template_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** 'public-link': made by a visitor through a template's public link (migration 0036). */
  made_via: ColumnType<'public-link' | null, 'public-link' | null | undefined, 'public-link' | null>;
  /** The certificate's language, a tag of i18n/languages.ts; null: the workspace's default (migration 0042). */
  language: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface RecipientsTable {
  id: string;
  workspace_id: string;
  document_id: string;
  position: number;
  email: string;
  full_name: string;
  role: RecipientRole;
  signing_method: SigningMethod;
  signing_order: number;
  signed_at: Timestamp | null;
  created_at: Timestamp;
  token_hash: string | null;
  opened_at: Timestamp | null;
  declined_at: Timestamp | null;
  decline_reason: string | null;
  signature_name: string | null;
  code_hash: string | null;
  code_expires_at: Timestamp | null;
  code_attempts: Generated<number>;
  code_sent_at: Timestamp | null;
  signature_kind: ColumnType<SignatureKind | null, SignatureKind | null | undefined, SignatureKind | null>;
  /** The recipient's language, a tag of i18n/languages.ts; null: the workspace's default (migration 0042). */
  language: ColumnType<string | null, string | null | undefined, string | null>;
  /** A drawn signature, as PNG. */
  signature_image: ColumnType<Buffer | null, Buffer | null | undefined, Buffer | null>;
  /** When they were last reminded (by the sender at most once an hour, or automatically). */
  reminded_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** When their link was first mailed (their group's turn), or null before that. */
  invited_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** When their link's page was first fetched (not a view: signing/signing.service.ts's open rule). */
  link_fetched_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export type SignatureKind = 'typed' | 'drawn';

/** A field placed on the original PDF for one signer (src/fields/). */
export interface DocumentFieldsTable {
  id: string;
  workspace_id: string;
  document_id: string;
  recipient_id: string;
  /** Order on the document: the order the sender placed or listed them. */
  position: number;
  type: FieldType;
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  required: boolean;
  label: string | null;
  max_length: number | null;
  value: ColumnType<string | null, string | null | undefined, string | null>;
  filled_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The value was given by the sender when the document was made (migration 0033). */
  prefilled: ColumnType<boolean, boolean | undefined, boolean>;
}

export interface DocumentEventsTable {
  id: string;
  workspace_id: string;
  document_id: string;
  seq: Generated<number>;
  type: string;
  recipient_id: string | null;
  recipient_email: string | null;
  created_at: Timestamp;
  /** The client that caused it (recipients' events only); for the certificate, not the API. */
  client_ip: ColumnType<string | null, string | null | undefined, string | null>;
  user_agent: ColumnType<string | null, string | null | undefined, string | null>;
  /** What the history says beside the event (a reason, which reminder); never in the API. */
  detail: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface ServerSecretsTable {
  name: string;
  secret: string;
  created_at: Timestamp;
}

/** What a running server records for the commands beside it (db/server-settings.ts). */
export interface ServerSettingsTable {
  name: string;
  value: string;
  updated_at: Timestamp;
}

export interface OutboxTable {
  seq: Generated<number>;
  event_id: string;
  workspace_id: string;
  type: string;
  created_at: Timestamp;
}

/** A webhook body, stored once for all of its deliveries (migration 0007). */
export interface WebhookEventsTable {
  id: string;
  workspace_id: string;
  type: string;
  payload: ColumnType<unknown, string, string>;
  created_at: Timestamp;
}

export type MailStatus = 'pending' | 'sent' | 'logged' | 'failed';

export interface MailsTable {
  id: string;
  /** Null for account mails sent before there is a workspace (sign-up confirmation). */
  workspace_id: string | null;
  document_id: string | null;
  recipient_id: string | null;
  to_address: string;
  subject: string;
  text_body: string;
  created_at: Timestamp;
  status: Generated<MailStatus>;
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  locked_until: Timestamp | null;
  sent_at: Timestamp | null;
  last_error: string | null;
  /** A stored file sent with the mail, and the name it is attached under. */
  attachment_sha256: ColumnType<string | null, string | null | undefined, string | null>;
  attachment_name: ColumnType<string | null, string | null | undefined, string | null>;
  /** How soon it goes: mail/priority.ts's stored rank (0 urgent, 1 automatic, 2 bulk; migration 0038). */
  priority: number;
  /** The name it is sent under ("Acme GmbH via Signet", migration 0046); null: SIGNET_MAIL_FROM's. */
  from_name: ColumnType<string | null, string | null | undefined, string | null>;
  /** Where a reply goes: the member who made the document (migration 0047); null: no Reply-To. */
  reply_to: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface WebhookEndpointsTable {
  id: string;
  workspace_id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: Generated<boolean>;
  secret: string;
  /** The secret before the last rotation, signing too until previous_secret_expires_at. */
  previous_secret: ColumnType<string | null, string | null | undefined, string | null>;
  previous_secret_expires_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Since when `secret` signs; null: since the endpoint was created. */
  secret_rotated_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  failure_count: Generated<number>;
  disabled_reason: 'failures' | null;
  /** When the service paused it after consecutive failures; null while enabled. */
  paused_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'dropped';
export type AttemptErrorClass =
  | 'dns'
  | 'blocked'
  | 'connect'
  | 'tls'
  | 'timeout'
  | 'redirect'
  | 'http-status';

export interface WebhookDeliveriesTable {
  id: string;
  workspace_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: Generated<DeliveryStatus>;
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  locked_until: Timestamp | null;
  created_at: Timestamp;
  last_attempt_at: Timestamp | null;
  delivered_at: Timestamp | null;
}

export interface WebhookAttemptsTable {
  delivery_id: string;
  workspace_id: string;
  endpoint_id: string;
  attempt: number;
  started_at: Timestamp;
  duration_ms: number;
  address: string | null;
  status_code: number | null;
  error_class: AttemptErrorClass | null;
  response_body: string | null;
}

export type MemberRole = 'owner' | 'member';

export interface UsersTable {
  id: string;
  /** As the person typed it (trimmed). */
  email: string;
  /** Lower-cased: what makes two addresses the same account. */
  email_key: string;
  password_hash: string;
  created_at: Timestamp;
  password_changed_at: Timestamp;
  /** Their own language (i18n/languages.ts): Signet's mails to them; null: the workspace's default (migration 0043). */
  language: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface MembershipsTable {
  workspace_id: string;
  user_id: string;
  role: MemberRole;
  created_at: Timestamp;
}

export interface SessionsTable {
  id: string;
  token_hash: string;
  user_id: string;
  workspace_id: string;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  /** The absolute end (7 days after sign-in); idle expiry is counted from last_seen_at. */
  expires_at: Timestamp;
}

/** An address a user logged in from (its SHA-256 with the user id), for the log-in ceiling. */
export interface LoginAddressesTable {
  user_id: string;
  address_hash: string;
  last_login_at: Timestamp;
}

export interface SignupRequestsTable {
  id: string;
  token_hash: string;
  email: string;
  password_hash: string;
  workspace_name: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: Timestamp | null;
  /** The language the sign-up's pages were in: the account's own when confirmed (migration 0043). */
  language: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface PasswordResetsTable {
  id: string;
  token_hash: string;
  user_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

export interface InvitationsTable {
  id: string;
  workspace_id: string;
  email: string;
  role: MemberRole;
  token_hash: string;
  invited_by: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  accepted_at: Timestamp | null;
}

/** A stored file: content-addressed, its bytes in `file_chunks` (migration 0013). */
export interface FilesTable {
  sha256: string;
  /** bigint comes back as a string from PostgreSQL; always below 2^53 here. */
  bytes: ColumnType<string | number, number, number>;
  media_type: string;
  pages: number | null;
  chunk_count: number;
  created_at: Timestamp;
  /** Each page's displayed size in points (src/pdf/fields.ts), once known. */
  page_sizes: ColumnType<PageSize[] | null, string | null | undefined, string | null>;
}

export interface PageSize {
  width: number;
  height: number;
  /**
   * Where the upload's own widgets paint (view space, as a field's rectangle): a field placed
   * there would be drawn under them (pdf/one-look.ts). Absent on files stored before it.
   */
  covered?: Array<{ x: number; y: number; width: number; height: number }>;
}

export interface FileChunksTable {
  sha256: string;
  seq: number;
  data: Buffer;
}

export interface PageImagesTable {
  sha256: string;
  page: number;
  width: number;
  height: number;
  png: Buffer;
}

/** A page that could not be drawn, answered with a placeholder ever after (migration 0021). */
export interface PageImageFailuresTable {
  sha256: string;
  /** 0: the file could not be opened, so every page of it. */
  page: number;
  /** The width being drawn when it failed; the failure holds for every width. */
  width: number;
  /** The renderer's code: timeout, out-of-memory, invalid-pdf, encrypted. */
  reason: string;
  /** The Signet version that gave up: another version tries again. */
  renderer: string;
  failed_at: Timestamp;
}

/** A stored PDF whose pages the worker draws in the background (migration 0026). */
export interface PageImageQueueTable {
  sha256: string;
  workspace_id: string;
  /** Pages first (0 … pages-1), then thumbnails (pages … 2·pages-1). */
  next_step: Generated<number>;
  queued_at: Timestamp;
  due_at: Timestamp;
  locked_until: Timestamp | null;
}

/**
 * The installation's self-signed seals, shared by every process: the certificate (DER) and
 * its PKCS#8 private key encrypted with the key-encryption key (never in the database;
 * sealing/seal-kek.ts). At most one is current (retired_at null).
 */
export interface SealKeysTable {
  name: string;
  certificate: Buffer;
  /** The clear PKCS#8 an older version stored; encrypted (and this set to null) on the next start. */
  private_key: ColumnType<Buffer | null, Buffer | null | undefined, Buffer | null>;
  /** AES-256-GCM of the PKCS#8 (seal-kek.ts's format), the row's name as associated data. */
  encrypted_key: ColumnType<Buffer | null, Buffer | null | undefined, Buffer | null>;
  /** A one-way identifier of the key-encryption key that encrypted it. */
  kek_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** SHA-256 of the certificate, lowercase hex. */
  fingerprint: string;
  created_at: Timestamp;
  retired_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** The first successful answer to an Idempotency-Key, kept 24 hours (webhooks/idempotency.ts). */
export interface IdempotencyKeysTable {
  workspace_id: string;
  key: string;
  request_sha256: string;
  /** The response body as it was sent. */
  response: string;
  created_at: Timestamp;
}

/** Bytes a workspace uploaded on a UTC day (documents/upload-usage.ts). */
export interface UploadUsageTable {
  workspace_id: string;
  /** "2026-11-26", UTC. */
  day: string;
  /** bigint comes back as a string from PostgreSQL; always below 2^53 here. */
  bytes: ColumnType<string | number, number, number>;
}

/** A refused form's PDF kept for its next submit (sending/kept-uploads.ts), bound to a session. */
export interface KeptUploadsTable {
  /** 24 random bytes, base64url: unguessable, and useless to any other session. */
  id: string;
  session_id: string;
  workspace_id: string;
  file_sha256: string;
  /** The name the browser sent, as the form shows it. */
  file_name: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface TemplatesTable {
  id: string;
  workspace_id: string;
  /** How the template is listed. */
  name: string;
  /** The default title and message of the documents made from it. */
  title: string;
  body: ColumnType<string, string | undefined, string>;
  original_sha256: string;
  expires_in_seconds: number;
  remind_every_days: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The public link's token (migration 0036), null while it has none. */
  public_link_token: ColumnType<string | null, string | null | undefined, string | null>;
  public_link_max_uses: ColumnType<number | null, number | null | undefined, number | null>;
  public_link_ends_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  public_link_uses: ColumnType<number, number | undefined, number>;
}

export interface PublicLinkRequestsTable {
  id: string;
  workspace_id: string;
  template_id: string;
  /** The link's token when the code was asked for: a renewed link ends the requests made through the old one. */
  link_token: string;
  email: string;
  full_name: string;
  /** The code's hash; null once used or voided. */
  code_hash: string | null;
  code_expires_at: Timestamp;
  code_attempts: ColumnType<number, number | undefined, number>;
  client_ip: string | null;
  created_at: Timestamp;
  document_id: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Public-link code mails a workspace queued on a UTC day (migration 0039, templates/public-link-caps.ts). */
export interface PublicLinkCodeMailsTable {
  workspace_id: string;
  /** "2026-11-26", UTC. */
  day: string;
  mails: number;
  /** When a mail was first refused that day (the event logged once), or null. */
  reached_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** Public-link code mails to one inbox in a UTC hour, every workspace together (migration 0039). */
export interface PublicLinkInboxMailsTable {
  /** SHA-256 (hex) of the address's inbox key, never the address. */
  inbox: string;
  /** The hour's start. */
  hour: Timestamp;
  mails: number;
  reached_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface TemplateRolesTable {
  id: string;
  workspace_id: string;
  template_id: string;
  position: number;
  /** "Client", "Company": unique in its template, case aside. */
  name: string;
  role: RecipientRole;
  signing_order: number;
  signing_method: SigningMethod;
  /** The language its recipient gets by default; null: the workspace's (migration 0042). */
  language: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface TemplateFieldsTable {
  id: string;
  workspace_id: string;
  template_id: string;
  role_id: string;
  position: number;
  type: FieldType;
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  required: boolean;
  label: string | null;
  max_length: number | null;
  /** Whoever uses the template gives its value (the document's field is then prefilled). */
  sender_fills: ColumnType<boolean, boolean | undefined, boolean>;
}

/** `refused`: a row the spreadsheet's check refused, stored for the results file (migration 0041). */
export type BulkRowStatus = 'pending' | 'created' | 'sent' | 'failed' | 'refused';

export interface BulkSendsTable {
  id: string;
  workspace_id: string;
  template_id: string | null;
  /** The template's name when it was sent (the template may be renamed or deleted since). */
  template_name: string;
  /** The spreadsheet's name as uploaded. */
  file_name: string;
  /** The user who confirmed it. */
  created_by: string | null;
  /** Rows to send (the good rows of the confirmed file). */
  total: number;
  created_at: Timestamp;
  /** The lease of the worker sending it. */
  locked_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  finished_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface BulkSendRowsTable {
  bulk_send_id: string;
  workspace_id: string;
  /** The spreadsheet's row number (its header is row 1). */
  row_number: number;
  /** The row as templates/use-template.ts takes it: `{recipients, values}`. */
  input: ColumnType<unknown, string, string>;
  status: ColumnType<BulkRowStatus, BulkRowStatus | undefined, BulkRowStatus>;
  document_id: ColumnType<string | null, string | null | undefined, string | null>;
  error: ColumnType<string | null, string | null | undefined, string | null>;
  /** Why it was refused or failed (migration 0044): its sentences, keyed or English; null before it. */
  reason: ColumnType<RowReason | null, string | null | undefined, string | null>;
}

/** A bulk row's reason: each sentence a keyed sentence of the catalogues, or English where its rule has none. */
export type RowReason = Array<KeyedSentence | string>;

export interface Database {
  workspaces: WorkspacesTable;
  api_keys: ApiKeysTable;
  documents: DocumentsTable;
  recipients: RecipientsTable;
  document_fields: DocumentFieldsTable;
  document_events: DocumentEventsTable;
  server_secrets: ServerSecretsTable;
  server_settings: ServerSettingsTable;
  outbox: OutboxTable;
  webhook_events: WebhookEventsTable;
  mails: MailsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  sessions: SessionsTable;
  signup_requests: SignupRequestsTable;
  invitations: InvitationsTable;
  login_addresses: LoginAddressesTable;
  password_resets: PasswordResetsTable;
  files: FilesTable;
  file_chunks: FileChunksTable;
  page_images: PageImagesTable;
  page_image_failures: PageImageFailuresTable;
  page_image_queue: PageImageQueueTable;
  seal_keys: SealKeysTable;
  idempotency_keys: IdempotencyKeysTable;
  upload_usage: UploadUsageTable;
  kept_uploads: KeptUploadsTable;
  templates: TemplatesTable;
  template_roles: TemplateRolesTable;
  template_fields: TemplateFieldsTable;
  bulk_sends: BulkSendsTable;
  bulk_send_rows: BulkSendRowsTable;
  public_link_requests: PublicLinkRequestsTable;
  public_link_code_mails: PublicLinkCodeMailsTable;
  public_link_inbox_mails: PublicLinkInboxMailsTable;
}
