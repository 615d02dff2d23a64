import type { Connection } from '../../src/sql/connect.js';
import type { Statement } from '../../src/sql/dialect.js';

/** Counts the SQL statements a service runs: a connection whose `run` records each statement. */
export function counter(conn: Connection): { connection: Connection; sql: string[] } {
  const sql: string[] = [];
  return {
    sql,
    connection: {
      ...conn,
      run: (statement) => {
        sql.push(statement.sql);
        return conn.run(statement);
      },
    },
  };
}

/**
 * A connection that appends every statement it runs, with its parameters, to `statements` (for a test to
 * explain or inspect the SQL a request made). `runNow` is left out, so SQLite's at-once reads go through
 * `run` and are recorded too.
 */
export function recordInto(conn: Connection, statements: Statement[]): Connection {
  const recording: Connection = {
    ...conn,
    run: (statement, options) => {
      statements.push(statement);
      return conn.run(statement, options);
    },
  };
  delete recording.runNow;
  return recording;
}
