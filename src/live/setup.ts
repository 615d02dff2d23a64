import type { RawBuilder } from 'kysely';
import type { ResolvedResource } from '../resource/registry.js';
import type { SqlDialect } from '../sql/dialect.js';
import { capturedTable } from './capture.js';

/** What `resource-query-service live` does to a database. */
export type LiveSetupAction = 'setup' | 'triggers' | 'remove-triggers' | 'drop';

/**
 * The statements of a setup action, in order: `setup` creates the change log; `triggers` installs, on
 * each resource's table, the triggers that record the writes of every program (the service's own
 * writes then record nothing themselves: restart it after); `remove-triggers` removes them; `drop`
 * removes the log (and the triggers, which would fail every write without it).
 */
export function liveSetupStatements(
  dialect: SqlDialect,
  log: string,
  resources: Iterable<ResolvedResource>,
  action: LiveSetupAction,
): RawBuilder<unknown>[] {
  const { changeLog } = dialect;
  // A table may be listed by several resources (a view of it, another name): its triggers once.
  const tables = new Map<string, ResolvedResource>();
  for (const resource of resources) if (!tables.has(resource.table)) tables.set(resource.table, resource);
  const each = (statements: (resource: ResolvedResource) => RawBuilder<unknown>[]) =>
    [...tables.values()].flatMap(statements);
  switch (action) {
    case 'setup':
      return changeLog.create(log);
    case 'triggers':
      return [
        ...changeLog.create(log),
        ...each((resource) => changeLog.install(log, capturedTable(resource))),
      ];
    case 'remove-triggers':
      return each((resource) => changeLog.remove(log, capturedTable(resource)));
    case 'drop':
      return [...each((resource) => changeLog.remove(log, capturedTable(resource))), ...changeLog.drop(log)];
  }
}
