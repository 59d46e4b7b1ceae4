#!/bin/sh
# The toy kernel's merge_config.sh -m -O DIR CONFIG FRAGMENT...: the last
# setting wins
cfg=$4; shift 3
awk '/^CONFIG_/ { o = $0; sub(/=.*/, "", o) }
     /^# CONFIG_.* is not set/ { o = $2 }
     o != "" { if (!(o in v)) ord[++n] = o; v[o] = $0; o = "" }
     END { for (i = 1; i <= n; i++) print v[ord[i]] }' "$@" > "$cfg.new"
mv "$cfg.new" "$cfg"
