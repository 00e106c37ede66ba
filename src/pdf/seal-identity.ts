// The seal's identity: the certificate and private key that seal completed documents.
// Two sources: a self-signed certificate Signet makes at first start (stored by the caller
// as certificate DER + PKCS#8), or a PKCS#12 file from a CA. The private key is always
// re-imported as non-extractable, so nothing downstream can print or export it.
import { createHash, getRandomValues, type webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

// ECDSA P-256 is what Signet makes (poppler/NSS and Adobe validate it); CA-issued seals
// commonly use RSA or P-384, so those load too.
export type SealAlgorithm = 'ECDSA-P256' | 'ECDSA-P384' | 'RSA';

export type SealIdentity = {
  certificate: Uint8Array; // DER, end-entity
  chain: Uint8Array[]; // DER, intermediates (possibly the root); may be empty
  privateKey: CryptoKey; // non-extractable, usage 'sign'
  algorithm: SealAlgorithm;
};

export type CertificateDescription = {
  subject: string;
  issuer: string;
  serialNumber: string;
  fingerprintSha256: string;
  notBefore: Date;
  notAfter: Date;
};

type CryptoKey = webcrypto.CryptoKey;

const subtle = globalThis.crypto.subtle;

const oids = {
  ecPublicKey: '1.2.840.10045.2.1',
  p256: '1.2.840.10045.3.1.7',
  p384: '1.3.132.0.34',
  rsaEncryption: '1.2.840.113549.1.1.1',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  basicConstraints: '2.5.29.19',
  subjectKeyIdentifier: '2.5.29.14',
  authorityKeyIdentifier: '2.5.29.35',
  // RFC 9336 id-kp-documentSigning, plus emailProtection: NSS (pdfsig) checks signing
  // certificates for the e-mail signer usage, and Adobe accepts emailProtection too.
  documentSigning: '1.3.6.1.5.5.7.3.36',
  emailProtection: '1.3.6.1.5.5.7.3.4',
  pkcs8ShroudedKeyBag: '1.2.840.113549.1.12.10.1.2',
  keyBag: '1.2.840.113549.1.12.10.1.1',
  certBag: '1.2.840.113549.1.12.10.1.3',
  x509Certificate: '1.2.840.113549.1.9.22.1',
};

const validityYears = 10;

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

// One attribute per RDN, most general first (O before CN), as CAs write names. pkijs would put
// every attribute into a single multi-valued RDN, so the SEQUENCE OF SET is built here.
function nameOf(fields: [string, string][]): pkijs.RelativeDistinguishedNames {
  const rdns = fields.map(
    ([type, value]) =>
      new asn1js.Set({
        value: [
          new pkijs.AttributeTypeAndValue({ type, value: new asn1js.Utf8String({ value }) }).toSchema(),
        ],
      }),
  );
  return pkijs.RelativeDistinguishedNames.fromBER(new asn1js.Sequence({ value: rdns }).toBER(false));
}

// X.509 says: UTCTime through 2049, GeneralizedTime from 2050.
function timeOf(date: Date): pkijs.Time {
  const type = date.getUTCFullYear() >= 2050 ? pkijs.TimeType.GeneralizedTime : pkijs.TimeType.UTCTime;
  return new pkijs.Time({ type, value: date });
}

function addYears(date: Date, years: number): Date {
  const result = new Date(date.getTime());
  result.setUTCFullYear(result.getUTCFullYear() + years);
  return result;
}

// A positive 16-byte serial (RFC 5280 allows up to 20 octets; the top bit clear keeps it positive).
function randomSerial(): asn1js.Integer {
  const bytes = getRandomValues(new Uint8Array(16));
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x01;
  return new asn1js.Integer({ valueHex: toArrayBuffer(bytes) });
}

function extension(extnID: string, critical: boolean, value: asn1js.BaseBlock): pkijs.Extension {
  return new pkijs.Extension({ extnID, critical, extnValue: value.toBER(false) });
}

function sealExtensions(keyId: Uint8Array): pkijs.Extension[] {
  // digitalSignature (bit 0) and nonRepudiation (bit 1): 0b11 in the top bits, 6 unused bits.
  const keyUsage = new asn1js.BitString({ valueHex: new Uint8Array([0xc0]).buffer, unusedBits: 6 });
  const keyIdBuffer = toArrayBuffer(keyId);
  return [
    extension(oids.basicConstraints, true, new asn1js.Sequence({ value: [] })),
    extension(oids.keyUsage, true, keyUsage),
    extension(
      oids.extKeyUsage,
      false,
      new pkijs.ExtKeyUsage({ keyPurposes: [oids.documentSigning, oids.emailProtection] }).toSchema(),
    ),
    extension(oids.subjectKeyIdentifier, false, new asn1js.OctetString({ valueHex: keyIdBuffer })),
    extension(
      oids.authorityKeyIdentifier,
      false,
      new pkijs.AuthorityKeyIdentifier({
        keyIdentifier: new asn1js.OctetString({ valueHex: keyIdBuffer }),
      }).toSchema(),
    ),
  ];
}

async function importSigningKey(pkcs8: Uint8Array, algorithm: SealAlgorithm, extractable: boolean) {
  const params =
    algorithm === 'RSA'
      ? { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }
      : { name: 'ECDSA', namedCurve: algorithm === 'ECDSA-P384' ? 'P-384' : 'P-256' };
  return subtle.importKey('pkcs8', toArrayBuffer(pkcs8), params, extractable, ['sign']);
}

/**
 * A new self-signed seal: ECDSA P-256, valid ten years from `now`, marked for document signing.
 * Returns the PKCS#8 private key for the caller to store; the identity's key cannot be exported.
 */
export async function createSelfSignedSeal(input: {
  commonName: string;
  organization?: string;
  now: Date;
}): Promise<{ identity: SealIdentity; pkcs8: Uint8Array }> {
  const keys = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
  const fields: [string, string][] = [[oids.commonName, input.commonName]];
  if (input.organization) fields.unshift([oids.organization, input.organization]);

  const certificate = new pkijs.Certificate();
  certificate.version = 2;
  certificate.serialNumber = randomSerial();
  certificate.subject = nameOf(fields);
  certificate.issuer = nameOf(fields);
  certificate.notBefore = timeOf(input.now);
  certificate.notAfter = timeOf(addYears(input.now, validityYears));
  await certificate.subjectPublicKeyInfo.importKey(keys.publicKey);
  // RFC 5280 4.2.1.2 method 1: SHA-1 of the subjectPublicKey bits.
  const keyId = createHash('sha1')
    .update(certificate.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView)
    .digest();
  certificate.extensions = sealExtensions(keyId);
  await certificate.sign(keys.privateKey, 'SHA-256');

  const pkcs8 = new Uint8Array(await subtle.exportKey('pkcs8', keys.privateKey));
  const der = new Uint8Array(certificate.toSchema().toBER(false));
  return { identity: await identityFromPkcs8(der, pkcs8), pkcs8 };
}

function parseCertificate(der: Uint8Array): pkijs.Certificate {
  try {
    return pkijs.Certificate.fromBER(toArrayBuffer(der));
  } catch {
    throw new Error('The seal certificate is not a readable X.509 certificate.');
  }
}

function algorithmOf(certificate: pkijs.Certificate): SealAlgorithm {
  const { algorithm } = certificate.subjectPublicKeyInfo;
  if (algorithm.algorithmId === oids.rsaEncryption) return 'RSA';
  if (algorithm.algorithmId === oids.ecPublicKey) {
    const curve =
      algorithm.algorithmParams instanceof asn1js.ObjectIdentifier && algorithm.algorithmParams.getValue();
    if (curve === oids.p256) return 'ECDSA-P256';
    if (curve === oids.p384) return 'ECDSA-P384';
  }
  throw new Error(
    'The seal certificate uses a key type Signet cannot sign with (use RSA, ECDSA P-256 or P-384).',
  );
}

// Compares the private key with the certificate's public key through their JWK forms
// (Web Crypto cannot derive a public key from a private one directly).
async function keyMatchesCertificate(
  privateKey: CryptoKey,
  certificate: pkijs.Certificate,
  algorithm: SealAlgorithm,
): Promise<boolean> {
  const params =
    algorithm === 'RSA'
      ? { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }
      : { name: 'ECDSA', namedCurve: algorithm === 'ECDSA-P384' ? 'P-384' : 'P-256' };
  const spki = certificate.subjectPublicKeyInfo.toSchema().toBER(false);
  const publicKey = await subtle.importKey('spki', spki, params, true, ['verify']);
  const [priv, pub] = await Promise.all([
    subtle.exportKey('jwk', privateKey),
    subtle.exportKey('jwk', publicKey),
  ]);
  return algorithm === 'RSA' ? priv.n === pub.n && priv.e === pub.e : priv.x === pub.x && priv.y === pub.y;
}

async function identityFrom(
  certificateDer: Uint8Array,
  pkcs8: Uint8Array,
  chain: Uint8Array[],
): Promise<SealIdentity | null> {
  const certificate = parseCertificate(certificateDer);
  const algorithm = algorithmOf(certificate);
  let extractable: CryptoKey;
  try {
    extractable = await importSigningKey(pkcs8, algorithm, true);
  } catch {
    return null;
  }
  if (!(await keyMatchesCertificate(extractable, certificate, algorithm))) return null;
  const privateKey = await importSigningKey(pkcs8, algorithm, false);
  return { certificate: certificateDer, chain, privateKey, algorithm };
}

/** Rebuilds a stored identity (certificate DER + PKCS#8 key); throws when they do not belong together. */
export async function identityFromPkcs8(
  certificateDer: Uint8Array,
  pkcs8: Uint8Array,
  chain: Uint8Array[] = [],
): Promise<SealIdentity> {
  const identity = await identityFrom(certificateDer, pkcs8, chain);
  if (!identity) throw new Error("The seal's private key does not belong to its certificate.");
  return identity;
}

type P12Contents = { keys: Uint8Array[]; certificates: Uint8Array[] };

function passwordBuffer(passphrase: string): ArrayBuffer {
  return toArrayBuffer(new TextEncoder().encode(passphrase));
}

async function decryptShroudedKey(
  bag: pkijs.PKCS8ShroudedKeyBag,
  password: ArrayBuffer,
): Promise<Uint8Array> {
  const encrypted = new pkijs.EncryptedData({
    encryptedContentInfo: new pkijs.EncryptedContentInfo({
      contentEncryptionAlgorithm: bag.encryptionAlgorithm,
      encryptedContent: bag.encryptedData,
    }),
  });
  return new Uint8Array(await encrypted.decrypt({ password }));
}

async function collectBags(bags: pkijs.SafeBag[], password: ArrayBuffer, into: P12Contents): Promise<void> {
  for (const bag of bags) {
    if (bag.bagId === oids.pkcs8ShroudedKeyBag) {
      into.keys.push(await decryptShroudedKey(bag.bagValue as pkijs.PKCS8ShroudedKeyBag, password));
    } else if (bag.bagId === oids.keyBag) {
      into.keys.push(new Uint8Array((bag.bagValue as pkijs.PrivateKeyInfo).toSchema().toBER(false)));
    } else if (bag.bagId === oids.certBag) {
      const certBag = bag.bagValue as pkijs.CertBag;
      if (certBag.certId === oids.x509Certificate && certBag.parsedValue instanceof pkijs.Certificate) {
        into.certificates.push(new Uint8Array(certBag.parsedValue.toSchema().toBER(false)));
      }
    }
  }
}

function describePkcs12Failure(error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  if (/Unsupported|Unknown "contentEncryptionAlgorithm"|Unknown.*algorithm/i.test(message)) {
    return new Error(
      'The seal file uses legacy PKCS#12 encryption (3DES/RC2) that Signet cannot read; ' +
        're-export it with a current OpenSSL (openssl pkcs12 -export, which uses AES-256).',
    );
  }
  return new Error('The seal passphrase is wrong, or the PKCS#12 file is damaged.');
}

async function readPkcs12(bytes: Uint8Array, passphrase: string): Promise<P12Contents> {
  let pfx: pkijs.PFX;
  try {
    pfx = pkijs.PFX.fromBER(toArrayBuffer(bytes));
  } catch {
    throw new Error('The seal file is not a PKCS#12 (.p12/.pfx) file.');
  }
  const password = passwordBuffer(passphrase);
  const contents: P12Contents = { keys: [], certificates: [] };
  try {
    await pfx.parseInternalValues({ password, checkIntegrity: pfx.macData !== undefined });
    const safe = pfx.parsedValue?.authenticatedSafe;
    if (!safe) throw new Error('no authenticated safe');
    await safe.parseInternalValues({ safeContents: safe.safeContents.map(() => ({ password })) });
    for (const content of safe.parsedValue?.safeContents ?? []) {
      await collectBags(content.value.safeBags, password, contents);
    }
  } catch (error) {
    throw describePkcs12Failure(error);
  }
  return contents;
}

/**
 * Loads a seal from a PKCS#12 file (as `openssl pkcs12 -export` makes it): the certificate that
 * matches the private key becomes the seal, every other certificate its chain.
 */
export async function loadP12(bytes: Uint8Array, passphrase: string): Promise<SealIdentity> {
  const { keys, certificates } = await readPkcs12(bytes, passphrase);
  if (keys.length === 0) throw new Error('The PKCS#12 file holds no private key.');
  if (certificates.length === 0) throw new Error('The PKCS#12 file holds no certificate.');
  for (const key of keys) {
    for (const certificate of certificates) {
      let identity: SealIdentity | null = null;
      try {
        const chain = certificates.filter((other) => other !== certificate);
        identity = await identityFrom(certificate, key, chain);
      } catch {
        // A CA certificate with a key type we do not sign with: not the seal, keep looking.
      }
      if (identity) return identity;
    }
  }
  throw new Error('The PKCS#12 file holds no certificate for its private key.');
}

const attributeNames: Record<string, string> = {
  '2.5.4.3': 'CN',
  '2.5.4.4': 'SN',
  '2.5.4.5': 'serialNumber',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.9': 'STREET',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.12': 'title',
  '2.5.4.42': 'GN',
  '2.5.4.97': 'organizationIdentifier',
  '0.9.2342.19200300.100.1.1': 'UID',
  '0.9.2342.19200300.100.1.25': 'DC',
  '1.2.840.113549.1.9.1': 'emailAddress',
};

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

// RFC 4514 section 2.4: escape the characters that would end or confuse a value.
function escapeDnValue(value: string): string {
  return value
    .replace(/[\\,+"<>;=]/g, (c) => `\\${c}`)
    .replace(/^[ #]/, (c) => `\\${c}`)
    .replace(/ $/, '\\ ');
}

function attributeValue(value: asn1js.AsnType): string {
  const block = (value as { valueBlock?: { value?: unknown } }).valueBlock;
  if (typeof block?.value === 'string') return escapeDnValue(block.value);
  return `#${hex(new Uint8Array(value.toBER(false)))}`;
}

/** RFC 4514 order: the most specific RDN first (so 'CN=…, O=…, C=…'). */
export function formatName(name: pkijs.RelativeDistinguishedNames): string {
  return name.typesAndValues
    .map((tv) => `${attributeNames[tv.type] ?? tv.type}=${attributeValue(tv.value)}`)
    .reverse()
    .join(', ');
}

/** Subject, issuer, serial, SHA-256 fingerprint and validity of a DER certificate, as people read them. */
export function describeCertificate(der: Uint8Array): CertificateDescription {
  const certificate = parseCertificate(der);
  const fingerprint = createHash('sha256').update(der).digest('hex').toUpperCase();
  return {
    subject: formatName(certificate.subject),
    issuer: formatName(certificate.issuer),
    // DER pads a positive serial whose top bit is set with 00; openssl and people leave it out.
    serialNumber: hex(certificate.serialNumber.valueBlock.valueHexView)
      .replace(/^00(?=[89a-f])/, '')
      .toUpperCase(),
    fingerprintSha256: fingerprint.match(/../g)?.join(':') ?? '',
    notBefore: certificate.notBefore.value,
    notAfter: certificate.notAfter.value,
  };
}
