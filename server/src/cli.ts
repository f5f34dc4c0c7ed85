import { type Config, ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/connect.js';
import { migrateToLatest } from './db/migrations.js';
import { bootstrapInviteLink, InitialUserExistsError } from './invites/service.js';

/** The sign-up link for the initial user (reusing the unused bootstrap code, or making one). */
export async function initialInviteLink(config: Config): Promise<string> {
  const database = openDatabase(config);
  try {
    await migrateToLatest(database.db);
    return await bootstrapInviteLink(database.db, config.appUrl);
  } finally {
    await database.close();
  }
}

const USAGE = `Usage: npm run --silent cli -- <command>

Commands:
  initial-invite   Print the sign-up link that creates the initial user (one line on stdout).
                   Fails once the initial user exists.
`;

async function run(args: string[]): Promise<number> {
  const [command] = args;
  if (command === 'initial-invite') {
    const link = await initialInviteLink(loadConfig(process.env));
    process.stdout.write(`${link}\n`);
    return 0;
  }
  if (command === undefined || command === 'help' || command === '--help') {
    process.stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  process.stderr.write(`Unknown command "${command}".\n\n${USAGE}`);
  return 2;
}

const isMain =
  import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('cli.ts');
if (isMain) {
  run(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      const known = error instanceof ConfigError || error instanceof InitialUserExistsError;
      process.stderr.write(`${known ? (error as Error).message : String(error)}\n`);
      process.exit(1);
    },
  );
}
