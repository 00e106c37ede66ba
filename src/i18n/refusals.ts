// A refusal whose sentences are keys of the catalogues: an InputError (input-error.ts) whose
// `fields` are the English sentences (the API's logs, the CLI) and whose `messages` name each
// sentence's key, so a page shows it in the visitor's language (`sentencesIn`).
import { InputError, type InputErrorDetails } from '../input-error.ts';
import {
  type KeyedSentence,
  type MessageKey,
  type MessageValues,
  type Translator,
  translator,
} from './messages.ts';

export type { KeyedSentence };

export type KeyedProblem = [field: string, key: MessageKey, values?: MessageValues];

/** **The** way a keyed sentence is said in `tr`'s language: its lists joined, its followers after it. */
export function say(sentence: KeyedSentence, tr: Translator): string {
  const lists = Object.entries(sentence.lists ?? {}).map(([name, items]) => [
    name,
    tr.list(items.map((item) => say(item, tr))),
  ]);
  const parts = Object.entries(sentence.parts ?? {}).map(([name, part]) => [name, say(part, tr)]);
  const said = tr.t(sentence.key, {
    ...sentence.values,
    ...Object.fromEntries(lists),
    ...Object.fromEntries(parts),
  });
  return sentence.and ? [said, ...sentence.and.map((next) => say(next, tr))].join(' ') : said;
}

/** The English of a keyed sentence (the logs, the CLI), or a sentence not keyed as it is. */
export function inEnglish(sentence: KeyedSentence | string): string {
  return typeof sentence === 'string' ? sentence : say(sentence, translator('en'));
}

/** Each field's problem: a keyed sentence, or English where its rule has no key (yet). */
export type Problems = Record<string, KeyedSentence | string>;

/** An InputError of fields whose sentences are keyed or, where a rule has none, English. */
export function refusalOf(problems: Problems, details: Omit<InputErrorDetails, 'messages'> = {}): InputError {
  const fields: Record<string, string> = {};
  const messages: NonNullable<InputErrorDetails['messages']> = {};
  for (const [field, sentence] of Object.entries(problems)) {
    fields[field] = inEnglish(sentence);
    if (typeof sentence !== 'string') messages[field] = sentence;
  }
  return new InputError(fields, { ...details, messages });
}

/** An InputError's problems as refusalOf took them: keyed where it carries a key (not one naming a field). */
export function problemsOf(error: InputError): Problems {
  const messages = error.details.messages ?? {};
  return Object.fromEntries(
    Object.entries(error.fields).map(([field, sentence]) => {
      const message = messages[field];
      if (!message || message.field) return [field, sentence];
      const { field: _field, ...keyed } = message;
      return [field, keyed];
    }),
  );
}

/** A problem in `tr`'s language. */
export function sentenceIn(problem: KeyedSentence | string, tr: Translator): string {
  return typeof problem === 'string' ? problem : say(problem, tr);
}

/** Each field's problem in `tr`'s language. */
export function problemSentences(problems: Problems, tr: Translator): Record<string, string> {
  return Object.fromEntries(
    Object.entries(problems).map(([field, problem]) => [field, sentenceIn(problem, tr)]),
  );
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
  return problemSentences(problemsOf(error), tr);
}
