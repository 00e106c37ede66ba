// **The** language of a member's pages (issue 51): their own (users.language, chosen on the
// account page), else the one their browser asks for (ui/page-language.ts: the switch's
// cookie, then Accept-Language), else English. A page whose sentences are in the catalogues
// (the documents list, a document's page and its confirmations, the send confirmation, the
// new-document and draft forms with their refusals, the templates list, a template's page,
// its forms and confirmations, the time zone and language settings, "Your mail", the 404
// page; the navigation bar and a paused endpoint's banner with them) is rendered in it; the
// web app's other pages are English yet (docs/web-app.md, "A member's language").
import type { FastifyReply, FastifyRequest } from 'fastify';
import { defaultLanguage } from '../i18n/languages.ts';
import { type Translator, translator } from '../i18n/messages.ts';
import { visitorChoice } from '../ui/page-language.ts';

export function memberTranslator(request: FastifyRequest, reply: FastifyReply): Translator {
  return translator(request.member?.language ?? visitorChoice(request, reply) ?? defaultLanguage);
}
