// The independent tools the PDF tests judge by (poppler's pdfsig, pdftotext, pdfinfo and
// pdfimages, and qpdf --check), the programs that write the corpus's files (`rewritePdf`: qpdf,
// mutool, Ghostscript, pdftocairo), and a local RFC 3161 time-stamp authority for the B-T seal.
// CI installs them (poppler-utils, qpdf, mupdf-tools, ghostscript); a machine without one fails
// with a sentence saying so instead of skipping, so a green run always means the validators agreed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, type webcrypto } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

type Run = { code: number; stdout: string; stderr: string };

const installHints: Record<string, string> = {
  pdfsig: 'apt-get install poppler-utils',
  pdftotext: 'apt-get install poppler-utils',
  pdfinfo: 'apt-get install poppler-utils',
  pdfimages: 'apt-get install poppler-utils',
  pdffonts: 'apt-get install poppler-utils',
  qpdf: 'apt-get install qpdf',
  pdftocairo: 'apt-get install poppler-utils',
  pdftoppm: 'apt-get install poppler-utils',
  mutool: 'apt-get install mupdf-tools',
  gs: 'apt-get install ghostscript',
  ps2pdf: 'apt-get install ghostscript',
};

function run(command: string, args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') {
        reject(
          new Error(
            `${command} is not installed (${installHints[command] ?? command}); the PDF tests need it.`,
          ),
        );
      } else reject(error);
    });
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

async function withFile<T>(bytes: Uint8Array, use: (path: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'signet-pdf-'));
  try {
    const path = join(dir, 'file.pdf');
    await writeFile(path, bytes);
    return await use(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export type PdfsigSignature = {
  fieldName: string;
  signatureType: string;
  validation: string; // e.g. 'Signature is Valid.', 'Digest Mismatch.'
  totalDocumentSigned: boolean;
  text: string;
};

/** pdfsig's report, one entry per signature, in the file's order. */
export async function pdfsig(bytes: Uint8Array): Promise<{ signatures: PdfsigSignature[]; output: string }> {
  const result = await withFile(bytes, (path) => run('pdfsig', ['-no-ocsp', path]));
  const output = `${result.stdout}${result.stderr}`;
  const blocks = result.stdout.split(/^Signature #\d+:$/m).slice(1);
  const line = (block: string, label: string) =>
    block
      .split('\n')
      .find((l) => l.trim().startsWith(`- ${label}:`))
      ?.split(`${label}:`)[1]
      ?.trim() ?? '';
  const signatures = blocks.map((block) => ({
    fieldName: line(block, 'Signature Field Name'),
    signatureType: line(block, 'Signature Type'),
    validation: line(block, 'Signature Validation'),
    totalDocumentSigned: /^\s*- Total document signed$/m.test(block),
    text: block,
  }));
  return { signatures, output };
}

/** The file's text as pdftotext reads it (UTF-8), white space folded to single spaces. */
export async function pdftotext(bytes: Uint8Array): Promise<string> {
  const result = await withFile(bytes, (path) => run('pdftotext', ['-enc', 'UTF-8', path, '-']));
  if (result.code !== 0) throw new Error(`pdftotext failed: ${result.stderr}`);
  return result.stdout.replace(/\s+/g, ' ');
}

/** Page `page`'s text as `pdftotext -f page -l page` reads it (UTF-8, its layout as it gives it). */
export async function pdftotextPage(bytes: Uint8Array, page: number): Promise<string> {
  const number = String(page);
  const result = await withFile(bytes, (path) =>
    run('pdftotext', ['-enc', 'UTF-8', '-f', number, '-l', number, path, '-']),
  );
  if (result.code !== 0) throw new Error(`pdftotext failed: ${result.stderr}`);
  return result.stdout;
}

export type BboxWord = { page: number; text: string; xMin: number; yMin: number; xMax: number; yMax: number };
export type BboxPage = { page: number; width: number; height: number; words: BboxWord[] };

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * Every word pdftotext -bbox finds, page by page (`page` 1-based), in the page's displayed
 * space as poppler reads it: after /Rotate, within the crop box (-cropbox), in points from
 * the displayed page's top-left corner, y down. The words are placed in that space, but the
 * page's width and height pdftotext writes are the crop box's, unturned; they are turned
 * here by the rotation pdfinfo reads, so they are the displayed page's.
 */
export async function pdftotextBbox(bytes: Uint8Array): Promise<BboxPage[]> {
  const [result, info] = await withFile(bytes, (path) =>
    Promise.all([
      run('pdftotext', ['-bbox', '-cropbox', '-enc', 'UTF-8', path, '-']),
      run('pdfinfo', ['-f', '1', '-l', '100000', path]),
    ]),
  );
  if (result.code !== 0) throw new Error(`pdftotext -bbox failed: ${result.stderr}`);
  const turned = new Set(
    [...info.stdout.matchAll(/^Page\s+(\d+) rot:\s+(\d+)/gm)]
      .filter(([, , rotation]) => rotation === '90' || rotation === '270')
      .map(([, page]) => Number(page)),
  );
  const pages: BboxPage[] = [];
  for (const [, attributes = '', body = ''] of result.stdout.matchAll(/<page ([^>]*)>([\s\S]*?)<\/page>/g)) {
    const number = (text: string, name: string) => Number(new RegExp(`${name}="([-\\d.]+)"`).exec(text)?.[1]);
    const page = pages.length + 1;
    const words = [...body.matchAll(/<word ([^>]*)>([^<]*)<\/word>/g)].map(([, at = '', text = '']) => ({
      page,
      text: text.replace(/&(\w+);/g, (entity, name: string) => entities[name] ?? entity),
      xMin: number(at, 'xMin'),
      yMin: number(at, 'yMin'),
      xMax: number(at, 'xMax'),
      yMax: number(at, 'yMax'),
    }));
    const [width, height] = [number(attributes, 'width'), number(attributes, 'height')];
    pages.push(
      turned.has(page) ? { page, width: height, height: width, words } : { page, width, height, words },
    );
  }
  return pages;
}

/** The page count pdfinfo reads. */
export async function pdfPageCount(bytes: Uint8Array): Promise<number> {
  const result = await withFile(bytes, (path) => run('pdfinfo', [path]));
  return Number(/Pages:\s+(\d+)/.exec(result.stdout)?.[1]);
}

export type PdffontsFont = {
  name: string;
  type: string;
  embedded: boolean;
  subset: boolean;
  unicode: boolean;
};

/** pdffonts: every font the file's pages use, as poppler lists it (name, type, emb, sub, uni). */
export async function pdffonts(bytes: Uint8Array): Promise<PdffontsFont[]> {
  const result = await withFile(bytes, (path) => run('pdffonts', [path]));
  if (result.code !== 0) throw new Error(`pdffonts failed: ${result.stderr}`);
  // After the two header lines: name, type (one or more words), encoding, emb, sub, uni, object, generation.
  return result.stdout
    .split('\n')
    .slice(2)
    .filter((line) => line.trim())
    .map((line) => {
      const words = line.trim().split(/\s+/);
      const [emb, sub, uni] = words.slice(-5, -2);
      return {
        name: words[0] as string,
        type: words.slice(1, -6).join(' '),
        embedded: emb === 'yes',
        subset: sub === 'yes',
        unicode: uni === 'yes',
      };
    });
}

/** pdfimages -list: one line per image drawn in the file. */
export async function pdfImageList(bytes: Uint8Array): Promise<string> {
  return (await withFile(bytes, (path) => run('pdfimages', ['-list', path]))).stdout;
}

/**
 * The file another program writes from `bytes`: `command` run with `args`, where `{in}` and
 * `{out}` stand for the input's and the output's paths (qpdf, mutool, gs, pdftocairo). A
 * failure (qpdf's exit 3, warnings only, is none) throws with the program's own words.
 */
export async function rewritePdf(bytes: Uint8Array, command: string, args: string[]): Promise<Uint8Array> {
  const dir = await mkdtemp(join(tmpdir(), 'signet-rewrite-'));
  try {
    const [input, output] = [join(dir, 'in.pdf'), join(dir, 'out.pdf')];
    await writeFile(input, bytes);
    const result = await run(
      command,
      args.map((arg) => arg.replaceAll('{in}', input).replaceAll('{out}', output)),
    );
    if (result.code !== 0 && !(command === 'qpdf' && result.code === 3)) {
      throw new Error(`${command} ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
    }
    return new Uint8Array(await readFile(output));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** qpdf --check: exit 0 clean, 3 warnings only, 2 errors. */
export async function qpdfCheck(
  bytes: Uint8Array,
): Promise<{ errors: boolean; warnings: boolean; output: string }> {
  const result = await withFile(bytes, (path) => run('qpdf', ['--check', path]));
  return {
    errors: result.code !== 0 && result.code !== 3,
    warnings: result.code === 3,
    output: `${result.stdout}${result.stderr}`,
  };
}

type QpdfObjects = Record<string, { value?: unknown }>;

/** Every object of the file as qpdf reads it (`qpdf --json=2 --json-key=qpdf`), keyed 'obj:N G R' and 'trailer'. */
export async function qpdfObjects(bytes: Uint8Array): Promise<QpdfObjects> {
  const result = await withFile(bytes, (path) => run('qpdf', ['--json=2', '--json-key=qpdf', path]));
  if (result.code !== 0 && result.code !== 3) throw new Error(`qpdf --json failed: ${result.stderr}`);
  return (JSON.parse(result.stdout) as { qpdf: [unknown, QpdfObjects] }).qpdf[1];
}

type QpdfDict = Record<string, unknown>;

/**
 * What qpdf reads of the permissions of the signature in field `fieldName`: its signature
 * dictionary's /Reference, the field's /Lock, the catalog (its reference) and whether its
 * /Perms is exactly { /DocMDP: that signature dictionary } (`permsNameIt`), or what else it is.
 */
export async function qpdfSealPermissions(
  bytes: Uint8Array,
  fieldName: string,
): Promise<{ reference: unknown; lock: unknown; perms: unknown; permsNameIt: boolean; catalogRef: string }> {
  const objects = await qpdfObjects(bytes);
  const dict = (ref: unknown) => objects[`obj:${String(ref)}`]?.value as QpdfDict | undefined;
  const widgets = Object.values(objects)
    .map((o) => o.value as QpdfDict | undefined)
    .filter((d) => d?.['/FT'] === '/Sig' && d['/T'] === `u:${fieldName}`);
  assert.equal(widgets.length, 1, `one field named ${fieldName}`);
  const widget = widgets[0] as QpdfDict;
  const signatureRef = widget['/V'];
  const signature = dict(signatureRef);
  assert.equal(signature?.['/Type'], '/Sig', 'the field’s /V is its signature dictionary');
  const trailer = objects.trailer?.value as QpdfDict | undefined;
  const catalogRef = String(trailer?.['/Root']);
  const catalog = dict(catalogRef);
  const perms = catalog?.['/Perms'];
  const permsNameIt = JSON.stringify(perms) === JSON.stringify({ '/DocMDP': signatureRef });
  return { reference: signature?.['/Reference'], lock: widget['/Lock'], perms, permsNameIt, catalogRef };
}

/** The certification by DocMDP with no changes permitted, as qpdf reads it back (ISO 32000-2 Table 256, 257). */
export const certifiedReference = [
  {
    '/Type': '/SigRef',
    '/TransformMethod': '/DocMDP',
    '/DigestMethod': '/SHA256',
    '/TransformParams': { '/Type': '/TransformParams', '/P': 1, '/V': '/1.2' },
  },
];

/** The seal's lock of every field after an earlier signature, as qpdf reads it back (Table 236, 259). */
export function lockedReference(catalogRef: string) {
  return [
    {
      '/Type': '/SigRef',
      '/TransformMethod': '/FieldMDP',
      '/DigestMethod': '/SHA256',
      '/Data': catalogRef,
      '/TransformParams': { '/Type': '/TransformParams', '/Action': '/All', '/V': '/1.2' },
    },
  ];
}
export const fieldLock = { '/Type': '/SigFieldLock', '/Action': '/All', '/P': 1 };

export type TestTsa = {
  url: string;
  /** Its certificate, PEM: what SIGNET_SEAL_TSA_CERT_FILE pins. */
  certificatePem: string;
  requests: () => number;
  /** The genTime of the tokens it makes from now on. */
  setTime: (genTime: Date) => void;
  close: () => Promise<void>;
};

/**
 * A tiny RFC 3161 time-stamp authority on 127.0.0.1, built with pkijs: stamps whatever it is
 * asked with `genTime`, echoing the nonce, signed by its own self-signed ECDSA certificate.
 * `fail` makes it answer HTTP 500; `name` is its certificate's CN (every one has a key of its own).
 */
export async function startTestTsa(
  time: Date,
  options: { fail?: boolean; name?: string } = {},
): Promise<TestTsa> {
  let genTime = time;
  const keys = await globalThis.crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, [
    'sign',
    'verify',
  ]);
  const certificate = new pkijs.Certificate();
  certificate.version = 2;
  certificate.serialNumber = new asn1js.Integer({ value: 1 });
  const name = new asn1js.Sequence({
    value: [
      new asn1js.Set({
        value: [
          new pkijs.AttributeTypeAndValue({
            type: '2.5.4.3',
            value: new asn1js.Utf8String({ value: options.name ?? 'Signet Test TSA' }),
          }).toSchema(),
        ],
      }),
    ],
  }).toBER(false);
  certificate.subject = pkijs.RelativeDistinguishedNames.fromBER(name);
  certificate.issuer = pkijs.RelativeDistinguishedNames.fromBER(name);
  certificate.notBefore = new pkijs.Time({ value: new Date('2024-01-01T00:00:00Z') });
  certificate.notAfter = new pkijs.Time({ value: new Date('2034-01-01T00:00:00Z') });
  certificate.extensions = [
    new pkijs.Extension({
      extnID: '2.5.29.37', // id-kp-timeStamping, critical as RFC 3161 asks
      critical: true,
      extnValue: new pkijs.ExtKeyUsage({ keyPurposes: ['1.3.6.1.5.5.7.3.8'] }).toSchema().toBER(false),
    }),
  ];
  await certificate.subjectPublicKeyInfo.importKey(keys.publicKey);
  await certificate.sign(keys.privateKey, 'SHA-256');

  let requests = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      requests++;
      if (options.fail) {
        response.writeHead(500).end();
        return;
      }
      const body = Buffer.concat(chunks);
      const stampRequest = pkijs.TimeStampReq.fromBER(
        body.buffer.slice(body.byteOffset, body.byteOffset + body.length),
      );
      const token = await stamp(stampRequest, certificate, keys.privateKey, genTime, requests);
      const reply = new pkijs.TimeStampResp({
        status: new pkijs.PKIStatusInfo({ status: pkijs.PKIStatus.granted }),
        timeStampToken: token,
      });
      response.writeHead(200, { 'content-type': 'application/timestamp-reply' });
      response.end(Buffer.from(reply.toSchema().toBER(false)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const der = Buffer.from(certificate.toSchema().toBER(false));
  return {
    url: `http://127.0.0.1:${port}/tsa`,
    certificatePem: `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/.{64}/g, '$&\n')}\n-----END CERTIFICATE-----\n`,
    requests: () => requests,
    setTime: (next) => {
      genTime = next;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function stamp(
  request: pkijs.TimeStampReq,
  certificate: pkijs.Certificate,
  privateKey: webcrypto.CryptoKey,
  genTime: Date,
  serial: number,
): Promise<pkijs.ContentInfo> {
  const tstInfo = new pkijs.TSTInfo({
    version: 1,
    policy: '1.3.6.1.4.1.99999.1',
    messageImprint: request.messageImprint,
    serialNumber: new asn1js.Integer({ value: serial }),
    genTime,
    ...(request.nonce ? { nonce: request.nonce } : {}),
  });
  const content = tstInfo.toSchema().toBER(false);
  const digest = createHash('sha256').update(Buffer.from(content)).digest();
  const signedData = new pkijs.SignedData({
    version: 3,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({
      eContentType: '1.2.840.113549.1.9.16.1.4',
      eContent: new asn1js.OctetString({ valueHex: content }),
    }),
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({
          issuer: certificate.issuer,
          serialNumber: certificate.serialNumber,
        }),
        signedAttrs: new pkijs.SignedAndUnsignedAttributes({
          type: 0,
          attributes: [
            new pkijs.Attribute({
              type: '1.2.840.113549.1.9.3',
              values: [new asn1js.ObjectIdentifier({ value: '1.2.840.113549.1.9.16.1.4' })],
            }),
            new pkijs.Attribute({
              type: '1.2.840.113549.1.9.4',
              values: [new asn1js.OctetString({ valueHex: new Uint8Array(digest).buffer })],
            }),
          ],
        }),
      }),
    ],
    certificates: [certificate],
  });
  await signedData.sign(privateKey, 0, 'SHA-256');
  return new pkijs.ContentInfo({ contentType: '1.2.840.113549.1.7.2', content: signedData.toSchema(true) });
}

/** Asserts that every word of `text` is found inside `field` (view space) on its page, ±1 pt. */
export function assertWordsInside(
  pages: BboxPage[],
  field: { page: number; x: number; y: number; width: number; height: number },
  text: string,
): void {
  const page = pages[field.page - 1];
  assert.ok(page, `page ${field.page}`);
  const top = page.height - (field.y + field.height);
  for (const word of text.split(/\s+/)) {
    const found = page.words.filter((w) => w.text === word);
    assert.ok(
      found.length > 0,
      `“${word}” on page ${field.page}: ${page.words.map((w) => w.text).join(' ')}`,
    );
    const inside = found.some(
      (w) =>
        w.xMin >= field.x - 1 &&
        w.xMax <= field.x + field.width + 1 &&
        w.yMin >= top - 1 &&
        w.yMax <= top + field.height + 1,
    );
    assert.ok(
      inside,
      `“${word}” in ${JSON.stringify(field)} of ${page.width} × ${page.height}: ${JSON.stringify(found)}`,
    );
  }
}

/**
 * A file sealed over `original` as it must be: the original's bytes first, unchanged;
 * `signatures` signatures, each valid by pdfsig, the last (the seal) covering the whole
 * file; and no error by qpdf --check.
 */
export async function assertSealedOver(
  original: Uint8Array,
  sealed: Uint8Array,
  signatures: number,
  label: string,
) {
  assert.ok(
    Buffer.from(sealed.subarray(0, original.byteLength)).equals(original),
    'the original bytes stay first',
  );
  const found = (await pdfsig(sealed)).signatures;
  assert.equal(found.length, signatures, label);
  for (const signature of found) assert.equal(signature.validation, 'Signature is Valid.', signature.text);
  assert.ok(found.at(-1)?.totalDocumentSigned, 'the seal covers the whole file');
  const check = await qpdfCheck(sealed);
  assert.ok(!check.errors, check.output);
}
