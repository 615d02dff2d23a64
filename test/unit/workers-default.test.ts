import { describe, expect, it } from 'vitest';
import { databaseServerIsLocal, workersFrom } from '../../src/cli/env.js';

/**
 * The default number of workers (docs/benchmarks.md, topology): one per core, but half the cores when
 * the database server shares the machine, and one for an in-memory SQLite database.
 */
describe('the default --workers', () => {
  it('is one per core for a SQLite file and a database elsewhere', () => {
    expect(workersFrom(undefined, 'sqlite:./demo.db', 2)).toBe(2);
    expect(workersFrom(undefined, 'postgres://app@db.internal:5432/app', 8)).toBe(8);
    expect(workersFrom(undefined, 'mysql://root@10.0.0.5:3306/app', 4)).toBe(4);
  });

  it('is half the cores, at least one, when the database server runs on this machine', () => {
    expect(workersFrom(undefined, 'postgres://postgres@127.0.0.1:5432/app', 2)).toBe(1);
    expect(workersFrom(undefined, 'postgres://postgres@localhost/app', 8)).toBe(4);
    expect(workersFrom(undefined, 'mysql://root@[::1]:3306/app', 1)).toBe(1);
    expect(workersFrom(undefined, 'postgres:///app?host=/var/run/postgresql', 4)).toBe(2);
    expect(workersFrom(undefined, 'mysql://root@localhost/app?socketPath=/run/mysqld/mysqld.sock', 6)).toBe(
      3,
    );
  });

  it('is what --workers says, and one for an in-memory SQLite database', () => {
    expect(workersFrom('3', 'postgres://postgres@127.0.0.1/app', 2)).toBe(3);
    expect(workersFrom(undefined, 'sqlite::memory:', 8)).toBe(1);
    expect(() => workersFrom('2', 'sqlite::memory:', 8)).toThrow('--workers must be 1');
  });

  it('tells local servers from remote ones', () => {
    expect(databaseServerIsLocal('postgres://u@127.0.0.2/app')).toBe(true);
    expect(databaseServerIsLocal('postgres://u@example.org/app')).toBe(false);
    expect(databaseServerIsLocal('sqlite:/tmp/x.db')).toBe(false);
  });
});
