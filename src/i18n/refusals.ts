// A refusal whose sentences are keys of the catalogues: an InputError (input-error.ts) whose
// `fields` are the English sentences (the API's logs, the CLI) and whose `messages` name each
// sentence's key, so a page shows it in the visitor's language (`sentencesIn`).
import { InputError, type InputErrorDetails } from '../input-error.ts';
import { type MessageKey, type MessageValues, type Translator, translator } from './messages.ts';

export type KeyedProblem = [field: string, key: MessageKey, values?: MessageValues];

/** A rule's sentence as a key of the catalogues and its values (a page says it in its language). */
export interface KeyedSentence {
  key: MessageKey;
  values?: MessageValues;
}

/** The English of a keyed sentence (the logs, the CLI), or a sentence not keyed as it is. */
export function inEnglish(sentence: KeyedSentence | string): string {
  return typeof sentence === 'string' ? sentence : translator('en').t(sentence.key, sentence.values);
}

/**
 * An InputError of fields whose sentences are keyed or, where a rule has no key yet (a name
 * the fonts cannot draw: pdf/fonts.ts), English.
 */
export function refusalOf(problems: Record<string, KeyedSentence | string>): InputError {
  const fields: Record<string, string> = {};
  const messages: NonNullable<InputErrorDetails['messages']> = {};
  for (const [field, sentence] of Object.entries(problems)) {
    fields[field] = inEnglish(sentence);
    if (typeof sentence !== 'string') messages[field] = sentence;
  }
  return new InputError(fields, { messages });
}

/** An InputError of one or more fields, each a sentence of the catalogues. */
export function keyedRefusal(problems: KeyedProblem[], details: InputErrorDetails = {}): InputError {
  const english = translator('en');
  const fields: Record<string, string> = {};
  const messages: NonNullable<InputErrorDetails['messages']> = { ...details.messages };
  for (const [field, key, values] of problems) {
    fields[field] = english.t(key, values);
    messages[field] = values ? { key, values } : { key };
  }
  return new InputError(fields, { ...details, messages });
}

/** An InputError's sentences in `tr`'s language where they carry a key; the others as they are. */
export function sentencesIn(error: InputError, tr: Translator): Record<string, string> {
  const messages = error.details.messages ?? {};
  return Object.fromEntries(
    Object.entries(error.fields).map(([field, sentence]) => {
      const message = messages[field];
      return [field, message && !message.field ? tr.t(message.key, message.values) : sentence];
    }),
  );
}
