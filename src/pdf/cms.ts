// CMS SignedData for PDF signatures: the CAdES-detached signature a PAdES B-B seal carries in
// its /Contents, and the check of any such signature (ours or another signer's) over the bytes
// its /ByteRange names. The signed bytes arrive as parts (the ranges before and after
// /Contents) and are hashed part by part, so the file is never copied to be signed or checked.
import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { SealIdentity } from './seal-identity.ts';

const oids = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
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

// RFC 5035: ESSCertIDv2 with the default hash (SHA-256, so hashAlgorithm is omitted in DER)
// and issuerSerial, which binds the signature to this one certificate.
function signingCertificateV2(certificate: pkijs.Certificate, der: Uint8Array): pkijs.Attribute {
  const issuerSerial = new asn1js.Sequence({
    value: [
      new asn1js.Sequence({
        value: [
          new asn1js.Constructed({
            idBlock: { tagClass: 3, tagNumber: 4 },
            value: [certificate.issuer.toSchema()],
          }),
        ],
      }),
      new asn1js.Integer({ valueHex: certificate.serialNumber.valueBlock.valueHexView.slice().buffer }),
    ],
  });
  const certHash = new asn1js.OctetString({ valueHex: toArrayBuffer(digestParts([der])) });
  const essCertIdV2 = new asn1js.Sequence({ value: [certHash, issuerSerial] });
  return new pkijs.Attribute({
    type: oids.signingCertificateV2,
    values: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] })],
  });
}

// Signed attributes are signed as a DER SET OF, whose members are sorted by their encodings;
// OpenSSL re-encodes them that way when it verifies, so an unsorted set would not verify there.
function sortedForDer(attributes: pkijs.Attribute[]): pkijs.Attribute[] {
  const encoded = attributes.map((attribute) => ({
    attribute,
    bytes: Buffer.from(attribute.toSchema().toBER(false)),
  }));
  encoded.sort((a, b) => Buffer.compare(a.bytes, b.bytes));
  return encoded.map((entry) => entry.attribute);
}

/**
 * A CAdES-detached SignedData (PAdES baseline B-B) over content whose SHA-256 is `digest`:
 * signed attributes contentType, messageDigest and signing-certificate-v2, no signingTime
 * (PAdES puts the time in the signature dictionary's /M). With `timestamp`, the signature
 * value is time-stamped and the token added as an unsigned attribute (B-T).
 */
export async function createCadesSignature(
  identity: SealIdentity,
  digest: Uint8Array,
  timestamp?: Timestamper,
): Promise<Uint8Array> {
  const certificate = pkijs.Certificate.fromBER(toArrayBuffer(identity.certificate));
  const chain = identity.chain.map((der) => pkijs.Certificate.fromBER(toArrayBuffer(der)));
  const signedAttributes = sortedForDer([
    new pkijs.Attribute({
      type: oids.contentType,
      values: [new asn1js.ObjectIdentifier({ value: oids.data })],
    }),
    new pkijs.Attribute({
      type: oids.messageDigest,
      values: [new asn1js.OctetString({ valueHex: toArrayBuffer(digest) })],
    }),
    signingCertificateV2(certificate, identity.certificate),
  ]);
  const signerInfo = new pkijs.SignerInfo({
    version: 1,
    sid: new pkijs.IssuerAndSerialNumber({
      issuer: certificate.issuer,
      serialNumber: certificate.serialNumber,
    }),
    signedAttrs: new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes: signedAttributes }),
  });
  const signedData = new pkijs.SignedData({
    version: 1,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: oids.data }),
    signerInfos: [signerInfo],
    certificates: [certificate, ...chain],
  });
  await signedData.sign(identity.privateKey, 0, 'SHA-256');

  if (timestamp) {
    const token = await timestamp(new Uint8Array(signerInfo.signature.valueBlock.valueHexView));
    const tokenAsn1 = asn1js.fromBER(toArrayBuffer(token));
    if (tokenAsn1.offset === -1)
      throw new Error('The time-stamp authority answered a token that is not DER.');
    signerInfo.unsignedAttrs = new pkijs.SignedAndUnsignedAttributes({
      type: 1,
      attributes: [new pkijs.Attribute({ type: oids.signatureTimeStampToken, values: [tokenAsn1.result] })],
    });
  }

  const contentInfo = new pkijs.ContentInfo({
    contentType: oids.signedData,
    content: signedData.toSchema(true),
  });
  return new Uint8Array(contentInfo.toSchema().toBER(false));
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
  return { signatureValid: false, digestMatches: false, signerCertificate: null, problem };
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
  if (signatureValid && !signingCertificateMatches(signerInfo, signerCertificate)) {
    return {
      signatureValid: false,
      digestMatches,
      signerCertificate,
      problem: 'The signing-certificate attribute names another certificate.',
    };
  }
  const problem = !signatureValid
    ? 'The signature does not verify with its certificate.'
    : !digestMatches
      ? 'The signed bytes have changed since signing.'
      : null;
  return { signatureValid, digestMatches, signerCertificate, problem };
}
