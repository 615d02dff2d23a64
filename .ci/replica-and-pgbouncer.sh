#!/usr/bin/env bash
# A streaming replica of the machine's PostgreSQL (the Debian cluster on 5432) on port 5433, and a
# PgBouncer in transaction mode on port 6432 in front of that primary: what test/topology.test.ts
# and bench/topology.ts run against. Idempotent: a run when both are up only
# checks them; a replica that cannot catch up with the primary any more is rebuilt.
# Run as root (CI, the development machines). docs/replicas-pgbouncer-workers.md explains each step.
# Usage: .ci/replica-and-pgbouncer.sh [stop-replica]
set -euo pipefail

PRIMARY_PORT=${RQS_PRIMARY_PORT:-5432}
REPLICA_PORT=${RQS_REPLICA_PORT:-5433}
PGBOUNCER_PORT=${RQS_PGBOUNCER_PORT:-6432}
# Under the postgres user's home: survives reboots of /tmp, and that user owns it.
BASE=${RQS_TOPOLOGY_DIR:-/var/lib/postgresql/rqs-topology}
REPLICA_DIR=$BASE/replica
BOUNCER_DIR=$BASE/pgbouncer

log() { echo "topology: $*" >&2; }
as_postgres() { runuser -u postgres -- "$@"; }
psql_at() { psql -X -h 127.0.0.1 -p "$1" -U postgres -d postgres -Atqc "$2"; }
wait_for() { # seconds, command…
  local seconds=$1; shift
  for _ in $(seq 1 "$((seconds * 4))"); do "$@" >/dev/null 2>&1 && return 0; sleep 0.25; done
  return 1
}

if [ "$(id -u)" != 0 ]; then
  echo "topology: run as root (it installs pgbouncer and acts as the postgres user)" >&2
  exit 1
fi
wait_for 30 pg_isready -h 127.0.0.1 -p "$PRIMARY_PORT" || { log "no primary on $PRIMARY_PORT"; exit 1; }
version=$(psql_at "$PRIMARY_PORT" 'show server_version_num')
major=$((version / 10000))
bindir=/usr/lib/postgresql/$major/bin

# `stop-replica`: what the replica tests do to see reads fall back to the primary (a run without
# arguments starts it again).
if [ "${1:-}" = stop-replica ]; then
  as_postgres "$bindir/pg_ctl" -D "$REPLICA_DIR" -m fast -w stop >/dev/null
  exit 0
fi

# 1. The primary accepts replication connections from 127.0.0.1 (wal_level=replica and
#    max_wal_senders=10 are PostgreSQL 15's defaults; pg_hba.conf is only appended to).
[ "$(psql_at "$PRIMARY_PORT" 'show wal_level')" != minimal ] || { log "wal_level is minimal"; exit 1; }
[ "$(psql_at "$PRIMARY_PORT" 'show max_wal_senders')" -gt 0 ] || { log "max_wal_senders is 0"; exit 1; }
hba=$(psql_at "$PRIMARY_PORT" 'show hba_file')
if ! grep -Eq '^[[:space:]]*host[[:space:]]+replication[[:space:]]+all[[:space:]]+127\.0\.0\.1/32[[:space:]]+trust' "$hba"; then
  log "allowing replication connections from 127.0.0.1 in $hba"
  printf '\n# Added by .ci/replica-and-pgbouncer.sh: the test replica streams from here.\nhost replication all 127.0.0.1/32 trust\n' >>"$hba"
  psql_at "$PRIMARY_PORT" 'select pg_reload_conf()' >/dev/null
  sleep 0.5
fi

# 2. The replica: a base backup of the primary (-R writes standby.signal and primary_conninfo), its
#    own postgresql.conf and pg_hba.conf (Debian keeps the primary's under /etc, not in the data dir).
replica_ready() { pg_isready -h 127.0.0.1 -p "$REPLICA_PORT" >/dev/null 2>&1; }
replica_streams() { [ "$(psql_at "$REPLICA_PORT" 'select status from pg_stat_wal_receiver' 2>/dev/null)" = streaming ]; }
# Caught up: the replica has replayed the primary's WAL position of a moment ago.
replica_caught_up() {
  local target
  target=$(psql_at "$PRIMARY_PORT" 'select pg_current_wal_lsn()')
  for _ in $(seq 1 80); do
    [ "$(psql_at "$REPLICA_PORT" "select pg_last_wal_replay_lsn() >= '$target'::pg_lsn" 2>/dev/null)" = t ] && return 0
    sleep 0.25
  done
  return 1
}
start_replica() {
  as_postgres "$bindir/pg_ctl" -D "$REPLICA_DIR" -l "$BASE/replica.log" -w -t 60 start >/dev/null
}
build_replica() {
  log "building the replica in $REPLICA_DIR (pg_basebackup from port $PRIMARY_PORT)"
  if [ -f "$REPLICA_DIR/postmaster.pid" ]; then as_postgres "$bindir/pg_ctl" -D "$REPLICA_DIR" -m immediate stop || true; fi
  rm -rf "$REPLICA_DIR"
  install -d -o postgres -g postgres -m 0700 "$BASE" "$REPLICA_DIR"
  as_postgres "$bindir/pg_basebackup" -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -D "$REPLICA_DIR" -R -X stream -c fast
  cat >"$REPLICA_DIR/postgresql.conf" <<EOF
# The test replica (.ci/replica-and-pgbouncer.sh).
port = $REPLICA_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '/var/run/postgresql'
hot_standby = on
max_connections = 100
shared_buffers = 64MB
# Reads on the replica are not cancelled by the primary's vacuum while they run (tests, bench).
hot_standby_feedback = on
EOF
  printf 'local all all trust\nhost all all 127.0.0.1/32 trust\n' >"$REPLICA_DIR/pg_hba.conf"
  chown postgres:postgres "$REPLICA_DIR/postgresql.conf" "$REPLICA_DIR/pg_hba.conf"
  rm -f "$REPLICA_DIR/postmaster.pid" "$REPLICA_DIR/postmaster.opts"
  start_replica
}

install -d -o postgres -g postgres -m 0700 "$BASE"
if [ ! -f "$REPLICA_DIR/standby.signal" ]; then
  build_replica
elif ! replica_ready; then
  log "starting the replica on $REPLICA_PORT"
  start_replica || build_replica
fi
wait_for 30 replica_ready || { log "the replica did not start (see $BASE/replica.log)"; exit 1; }
if ! { wait_for 15 replica_streams && replica_caught_up; }; then
  # WAL the replica needs was recycled while it was down: only a new base backup brings it back.
  log "the replica does not catch up with the primary; rebuilding it"
  build_replica
  wait_for 30 replica_streams && replica_caught_up || { log "the rebuilt replica does not stream"; exit 1; }
fi

# 3. PgBouncer, transaction pooling, in front of the primary: Debian's package, started here with a
#    configuration of our own (never its systemd unit). node-postgres' `options` startup parameter
#    is not in ignore_startup_parameters: a client that relies on it is refused loudly instead of
#    having its settings dropped.
if ! command -v pgbouncer >/dev/null 2>&1; then
  log "installing pgbouncer"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer >/dev/null ||
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer >/dev/null; }
fi
install -d -o postgres -g postgres -m 0700 "$BOUNCER_DIR"
cat >"$BOUNCER_DIR/pgbouncer.ini" <<EOF
; Written by .ci/replica-and-pgbouncer.sh.
[databases]
* = host=127.0.0.1 port=$PRIMARY_PORT

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PGBOUNCER_PORT
unix_socket_dir = $BOUNCER_DIR
pidfile = $BOUNCER_DIR/pgbouncer.pid
logfile = $BOUNCER_DIR/pgbouncer.log
auth_type = trust
auth_file = $BOUNCER_DIR/userlist.txt
admin_users = postgres
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 20
ignore_startup_parameters = extra_float_digits
EOF
printf '"postgres" ""\n"root" ""\n' >"$BOUNCER_DIR/userlist.txt"
chown postgres:postgres "$BOUNCER_DIR/pgbouncer.ini" "$BOUNCER_DIR/userlist.txt"
bouncer_ready() { psql_at "$PGBOUNCER_PORT" 'select 1' >/dev/null 2>&1; }
if ! bouncer_ready; then
  pid=$(cat "$BOUNCER_DIR/pgbouncer.pid" 2>/dev/null || true)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill "$pid"; sleep 0.5; fi
  log "starting pgbouncer on $PGBOUNCER_PORT"
  as_postgres pgbouncer -d -q "$BOUNCER_DIR/pgbouncer.ini"
fi
wait_for 15 bouncer_ready || { log "pgbouncer did not answer (see $BOUNCER_DIR/pgbouncer.log)"; exit 1; }

log "primary 127.0.0.1:$PRIMARY_PORT, replica 127.0.0.1:$REPLICA_PORT, pgbouncer 127.0.0.1:$PGBOUNCER_PORT"
