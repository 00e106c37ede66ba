// The glossary check of `npm run lint:catalogues` (src/i18n/catalogue-check.ts): a message
// whose English uses a term that carries legal weight must use the language's word for it;
// English's pieces count as whole words ("to sign" is not in "Log in to Signet") and not in
// an account's phrasal verb ("to sign up", "sign in").
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Glossary, glossaryProblems } from '../../src/i18n/catalogue-check.ts';

const english: Glossary = { sign: { term: 'sign', match: ['to sign', 'please sign'] } };
const german: Glossary = { sign: { term: 'unterschreiben', match: ['unterschreib', 'unterzeichn'] } };

test('a message using the term must use the language’s word; a name or an account’s verb is not the term', () => {
  const messages = {
    ask: 'Please sign it here.',
    invite: 'You were asked to sign “{title}”.',
    login: 'Log in to Signet',
    signup: 'Someone tried to sign up for Signet with this address.',
    signin: 'Use it to sign in.',
  };
  const translated = {
    ask: 'Bitte hier unterschreiben.',
    invite: 'Sie wurden gebeten, „{title}“ zu signieren.',
    login: 'Bei Signet anmelden',
    signup: 'Jemand wollte sich mit dieser Adresse bei Signet registrieren.',
    signin: 'Damit melden Sie sich an.',
  };
  assert.deepEqual(glossaryProblems(messages, english, translated, german, 'de'), [
    'de: "invite" does not use the glossary\'s word for "sign" (unterschreib / unterzeichn)',
  ]);
  assert.deepEqual(glossaryProblems(messages, english, translated, {}, 'de'), [
    'de: the glossary has no "sign" (sign)',
  ]);
});
