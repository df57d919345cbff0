#!/usr/bin/env bash
# Back up the Redis of docker-compose.yml to one RDB file, while everything runs.
#
#   deploy/backup-redis.sh [FILE]     (default: atout-redis-YYYYmmdd-HHMMSS.rdb)
#
# Run it from the folder of docker-compose.yml. Redis writes a consistent
# snapshot of itself (as it would for a replica, without pausing the game);
# it is copied out, then moved to FILE only once complete. Set COMPOSE to the
# compose command if it is neither `docker compose` nor `docker-compose`
# (e.g. COMPOSE="docker-compose -p myproject").
set -euo pipefail

out=${1:-atout-redis-$(date +%Y%m%d-%H%M%S).rdb}
if [ -z "${COMPOSE:-}" ]; then
  if docker compose version >/dev/null 2>&1; then COMPOSE="docker compose"; else COMPOSE=docker-compose; fi
fi

# shellcheck disable=SC2086  # COMPOSE is a command and its arguments
$COMPOSE exec -T redis sh -ec '
  redis-cli --rdb /tmp/atout-backup.rdb >&2
  cat /tmp/atout-backup.rdb
  rm -f /tmp/atout-backup.rdb
' >"$out.partial"
mv "$out.partial" "$out"
echo "backed up to $out ($(wc -c <"$out") bytes)"
