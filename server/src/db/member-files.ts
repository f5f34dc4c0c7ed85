import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../tools/private-files.js';
import { nowString } from '../tools/time.js';
import { databaseKind } from './connect.js';
import type { Database } from './schema.js';

/**
 * Members' files (an avatar, and the thumbs made of it), kept where every instance that serves the
 * member can read them (docs/decisions/0050): on SQLite, one machine, in a private folder inside
 * DATA_DIR; on PostgreSQL, where several instances share nothing but the database, in its
 * `member_files` table. One interface, chosen like the database.
 */
export interface MemberFiles {
  /** Stores `data` as the member's file `name` (variant '' ) or a thumb of it (`100x100`). */
  put(userId: string, name: string, variant: string, data: Buffer): Promise<void>;
  /** The stored bytes, or undefined when there are none. */
  get(userId: string, name: string, variant: string): Promise<Buffer | undefined>;
  /** Removes the file and every thumb made of it. */
  remove(userId: string, name: string): Promise<void>;
  /** Removes every file of the member (the account is gone). */
  removeAll(userId: string): Promise<void>;
}

/** The folder inside DATA_DIR that holds members' files on SQLite. */
export const FILES_DIR = 'files';

/**
 * Names, variants and ids are the server's own (`photo_k2j4h5g6f7.png`, `100x100`, a record id),
 * never a path: anything else is a bug, refused before it reaches the disk or the database.
 */
const SAFE = {
  userId: /^[a-z0-9]{1,64}$/,
  name: /^[a-z0-9_]{1,120}\.[a-z0-9]{1,10}$/,
  variant: /^(?:|\d{1,4}x\d{1,4}[tbf]?)$/,
};

function assertSafe(userId: string, name?: string, variant?: string): void {
  if (
    !SAFE.userId.test(userId) ||
    (name !== undefined && !SAFE.name.test(name)) ||
    (variant !== undefined && !SAFE.variant.test(variant))
  ) {
    throw new Error(`Not a member file: ${JSON.stringify({ userId, name, variant })}`);
  }
}

/**
 * The member's files as PocketBase lays them out in its storage folder:
 * `<dir>/users/<id>/<name>` and `<dir>/users/<id>/thumbs_<name>/<size>_<name>`. Folders are 0700
 * and files 0600, like the database beside them; a file is written under a temporary name and
 * renamed into place, so a reader never sees half of one.
 */
export class FolderFiles implements MemberFiles {
  constructor(readonly dir: string) {}

  private memberDir(userId: string): string {
    return path.join(this.dir, 'users', userId);
  }

  private fileOf(userId: string, name: string, variant: string): string {
    const member = this.memberDir(userId);
    return variant === ''
      ? path.join(member, name)
      : path.join(member, `thumbs_${name}`, `${variant}_${name}`);
  }

  async put(userId: string, name: string, variant: string, data: Buffer): Promise<void> {
    assertSafe(userId, name, variant);
    const file = this.fileOf(userId, name, variant);
    for (const dir of [this.dir, path.join(this.dir, 'users'), this.memberDir(userId)]) {
      ensurePrivateDir(dir);
    }
    ensurePrivateDir(path.dirname(file));
    const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await fs.promises.writeFile(temporary, data, { mode: PRIVATE_FILE_MODE });
      await fs.promises.chmod(temporary, PRIVATE_FILE_MODE);
      await fs.promises.rename(temporary, file);
    } finally {
      await fs.promises.rm(temporary, { force: true });
    }
  }

  async get(userId: string, name: string, variant: string): Promise<Buffer | undefined> {
    assertSafe(userId, name, variant);
    try {
      return await fs.promises.readFile(this.fileOf(userId, name, variant));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async remove(userId: string, name: string): Promise<void> {
    assertSafe(userId, name);
    const member = this.memberDir(userId);
    await fs.promises.rm(path.join(member, name), { force: true });
    await fs.promises.rm(path.join(member, `thumbs_${name}`), { recursive: true, force: true });
  }

  async removeAll(userId: string): Promise<void> {
    assertSafe(userId);
    await fs.promises.rm(this.memberDir(userId), { recursive: true, force: true });
  }
}

/** The member's files as rows of `member_files` (PostgreSQL; bytea). */
export class TableFiles implements MemberFiles {
  constructor(private readonly db: Kysely<Database>) {}

  async put(userId: string, name: string, variant: string, data: Buffer): Promise<void> {
    assertSafe(userId, name, variant);
    await this.db
      .insertInto('member_files')
      .values({ user_id: userId, name, variant, data, created: nowString() })
      // Two instances making the same thumb at once: both wrote the same bytes.
      .onConflict((oc) => oc.columns(['user_id', 'name', 'variant']).doUpdateSet({ data }))
      .execute();
  }

  async get(userId: string, name: string, variant: string): Promise<Buffer | undefined> {
    assertSafe(userId, name, variant);
    const row = await this.db
      .selectFrom('member_files')
      .select('data')
      .where('user_id', '=', userId)
      .where('name', '=', name)
      .where('variant', '=', variant)
      .executeTakeFirst();
    return row?.data;
  }

  async remove(userId: string, name: string): Promise<void> {
    assertSafe(userId, name);
    await this.db
      .deleteFrom('member_files')
      .where('user_id', '=', userId)
      .where('name', '=', name)
      .execute();
  }

  async removeAll(userId: string): Promise<void> {
    assertSafe(userId);
    // Deleting the account's row removes them too (the foreign key cascades).
    await this.db.deleteFrom('member_files').where('user_id', '=', userId).execute();
  }
}

const opened = new WeakMap<Kysely<Database>, MemberFiles>();

/** The members' files of this database: its table on PostgreSQL, DATA_DIR/files on SQLite. */
export function memberFiles(db: Kysely<Database>, dataDir: string): MemberFiles {
  let files = opened.get(db);
  if (!files) {
    files =
      databaseKind(db) === 'postgres'
        ? new TableFiles(db)
        : new FolderFiles(path.join(dataDir, FILES_DIR));
    opened.set(db, files);
  }
  return files;
}

/** When a transaction under way ends: what to do once it has committed, or been rolled back. */
export interface TransactionEnd {
  afterCommit(task: () => Promise<void>): void;
  afterRollback(task: () => Promise<void>): void;
}

/**
 * Members' files for work inside a transaction that several actions share (a batch,
 * core/one-transaction.ts), for `trx` as memberFiles gives them: a file is stored at once (the
 * record may name it before the commit); on SQLite, where it is on disk, it goes again if the
 * transaction is rolled back. Removing one waits for the commit, so a rolled-back transaction never
 * leaves a record naming a file that is gone. Rows (PostgreSQL) are written in the transaction.
 */
export function holdFileChanges(
  trx: Kysely<Database>,
  base: Kysely<Database>,
  dataDir: string,
  end: TransactionEnd,
): void {
  const inner =
    databaseKind(base) === 'postgres'
      ? new TableFiles(trx)
      : new FolderFiles(path.join(dataDir, FILES_DIR));
  const after = memberFiles(base, dataDir);
  opened.set(trx, {
    put: async (userId, name, variant, data) => {
      await inner.put(userId, name, variant, data);
      if (inner instanceof FolderFiles) end.afterRollback(() => inner.remove(userId, name));
    },
    get: (userId, name, variant) => inner.get(userId, name, variant),
    remove: async (userId, name) => end.afterCommit(() => after.remove(userId, name)),
    removeAll: async (userId) => end.afterCommit(() => after.removeAll(userId)),
  });
}
