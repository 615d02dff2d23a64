/**
 * The suites of the machine's streaming replica and PgBouncer, in one file so that they run one after
 * another while the other files run beside them: the replica's suite stops and restarts the replica,
 * which the others read through (the command's DATABASE_READ_URLS, the health endpoints' replica check,
 * PgBouncer in front of the primary). Each part is a module of test/topology/ registering its own
 * describe blocks, in this order. No other file uses the replica or PgBouncer.
 */
import './topology/health.js';
import './topology/pgbouncer.js';
import './topology/command-environment.js';
import './topology/replica.js';
