#!/bin/sh
# A throwaway PostgreSQL cluster on 127.0.0.1 for the store tests and benchmarks.
#   scripts/pg-cluster.sh start DIR   initdb into DIR, start on a free port, create database
#                                     "zaxy", print its URL (postgres://zaxy:PASSWORD@127.0.0.1:PORT/zaxy)
# TCP logins need the password (SCRAM), as on a real server; the superuser zaxy's password is
# PG_CLUSTER_PASSWORD (default zaxy-test-pw). The socket in DIR trusts local users.
# PG_CLUSTER_SSL=1: TLS with a self-signed certificate, and TCP logins only over TLS (hostssl).
# PG_CLUSTER_SHARED_BUFFERS: the server's cache (default an eighth of the memory, 128 MB to 1 GB).
#   scripts/pg-cluster.sh stop DIR [fast|immediate]   stop it (DIR is left for the caller to remove);
#                                     immediate is a crash: the next start recovers from the WAL
#   scripts/pg-cluster.sh restart DIR start a stopped cluster again on its port
# Server programs come from PATH or `pg_config --bindir`. As root, initdb and pg_ctl run as the
# `postgres` user, which then owns DIR. Exit 4 when no server programs exist.
set -eu
cmd=${1:?usage: pg-cluster.sh start|stop DIR}
dir=${2:?usage: pg-cluster.sh start|stop DIR}
bindir=""
if command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then
  bindir=$(dirname "$(command -v pg_ctl)")
elif command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/pg_ctl" ]; then
  bindir=$(pg_config --bindir)
else
  echo "pg-cluster.sh: no PostgreSQL server programs (initdb, pg_ctl) on PATH or in pg_config --bindir" >&2
  exit 4
fi
as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}
case "$cmd" in
start)
  mkdir -p "$dir"
  if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
  password=${PG_CLUSTER_PASSWORD:-zaxy-test-pw}
  printf '%s\n' "$password" >"$dir/pwfile"
  if [ "$(id -u)" = 0 ]; then chown postgres "$dir/pwfile"; fi
  as_owner "$bindir/initdb" -D "$dir/data" -U zaxy --auth-local=trust --auth-host=scram-sha-256 --pwfile="$dir/pwfile" -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 3; }
  rm -f "$dir/pwfile"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
  # The server's cache: an eighth of the machine's memory, between PostgreSQL's default 128 MB
  # and 1 GB (PostgreSQL's guidance for a dedicated server is a quarter). With 128 MB a thread of
  # more than ~100 MB cannot stay cached, and every read of it is 8 KB reads from the OS cache.
  mem_kb=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo 2>/dev/null || echo 0)
  shared_mb=$(( ${mem_kb:-0} / 8192 ))
  if [ "$shared_mb" -gt 1024 ]; then shared_mb=1024; fi
  if [ "$shared_mb" -lt 128 ]; then shared_mb=128; fi
  shared_buffers=${PG_CLUSTER_SHARED_BUFFERS:-${shared_mb}MB}
  # ::1 too, for the IPv6 URL tests; a machine without it only warns (the server still starts).
  options="-c listen_addresses=127.0.0.1,::1 -p $port -k $dir -c max_connections=200 -c fsync=off -c shared_buffers=$shared_buffers"
  if [ "${PG_CLUSTER_SSL:-0}" = 1 ]; then
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=127.0.0.1" \
      -keyout "$dir/data/server.key" -out "$dir/data/server.crt" >/dev/null 2>&1 || { echo "pg-cluster.sh: openssl failed" >&2; exit 3; }
    chmod 600 "$dir/data/server.key"
    if [ "$(id -u)" = 0 ]; then chown postgres "$dir/data/server.key" "$dir/data/server.crt"; fi
    sed -i 's/^host /hostssl /' "$dir/data/pg_hba.conf"
    options="$options -c ssl=on"
  fi
  echo "$options" >"$dir/options"
  as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -o "$options" start >/dev/null || { cat "$dir/server.log" >&2; exit 3; }
  psql=$(command -v psql || echo "$bindir/psql")
  as_owner "$psql" -h "$dir" -p "$port" -U zaxy -d postgres -qAtc "CREATE DATABASE zaxy" >/dev/null
  echo "$port" >"$dir/port"
  echo "postgres://zaxy:$password@127.0.0.1:$port/zaxy"
  ;;
stop)
  if [ -d "$dir/data" ]; then as_owner "$bindir/pg_ctl" -D "$dir/data" -m "${3:-fast}" -w stop >/dev/null 2>&1 || true; fi
  ;;
restart)
  as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -o "$(cat "$dir/options")" start >/dev/null || { cat "$dir/server.log" >&2; exit 3; }
  ;;
*)
  echo "usage: pg-cluster.sh start|stop|restart DIR" >&2
  exit 2
  ;;
esac
