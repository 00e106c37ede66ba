// CMS SignedData for PDF signatures: the CAdES-detached signature a PAdES B-B seal carries in
// its /Contents, and the check of any such signature (ours or another signer's) over the bytes
// its /ByteRange names. The signed bytes arrive as parts (the ranges before and after
// /Contents) and are hashed part by part, so the file is never copied to be signed or checked.
import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { SealIdentity } from './seal-identity.ts';

const oids = {
  signedData: '1.2.840.113549.1.7.2',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  signatureTimeStampToken: '1.2.840.113549.1.9.16.2.14',
  rsaEncryption: '1.2.840.113549.1.1.1',
  ecPublicKey: '1.2.840.10045.2.1',
  subjectKeyIdentifier: '2.5.29.14',
};

const hashNames: Record<string, { node: string; webCrypto: string }> = {
  '1.3.14.3.2.26': { node: 'sha1', webCrypto: 'SHA-1' },
  '2.16.840.1.101.3.4.2.1': { node: 'sha256', webCrypto: 'SHA-256' },
  '2.16.840.1.101.3.4.2.2': { node: 'sha384', webCrypto: 'SHA-384' },
  '2.16.840.1.101.3.4.2.3': { node: 'sha512', webCrypto: 'SHA-512' },
};

export type CmsCheck = {
  signatureValid: boolean; // the signer's signature over the signed attributes verifies
  digestMatches: boolean; // the messageDigest attribute is the digest of the signed bytes
  signerCertificate: Uint8Array | null; // DER, when the CMS carries the signer's certificate
  problem: string | null; // why either check failed, in words
  signatureValue: Uint8Array | null; // what a signature time-stamp stamps
  timestampToken: Uint8Array | null; // the unsigned signatureTimeStampToken attribute, if any
};

/** Called with the signature value once it exists; answers an RFC 3161 TimeStampToken (DER). */
export type Timestamper = (signatureValue: Uint8Array) => Promise<Uint8Array>;

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

export function digestParts(parts: readonly Uint8Array[], algorithm = 'sha256'): Uint8Array {
  const hash = createHash(algorithm);
  for (const part of parts) hash.update(part);
  return new Uint8Array(hash.digest());
}

function equalBytes(a: Uint8Array | ArrayBuffer, b: Uint8Array | ArrayBuffer): boolean {
  return Buffer.from(a as ArrayBuffer).equals(Buffer.from(b as ArrayBuffer));
}

// ---- Writing: the signature is assembled as DER by hand. The structure is fixed, so this is
// short, its size is known before signing (the /Contents placeholder needs it), and it costs
// microseconds where building it through pkijs objects cost milliseconds per seal. ----

const der = {
  // Tags, and the DER of the fixed parts (OIDs, algorithm identifiers) written out once.
  sequence: 0x30,
  set: 0x31,
  octetString: 0x04,
  contextConstructed0: 0xa0,
  contextConstructed1: 0xa1,
  directoryName: 0xa4,
  version1: Buffer.from('020101', 'hex'),
  oidData: Buffer.from('06092a864886f70d010701', 'hex'),
  oidSignedData: Buffer.from('06092a864886f70d010702', 'hex'),
  oidContentType: Buffer.from('06092a864886f70d010903', 'hex'),
  oidMessageDigest: Buffer.from('06092a864886f70d010904', 'hex'),
  oidSigningCertificateV2: Buffer.from('060b2a864886f70d010910022f', 'hex'),
  oidSignatureTimeStampToken: Buffer.from('060b2a864886f70d010910020e', 'hex'),
  sha256: Buffer.from('300b0609608648016503040201', 'hex'), // parameters absent (RFC 5754)
  ecdsaWithSha256: Buffer.from('300a06082a8648ce3d040302', 'hex'),
  sha256WithRsa: Buffer.from('300d06092a864886f70d01010b0500', 'hex'),
};

function tlv(tag: number, ...contents: Uint8Array[]): Buffer {
  const length = contents.reduce((sum, part) => sum + part.length, 0);
  let header: number[];
  if (length < 0x80) header = [tag, length];
  else {
    const octets: number[] = [];
    for (let n = length; n > 0; n = Math.floor(n / 256)) octets.unshift(n % 256);
    header = [tag, 0x80 | octets.length, ...octets];
  }
  return Buffer.concat([Buffer.from(header), ...contents]);
}

type Element = { tag: number; start: number; body: number; end: number };

// One DER element's tag and extent (definite lengths only, as certificates are DER).
function readElement(bytes: Uint8Array, at: number): Element {
  const tag = bytes[at];
  const first = bytes[at + 1];
  if (tag === undefined || first === undefined) throw new Error('truncated DER');
  let length = first;
  let body = at + 2;
  if (first & 0x80) {
    const count = first & 0x7f;
    if (count === 0 || count > 4) throw new Error('unsupported DER length');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + (bytes[at + 2 + i] ?? 0);
    body += count;
  }
  if (body + length > bytes.length) throw new Error('truncated DER');
  return { tag, start: at, body, end: body + length };
}

function childrenOf(bytes: Uint8Array, parent: Element): Element[] {
  const children: Element[] = [];
  for (let at = parent.body; at < parent.end; ) {
    const child = readElement(bytes, at);
    children.push(child);
    at = child.end;
  }
  return children;
}

// The issuer Name and serialNumber of a certificate, as the DER they are written in
// (tbsCertificate: [0] version, serialNumber, signature, issuer, ...).
function issuerAndSerial(certificate: Uint8Array): { issuer: Uint8Array; serial: Uint8Array } {
  const tbs = childrenOf(certificate, readElement(certificate, 0))[0];
  if (!tbs) throw new Error('The seal certificate is not DER.');
  const fields = childrenOf(certificate, tbs);
  const first = fields[0]?.tag === der.contextConstructed0 ? 1 : 0;
  const serial = fields[first];
  const issuer = fields[first + 2];
  if (!serial || !issuer) throw new Error('The seal certificate is not DER.');
  return {
    issuer: certificate.subarray(issuer.start, issuer.end),
    serial: certificate.subarray(serial.start, serial.end),
  };
}

// Signed attributes are signed as a DER SET OF, whose members are sorted by their encodings.
function signedAttributes(identity: SealIdentity, digest: Uint8Array): Buffer[] {
  const { issuer, serial } = issuerAndSerial(identity.certificate);
  const certHash = tlv(der.octetString, digestParts([identity.certificate]));
  // RFC 5035 ESSCertIDv2: the default hash (SHA-256, so hashAlgorithm is omitted) and
  // issuerSerial, which binds the signature to this one certificate.
  const issuerSerial = tlv(der.sequence, tlv(der.sequence, tlv(der.directoryName, issuer)), serial);
  const signingCertificate = tlv(der.sequence, tlv(der.sequence, tlv(der.sequence, certHash, issuerSerial)));
  return [
    tlv(der.sequence, der.oidContentType, tlv(der.set, der.oidData)),
    tlv(der.sequence, der.oidMessageDigest, tlv(der.set, tlv(der.octetString, digest))),
    tlv(der.sequence, der.oidSigningCertificateV2, tlv(der.set, signingCertificate)),
  ].sort(Buffer.compare);
}

function signatureAlgorithm(identity: Pick<SealIdentity, 'algorithm'>): {
  webCrypto: { name: string; hash?: string };
  der: Buffer;
} {
  return identity.algorithm === 'RSA'
    ? { webCrypto: { name: 'RSASSA-PKCS1-v1_5' }, der: der.sha256WithRsa }
    : { webCrypto: { name: 'ECDSA', hash: 'SHA-256' }, der: der.ecdsaWithSha256 };
}

// The largest signature value the key can produce: RSA's is the modulus length; ECDSA's DER
// SEQUENCE of two INTEGERs is at most two coordinates plus a sign octet and headers each.
function maxSignatureBytes(identity: SealIdentity): number {
  if (identity.algorithm === 'RSA') {
    const bits = (identity.privateKey.algorithm as { modulusLength?: number }).modulusLength;
    if (!bits) throw new Error('The seal key does not say its RSA modulus length.');
    return Math.ceil(bits / 8);
  }
  const coordinate = identity.algorithm === 'ECDSA-P384' ? 48 : 32;
  return 2 + 2 * (2 + coordinate + 1);
}

// Web Crypto signs ECDSA as r || s; CMS wants ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }.
function ecdsaSignatureToDer(raw: Uint8Array): Buffer {
  const integer = (bytes: Uint8Array) => {
    let start = 0;
    while (start < bytes.length - 1 && bytes[start] === 0) start++;
    const trimmed = bytes.subarray(start);
    return tlv(0x02, ...((trimmed[0] ?? 0) & 0x80 ? [Buffer.from([0]), trimmed] : [trimmed]));
  };
  const half = raw.length / 2;
  return tlv(der.sequence, integer(raw.subarray(0, half)), integer(raw.subarray(half)));
}

function contentInfo(
  identity: Pick<SealIdentity, 'certificate' | 'chain' | 'algorithm'>,
  attributes: Uint8Array[],
  signature: Uint8Array,
  unsigned?: Buffer,
): Buffer {
  const { issuer, serial } = issuerAndSerial(identity.certificate);
  const signerInfo = tlv(
    der.sequence,
    der.version1,
    tlv(der.sequence, issuer, serial),
    der.sha256,
    tlv(der.contextConstructed0, ...attributes),
    signatureAlgorithm(identity).der,
    tlv(der.octetString, signature),
    ...(unsigned ? [unsigned] : []),
  );
  const signedData = tlv(
    der.sequence,
    der.version1,
    tlv(der.set, der.sha256),
    tlv(der.sequence, der.oidData), // detached: no eContent
    tlv(der.contextConstructed0, identity.certificate, ...identity.chain),
    tlv(der.set, signerInfo),
  );
  return tlv(der.sequence, der.oidSignedData, tlv(der.contextConstructed0, signedData));
}

/** The most bytes createCadesSignature can answer without a time-stamp: the /Contents to reserve. */
export function maxCadesSignatureBytes(identity: SealIdentity): number {
  const attributes = signedAttributes(identity, new Uint8Array(32));
  return contentInfo(identity, attributes, new Uint8Array(maxSignatureBytes(identity))).length;
}

/**
 * A CAdES-detached SignedData (PAdES baseline B-B) over content whose SHA-256 is `digest`:
 * signed attributes contentType, messageDigest and signing-certificate-v2, no signingTime
 * (PAdES puts the time in the signature dictionary's /M); certificates: the seal's, then its
 * chain. With `timestamp`, the signature value is time-stamped and the token added as an
 * unsigned attribute (B-T).
 */
export async function createCadesSignature(
  identity: SealIdentity,
  digest: Uint8Array,
  timestamp?: Timestamper,
): Promise<Uint8Array> {
  const attributes = signedAttributes(identity, digest);
  // The signature covers the attributes as a SET OF (tag 0x31), not as the [0] they travel in.
  const toSign = tlv(der.set, ...attributes);
  const algorithm = signatureAlgorithm(identity);
  const raw = new Uint8Array(
    await globalThis.crypto.subtle.sign(algorithm.webCrypto, identity.privateKey, toSign),
  );
  const signature = identity.algorithm === 'RSA' ? raw : ecdsaSignatureToDer(raw);
  let unsigned: Buffer | undefined;
  if (timestamp) {
    const token = await timestamp(signature);
    unsigned = tlv(
      der.contextConstructed1,
      tlv(der.sequence, der.oidSignatureTimeStampToken, tlv(der.set, token)),
    );
  }
  return new Uint8Array(contentInfo(identity, attributes, signature, unsigned));
}

// ---- Reading back: is a container exactly what createCadesSignature writes? ----

/** The parts of a container that createCadesSignature wrote (see `readSealContainer`). */
export type SealContainer = {
  /** The certificates it carries, in its order: the seal's first, then its chain. */
  certificates: Uint8Array[];
  /** The signatureTimeStampToken, when the container carries one (B-T). */
  timestampToken: Uint8Array | null;
};

function slice(bytes: Uint8Array, element: Element): Uint8Array {
  return bytes.subarray(element.start, element.end);
}

/**
 * The parts of `cms` when it is byte for byte what createCadesSignature writes for them, else
 * null: its certificates, signed attributes, signature value and time-stamp token (the parts a
 * signer chooses) are taken out and written again by the same code that seals, so a container
 * re-encoded (another length form, BER), with anything added (a CRL, a second signer, another
 * unsigned attribute, a second token) or with another digest or algorithm identifier does not
 * come back the same. Never throws.
 */
export function readSealContainer(cms: Uint8Array): SealContainer | null {
  try {
    const root = readElement(cms, 0);
    if (root.end !== cms.length) return null;
    const [, wrapper] = childrenOf(cms, root);
    const signedData = wrapper && childrenOf(cms, wrapper)[0];
    const fields = signedData ? childrenOf(cms, signedData) : [];
    const [certificateSet, signerInfos] = [fields[3], fields[4]];
    if (!certificateSet || !signerInfos) return null;
    const certificates = childrenOf(cms, certificateSet).map((e) => slice(cms, e));
    const signerInfo = childrenOf(cms, signerInfos)[0];
    const parts = signerInfo ? childrenOf(cms, signerInfo) : [];
    const [signedAttributes, algorithm, value, unsigned] = [parts[3], parts[4], parts[5], parts[6]];
    const [certificate, ...chain] = certificates;
    if (!certificate || !signedAttributes || !algorithm || !value) return null;
    const attributes = childrenOf(cms, signedAttributes).map((e) => slice(cms, e));
    const isRsa = Buffer.from(slice(cms, algorithm)).equals(der.sha256WithRsa);
    // The token is the first value of the first unsigned attribute; anything else there is lost
    // in the writing again, and the comparison below says so.
    const attribute = unsigned && childrenOf(cms, unsigned)[0];
    const values = attribute && childrenOf(cms, attribute)[1];
    const token = values && childrenOf(cms, values)[0];
    const rewritten = contentInfo(
      { certificate, chain, algorithm: isRsa ? 'RSA' : 'ECDSA-P256' },
      attributes,
      cms.subarray(value.body, value.end),
      token
        ? tlv(
            der.contextConstructed1,
            tlv(der.sequence, der.oidSignatureTimeStampToken, tlv(der.set, slice(cms, token))),
          )
        : undefined,
    );
    if (!rewritten.equals(cms)) return null;
    return { certificates, timestampToken: token ? slice(cms, token) : null };
  } catch {
    return null;
  }
}

/** A certificate's SubjectPublicKeyInfo, subject and issuer as the DER they are written in, or null. */
export function certificateNames(
  certificate: Uint8Array,
): { publicKey: Uint8Array; subject: Uint8Array; issuer: Uint8Array } | null {
  try {
    const tbs = childrenOf(certificate, readElement(certificate, 0))[0];
    if (!tbs) return null;
    const fields = childrenOf(certificate, tbs);
    const first = fields[0]?.tag === der.contextConstructed0 ? 1 : 0;
    // serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo
    const [issuer, subject, publicKey] = [fields[first + 2], fields[first + 4], fields[first + 5]];
    if (!issuer || !subject || !publicKey) return null;
    return {
      publicKey: slice(certificate, publicKey),
      subject: slice(certificate, subject),
      issuer: slice(certificate, issuer),
    };
  } catch {
    return null;
  }
}

function attributeValue(signerInfo: pkijs.SignerInfo, type: string): asn1js.AsnType | undefined {
  return signerInfo.signedAttrs?.attributes.find((attribute) => attribute.type === type)?.values[0];
}

function findSignerCertificate(
  signedData: pkijs.SignedData,
  signerInfo: pkijs.SignerInfo,
): pkijs.Certificate | undefined {
  const certificates = (signedData.certificates ?? []).filter(
    (c): c is pkijs.Certificate => c instanceof pkijs.Certificate,
  );
  const sid = signerInfo.sid;
  if (sid instanceof pkijs.IssuerAndSerialNumber) {
    return certificates.find((c) => c.issuer.isEqual(sid.issuer) && c.serialNumber.isEqual(sid.serialNumber));
  }
  // [0] SubjectKeyIdentifier
  const keyId = (sid as asn1js.Constructed).valueBlock?.value?.[0];
  const wanted = keyId instanceof asn1js.OctetString ? keyId.valueBlock.valueHexView : undefined;
  if (!wanted && sid instanceof asn1js.Primitive) return undefined;
  const id = wanted ?? (sid as asn1js.Primitive).valueBlock.valueHexView;
  return certificates.find((c) => {
    const extension = c.extensions?.find((e) => e.extnID === oids.subjectKeyIdentifier);
    const value = extension?.parsedValue;
    return value instanceof asn1js.OctetString && equalBytes(value.valueBlock.valueHexView, id);
  });
}

// CAdES: a signing-certificate-v2 attribute, when present, must name the signer's certificate.
function signingCertificateMatches(signerInfo: pkijs.SignerInfo, certificateDer: Uint8Array): boolean {
  const value = attributeValue(signerInfo, oids.signingCertificateV2);
  if (!value) return true;
  const essCertId = (value as asn1js.Sequence).valueBlock?.value?.[0] as asn1js.Sequence | undefined;
  const first = essCertId?.valueBlock?.value?.[0] as asn1js.Sequence | undefined;
  const fields = first?.valueBlock?.value ?? [];
  let hashOid = '2.16.840.1.101.3.4.2.1';
  let certHash: asn1js.OctetString | undefined;
  for (const field of fields) {
    if (field instanceof asn1js.OctetString) certHash = field;
    else if (field instanceof asn1js.Sequence && !certHash) {
      const oid = field.valueBlock.value[0];
      if (oid instanceof asn1js.ObjectIdentifier) hashOid = oid.getValue();
    }
  }
  const hash = hashNames[hashOid];
  if (!certHash || !hash) return false;
  return equalBytes(certHash.valueBlock.valueHexView, digestParts([certificateDer], hash.node));
}

function unreadable(problem: string): CmsCheck {
  return {
    signatureValid: false,
    digestMatches: false,
    signerCertificate: null,
    problem,
    signatureValue: null,
    timestampToken: null,
  };
}

function timestampTokenOf(signerInfo: pkijs.SignerInfo): Uint8Array | null {
  const attribute = signerInfo.unsignedAttrs?.attributes.find((a) => a.type === oids.signatureTimeStampToken);
  const value = attribute?.values[0] as asn1js.BaseBlock | undefined;
  return value ? new Uint8Array(value.toBER(false)) : null;
}

/**
 * Checks a detached CMS signature over `signedParts`: whether the signer's signature verifies and
 * whether the signed messageDigest is the digest of the parts. Never throws: unreadable input is
 * a failed check with a reason.
 */
export async function verifyCms(cmsDer: Uint8Array, signedParts: readonly Uint8Array[]): Promise<CmsCheck> {
  let signedData: pkijs.SignedData;
  try {
    const contentInfo = pkijs.ContentInfo.fromBER(toArrayBuffer(cmsDer));
    if (contentInfo.contentType !== oids.signedData)
      return unreadable('The signature is not CMS SignedData.');
    signedData = new pkijs.SignedData({ schema: contentInfo.content });
  } catch {
    return unreadable('The signature is not readable CMS.');
  }
  const signerInfo = signedData.signerInfos[0];
  if (!signerInfo) return unreadable('The signature has no signer.');
  const certificate = findSignerCertificate(signedData, signerInfo);
  if (!certificate) return unreadable("The signature does not carry its signer's certificate.");
  const signerCertificate = new Uint8Array(certificate.toSchema().toBER(false));
  const hash = hashNames[signerInfo.digestAlgorithm.algorithmId];
  if (!hash) return { ...unreadable('The signature uses an unknown digest algorithm.'), signerCertificate };

  const digest = digestParts(signedParts, hash.node);
  let digestMatches: boolean;
  let signedBytes: ArrayBuffer;
  if (signerInfo.signedAttrs) {
    const messageDigest = attributeValue(signerInfo, oids.messageDigest);
    digestMatches =
      messageDigest instanceof asn1js.OctetString &&
      equalBytes(messageDigest.valueBlock.valueHexView, digest);
    // The signature covers the attributes' DER as received, with the SET OF tag in place of [0].
    const encoded = new Uint8Array(signerInfo.signedAttrs.encodedValue.slice(0));
    encoded[0] = 0x31;
    signedBytes = encoded.buffer;
  } else {
    // No signed attributes (allowed for adbe.pkcs7.detached): the signature is over the content.
    digestMatches = true;
    signedBytes = toArrayBuffer(Buffer.concat(signedParts));
  }

  let signatureValid = false;
  try {
    const algorithmId = signerInfo.signatureAlgorithm.algorithmId;
    const bareKeyAlgorithm = algorithmId === oids.rsaEncryption || algorithmId === oids.ecPublicKey;
    signatureValid = await pkijs
      .getCrypto(true)
      .verifyWithPublicKey(
        signedBytes,
        signerInfo.signature,
        certificate.subjectPublicKeyInfo,
        signerInfo.signatureAlgorithm,
        bareKeyAlgorithm ? hash.webCrypto : undefined,
      );
  } catch {
    signatureValid = false;
  }
  const found = {
    signerCertificate,
    signatureValue: new Uint8Array(signerInfo.signature.valueBlock.valueHexView),
    timestampToken: timestampTokenOf(signerInfo),
  };
  if (signatureValid && !signingCertificateMatches(signerInfo, signerCertificate)) {
    const problem = 'The signing-certificate attribute names another certificate.';
    return { ...found, signatureValid: false, digestMatches, problem };
  }
  const problem = !signatureValid
    ? 'The signature does not verify with its certificate.'
    : !digestMatches
      ? 'The signed bytes have changed since signing.'
      : null;
  return { ...found, signatureValid, digestMatches, problem };
}
