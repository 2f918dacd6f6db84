#!/usr/bin/env bash
# Writes the manual pages with swift-argument-parser's generate-manual plugin, gzipped where
# Debian keeps them: blesensor(1), which documents every subcommand, and blesensord(8).
#
#   cross/lib/manual-pages.sh MAN-DIR      (run from the package root)
#
# The plugin builds the package's executables for this machine (debug, in .build, which
# scripts/test-all.sh has usually built already) and runs each with --experimental-dump-help, so
# the pages are the same whatever the package's target architecture. It applies one set of
# options to every executable, so it runs twice: section 1, then section 8.
# One page, not --multi-page: a subcommand page is named "blesensor bonds" (two words), which
# man-db cannot index, so whatis and apropos would not find it.
set -euo pipefail

man=${1:?name the man directory to fill (…/usr/share/man)}
date=$(date -u -d "@${SOURCE_DATE_EPOCH:-$(date +%s)}" +%F)
outputs=.build/plugins/GenerateManual/outputs
log=$(mktemp "${TMPDIR:-/tmp}/manual-pages.XXXXXX")
trap 'rm -f "$log"' EXIT

generate() { # SECTION
    rm -rf "$outputs"
    if ! swift package plugin generate-manual --configuration debug --date "$date" --section "$1" > "$log" 2>&1; then
        cat "$log" >&2
        echo "manual-pages: swift-argument-parser's generate-manual plugin failed (output above)" >&2
        exit 1
    fi
}

install_page() { # PAGE SECTION-DIRECTORY
    [[ -f $1 ]] || { echo "manual-pages: the plugin wrote no $1" >&2; exit 1; }
    # The plugin separates a discussion's paragraphs with an empty line, which groff warns about
    # in mdoc; .Pp is mdoc's paragraph break.
    sed 's/^$/.Pp/' "$1" | gzip -9n > "$2/$(basename "$1").gz"
    chmod 0644 "$2/$(basename "$1").gz"
}

install -d "$man/man1" "$man/man8"
generate 1
install_page "$outputs/blesensor/blesensor.1" "$man/man1"
generate 8
install_page "$outputs/blesensord/blesensord.8" "$man/man8"
