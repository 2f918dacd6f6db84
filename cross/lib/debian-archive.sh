# Sourced by the cross-build scripts: a private apt for one Debian suite and architecture, so that
# this machine can look up versions in, and download .debs from, any suite (bookworm, trixie, sid)
# for any architecture without touching its own apt configuration or dpkg database.
#
#   archive_init SUITE ARCH     sets up (and at most once a day refreshes) $cross_cache/apt/SUITE-ARCH;
#                               afterwards archive_apt_get/archive_apt_cache use it
#   archive_version PACKAGE     the candidate version, empty when the suite has no such package
#   archive_versions PACKAGE…   "PACKAGE VERSION" lines, one query for all
#   archive_depends PACKAGE…    the names of their direct Depends (first alternative of each)
#   archive_fetch PACKAGE…      downloads each candidate .deb (once, cached) and prints its path
#
# Sets cross_cache, the cache all cross-build scripts share ($BLESENSOR_CROSS_CACHE, default
# /var/cache/blesensor-cross); DEBIAN_MIRROR overrides the mirror. The archive's own keyring
# (debian-archive-keyring) checks every index; sid's Release file outlives its Valid-Until on a
# machine whose clock is not the archive's, so that check alone is off.

cross_cache=${BLESENSOR_CROSS_CACHE:-/var/cache/blesensor-cross}
debian_mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

archive_init() { # SUITE ARCH
    archive_suite=$1 archive_arch=$2
    archive_dir=$cross_cache/apt/$archive_suite-$archive_arch
    mkdir -p "$archive_dir/lists/partial" "$archive_dir/archives/partial" "$archive_dir/debs"
    [[ -f $archive_dir/status ]] || : > "$archive_dir/status"
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $debian_mirror $archive_suite main" \
        > "$archive_dir/sources.list"
    archive_options=(
        -o "Dir::State=$archive_dir" -o "Dir::State::Lists=$archive_dir/lists"
        -o "Dir::State::status=$archive_dir/status" -o "Dir::Cache=$archive_dir"
        -o "Dir::Cache::archives=$archive_dir/archives" -o "Dir::Etc::SourceList=$archive_dir/sources.list"
        -o "Dir::Etc::SourceParts=$archive_dir/lists/partial" -o "Dir::Etc::Preferences=$archive_dir/none"
        -o "Dir::Etc::PreferencesParts=$archive_dir/lists/partial"
        -o "APT::Architecture=$archive_arch" -o "APT::Architectures=$archive_arch"
        -o "Acquire::Check-Valid-Until=false" -o "Acquire::Languages=none" -o "Debug::NoLocking=1"
        -o "APT::Sandbox::User=root"
    )
    # Refreshed once a day: the same versions (so the same cache keys) for a day of reruns.
    if [[ -z $(find "$archive_dir/lists" -maxdepth 1 -name '*Packages*' -mmin -1440 -print -quit) ]]; then
        apt-get "${archive_options[@]}" -qq update \
            || { echo "cannot read Debian $archive_suite ($archive_arch) from $debian_mirror" >&2; return 1; }
    fi
}

archive_apt_cache() { apt-cache "${archive_options[@]}" "$@"; }
archive_apt_get() { apt-get "${archive_options[@]}" "$@"; }

archive_version() { # PACKAGE
    archive_versions "$1" | cut -d' ' -f2
}

# "PACKAGE VERSION" per line, for every PACKAGE the suite has, in one pass over the index.
archive_versions() { # PACKAGE…
    archive_apt_cache show --no-all-versions "$@" 2>/dev/null |
        awk '/^Package: / { package = $2 } /^Version: / { print package, $2 }'
}

# The names in the Depends of each PACKAGE (first alternative of each), all in one list.
archive_depends() { # PACKAGE…
    archive_apt_cache show --no-all-versions "$@" | sed -n 's/^Depends: //p' |
        tr ',' '\n' | sed -E 's/^ +//; s/\|.*//; s/[ (].*//; s/:any$//' | grep .
}

archive_fetch() { # PACKAGE…
    local package version file versions
    versions=$(archive_versions "$@")
    for package in "$@"; do
        version=$(awk -v package="$package" '$1 == package { print $2 }' <<<"$versions")
        [[ -n $version ]] || { echo "Debian $archive_suite ($archive_arch) has no package $package" >&2; return 1; }
        # apt-get download names files with the version's colon escaped as %3a.
        file=$(printf '%s/%s_%s_' "$archive_dir/debs" "$package" "${version//:/%3a}")
        if ! compgen -G "$file*.deb" >/dev/null; then
            (cd "$archive_dir/debs" && archive_apt_get -qq download "$package=$version" >/dev/null) \
                || { echo "cannot download $package $version ($archive_suite, $archive_arch)" >&2; return 1; }
        fi
        compgen -G "$file*.deb" | head -n1
    done
}
