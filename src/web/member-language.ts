// **The** language of a member's pages (issue 51): their own (users.language, chosen on the
// account page), else the one their browser asks for (ui/page-language.ts: the switch's
// cookie, then Accept-Language), else English. Every page of the web app is rendered in it,
// through `pageTranslator` (values isolated in right-to-left languages): docs/web-app.md,
// "A member's language", says what stays as it is.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { defaultLanguage } from '../i18n/languages.ts';
import { pageTranslator, type Translator } from '../i18n/messages.ts';
import { visitorChoice } from '../ui/page-language.ts';

export function memberTranslator(request: FastifyRequest, reply: FastifyReply): Translator {
  return pageTranslator(request.member?.language ?? visitorChoice(request, reply) ?? defaultLanguage);
}
