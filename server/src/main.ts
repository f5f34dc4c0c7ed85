import { ConfigError, loadConfig, withEnvFile } from './config.js';
import { startServer } from './server.js';

/** `npm start`: reads the environment, starts the server, stops cleanly on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(withEnvFile());
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }

  const server = await startServer(config);
  const { summary } = server;
  const lines = [
    '',
    `${config.appName} is running at ${server.url}`,
    `  public address: ${config.appUrl}`,
    `  database:       ${summary.database}`,
    `  mail:           ${summary.mail === 'smtp' ? 'SMTP' : 'printed to this console (SMTP_URL is not set)'}`,
    `  rate limits:    ${summary.rateLimits}`,
    ...(summary.webApp ? [] : ['  web app:        not built (run npm run build)']),
  ];
  if (server.bootstrapLink) {
    lines.push(
      '',
      'No account exists yet. Create the initial account with this link:',
      `  ${server.bootstrapLink}`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${signal} received: finishing in-flight requests, then stopping.\n`);
    const force = setTimeout(() => {
      process.stderr.write('Shutdown took longer than 10 s; exiting.\n');
      process.exit(1);
    }, 10_000);
    force.unref();
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`Shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(
    `Gatehouse failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
