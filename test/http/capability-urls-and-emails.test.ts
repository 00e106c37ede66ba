// Two rules behind account security that need no database: every capability URL shape is
// redacted in logs (http/capability-urls.ts), and look-alike email addresses are one address
// or refused (mail/address.ts). The rest of account security: account-security.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { redactUrl } from '../../src/http/capability-urls.ts';
import { emailAddressProblem, emailKey, normalizeEmail } from '../../src/mail/address.ts';

describe('redactUrl: every capability URL shape', () => {
  const doc = '0b6f1c3e-8a52-4b8e-9d61-2f3c4a5b6c7d';
  const cases: Array<[string, string]> = [
    [`/sign/${doc}/t0ken`, `/sign/${doc}/[redacted]`],
    [`/sign/${doc}/t0ken/sign`, `/sign/${doc}/[redacted]/sign`],
    [`/sign/${doc}/t0ken/pages/2?size=thumbnail`, `/sign/${doc}/[redacted]/pages/2?size=thumbnail`],
    [`/sign/${doc}/t0ken?done=signed`, `/sign/${doc}/[redacted]?done=signed`],
    [`/sign/${doc}`, `/sign/${doc}`],
    // Not the canonical shape: everything after the prefix, since which segment is the secret is a guess.
    ['/sign/t0ken', '/sign/[redacted]'],
    [`//sign//${doc}/t0ken`, '/sign/[redacted]'],
    [`/%73ign/${doc}/t0ken`, '/sign/[redacted]'],
    [`/Sign/${doc}/t0ken`, '/sign/[redacted]'],
    [`\\sign\\${doc}\\t0ken`, '/sign/[redacted]'],
    [`/a/../sign/${doc}/t0ken`, '/sign/[redacted]'],
    [`/x/sign/${doc}/t0ken`, '/x/sign/[redacted]'],
    ['/invitations/t0ken', '/invitations/[redacted]'],
    ['/invitations//t0ken', '/invitations/[redacted]'],
    [`/settings/members/invitations/${doc}/withdraw`, `/settings/members/invitations/${doc}/withdraw`],
    ['/signup/confirm/t0ken', '/signup/confirm/[redacted]'],
    ['/signup', '/signup'],
    ['/password-reset/t0ken', '/password-reset/[redacted]'],
    ['//password-reset//t0ken', '/password-reset/[redacted]'],
    ['/password-reset/sent', '/password-reset/sent'],
    ['/password-reset', '/password-reset'],
    ['/t/l1nk', '/t/[redacted]'],
    [`/t/l1nk/confirm/${doc}`, '/t/[redacted]/confirm/[redacted]'],
    [`/t/l1nk/confirm/${doc}/`, '/t/[redacted]/confirm/[redacted]/'],
    [`//t//l1nk/confirm/${doc}`, '/t/[redacted]'],
    [`/T/l1nk/confirm/${doc}`, '/t/[redacted]'],
    ['/%74/l1nk', '/t/[redacted]'],
    ['/t', '/t'],
    [`/templates/${doc}/public-link`, `/templates/${doc}/public-link`],
    ['/login?next=%2Ft%2Fl1nk', '/login?next=[redacted]'],
    ['http://host/invitations/t0ken', 'http://host/invitations/[redacted]'],
    ['/login?next=%2Finvitations%2Ft0ken', '/login?next=[redacted]'],
    ['/login?next=%2F%2Fsign%2F%2Ft0ken', '/login?next=[redacted]'],
    ['/login?next=/documents', '/login?next=/documents'],
    ['/x?code=123456&a=1', '/x?code=[redacted]&a=1'],
    ['/x?%63ode=123456', '/x?%63ode=[redacted]'],
    ['/v1/documents?limit=3&cursor=abc', '/v1/documents?limit=3&cursor=abc'],
  ];
  for (const [url, expected] of cases) {
    test(`${url} → ${expected}`, () => assert.equal(redactUrl(url), expected));
  }
});

describe('the email rule: look-alikes are one address or refused', () => {
  const cases: Array<[string, string, ReturnType<typeof emailAddressProblem>]> = [
    ['ａｄｍｉｎ@ｅｘａｍｐｌｅ.ｃｏｍ', 'admin@example.com', null],
    ['ad\u200Bmin@example.com', 'admin@example.com', null],
    ['ad\u00ADmin@exa\u2060mple.com', 'admin@example.com', null],
    ['  Admin@Example.com ', 'Admin@Example.com', null],
    ['admin@example.com.', 'admin@example.com.', 'trailing-dot'],
    ['\u0430dmin@example.com', '\u0430dmin@example.com', 'mixed-scripts'],
    ['admin@ex\u0430mple.com', 'admin@ex\u0430mple.com', 'mixed-scripts'],
    ['иван@почта.рф', 'иван@почта.рф', null],
    ['田中@example.jp', '田中@example.jp', null],
    ['José.Müller@example.de', 'José.Müller@example.de', null],
    ['no-at-sign.example.com', 'no-at-sign.example.com', 'invalid'],
  ];
  for (const [typed, normalised, problem] of cases) {
    test(`${JSON.stringify(typed)} → ${JSON.stringify(normalised)}, ${problem ?? 'accepted'}`, () => {
      assert.equal(normalizeEmail(typed), normalised);
      assert.equal(emailAddressProblem(normalizeEmail(typed)), problem);
    });
  }
  test('the key of every accepted look-alike is the plain address’s key', () => {
    for (const typed of [
      'ａｄｍｉｎ@ｅｘａｍｐｌｅ.ｃｏｍ',
      'ad\u200Bmin@example.com',
      ' ADMIN@example.com',
      '\u0430dmin@example.com',
      '\u1d00dmin@example.com',
      'a\u0323dmin@example.com',
      '\u1ea1dmin@example.com',
    ]) {
      assert.equal(emailKey(typed), 'admin@example.com', typed);
    }
  });

  test('whole-script Cyrillic, small capitals and diacritics share the plain key; distinct ASCII stays distinct', () => {
    assert.equal(emailKey('\u0430\u0441\u0435@example.com'), emailKey('ace@example.com'));
    assert.equal(emailKey('\u1d05emo@example.com'), emailKey('demo@example.com'));
    assert.equal(emailKey('dem\u1ecd@example.com'), emailKey('demo@example.com'));
    assert.equal(emailKey('p\u0430yp\u0430l@ex\u0430mple.com'), emailKey('paypal@example.com'));
    // UTS #39 maps m to rn, d to cl, 0 to O: ASCII addresses are kept as typed (address.ts).
    for (const [a, b] of [
      ['rn@example.com', 'm@example.com'],
      ['clara@example.com', 'dara@example.com'],
      ['bob0@example.com', 'bobo@example.com'],
      ['user1@example.com', 'userl@example.com'],
    ])
      assert.notEqual(emailKey(a as string), emailKey(b as string), `${a} and ${b}`);
    assert.equal(
      emailKey('\u0438\u0432\u0430\u043d@\u043f\u043e\u0447\u0442\u0430.\u0440\u0444'),
      emailKey('иван@почта.рф'),
    );
  });
});
