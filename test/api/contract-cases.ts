// What the live contract test's tables of cases (contract-cases-documents.ts, -templates.ts,
// -webhooks.ts) are made of: a case (the operation, what it exercises, the request, the error
// code expected) and the kit openapi-live.test.ts hands each table: its request helpers, the
// ids its setup test makes, and the signer every document names. A case's request runs when
// its test runs, after the setup test: the ids are read then, never when the table is built.
import type { ApiMethod, ApiResponse, callApi } from '../support/harness.ts';

export const signer = { email: 'ann@northwind.example', fullName: 'Ann Lee' };

/** An operation, what the case exercises (a status or an error code), its request, and the error code expected. */
export type Case = [string, string, () => Promise<ApiResponse>, string?];

type Request = (
  method: ApiMethod,
  path: string,
  options?: Parameters<typeof callApi>[3],
) => Promise<ApiResponse>;

export interface CaseKit {
  /** A request with the workspace's read key (`key` replaces it). */
  call: Request;
  /** A request with the workspace's write key. */
  write: Request;
  /** Every operation refuses a request without a key, and one with a Free workspace's key. */
  keyCases: (operationId: string, method: ApiMethod, path: () => string, body?: object) => Case[];
  /** An operation that takes no body still reads one sent, and refuses it as any body is refused. */
  bodyCases: (operationId: string, method: ApiMethod, path: () => string) => Case[];
  /** bodyCases with the write key. */
  writeBodyCases: (operationId: string, method: ApiMethod, path: () => string) => Case[];
  randomId: () => string;
  newDocument: { title: string; text: string; recipients: Array<typeof signer> };
  /** Drafts of the write key: one to send, one to delete, one with nothing to send, one to replace. */
  drafts: { toSend: string; toDelete: string; empty: string; toReplace: string };
  /** Templates: one to use, read and replace, one to delete. */
  templates: { used: string; toDelete: string };
  /** Sent documents of two signers in order: one mailed, one its integrator delivers. */
  sent: { id: string; first: string; second: string };
  own: { id: string; first: string; second: string };
  /** An endpoint whose name does not resolve, with a dropped and a delivered delivery. */
  deadEndpoint: { id: string; dropped: string; delivered: string };
  /** What the setup test assigns, read as each case runs: the sent document, the endpoint, a template's body. */
  live: {
    readonly documentId: string;
    readonly endpointId: string;
    readonly templateBody: Record<string, unknown>;
  };
}
