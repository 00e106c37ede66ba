// Queries on users, memberships, sessions and sign-up requests.
import { type Insertable, type Kysely, sql, type Transaction } from 'kysely';
import type { Database, MemberRole } from '../db/schema.ts';

type Db = Kysely<Database> | Transaction<Database>;

export interface UserRow {
  id: string;
  email: string;
  email_key: string;
  password_hash: string;
  created_at: Date;
  password_changed_at: Date;
  /** Their own language (i18n/languages.ts), or null: the workspace's default. */
  language: string | null;
}

export async function insertUser(db: Db, row: UserRow): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export async function findUserByEmailKey(db: Db, emailKey: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email_key', '=', emailKey).executeTakeFirst();
}

/**
 * The account a log-in names: the one with the typed address's look-alike key, unless an
 * account kept its own address's earlier key (two accounts that became look-alikes:
 * email-keys.ts) and that address is the one typed.
 */
export async function findUserToLogIn(
  db: Db,
  keys: { emailKey: string; caseFolded: string },
): Promise<UserRow | undefined> {
  const rows = await db
    .selectFrom('users')
    .selectAll()
    .where('email_key', 'in', [keys.emailKey, keys.caseFolded])
    .execute();
  return rows.find((r) => r.email_key === keys.caseFolded) ?? rows.find((r) => r.email_key === keys.emailKey);
}

export async function findUser(db: Db, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateUserLanguage(db: Db, userId: string, language: string | null): Promise<void> {
  await db.updateTable('users').set({ language }).where('id', '=', userId).execute();
}

export async function updatePasswordHash(db: Db, userId: string, hash: string, at: Date): Promise<void> {
  await db
    .updateTable('users')
    .set({ password_hash: hash, password_changed_at: at })
    .where('id', '=', userId)
    .execute();
}

export async function insertMembership(
  db: Db,
  row: { workspace_id: string; user_id: string; role: MemberRole; created_at: Date },
): Promise<void> {
  await db.insertInto('memberships').values(row).execute();
}

/** The user's first workspace (oldest membership): where a sign-in lands. */
export async function findFirstMembership(db: Db, userId: string) {
  return db
    .selectFrom('memberships')
    .select(['workspace_id', 'role'])
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('workspace_id')
    .executeTakeFirst();
}

export interface SessionRow {
  id: string;
  token_hash: string;
  user_id: string;
  workspace_id: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
}

export async function insertSession(db: Db, row: SessionRow): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

/** A session with who it belongs to, their role and the workspace, in one round trip. */
export async function findSessionByTokenHash(db: Db, tokenHash: string) {
  return db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .innerJoin('memberships', (join) =>
      join
        .onRef('memberships.user_id', '=', 'sessions.user_id')
        .onRef('memberships.workspace_id', '=', 'sessions.workspace_id'),
    )
    .innerJoin('workspaces', 'workspaces.id', 'sessions.workspace_id')
    .select([
      'sessions.id as session_id',
      'sessions.user_id',
      'sessions.workspace_id',
      'sessions.last_seen_at',
      'sessions.expires_at',
      'users.email',
      'users.language',
      'memberships.role',
      'workspaces.name as workspace_name',
      'workspaces.plan',
      'workspaces.time_zone',
    ])
    .where('sessions.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export async function touchSession(db: Db, sessionId: string, at: Date): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: at }).where('id', '=', sessionId).execute();
}

export async function deleteSession(db: Db, sessionId: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', sessionId).execute();
}

export async function deleteSessionByTokenHash(db: Db, tokenHash: string): Promise<void> {
  await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
}

export async function deleteSessionsOfUser(db: Db, userId: string): Promise<void> {
  await db.deleteFrom('sessions').where('user_id', '=', userId).execute();
}

export interface SignupRequestRow {
  id: string;
  token_hash: string;
  email: string;
  password_hash: string;
  workspace_name: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
  /** The sign-up page's language: the account's once confirmed. */
  language: string | null;
}

export async function insertSignupRequest(db: Db, row: SignupRequestRow): Promise<void> {
  await db.insertInto('signup_requests').values(row).execute();
}

export async function findSignupRequest(db: Db, tokenHash: string): Promise<SignupRequestRow | undefined> {
  return db.selectFrom('signup_requests').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** The newest sign-up of the address still waiting to be confirmed, if any. */
export async function findPendingSignupFor(
  db: Db,
  key: string,
  now: Date,
): Promise<SignupRequestRow | undefined> {
  return db
    .selectFrom('signup_requests')
    .selectAll()
    .where(sql<string>`lower(email)`, '=', key)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
}

/** A newer sign-up replaces the address's earlier ones: their links stop working. */
export async function supersedeSignups(db: Db, key: string, at: Date): Promise<void> {
  await db
    .updateTable('signup_requests')
    .set({ used_at: at })
    .where(sql<string>`lower(email)`, '=', key)
    .where('used_at', 'is', null)
    .execute();
}

/** Marks the request used, unless it already was (two clicks at once create one account). */
export async function useSignupRequest(db: Db, id: string, at: Date): Promise<boolean> {
  const result = await db
    .updateTable('signup_requests')
    .set({ used_at: at })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

function selectMembers(db: Db, workspaceId: string) {
  return db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.id as user_id', 'users.email', 'memberships.role', 'memberships.created_at'])
    .where('memberships.workspace_id', '=', workspaceId);
}

export async function findMembers(db: Db, workspaceId: string) {
  return selectMembers(db, workspaceId).orderBy('memberships.created_at').orderBy('users.id').execute();
}

export async function findMember(db: Db, workspaceId: string, userId: string) {
  return selectMembers(db, workspaceId).where('memberships.user_id', '=', userId).executeTakeFirst();
}

export async function findMembership(db: Db, workspaceId: string, userId: string) {
  return db
    .selectFrom('memberships')
    .select(['user_id', 'role'])
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

export async function countOwners(db: Db, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('workspace_id', '=', workspaceId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function updateMemberRole(
  db: Db,
  workspaceId: string,
  userId: string,
  role: MemberRole,
): Promise<void> {
  await db
    .updateTable('memberships')
    .set({ role })
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .execute();
}

/** Removes the membership and the sessions it opened in that workspace. */
export async function deleteMembership(db: Db, workspaceId: string, userId: string): Promise<void> {
  await db
    .deleteFrom('memberships')
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .execute();
  await db
    .deleteFrom('sessions')
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .execute();
}

export async function insertInvitation(db: Db, row: Insertable<Database['invitations']>): Promise<void> {
  await db.insertInto('invitations').values(row).execute();
}

/** Open invitations of a workspace (not accepted, not expired), newest first. */
export async function findOpenInvitations(db: Db, workspaceId: string, now: Date) {
  return db
    .selectFrom('invitations')
    .select(['id', 'email', 'role', 'created_at', 'expires_at'])
    .where('workspace_id', '=', workspaceId)
    .where('accepted_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .execute();
}

export async function findInvitationByTokenHash(db: Db, tokenHash: string) {
  return db
    .selectFrom('invitations')
    .innerJoin('workspaces', 'workspaces.id', 'invitations.workspace_id')
    .selectAll('invitations')
    .select('workspaces.name as workspace_name')
    .where('invitations.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** Withdraws open invitations of an address (a new one replaces them). */
export async function deleteOpenInvitations(db: Db, workspaceId: string, email: string): Promise<void> {
  await db
    .deleteFrom('invitations')
    .where('workspace_id', '=', workspaceId)
    .where(sql`lower(email)`, '=', email.toLowerCase())
    .where('accepted_at', 'is', null)
    .execute();
}

export async function deleteInvitation(db: Db, workspaceId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('invitations')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Marks it accepted unless it already was (one click of two wins). */
export async function acceptInvitationRow(db: Db, id: string, at: Date): Promise<boolean> {
  const result = await db
    .updateTable('invitations')
    .set({ accepted_at: at })
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Every workspace the user belongs to, oldest membership first. */
export async function findWorkspacesOfUser(db: Db, userId: string) {
  return db
    .selectFrom('memberships')
    .innerJoin('workspaces', 'workspaces.id', 'memberships.workspace_id')
    .select(['workspaces.id', 'workspaces.name', 'memberships.role'])
    .where('memberships.user_id', '=', userId)
    .orderBy('memberships.created_at')
    .orderBy('workspaces.id')
    .execute();
}

/** Moves a session to another workspace of its user. */
export async function moveSession(db: Db, sessionId: string, workspaceId: string): Promise<void> {
  await db.updateTable('sessions').set({ workspace_id: workspaceId }).where('id', '=', sessionId).execute();
}

// ---------------------------------------------------------------- log-in addresses

export async function upsertLoginAddress(
  db: Db,
  userId: string,
  addressHash: string,
  at: Date,
): Promise<void> {
  await db
    .insertInto('login_addresses')
    .values({ user_id: userId, address_hash: addressHash, last_login_at: at })
    .onConflict((oc) => oc.columns(['user_id', 'address_hash']).doUpdateSet({ last_login_at: at }))
    .execute();
}

/** Whether the user behind `emailKey` has logged in from the address before. */
export async function hasLoginAddress(db: Db, emailKey: string, addressHash: string): Promise<boolean> {
  const row = await db
    .selectFrom('login_addresses')
    .innerJoin('users', 'users.id', 'login_addresses.user_id')
    .select('login_addresses.user_id')
    .where('users.email_key', '=', emailKey)
    .where('login_addresses.address_hash', '=', addressHash)
    .executeTakeFirst();
  return row !== undefined;
}

// ---------------------------------------------------------------- password resets

export interface PasswordResetRow {
  id: string;
  token_hash: string;
  user_id: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

export async function insertPasswordReset(db: Db, row: PasswordResetRow): Promise<void> {
  await db.insertInto('password_resets').values(row).execute();
}

/** The reset behind a token, with its account's address and when its password last changed. */
export async function findPasswordReset(db: Db, tokenHash: string) {
  return db
    .selectFrom('password_resets')
    .innerJoin('users', 'users.id', 'password_resets.user_id')
    .selectAll('password_resets')
    .select(['users.email', 'users.email_key', 'users.password_changed_at'])
    .where('password_resets.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** Marks every open reset of the user used; true when `id` was one of them (one click of two wins). */
export async function usePasswordResets(db: Db, userId: string, id: string, at: Date): Promise<boolean> {
  const rows = await db
    .updateTable('password_resets')
    .set({ used_at: at })
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .returning('id')
    .execute();
  return rows.some((r) => r.id === id);
}

/** Whether the workspace holds any document (the first-steps panel shows until it does). */
export async function workspaceHasDocument(db: Db, workspaceId: string): Promise<boolean> {
  const row = await db
    .selectFrom('documents')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
