import { parseArgs } from 'node:util';
import { DEFAULT_LOG } from '../live/capture.js';
import { type LiveSetupAction, liveSetupStatements } from '../live/setup.js';
import { resolveResources } from '../resource/resolve.js';
import { connect } from '../sql/connect.js';
import { connectOptionsFrom } from './env.js';
import { loadConfig } from './load-config.js';

export const liveUsage = `Usage: resource-query-service live <setup|triggers|remove-triggers|drop> --config <module> [--print]

Prepares DATABASE_URL (default sqlite:./demo.db) for live streams (the configuration's \`live\`):
  setup            creates the change log table (live.table, default ${DEFAULT_LOG}); the service's
                   own writes then record their changes in it
  triggers         also installs triggers on every resource's table, so that writes by any program
                   are recorded (restart the service after: its writes then leave it to them)
  remove-triggers  removes those triggers
  drop             removes the triggers and the change log
--print writes the statements instead of running them (for a migration of your own).`;

const actions = new Set<LiveSetupAction>(['setup', 'triggers', 'remove-triggers', 'drop']);

/** Where the output goes: the CLI's console, or a test's. */
export interface LiveIo {
  log(message: string): void;
  error(message: string): void;
}

/** `resource-query-service live …`: the exit code (0 done, 1 failed, 2 usage). */
export async function runLive(args: string[], io: LiveIo = console): Promise<number> {
  let parsed: { values: { config?: string; print?: boolean; help?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        config: { type: 'string' },
        print: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    io.error(`${error instanceof Error ? error.message : String(error)}\n\n${liveUsage}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const action = positionals[0] as LiveSetupAction | undefined;
  if (values.help) {
    io.log(liveUsage);
    return 0;
  }
  if (!values.config || !action || !actions.has(action) || positionals.length > 1) {
    io.error(liveUsage);
    return 2;
  }
  const config = await loadConfig(values.config);
  const log = config.live?.table ?? DEFAULT_LOG;
  const connection = connect(process.env.DATABASE_URL ?? 'sqlite:./demo.db', connectOptionsFrom(process.env));
  try {
    await config.setup?.(connection);
    const resources = resolveResources(config.resources, undefined).values();
    const statements = liveSetupStatements(connection.dialect, log, resources, action);
    if (values.print) {
      for (const statement of statements) io.log(`${statement.compile(connection.db).sql};\n`);
      return 0;
    }
    for (const statement of statements) await statement.execute(connection.db);
    io.log(`live ${action}: ${statements.length} statements run (change log: ${log}).`);
    return 0;
  } catch (error) {
    io.error(`live ${action} failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await connection.close();
  }
}
