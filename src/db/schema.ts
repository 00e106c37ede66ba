// Row types of every table, as Kysely sees them. Rows stay inside repositories and
// services; routes only ever see API objects.
import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date, Date>;
/** numeric columns come back as strings (exact decimals) and are written as strings. */
type Decimal = ColumnType<string, string, string>;

export type Plan = 'free' | 'max';
export type DocumentStatus = 'draft' | 'sent' | 'viewed' | 'signed' | 'declined' | 'expired';
export type RecipientRole = 'signer' | 'viewer';
export type SigningMethod = 'standard' | 'email-code';

export interface WorkspacesTable {
  id: string;
  name: string;
  plan: Plan;
  created_at: Timestamp;
}

export interface ApiKeysTable {
  id: string;
  workspace_id: string;
  name: string;
  secret_hash: string;
  hint: string;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
}

export interface DocumentsTable {
  id: string;
  workspace_id: string;
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
}

export interface ServerSecretsTable {
  name: string;
  secret: string;
  created_at: Timestamp;
}

export interface Database {
  workspaces: WorkspacesTable;
  api_keys: ApiKeysTable;
  documents: DocumentsTable;
  recipients: RecipientsTable;
  document_events: DocumentEventsTable;
  server_secrets: ServerSecretsTable;
}
