// A public scope of plain pages (`/sign`, `/verify`): HTML forms only (ui/forms.ts), its
// kind of security headers (ui/security.ts), and the message page for every error
// (ui/error-page.ts) and for an address that is not there.
import helmet from '@fastify/helmet';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Context } from '../context.ts';
import { pageTranslator } from '../i18n/messages.ts';
import { pageErrorHandler } from './error-page.ts';
import { useFormBodies } from './forms.ts';
import { headerLanguage } from './page-language.ts';
import { securityHeaders } from './security.ts';
import { messagePage, sendHtml } from './shell.ts';

export async function usePlainPageScope(
  app: FastifyInstance,
  ctx: Context,
  options: { headers: 'plain' | 'signing'; notFound: (reply: FastifyReply) => FastifyReply },
): Promise<void> {
  // A cross-site text/plain or JSON post is 415; a file comes multipart, in its route's scope.
  useFormBodies(app, 16_384);
  await app.register(helmet, securityHeaders(options.headers));
  app.setErrorHandler(
    pageErrorHandler(ctx, (request, reply, status, message) => {
      // No recipient or visitor is known on the error path: the language the request asks for.
      const tr = pageTranslator(headerLanguage(request));
      return sendHtml(reply, status, messagePage(message(tr), tr));
    }),
  );
  app.setNotFoundHandler((_request, reply) => options.notFound(reply));
}
