#!/usr/bin/env bash
# Coverage-guided fuzzing of blesensor's parsers with libFuzzer (Sources/FuzzTargets).
#
#   scripts/fuzz.sh [--seconds N | --minutes N] [TARGET...]
#
# Builds `blesensor-fuzz` with -sanitize=fuzzer,address into .build-fuzz, then runs each target
# (all by default) for the given time, starting from its committed corpus (Tests/Fuzz/Corpus/
# TARGET, copied: new inputs stay in .build-fuzz/corpus). Prints runs and coverage per target;
# exits 1 when a target crashes, traps, leaks or breaks an invariant, leaving the input as
# .build-fuzz/crash-TARGET-*. Add that file to the corpus once fixed: the tests replay it.
# test-all.sh runs every target for 15 s; people run longer (--minutes 10).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=15
targets=()
while [[ $# -gt 0 ]]; do
    case $1 in
        --seconds) seconds=$2; shift 2 ;;
        --minutes) seconds=$(( $2 * 60 )); shift 2 ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        -*) echo "fuzz: unknown option $1" >&2; exit 2 ;;
        *) targets+=("$1"); shift ;;
    esac
done
[[ $seconds =~ ^[0-9]+$ && $seconds -gt 0 ]] || { echo "fuzz: the time must be a whole number above 0" >&2; exit 2; }

build=.build-fuzz
mkdir -p "$build"
echo "fuzz: building blesensor-fuzz with -sanitize=fuzzer,address (log: $build/build.log)"
if ! swift build --build-path "$build" --product blesensor-fuzz \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING > "$build/build.log" 2>&1; then
    # gold warns about every ASan symbol it cannot export; the error is elsewhere.
    grep -v "Cannot export local symbol" "$build/build.log" | tail -n 30 >&2
    echo "fuzz: the build failed" >&2
    exit 1
fi
fuzzer=$(swift build --build-path "$build" --show-bin-path)/blesensor-fuzz

if [[ ${#targets[@]} -eq 0 ]]; then
    mapfile -t targets < <(ls Tests/Fuzz/Corpus)
fi

failed=()
for target in "${targets[@]}"; do
    seeds=Tests/Fuzz/Corpus/$target
    [[ -d $seeds ]] || { echo "fuzz: no corpus directory $seeds" >&2; exit 2; }
    corpus=$build/corpus/$target
    mkdir -p "$corpus"
    cp -n "$seeds"/* "$corpus"/ 2>/dev/null || true
    log=$build/fuzz-$target.log
    status=0
    # -rss_limit_mb: a parser that grows without bound is a finding too.
    BLESENSOR_FUZZ_TARGET=$target "$fuzzer" "$corpus" -max_total_time="$seconds" -print_final_stats=1 \
        -rss_limit_mb=1024 -timeout=10 -artifact_prefix="$build/crash-$target-" > "$log" 2>&1 || status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    coverage=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
    features=$(grep -o 'ft: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
    if [[ $status -eq 0 ]]; then
        echo "fuzz: $target: ${runs:-?} runs in ${seconds} s, coverage ${coverage:-?} edges, ${features:-?} features, corpus $(ls "$corpus" | wc -l) inputs"
    else
        echo "fuzz: $target FAILED (exit status $status); its log: $log" >&2
        grep -E "ERROR|fuzz invariant|Fatal error|SUMMARY|Test unit written" "$log" | head -n 20 >&2 || true
        failed+=("$target")
    fi
done
if [[ ${#failed[@]} -gt 0 ]]; then
    echo "fuzz: FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "fuzz: OK, ${#targets[@]} target(s), no crash"
