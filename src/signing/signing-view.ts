// Turns what session.ts loaded (loadSigningView) into the page's view model: what this
// recipient may do now, everyone's progress, and the pricing table formatted for people.
import type { Context } from '../context.ts';
import type { PageSize } from '../db/schema.ts';
import type { FullDocumentRow, FullRecipientRow } from '../documents/documents.repository.ts';
import { isActive, signersAhead } from '../documents/lifecycle.ts';
import { pricingView } from '../documents/pricing.ts';
import type { PricingBlock } from '../documents/value.ts';
import { type FieldInputSpec, fieldTypeSpecs } from '../fields/field-types.ts';
import type { FieldRow } from '../fields/fields.repository.ts';
import { downloadUrl, type FileKind } from '../files/download-links.ts';
import type { MessageKey, Translator } from '../i18n/messages.ts';
import type { Brand } from '../workspaces/brand.ts';
import type { SignFormEntries, SigningPageView } from './signing-page.ts';

export function maskEmail(email: string): string {
  const [local = '', domain = ''] = email.split('@');
  const shown = local.length <= 2 ? local.slice(0, 1) : `${local.slice(0, 2)}`;
  return `${shown}${'•'.repeat(Math.max(1, Math.min(6, local.length - shown.length)))}@${domain}`;
}

/**
 * The fields drawn over each page: the signer's own (to fill), everyone else's read-only,
 * each a rectangle in the page's displayed size, y from the top as an image has it.
 */
function overlaysOf(
  tr: Translator,
  loaded: Loaded,
  page: number,
): SigningPageView['pages'][number]['fields'] {
  const size = loaded.pageSizes[page - 1];
  if (!size) return null;
  const names = new Map(loaded.recipients.map((r) => [r.id, r.full_name]));
  const boxes = loaded.fields
    .filter((f) => f.page === page)
    .map((f) => ({
      id: f.id,
      x: f.x,
      y: size.height - f.y - f.height,
      width: f.width,
      height: f.height,
      mine: f.recipient_id === loaded.recipient.id,
      filled: f.filled_at !== null || f.prefilled,
      title: tr.t(f.filled_at || f.prefilled ? 'sign.fieldTitleFilled' : 'sign.fieldTitle', {
        field: describeFieldIn(tr, f),
        name: names.get(f.recipient_id) ?? '',
      }),
      value: f.prefilled ? shownValue(f) : null,
    }));
  return boxes.length > 0 ? { width: size.width, height: size.height, boxes } : null;
}

type MyField = SigningPageView['myFields'][number];

/** The input a field's type asks of the signer (fields/field-types.ts), or null when the service fills it. */
function inputOf(spec: FieldInputSpec, field: FieldRow, entered: string | undefined, fullName: string) {
  if (spec.by === 'service') return null;
  switch (spec.control) {
    case 'checkbox':
      return { kind: spec.control, value: entered ?? '', maxLength: null };
    case 'text':
      return {
        kind: spec.control,
        value: entered ?? spec.prefill(fullName),
        maxLength: spec.maxLength(field.max_length),
      };
    default:
      throw new Error(`no input for ${JSON.stringify(spec satisfies never)}`);
  }
}

/**
 * A value the sender gave, in its box on the page as the sealed PDF will draw it (its type's
 * `draw`): a text as typed, a ticked box's check mark.
 */
function shownValue(field: FieldRow): string | null {
  const stamp = fieldTypeSpecs[field.type].draw(field.value, { kind: 'typed', name: '' });
  if (stamp?.kind === 'text') return stamp.text;
  return stamp?.kind === 'check' ? '✓' : null;
}

/** A value the sender gave, as the signer reads it among what is filled in for them. */
function sendersValue(tr: Translator, field: FieldRow, senderName: string): string {
  const value = fieldTypeSpecs[field.type].certificateValue(field.value, tr);
  return value
    ? tr.t('sign.senderFilled', { value, sender: senderName })
    : tr.t('sign.senderLeftEmpty', { sender: senderName });
}

/** The signer's own fields as form inputs (those the service fills are listed, not asked). */
function myFields(
  tr: Translator,
  loaded: Loaded,
  form: { entered: Record<string, string>; errors: Record<string, string> },
): MyField[] {
  return loaded.fields
    .filter((f) => f.recipient_id === loaded.recipient.id)
    .map((f) => {
      const spec = fieldTypeSpecs[f.type].input;
      return {
        id: f.id,
        type: f.type,
        page: f.page,
        name: describeFieldIn(tr, f),
        required: f.required,
        input: f.prefilled ? null : inputOf(spec, f, form.entered[f.id], loaded.recipient.full_name),
        filledBy: f.prefilled
          ? sendersValue(tr, f, loaded.senderName)
          : spec.by === 'service'
            ? tr.t(`field.filledWith.${f.type}` as MessageKey)
            : null,
        error: form.errors[`field.${f.id}`] ?? null,
      };
    });
}

/** The document's PDFs for the page: its pages as images, and download links for both files. */
function filesOf(
  ctx: Context,
  tr: Translator,
  loaded: Loaded,
  basePath: string,
): Pick<SigningPageView, 'pages' | 'textIsPages' | 'downloads'> {
  const { document, files } = loaded;
  const original = files.find((f) => f.kind === 'original');
  const sealed = files.find((f) => f.kind === 'sealed');
  return {
    pages: Array.from({ length: original?.pages ?? 0 }, (_, i) => ({
      number: i + 1,
      src: `${basePath}/pages/${i + 1}`,
      size: loaded.pageSizes[i] ?? null,
      fields: overlaysOf(tr, loaded, i + 1),
    })),
    textIsPages: document.original_from_text,
    downloads: {
      original: original ? downloadUrl(ctx, document.id, 'original') : null,
      sealed: sealed ? downloadUrl(ctx, document.id, 'sealed') : null,
      sealPending: document.status === 'signed' && !sealed,
    },
  };
}

type Loaded = {
  document: FullDocumentRow;
  recipients: FullRecipientRow[];
  recipient: FullRecipientRow;
  files: Array<{ kind: FileKind; pages: number | null }>;
  fields: FieldRow[];
  pageSizes: PageSize[];
  /** The sending workspace's name: its brand's, else its own. */
  senderName: string;
  /** The sending workspace's brand (null once it is gone). */
  brand: Pick<Brand, 'accent' | 'sentWithSignet'> | null;
};

/** "Text “Company” on page 2" in `tr`'s language: a field as its signer reads it. */
export function describeFieldIn(tr: Translator, field: Pick<FieldRow, 'type' | 'label' | 'page'>): string {
  const type = tr.t(`field.type.${field.type}` as MessageKey);
  return field.label
    ? tr.t('field.describedLabel', { type, label: field.label, page: field.page })
    : tr.t('field.described', { type, page: field.page });
}

export function buildSigningView(
  ctx: Context,
  tr: Translator,
  loaded: Loaded,
  options: {
    basePath: string;
    notice: SigningPageView['notice'];
    /**
     * After a refused signature (or a code asked for from the sign form): what the signer
     * entered in their fields, each field's sentence, and the rest of the form to show again.
     */
    form?: { entered: Record<string, string>; errors: Record<string, string>; signing?: SignFormEntries };
  },
): SigningPageView {
  const { document, recipients, recipient } = loaded;
  const active = isActive(document.status);
  const isSigner = recipient.role === 'signer';
  const ahead = isSigner ? signersAhead(recipients, recipient) : [];
  const mayAct = active && isSigner && recipient.signed_at === null && recipient.declined_at === null;
  return {
    brand: { accent: loaded.brand?.accent ?? null, sentWithSignet: loaded.brand?.sentWithSignet ?? true },
    document: {
      title: document.title,
      sender: loaded.senderName,
      body: document.body,
      status: document.status,
      sentAt: document.sent_at?.toISOString() ?? null,
      expiresAt: document.expires_at?.toISOString() ?? null,
      signedAt: document.signed_at?.toISOString() ?? null,
      withdrawnAt: document.withdrawn_at?.toISOString() ?? null,
    },
    pricing: pricingView(document.pricing as PricingBlock | null, tr),
    recipient: {
      fullName: recipient.full_name,
      email: recipient.email,
      role: recipient.role,
      signingMethod: recipient.signing_method,
      signedAt: recipient.signed_at?.toISOString() ?? null,
      declined: recipient.declined_at !== null,
    },
    recipients: recipients.map((r) => ({
      fullName: r.full_name,
      role: r.role,
      signingOrder: r.signing_order,
      state: r.role === 'viewer' ? 'viewer' : r.signed_at ? 'signed' : r.declined_at ? 'declined' : 'waiting',
      signedAt: r.signed_at?.toISOString() ?? null,
      isYou: r.id === recipient.id,
    })),
    actions: {
      canSign: mayAct && ahead.length === 0,
      canDecline: mayAct,
      waitingFor: mayAct ? ahead.map((r) => r.full_name) : [],
    },
    emailCode:
      isSigner && recipient.signing_method === 'email-code' && mayAct
        ? { sentTo: maskEmail(recipient.email), codeSent: recipient.code_sent_at !== null }
        : null,
    myFields:
      mayAct && ahead.length === 0 ? myFields(tr, loaded, options.form ?? { entered: {}, errors: {} }) : [],
    entered: options.form?.signing ?? null,
    basePath: options.basePath,
    notice: options.notice,
    ...filesOf(ctx, tr, loaded, options.basePath),
  };
}
