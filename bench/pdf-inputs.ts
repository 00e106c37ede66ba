// The inputs of `npm run bench:pdf`, made in the run (nothing downloaded, no fixture on
// disk): contracts of any number of text pages, a scanned contract of a given size, a drawn
// signature, and the certificate of completion Signet would write for a document with two
// signers. Deterministic: the same call makes the same bytes.

import { PDFDocument, type PDFFont, PDFName, PDFString, rgb, StandardFonts } from '@cantoo/pdf-lib';
import { createCanvas } from '@napi-rs/canvas';
import type { Certificate } from '../src/pdf/certificate.ts';

const a4: [number, number] = [595.28, 841.89];
const margin = 56;
const ink = rgb(0.1, 0.12, 0.16);

const clauses = [
  'The Supplier shall provide the Services described in the Schedule with reasonable skill, care and diligence, in accordance with good industry practice and with all laws and regulations that apply to them.',
  'The Customer shall pay each invoice within thirty days of the date of the invoice, to the account the Supplier names in it. Sums not paid when due bear interest at the statutory rate from the due date until paid in full.',
  'Each party shall keep the confidential information of the other party secret, use it only to perform its obligations under this Agreement, and disclose it only to those of its employees and advisers who need to know it.',
  'Neither party limits or excludes its liability for death or personal injury caused by its negligence, for fraud, or for any other liability that cannot be limited or excluded by law.',
  'Subject to the clause above, the total liability of either party under or in connection with this Agreement shall not exceed the fees paid or payable in the twelve months before the event giving rise to the claim.',
  'Either party may terminate this Agreement by written notice with immediate effect if the other party commits a material breach of it which, where it can be remedied, is not remedied within thirty days of a notice requiring it.',
  'All intellectual property rights in the deliverables shall vest in the Customer on payment in full; the Supplier grants the Customer a perpetual licence to use any pre-existing materials incorporated in them.',
  'Neither party shall be liable for any delay or failure to perform caused by events beyond its reasonable control, provided that it notifies the other party promptly and uses reasonable efforts to resume performance.',
  'This Agreement constitutes the entire agreement between the parties and supersedes all previous agreements, promises, assurances and understandings between them relating to its subject matter.',
  'Any notice under this Agreement shall be in writing and delivered by hand, by pre-paid recorded post or by email to the address of the other party set out above, or such other address as it may notify.',
];

/** Lines of `text` no wider than `width` at `size`. */
function lines(text: string, font: PDFFont, size: number, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const candidate = line ? `${line} ${word}` : word;
    if (line && font.widthOfTextAtSize(candidate, size) > width) {
      out.push(line);
      line = word;
    } else line = candidate;
  }
  if (line) out.push(line);
  return out;
}

/**
 * A contract of `pages` A4 pages as a word processor exports it: a heading and five
 * numbered clauses of running text (Times, 10.5 pt) per page and a footer, content streams
 * compressed, saved by pdf-lib with its defaults (object streams, a cross-reference stream).
 */
export async function textPdf(pages: number): Promise<Uint8Array> {
  const pdf = await PDFDocument.create({ updateMetadata: false });
  pdf.setTitle(`Services agreement (${pages} pages)`);
  pdf.setProducer('Signet bench');
  const regular = await pdf.embedFont(StandardFonts.TimesRoman);
  const bold = await pdf.embedFont(StandardFonts.TimesRomanBold);
  const width = a4[0] - 2 * margin;
  let clause = 0;
  for (let number = 1; number <= pages; number++) {
    const page = pdf.addPage(a4);
    let y = a4[1] - margin;
    const heading = number === 1 ? 'Services agreement' : `Section ${number}`;
    page.drawText(heading, { x: margin, y, size: number === 1 ? 18 : 13, font: bold, color: ink });
    y -= 30;
    for (let k = 0; k < 5; k++) {
      const text = `${clause + 1}. ${clauses[clause % clauses.length]} ${clauses[(clause * 7 + 3) % clauses.length]}`;
      clause++;
      for (const line of lines(text, regular, 10.5, width)) {
        page.drawText(line, { x: margin, y, size: 10.5, font: regular, color: ink });
        y -= 14;
      }
      y -= 10;
    }
    page.drawText(`Services agreement · page ${number} of ${pages}`, {
      x: margin,
      y: 32,
      size: 8,
      font: regular,
      color: ink,
    });
  }
  return pdf.save();
}

/** A page scan: paper-grey noise (as a scanner's sensor gives it) under lines of text, as a JPEG. */
function scanJpeg(seed: number, heightPx: number): Buffer {
  const widthPx = 1654; // A4 at 200 dpi: 1654 × 2339
  const canvas = createCanvas(widthPx, heightPx);
  const g = canvas.getContext('2d');
  const image = g.createImageData(widthPx, heightPx);
  let state = seed * 7919 + 1;
  for (let i = 0; i < image.data.length; i += 4) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    const value = 200 + (state >> 24);
    image.data[i] = value;
    image.data[i + 1] = value;
    image.data[i + 2] = value - 8;
    image.data[i + 3] = 255;
  }
  g.putImageData(image, 0, 0);
  g.fillStyle = '#222';
  g.font = '28px serif';
  for (let y = 150, n = seed; y < heightPx - 100; y += 44, n++)
    g.fillText((clauses[n % clauses.length] ?? '').slice(0, 100), 120, y);
  return canvas.encodeSync('jpeg', 85);
}

const runMarker = 'run-000000';

export interface ScannedPdf {
  /** The file, with a run number that stampRun() changes in place. */
  data: Buffer;
  pages: number;
  /** Where the run number's digits are in `data`. */
  markerAt: number;
}

/**
 * A scanned contract just under `maxBytes`: A4 pages at 200 dpi, each a JPEG of about
 * 1.7 MB (the last one shorter, to come within about 100 KB of the limit), one image per
 * page, saved with a cross-reference table as scanners' software does. The Info dictionary
 * carries a run number (at `markerAt`; see stampRun), so that each upload can be a file
 * not stored before.
 */
export async function scannedPdf(maxBytes: number): Promise<ScannedPdf> {
  const target = maxBytes - 64 * 1024;
  const overhead = 2048; // a page's objects, and the file's own
  const scans: Buffer[] = [];
  let total = 4096;
  for (let seed = 1; ; seed++) {
    const scan = scanJpeg(seed, 2339);
    if (total + scan.byteLength + overhead > target) {
      // The last page: a strip of a page, about as tall as the room left allows.
      const room = target - total - overhead;
      let height = Math.floor((2339 * room) / scan.byteLength);
      for (let attempt = 0; attempt < 4 && height > 64; attempt++) {
        const strip = scanJpeg(seed, height);
        if (total + strip.byteLength + overhead <= target) {
          scans.push(strip);
          total += strip.byteLength + overhead;
          break;
        }
        height = Math.floor(height * 0.95);
      }
      break;
    }
    scans.push(scan);
    total += scan.byteLength + overhead;
  }
  const pdf = await PDFDocument.create({ updateMetadata: false });
  pdf.setProducer('Signet bench scanner');
  for (const scan of scans) await addScanPage(pdf, scan);
  const data = await saveWithRunMarker(pdf);
  const markerAt = runMarkerAt(data);
  if (data.byteLength > maxBytes) throw new Error(`the scanned PDF came out at ${data.byteLength} bytes`);
  return { data, pages: scans.length, markerAt };
}

/** A page as wide as A4 holding the scanned `jpeg` whole. */
async function addScanPage(pdf: PDFDocument, jpeg: Buffer): Promise<void> {
  const image = await pdf.embedJpg(jpeg);
  const height = (a4[0] * image.height) / image.width;
  const page = pdf.addPage([a4[0], height]);
  page.drawImage(image, { x: 0, y: 0, width: a4[0], height });
}

/** Saved with a cross-reference table, its Info dictionary carrying the run marker (stampRun). */
async function saveWithRunMarker(pdf: PDFDocument): Promise<Buffer> {
  const info = pdf.context.lookup(pdf.context.trailerInfo.Info);
  if (info && 'set' in info)
    (info as { set(k: PDFName, v: PDFString): void }).set(
      PDFName.of('SignetBenchRun'),
      PDFString.of(runMarker),
    );
  return Buffer.from(await pdf.save({ useObjectStreams: false }));
}

/** Where the run number's digits are in a file saveWithRunMarker wrote. */
function runMarkerAt(data: Buffer): number {
  const markerAt = data.indexOf(`(${runMarker})`, 0, 'latin1') + 'run-'.length + 1;
  if (markerAt <= 'run-'.length) throw new Error('the run number was not written where expected');
  return markerAt;
}

/** Writes run number `run` (six digits) at `at` of `buffer`, in place: no offset in the file moves. */
export function stampRun(buffer: Buffer, at: number, run: number): void {
  buffer.write(String(run % 1_000_000).padStart(6, '0'), at, 'latin1');
}

/** A drawn signature as the signing page's pad sends it: a stroke on a transparent PNG. */
export function drawnSignature(): Buffer {
  const canvas = createCanvas(600, 200);
  const g = canvas.getContext('2d');
  g.strokeStyle = '#1b2a4a';
  g.lineWidth = 4;
  g.lineCap = 'round';
  g.beginPath();
  g.moveTo(30, 140);
  for (let x = 30; x <= 570; x += 6) g.lineTo(x, 110 + Math.sin(x / 23) * 45 + Math.cos(x / 61) * 20);
  g.stroke();
  return canvas.encodeSync('png');
}

/**
 * The certificate of completion of a document with two signers (one typed signature, one
 * drawn), each of whom opened and signed it from a browser: five events before completion.
 */
export function benchCertificate(pages: number, sha256: string, drawn: Buffer): Certificate {
  const sentAt = new Date('2026-11-20T09:00:00Z');
  const at = (minutes: number) => new Date(sentAt.getTime() + minutes * 60_000);
  const browser =
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36';
  const phone =
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';
  return {
    documentId: '6f1c2a4e-8b0d-4c3e-9a57-2d1f0e9b7c11',
    title: `Services agreement (${pages} pages)`,
    workspaceName: 'Acme Consulting Ltd',
    originalSha256: sha256,
    originalPages: pages,
    sentAt,
    completedAt: at(95),
    recipients: [
      {
        fullName: 'Zoë Łukasiewicz',
        email: 'zoe@customer.example',
        role: 'signer',
        signingMethod: 'standard',
        sent: null,
        openedAt: at(12),
        signedAt: at(20),
        declinedAt: null,
        clientIp: '203.0.113.24',
        userAgent: browser,
        signature: { kind: 'typed', name: 'Zoë Łukasiewicz' },
        fields: [
          { name: 'Signature', label: null, page: pages, value: null },
          { name: 'Date signed', label: null, page: pages, value: '2026-11-20' },
        ],
      },
      {
        fullName: 'Daniel Okafor',
        email: 'daniel@acme.example',
        role: 'signer',
        signingMethod: 'email-code',
        sent: null,
        openedAt: at(80),
        signedAt: at(95),
        declinedAt: null,
        clientIp: '198.51.100.7',
        userAgent: phone,
        signature: { kind: 'drawn', png: drawn },
        fields: [
          { name: 'Initials', label: null, page: 1, value: null },
          { name: 'Text', label: 'Purchase order', page: 1, value: 'PO-2026-0417' },
          { name: 'Signature', label: null, page: pages, value: null },
        ],
      },
    ],
    events: [
      { at: sentAt, label: 'Sent', recipientEmail: null, clientIp: null, userAgent: null },
      {
        at: at(12),
        label: 'Opened',
        recipientEmail: 'zoe@customer.example',
        clientIp: '203.0.113.24',
        userAgent: browser,
      },
      {
        at: at(20),
        label: 'Signed',
        recipientEmail: 'zoe@customer.example',
        clientIp: '203.0.113.24',
        userAgent: browser,
      },
      {
        at: at(80),
        label: 'Opened',
        recipientEmail: 'daniel@acme.example',
        clientIp: '198.51.100.7',
        userAgent: phone,
      },
      {
        at: at(95),
        label: 'Signed',
        recipientEmail: 'daniel@acme.example',
        clientIp: '198.51.100.7',
        userAgent: phone,
      },
    ],
    verifyUrl: 'https://sign.example.test/verify',
    language: 'en' as const,
  };
}

export interface PaddedPdf {
  /** The file, with a run number that stampRun() changes in place. */
  data: Buffer;
  pages: number;
  /** Where the run number's digits are in `data`. */
  markerAt: number;
}

/**
 * A contract of `textPages` text pages (textPdf) with a scanned annex (one page, a JPEG of
 * paper-grey noise under text) sized so the file comes out just under `maxBytes`, as an
 * integrator's typical upload: a few pages of text and a scan. Saved with a cross-reference
 * table (no object streams), its Info dictionary carrying a run number at `markerAt` (see
 * stampRun), so that each upload can be a file not stored before.
 */
export async function paddedPdf(maxBytes: number, textPages = 12): Promise<PaddedPdf> {
  const text = await textPdf(textPages);
  const build = async (scanHeight: number) => {
    const pdf = await PDFDocument.load(text, { updateMetadata: false });
    await addScanPage(pdf, scanJpeg(7, scanHeight));
    return { data: await saveWithRunMarker(pdf), pages: pdf.getPageCount() };
  };
  // The JPEG's bytes grow about linearly with its height: two tries, then shrink to fit.
  const probe = await build(400);
  const perRow = (probe.data.byteLength - text.byteLength) / 400;
  let height = Math.floor((maxBytes - 16 * 1024 - text.byteLength) / perRow);
  let made = await build(height);
  while (made.data.byteLength > maxBytes && height > 64) {
    height = Math.floor(height * 0.97);
    made = await build(height);
  }
  return { ...made, markerAt: runMarkerAt(made.data) };
}
