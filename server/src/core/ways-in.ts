import type { Kysely, Transaction } from 'kysely';
import { databaseKind } from '../db/connect.js';
import type { Database, User } from '../db/schema.js';
import { ValidationError } from './errors.js';

/**
 * The ways a member signs in, beyond their password: passkeys, connected providers, and two-step
 * sign-in as a second step. Each is owned by its feature (passkeys/, providers/, two-step/), which
 * describes it as a WayInKind; the composition root hands the kinds to the context at start
 * (ctx.waysIn), so core counts and removes them without reading any feature's tables.
 */

type Db = Kysely<Database> | Transaction<Database>;

export type WayInName = 'passkeys' | 'providers' | 'twoStep';

export interface WayInKind {
  name: WayInName;
  /** `way-in`: signs the member in on its own; `second-step`: asked for after a first factor. */
  role: 'way-in' | 'second-step';
  /** How many the member has (a second step: 1 when it is on). */
  count(db: Db, userId: string): Promise<number>;
  /** Removes all of the member's (with whatever is under way for them); returns how many. */
  removeAll(trx: Transaction<Database>, userId: string): Promise<number>;
}

/**
 * A member always keeps a way to sign in: their own password, a passkey or a connected provider.
 * Removing the last one (disconnecting the provider an account was made with, removing the only
 * passkey of an account without a password) is refused with this message.
 */
export const LAST_WAY_IN =
  'This is your only way to sign in. Set a password (Forgot password on the login screen) or connect another way first.';

/** How a member signs in: a password of their own, and how many of each kind. */
export type WaysInSummary = { password: boolean } & Record<WayInName, number>;

export class WaysIn {
  constructor(private readonly kinds: readonly WayInKind[]) {}

  async summary(db: Db, user: Pick<User, 'id' | 'password_set'>): Promise<WaysInSummary> {
    const counts = await Promise.all(this.kinds.map((k) => k.count(db, user.id)));
    const summary: WaysInSummary = {
      password: user.password_set === 1,
      passkeys: 0,
      providers: 0,
      twoStep: 0,
    };
    this.kinds.forEach((kind, i) => (summary[kind.name] = counts[i]!));
    return summary;
  }

  /** How many ways the member has to sign in: their password (1 or 0) and every way in. */
  async count(db: Db, userId: string): Promise<number> {
    const [user, ...counts] = await Promise.all([
      db.selectFrom('users').select('password_set').where('id', '=', userId).executeTakeFirst(),
      ...this.kinds.filter((k) => k.role === 'way-in').map((k) => k.count(db, userId)),
    ]);
    return (user?.password_set === 1 ? 1 : 0) + counts.reduce((a, b) => a + b, 0);
  }

  /** Whether a first factor must be followed by a second step (two-step sign-in is on). */
  async secondStepRequired(db: Db, userId: string): Promise<boolean> {
    for (const kind of this.kinds) {
      if (kind.role === 'second-step' && (await kind.count(db, userId)) > 0) return true;
    }
    return false;
  }

  /**
   * Removes the member's ways in of the kinds named (all but the password when none are named),
   * and sign-ins waiting for a second step when second steps go. Returns how many of each went.
   */
  async remove(
    trx: Transaction<Database>,
    userId: string,
    names: readonly WayInName[] = this.kinds.map((k) => k.name),
  ): Promise<Record<WayInName, number>> {
    const removed: Record<WayInName, number> = { passkeys: 0, providers: 0, twoStep: 0 };
    for (const kind of this.kinds.filter((k) => names.includes(k.name))) {
      removed[kind.name] = await kind.removeAll(trx, userId);
      if (kind.role === 'second-step') {
        await trx.deleteFrom('mfa_challenges').where('user_id', '=', userId).execute();
      }
    }
    return removed;
  }

  /**
   * Runs `remove` (which deletes ways in) inside `trx`, then refuses, rolling it back, when no way
   * in is left (with `refusal`: the member's own message by default, an operator's otherwise). The
   * member's row is locked first on PostgreSQL, so two removals at once (two tabs, two instances)
   * cannot each see the other's way in and both go through; on SQLite the transaction already has
   * the database to itself.
   */
  async keepOne<T>(
    trx: Transaction<Database>,
    userId: string,
    remove: () => Promise<T>,
    refusal: string = LAST_WAY_IN,
  ): Promise<T> {
    if (databaseKind(trx) === 'postgres') {
      await trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
    }
    const result = await remove();
    if ((await this.count(trx, userId)) === 0) throw new ValidationError(refusal);
    return result;
  }
}
