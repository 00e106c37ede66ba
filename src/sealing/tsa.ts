// The time-stamp authority this installation uses (SIGNET_SEAL_TSA_URL) and its pinned
// certificate (SIGNET_SEAL_TSA_CERT_FILE): sealing accepts a token only when that certificate
// signed it, and /verify shows a time-stamp as a fact only then, so a token from any other
// authority (or any time it claims) is never taken for Signet's.
import { readFile } from 'node:fs/promises';
import type { Context } from '../context.ts';
import { readPemCertificates } from '../pdf/timestamp.ts';

/** The pinned certificates (DER); none when no authority is configured. Read at each use: it is small. */
export async function pinnedTsaCertificates(ctx: Pick<Context, 'config'>): Promise<Uint8Array[]> {
  const file = ctx.config.seal.tsaCertFile;
  if (!file) return [];
  const certificates = readPemCertificates(await readFile(file, 'utf8'));
  if (certificates.length === 0) {
    throw new Error(`SIGNET_SEAL_TSA_CERT_FILE (${file}) holds no PEM certificate.`);
  }
  return certificates;
}
