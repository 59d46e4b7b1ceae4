# Common settings and helpers for the lab scripts; source it, do not run it.
# shellcheck shell=bash

LAB=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../lab.conf
. "$LAB/lab.conf"

CACHE=${MMLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mmlab}
BUILD=$LAB/build
RESULTS=${MMLAB_RESULTS:-$LAB/results}

log()  { printf '[lab] %s\n' "$*" >&2; }
warn() { printf '[lab] WARNING: %s\n' "$*" >&2; }
die()  { printf '[lab] ERROR: %s\n' "$*" >&2; exit 1; }

# The base actually fetched (may differ from the pin; see fetch-base.sh).
base_env() {
	local f=$CACHE/base.env
	[ -r "$f" ] || die "no base tree yet: run scripts/fetch-base.sh (or make base)"
	# shellcheck disable=SC1090
	. "$f"
}

# Kernel trees: $KROOT/<variant>/src and $KROOT/<variant>/obj. Every variant
# has the same shape so that ccache (with CCACHE_BASEDIR=$KROOT) shares
# objects between variants.
kroot() { base_env; echo "$CACHE/k/$BASE_KEY"; }

# Fixed identities and dates so that commits, and therefore exported
# patches, are the same on every machine and every run.
export_git_ids() {
	export GIT_AUTHOR_NAME=${GIT_AUTHOR_NAME:-mmlab}
	export GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL:-mmlab@localhost}
	export GIT_COMMITTER_NAME=mmlab GIT_COMMITTER_EMAIL=mmlab@localhost
}
