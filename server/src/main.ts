import { ConfigError, loadConfig, withEnvFile } from './config.js';
import { alwaysShown, createLogger } from './logger.js';
import { startServer } from './server.js';
import { yieldHelperThreads } from './tools/helper-threads.js';

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

  const log = createLogger(config.logLevel, config.logFormat);
  const server = await startServer(config, { logger: log });
  // Requests before password hashes when both want the cores (tools/helper-threads.ts).
  yieldHelperThreads();
  const { summary } = server;
  // JSON logs (production): the summary is one event like every other line.
  const say = (fields: Record<string, unknown>, message: string, text: string) =>
    config.logFormat === 'json'
      ? alwaysShown(log).info(fields, message)
      : process.stdout.write(`${text}\n`);
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
  say(
    {
      url: server.url,
      appUrl: config.appUrl,
      database: summary.database,
      mail: summary.mail,
      rateLimits: summary.rateLimits,
      webApp: summary.webApp,
      ...(server.bootstrapLink ? { initialAccountLink: server.bootstrapLink } : {}),
    },
    `${config.appName} is running`,
    `${lines.join('\n')}\n`,
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    say(
      { signal },
      'stopping: finishing in-flight requests',
      `${signal} received: finishing in-flight requests, then stopping.`,
    );
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
