// The ordered list of migrations. Imported statically (not read from disk) so the
// migrator works the same from any working directory.
import type { Migration } from 'kysely';
import * as m0001 from './0001-initial.ts';
import * as m0002 from './0002-lifecycle.ts';
import * as m0003 from './0003-webhook-endpoints.ts';
import * as m0004 from './0004-webhook-deliveries.ts';
import * as m0005 from './0005-outbox-queue.ts';
import * as m0006 from './0006-delivery-ids.ts';
import * as m0007 from './0007-webhook-events.ts';
import * as m0008 from './0008-delivery-foreign-keys.ts';
import * as m0009 from './0009-accounts.ts';
import * as m0010 from './0010-endpoint-paused-at.ts';
import * as m0011 from './0011-api-key-last-used.ts';
import * as m0012 from './0012-login-addresses.ts';
import * as m0013 from './0013-files.ts';
import * as m0014 from './0014-fields.ts';
import * as m0015 from './0015-withdraw-remind.ts';
import * as m0016 from './0016-auto-reminders.ts';
import * as m0017 from './0017-idempotency-keys.ts';
import * as m0018 from './0018-secret-rotation.ts';
import * as m0019 from './0019-server-settings.ts';
import * as m0020 from './0020-seal-key-rotation.ts';
import * as m0021 from './0021-page-image-failures.ts';
import * as m0022 from './0022-upload-usage.ts';
import * as m0023 from './0023-idempotency-answers-sealed.ts';
import * as m0024 from './0024-audit-trail.ts';
import * as m0025 from './0025-password-resets.ts';
import * as m0026 from './0026-page-image-queue.ts';
import * as m0027 from './0027-document-search.ts';
import * as m0028 from './0028-kept-uploads.ts';
import * as m0029 from './0029-workspace-time-zone.ts';
import * as m0030 from './0030-api-key-scope.ts';
import * as m0031 from './0031-document-delivery.ts';
import * as m0032 from './0032-file-bytes-compression.ts';
import * as m0033 from './0033-sender-values.ts';
import * as m0034 from './0034-templates.ts';
import * as m0035 from './0035-bulk-sends.ts';
import * as m0036 from './0036-public-links.ts';
import * as m0037 from './0037-mail-pace.ts';
import * as m0038 from './0038-mail-fairness.ts';
import * as m0039 from './0039-public-link-caps.ts';
import * as m0040 from './0040-file-references.ts';
import * as m0041 from './0041-bulk-refused-rows.ts';
import * as m0042 from './0042-languages.ts';
import * as m0043 from './0043-member-language.ts';
import * as m0044 from './0044-bulk-row-reasons.ts';
import * as m0045 from './0045-workspace-brand.ts';
import * as m0046 from './0046-mail-sender-name.ts';
import * as m0047 from './0047-document-sender.ts';

export const migrations: Record<string, Migration> = {
  '0001-initial': m0001,
  '0002-lifecycle': m0002,
  '0003-webhook-endpoints': m0003,
  '0004-webhook-deliveries': m0004,
  '0005-outbox-queue': m0005,
  '0006-delivery-ids': m0006,
  '0007-webhook-events': m0007,
  '0008-delivery-foreign-keys': m0008,
  '0009-accounts': m0009,
  '0010-endpoint-paused-at': m0010,
  '0011-api-key-last-used': m0011,
  '0012-login-addresses': m0012,
  '0013-files': m0013,
  '0014-fields': m0014,
  '0015-withdraw-remind': m0015,
  '0016-auto-reminders': m0016,
  '0017-idempotency-keys': m0017,
  '0018-secret-rotation': m0018,
  '0019-server-settings': m0019,
  '0020-seal-key-rotation': m0020,
  '0021-page-image-failures': m0021,
  '0022-upload-usage': m0022,
  '0023-idempotency-answers-sealed': m0023,
  '0024-audit-trail': m0024,
  '0025-password-resets': m0025,
  '0026-page-image-queue': m0026,
  '0027-document-search': m0027,
  '0028-kept-uploads': m0028,
  '0029-workspace-time-zone': m0029,
  '0030-api-key-scope': m0030,
  '0031-document-delivery': m0031,
  '0032-file-bytes-compression': m0032,
  '0033-sender-values': m0033,
  '0034-templates': m0034,
  '0035-bulk-sends': m0035,
  '0036-public-links': m0036,
  '0037-mail-pace': m0037,
  '0038-mail-fairness': m0038,
  '0039-public-link-caps': m0039,
  '0040-file-references': m0040,
  '0041-bulk-refused-rows': m0041,
  '0042-languages': m0042,
  '0043-member-language': m0043,
  '0044-bulk-row-reasons': m0044,
  '0045-workspace-brand': m0045,
  '0046-mail-sender-name': m0046,
  '0047-document-sender': m0047,
};
