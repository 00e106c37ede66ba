// **The** workspace's brand (issue 52): the company's name as its recipients know it, its
// accent colour and whether their pages say "Sent with Signet", set by an owner
// (web/brand.pages.ts) and carried by what a recipient sees (the signing and public-link
// pages, the name their mails come from; the certificate in a later step). The web app's
// own pages keep Signet's look. A brand is the workspace's, never a document's: the API
// names nothing new.
//
// The accent colour is drawn as the background of white button text and as link text on the
// page's light background (#f4f5f7, the darker of the two backgrounds), so it must reach WCAG
// AA's 4.5:1 against that background, which covers white too. "Against white or black text"
// alone could refuse nothing: every colour reaches at least 4.58:1 against one of them.
import type { Context } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { type Problems, refusalOf } from '../i18n/refusals.ts';
import { drawableText, drawingRefusal } from '../pdf/fonts.ts';
import { findWorkspaceBrand, updateWorkspaceBrand } from './workspaces.repository.ts';

export interface Brand {
  /** The name recipients know the company by: the brand's, else the workspace's. */
  senderName: string;
  /** The name the owner set (null: the workspace's name is shown). */
  displayName: string | null;
  /** `#rrggbb`, or null for Signet's own blue. */
  accent: string | null;
  /** Whether recipients' pages end with "Sent with Signet". */
  sentWithSignet: boolean;
}

export interface BrandInput {
  displayName: string;
  accent: string;
  sentWithSignet: boolean;
}

/** At most this many characters in the display name (it heads pages and mails). */
export const maxDisplayNameLength = 100;

/** WCAG AA for body text. */
export const minimumContrast = 4.5;

/** The darker of the two backgrounds the accent is drawn on (base.css `--bg`; the other is white). */
const pageBackground = '#f4f5f7';

/** `#rgb` or `#rrggbb`, any case, as `#rrggbb` in lower case; null when it is neither. */
export function parseColour(text: string): string | null {
  const match = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(text.trim());
  if (!match?.[1]) return null;
  const hex = match[1].toLowerCase();
  return `#${hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex}`;
}

/** WCAG 2's relative luminance of a `#rrggbb` colour. */
function luminance(colour: string): number {
  const channel = (at: number) => {
    const c = Number.parseInt(colour.slice(at, at + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** WCAG 2's contrast ratio of two `#rrggbb` colours, from 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** The owner's form checked: the brand to store, or every field's problem. */
export function checkBrand(
  input: BrandInput,
): { problems: Problems } | { brand: { displayName: string | null; accent: string | null } } {
  const problems: Problems = {};
  const name = input.displayName.trim();
  if (name.length > maxDisplayNameLength)
    problems.displayName = {
      key: 'settings.brand.refusal.displayNameLong',
      values: { max: maxDisplayNameLength },
    };
  else {
    const undrawable = drawingRefusal('name', name);
    if (undrawable) problems.displayName = undrawable;
  }
  const accentText = input.accent.trim();
  const accent = accentText === '' ? null : parseColour(accentText);
  if (accentText !== '' && !accent) problems.accent = { key: 'settings.brand.refusal.accentFormat' };
  if (accent) {
    const ratio = contrastRatio(accent, pageBackground);
    if (ratio < minimumContrast)
      problems.accent = {
        key: 'settings.brand.refusal.accentContrast',
        // Never rounded up to the threshold: 4.497 is said 4.49.
        values: { colour: accent, ratio: Math.floor(ratio * 100) / 100, minimum: minimumContrast },
      };
  }
  if (Object.keys(problems).length > 0) return { problems };
  return { brand: { displayName: name === '' ? null : drawableText(name), accent } };
}

/** The workspace's brand; not-found for a workspace that is gone. */
export async function workspaceBrand(ctx: Pick<Context, 'db'>, workspaceId: string): Promise<Brand> {
  const row = await findWorkspaceBrand(ctx.db, workspaceId);
  if (!row) throw new ApiError('not-found');
  return brandOf(row);
}

/** A workspace row's brand. */
export function brandOf(row: {
  name: string;
  brand_name: string | null;
  brand_accent: string | null;
  brand_sent_with: boolean;
}): Brand {
  return {
    senderName: senderNameOf(row),
    displayName: row.brand_name,
    accent: row.brand_accent,
    sentWithSignet: row.brand_sent_with,
  };
}

/** The name a recipient knows the sender by, in every page and mail: the brand's, else the workspace's ('Signet' once it is gone). */
export function senderNameOf(row: { name: string; brand_name: string | null } | undefined): string {
  return row ? (row.brand_name ?? row.name) : 'Signet';
}

/** An owner's brand saved (the caller checks the role); an InputError naming each field refused. */
export async function setWorkspaceBrand(
  ctx: Context,
  workspaceId: string,
  input: BrandInput,
): Promise<Brand> {
  const checked = checkBrand(input);
  if ('problems' in checked) throw refusalOf(checked.problems);
  const saved = await updateWorkspaceBrand(ctx.db, workspaceId, {
    brand_name: checked.brand.displayName,
    brand_accent: checked.brand.accent,
    brand_sent_with: input.sentWithSignet,
  });
  if (!saved) throw new ApiError('not-found');
  return workspaceBrand(ctx, workspaceId);
}
