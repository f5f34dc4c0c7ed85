import { spawn } from 'node:child_process';
import type pg from 'pg';
import { lazyRequire } from '../tools/lazy-require.js';

/**
 * Backups on PostgreSQL with PostgreSQL's own tools (Debian's postgresql-client): `pg_dump -Fc`
 * writes one compressed archive of the whole database, consistent while servers write (one
 * snapshot), and `pg_restore` reads it back. The password never appears on a command line (other
 * users of the machine can read those): it goes to the tools in PGPASSWORD.
 */

/** Why a PostgreSQL tool could not do its work (printed as it is). */
export class PgToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PgToolError';
  }
}

/** The connection string without its password, and the environment that carries it. */
function connection(databaseUrl: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const url = new URL(databaseUrl);
  const password = decodeURIComponent(url.password);
  url.password = '';
  return {
    dbname: url.toString(),
    env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}) },
  };
}

function runTool(
  program: 'pg_dump' | 'pg_restore',
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new PgToolError(
          error.code === 'ENOENT'
            ? `${program} is not installed (Debian: apt-get install postgresql-client)`
            : `${program}: ${error.message}`,
        ),
      ),
    );
    child.once('close', (code) => {
      if (code === 0) resolve(stdout);
      else reject(new PgToolError(`${program} failed: ${stderr.trim() || `exit code ${code}`}`));
    });
  });
}

/** `pg_dump -Fc` of the whole database into `target` (which the caller has created 0600). */
export async function pgDump(databaseUrl: string, target: string): Promise<void> {
  const { dbname, env } = connection(databaseUrl);
  await runTool('pg_dump', ['--format=custom', '--no-owner', '--file', target, dbname], env);
}

/**
 * Checks `source` is a pg_dump archive of a Gatehouse database (its table of contents lists the
 * users table); refuses anything else before a restore touches the database.
 */
export async function checkPgArchive(source: string): Promise<void> {
  let contents: string;
  try {
    contents = await runTool('pg_restore', ['--list', source], process.env);
  } catch (error) {
    throw new PgToolError(
      `${source} is not a PostgreSQL backup made by pg_dump -Fc (${(error as Error).message})`,
    );
  }
  if (!/ TABLE \S+ users /.test(contents)) {
    throw new PgToolError(`${source} is not a Gatehouse database (no users table)`);
  }
}

/** How many other connections the database has now (a running server holds some). */
export async function otherConnections(databaseUrl: string): Promise<number> {
  const client = new (lazyRequire<typeof pg>('pg').Client)({ connectionString: databaseUrl });
  await client.connect();
  try {
    const result = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()`,
    );
    return result.rows[0]!.n;
  } finally {
    await client.end();
  }
}

/**
 * Replaces everything in the database with the archive, in one transaction: if any part fails,
 * the database is left as it was.
 */
export async function pgRestore(databaseUrl: string, source: string): Promise<void> {
  const { dbname, env } = connection(databaseUrl);
  await runTool(
    'pg_restore',
    [
      '--clean',
      '--if-exists',
      '--no-owner',
      '--single-transaction',
      '--exit-on-error',
      '--dbname',
      dbname,
      source,
    ],
    env,
  );
}
