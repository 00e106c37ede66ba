// RFC 3161 time-stamps: asking a time-stamp authority (SIGNET_SEAL_TSA_URL) to stamp the seal's
// signature value, which makes the seal PAdES B-T, and reading a token back to check it (the
// one in a seal, or a document time-stamp another tool added). Without a TSA URL nothing here
// runs, and Signet uses no network to seal.
import { randomBytes } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { fetch as undiciFetch } from 'undici';
import { digestParts, type Timestamper, verifyCms } from './cms.ts';
import { formatName } from './seal-identity.ts';

export type TimestampCheck = {
  time: Date | null; // the token's genTime
  authority: string | null; // the TSA certificate's subject
  authorityCertificate: Uint8Array | null; // DER
  signatureValid: boolean; // the TSA's signature over the token verifies
  imprintMatches: boolean; // the token stamps exactly these bytes
  valid: boolean; // both
  problem: string | null;
};

const oids = {
  sha256: '2.16.840.1.101.3.4.2.1',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
};

const hashNodeNames: Record<string, string> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};

const maxResponseBytes = 1024 * 1024;

/**
 * The certificates of a PEM file (SIGNET_SEAL_TSA_CERT_FILE): every CERTIFICATE block, as DER.
 * Several are allowed, for an authority that changes its signing certificate.
 */
export function readPemCertificates(pem: string): Uint8Array[] {
  const blocks = pem.matchAll(/-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+)-----END CERTIFICATE-----/g);
  return [...blocks].map(
    (block) => new Uint8Array(Buffer.from((block[1] as string).replace(/\s+/g, ''), 'base64')),
  );
}

/** Whether the token's authority is one of `pinned` (its certificate, byte for byte). */
export function isPinnedAuthority(check: TimestampCheck, pinned: readonly Uint8Array[]): boolean {
  const certificate = check.authorityCertificate;
  return !!certificate && pinned.some((der) => Buffer.from(der).equals(Buffer.from(certificate)));
}

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

const unreadableToken: TimestampCheck = {
  time: null,
  authority: null,
  authorityCertificate: null,
  signatureValid: false,
  imprintMatches: false,
  valid: false,
  problem: 'The time-stamp is not a readable RFC 3161 token.',
};

function readTstInfo(token: Uint8Array): pkijs.TSTInfo | null {
  try {
    const contentInfo = pkijs.ContentInfo.fromBER(toArrayBuffer(token));
    const signedData = new pkijs.SignedData({ schema: contentInfo.content });
    if (signedData.encapContentInfo.eContentType !== oids.tstInfo) return null;
    const eContent = signedData.encapContentInfo.eContent;
    return eContent ? pkijs.TSTInfo.fromBER(eContent.getValue()) : null;
  } catch {
    return null;
  }
}

function encapsulatedContent(token: Uint8Array): Uint8Array {
  const signedData = new pkijs.SignedData({
    schema: pkijs.ContentInfo.fromBER(toArrayBuffer(token)).content,
  });
  return new Uint8Array(signedData.encapContentInfo.eContent?.getValue() ?? new ArrayBuffer(0));
}

/**
 * Checks an RFC 3161 TimeStampToken over `stampedParts` (a seal's signature value, or a
 * document time-stamp's byte ranges). Never throws.
 */
export async function readTimestampToken(
  token: Uint8Array,
  stampedParts: readonly Uint8Array[],
): Promise<TimestampCheck> {
  const info = readTstInfo(token);
  if (!info) return unreadableToken;
  const check = await verifyCms(token, [encapsulatedContent(token)]);
  let authority: string | null = null;
  try {
    if (check.signerCertificate) {
      authority = formatName(pkijs.Certificate.fromBER(toArrayBuffer(check.signerCertificate)).subject);
    }
  } catch {
    authority = null;
  }
  const time = info.genTime instanceof Date && !Number.isNaN(info.genTime.getTime()) ? info.genTime : null;
  const hash = hashNodeNames[info.messageImprint.hashAlgorithm.algorithmId];
  const stamped = Buffer.from(info.messageImprint.hashedMessage.valueBlock.valueHexView);
  const imprintMatches = hash !== undefined && stamped.equals(digestParts(stampedParts, hash));
  // The token's own messageDigest is over its TSTInfo, so both CMS checks make its signature.
  const signatureValid = check.signatureValid && check.digestMatches;
  const problem = !signatureValid
    ? (check.problem ?? "The time-stamp authority's signature does not verify.")
    : !imprintMatches
      ? 'The time-stamped bytes have changed.'
      : null;
  return {
    time,
    authority,
    authorityCertificate: check.signerCertificate,
    signatureValid,
    imprintMatches,
    valid: signatureValid && imprintMatches,
    problem,
  };
}

function timestampRequest(signatureValue: Uint8Array, nonce: Uint8Array): ArrayBuffer {
  return new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: oids.sha256 }),
      hashedMessage: new asn1js.OctetString({ valueHex: toArrayBuffer(digestParts([signatureValue])) }),
    }),
    nonce: new asn1js.Integer({ valueHex: toArrayBuffer(nonce) }),
    certReq: true, // the token carries the TSA's certificate, so anyone can check it offline
  })
    .toSchema()
    .toBER(false);
}

async function readResponse(
  response: Response | Awaited<ReturnType<typeof undiciFetch>>,
): Promise<Uint8Array> {
  if (!response.ok) throw new Error(`The time-stamp authority answered HTTP ${response.status}.`);
  const body = new Uint8Array(await response.arrayBuffer());
  if (body.length > maxResponseBytes) throw new Error('The time-stamp authority answered more than 1 MB.');
  return body;
}

function tokenFrom(body: Uint8Array): Uint8Array {
  let response: pkijs.TimeStampResp;
  try {
    response = pkijs.TimeStampResp.fromBER(toArrayBuffer(body));
  } catch {
    throw new Error('The time-stamp authority answered something that is not an RFC 3161 response.');
  }
  const status = response.status.status;
  if ((status !== 0 && status !== 1) || !response.timeStampToken) {
    const text = response.status.statusStrings?.map((s) => s.valueBlock.value).join(' ') ?? '';
    throw new Error(
      `The time-stamp authority refused the request (status ${status}${text ? `: ${text}` : ''}).`,
    );
  }
  return new Uint8Array(response.timeStampToken.toSchema().toBER(false));
}

/**
 * A Timestamper that asks the TSA at `url` (RFC 3161 over HTTP) and accepts its token only when
 * it verifies, stamps this signature value and echoes our nonce. Failures throw a sentence;
 * the sealing job decides whether to retry.
 */
export function createTsaTimestamper(
  url: string,
  options: { timeoutMs?: number; fetch?: typeof undiciFetch; pinned?: readonly Uint8Array[] } = {},
): Timestamper {
  const fetchTsa = options.fetch ?? undiciFetch;
  const timeoutMs = options.timeoutMs ?? 10_000;
  return async (signatureValue) => {
    const nonce = randomBytes(8);
    nonce[0] = ((nonce[0] ?? 0) & 0x7f) | 0x01; // positive and without leading zeros
    let body: Uint8Array;
    try {
      const response = await fetchTsa(url, {
        method: 'POST',
        headers: { 'content-type': 'application/timestamp-query', accept: 'application/timestamp-reply' },
        body: new Uint8Array(timestampRequest(signatureValue, nonce)),
        signal: AbortSignal.timeout(timeoutMs),
      });
      body = await readResponse(response);
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('The time-stamp authority')) throw error;
      throw new Error(
        `The time-stamp authority at ${url} could not be reached (${(error as Error).message}).`,
      );
    }
    const token = tokenFrom(body);
    const check = await readTimestampToken(token, [signatureValue]);
    if (!check.valid) throw new Error(`The time-stamp authority's token was refused: ${check.problem}`);
    // Signet seals only with a token /verify will vouch for (SIGNET_SEAL_TSA_CERT_FILE).
    if (options.pinned && !isPinnedAuthority(check, options.pinned)) {
      throw new Error(
        `The time-stamp authority signed with a certificate other than SIGNET_SEAL_TSA_CERT_FILE's (${check.authority ?? 'unreadable'}).`,
      );
    }
    const echoed = readTstInfo(token)?.nonce?.valueBlock.valueHexView;
    if (!echoed || !Buffer.from(echoed).equals(nonce)) {
      throw new Error("The time-stamp authority's token does not carry our nonce.");
    }
    return token;
  };
}
