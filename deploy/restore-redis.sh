#!/usr/bin/env bash
# Replace the data of the Redis of docker-compose.yml with an RDB backup
# (made by deploy/backup-redis.sh), then start everything again.
#
#   deploy/restore-redis.sh FILE
#
# Run it from the folder of docker-compose.yml. The server and Redis stop
# first (the server saves its tables, then they are replaced by the backup's).
#
# Why not just copy FILE over /data/dump.rdb: with the append-only file on,
# Redis loads only that file at start and ignores dump.rdb, so the restored
# data would be dropped. Instead a one-off Redis loads the backup with the
# append-only file off, turns it on (which writes a new append-only file
# from the loaded data), waits until that is written, and shuts down.
set -euo pipefail

if [ $# -ne 1 ] || [ ! -f "$1" ]; then
  echo "usage: $0 BACKUP.rdb" >&2
  exit 2
fi
backup=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
if [ -z "${COMPOSE:-}" ]; then
  if docker compose version >/dev/null 2>&1; then COMPOSE="docker compose"; else COMPOSE=docker-compose; fi
fi

# shellcheck disable=SC2086  # COMPOSE is a command and its arguments
$COMPOSE stop server redis
# shellcheck disable=SC2086
$COMPOSE run --rm --no-deps -T -v "$backup:/restore/backup.rdb:ro" redis sh -ec '
  cd /data
  rm -rf appendonlydir dump.rdb
  cp /restore/backup.rdb dump.rdb
  redis-server --dir /data --port 6390 --appendonly no --save "" --daemonize yes
  cli() { redis-cli -p 6390 "$@"; }
  until cli ping 2>/dev/null | grep -q PONG; do sleep 0.2; done
  cli config set appendonly yes >/dev/null
  while cli info persistence | grep -Eq "aof_rewrite_(in_progress|scheduled):1"; do sleep 0.2; done
  cli info persistence | grep -q "aof_last_bgrewrite_status:ok"
  echo "restored $(cli dbsize) keys" >&2
  cli shutdown >/dev/null 2>&1 || true
  while cli ping >/dev/null 2>&1; do sleep 0.2; done
  test -f appendonlydir/*.manifest
'
# shellcheck disable=SC2086
$COMPOSE up -d
