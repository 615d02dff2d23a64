import type { Connection } from '../../src/sql/connect.js';

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
