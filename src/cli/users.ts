// `signet user create --email E --password-stdin [--workspace ID] [--role owner|member]
// [--workspace-name NAME]`: an account for the web application, made by an operator
// without the mail confirmation. Without --workspace the user owns a new workspace on the
// Free plan; with it, they join that workspace with --role (member by default). The
// password is read from standard input, never from the command line (where `ps` and
// shell history would keep it).
//
// `signet user reset-password --email E [--password-stdin]`: for a person who forgot their
// password and cannot get the mailed link (no SMTP, a mailbox lost). By default it prints
// a one-time link to set a new password (an hour, once, like the mailed one), for the
// operator to hand over by a channel they trust: the operator never learns the password,
// and nothing changes until the person uses the link. With --password-stdin it sets the
// password read from standard input at once instead. Either way, setting the password ends
// every session of the account. An unknown address is an error here (the operator may know
// which addresses have accounts; the web form never says).

import { createAccount } from '../accounts/accounts.service.ts';
import { operatorResetLink, operatorSetPassword } from '../accounts/password-resets.ts';
import type { Config } from '../config.ts';
import type { MemberRole } from '../db/schema.ts';
import { InputError } from '../input-error.ts';
import { parseCommandArgs, requireText, requireUuid, UsageError } from './args.ts';
import { print, withContext } from './context.ts';

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY)
    throw new UsageError('--password-stdin reads the password from standard input: pipe it in');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

const usage = `usage: signet user create --email EMAIL --password-stdin [--workspace ID] [--role owner|member]
       signet user reset-password --email EMAIL [--password-stdin]`;

export async function userCommand(config: Config, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub === 'reset-password') return resetPassword(config, rest);
  if (sub !== 'create') throw new UsageError(usage);
  const { values } = parseCommandArgs(
    rest,
    {
      email: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      workspace: { type: 'string' },
      'workspace-name': { type: 'string' },
      role: { type: 'string' },
      json: { type: 'boolean' },
    },
    [],
  );
  const email = requireText(values.email, '--email', 254);
  if (!values['password-stdin'])
    throw new UsageError('--password-stdin is required (the password is read from standard input)');
  const role = values.role ?? (values.workspace ? 'member' : 'owner');
  if (role !== 'owner' && role !== 'member') throw new UsageError('--role must be owner or member');
  if (!values.workspace && role !== 'owner') throw new UsageError('--role member needs --workspace');
  if (values.workspace && values['workspace-name'])
    throw new UsageError('--workspace-name is for a new workspace, not with --workspace');
  const workspaceId = values.workspace ? requireUuid(values.workspace, '--workspace') : null;
  const password = await readStdin();
  try {
    const { account, publicUrl } = await withContext(config, 'user create', async (ctx) => ({
      account: await (workspaceId
        ? createAccount(ctx, { email, password, workspaceId, role: role as MemberRole })
        : createAccount(ctx, {
            email,
            password,
            workspaceName: values['workspace-name'] ?? `${email}'s workspace`,
            plan: 'free',
          })),
      publicUrl: ctx.config.publicUrl,
    }));
    print(
      !!values.json,
      { ...account, email },
      `Created user ${email} (${account.role} of workspace ${account.workspaceId}); they can log in at ${publicUrl}/login`,
    );
  } catch (error) {
    if (error instanceof InputError) throw new UsageError(error.message);
    throw error;
  }
}

async function resetPassword(config: Config, argv: string[]): Promise<void> {
  const { values } = parseCommandArgs(
    argv,
    { email: { type: 'string' }, 'password-stdin': { type: 'boolean' }, json: { type: 'boolean' } },
    [],
  );
  const email = requireText(values.email, '--email', 254);
  const password = values['password-stdin'] ? await readStdin() : null;
  try {
    if (password !== null) {
      await withContext(config, 'user reset-password', (ctx) => operatorSetPassword(ctx, email, password));
      print(
        !!values.json,
        { email, passwordSet: true },
        `Set a new password for ${email}; every browser logged in to the account was signed out.`,
      );
      return;
    }
    const { link, validMinutes } = await withContext(config, 'user reset-password', (ctx) =>
      operatorResetLink(ctx, email),
    );
    print(
      !!values.json,
      { email, link, validMinutes },
      `A link for ${email} to set a new password (works once, for ${validMinutes} minutes; give it to them only):\n${link}`,
    );
  } catch (error) {
    if (error instanceof InputError) throw new UsageError(error.message);
    throw error;
  }
}
