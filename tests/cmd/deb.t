#!/bin/sh
# make deb (pkg/mkdeb): the package's fields, its files (every command,
# man page and share/gt file), its commands free of CUDA and running on an
# x86-64-v2 CPU (qemu-x86_64 -cpu Nehalem, where present), its Depends met
# by Debian 12's packages; unpacked into a scratch root (dpkg -x, no
# install) with nothing of the source tree on PATH, its gt-worker --once
# plays with a network its gt-model made and gt-publish published into a
# file:// store and uploads the games. The Containerfile is built and run
# where docker or podman has a running daemon, else checked: its base
# image, what it copies and runs. make deb builds in build/deb/ of the
# source tree (the first time about a minute of CPU on 2 cores).
. "${GT_SRC:-.}/tests/cmd/tap.sh"
command -v dpkg-deb >/dev/null || skip_all "no dpkg-deb (not a Debian system)"
command -v make >/dev/null || skip_all "no make"
unset MAKEFLAGS MAKELEVEL MFLAGS

(cd "$GT_SRC" && chrt -i 0 nice -n 19 make -j2 deb DEB_OUT="$T") >"$T/make" 2>&1
ok $? "make deb" || sed 's/^/# /' "$T/make" | tail -20
ver=$(sed -n 's/^#define GT_VERSION "\(.*\)"$/\1/p' "$GT_SRC/lib/gt.h")
arch=$(dpkg --print-architecture)
D=$T/gt_${ver}_$arch.deb
is "$(tail -n 1 "$T/make")" "$D" "the package's path, named for version $ver and $arch"
[ -f "$D" ] || { done_testing; exit 1; }

# the fields
is "$(dpkg-deb -f "$D" Package Version Architecture | tr '\n' ' ')" \
	"Package: gt Version: $ver Architecture: $arch " "Package, Version, Architecture"
dep=$(dpkg-deb -f "$D" Depends)
for p in libc6 libopenblas0 libjansson4 libcurl4 libssl3 libdnnl2 libexpat1 zlib1g libgomp1 jq; do
	echo "$dep" | tr ',' '\n' | grep -q "^ *$p\( \|$\)"; ok $? "Depends names $p"
done
echo "$dep" | grep -Eqi 'cuda|cublas|nvidia'; is $? 1 "Depends names nothing of CUDA"
# every clause met by this Debian 12 system's installed packages
if grep -q '^VERSION_ID="12"' /etc/os-release 2>/dev/null; then
	echo "$dep" | tr ',' '\n' | sed 's/^ *//' | while read -r name op v; do
		have=$(dpkg-query -W -f '${Version}' "$name" 2>/dev/null) || { echo "$name: not installed"; continue; }
		[ -z "$op" ] && continue
		op=${op#(} v=${v%)}
		case $op in '>=') op=ge ;; '<=') op=le ;; '=') op=eq ;; '>>') op=gt ;; '<<') op=lt ;; esac
		dpkg --compare-versions "$have" "$op" "$v" || echo "$name: $have, not $op $v"
	done >"$T/unmet"
	is "$(cat "$T/unmet")" "" "each Depends met by Debian 12's packages here"
else
	diag "not Debian 12: Depends not checked against installed packages"
fi

# the files: every command, man page (gzipped) and file of share/gt
dpkg-deb -c "$D" | awk '{ print $6 }' | sed 's|^\./||' | sort >"$T/list"
{
	for c in "$GT_SRC"/cmd/gt-*.c; do c=${c##*/}; echo "usr/bin/${c%.c}"; done
	echo usr/bin/gt-worker
	for m in "$GT_SRC"/man/man[157]/*.[157]; do echo "usr/share/man/${m#"$GT_SRC"/man/}.gz"; done
	(cd "$GT_SRC" && find share/gt -type f) | sed 's|^|usr/|'
} | sort >"$T/want"
is "$(comm -23 "$T/want" "$T/list")" "" "every command, man page and share/gt file ($(wc -l <"$T/want"))"
is "$(dpkg-deb -c "$D" | awk '$2 != "root/root"' | wc -l)" 0 "owned by root"

# unpacked into a scratch root
R=$T/root
dpkg -x "$D" "$R"; ok $? "dpkg -x into a scratch root"
grep -qF 'exec sh "${GT_SHARE:-/usr/share/gt}/worker"' "$R/usr/bin/gt-worker"
ok $? "gt-worker runs /usr/share/gt/worker, \$GT_SHARE/worker when set"
cmp -s "$R/usr/share/gt/worker" "$GT_SRC/share/gt/worker"; ok $? "share/gt/worker as in the source"
zcat "$R/usr/share/man/man1/gt-worker.1.gz" | cmp -s - "$GT_SRC/man/man1/gt-worker.1"; ok $? "gt-worker(1) as in the source"
: >"$T/cuda"
for f in "$R"/usr/bin/gt-*; do
	[ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
	readelf -d "$f" | grep -Ei 'cuda|cublas|rpath|runpath' | sed "s|^|${f##*/}: |"
done >"$T/cuda"
is "$(cat "$T/cuda")" "" "no command links CUDA or has an rpath"
is "$("$R/usr/bin/gt-selfplay" --version)" "gt-selfplay $ver" "gt-selfplay --version: $ver"

# the worker from the scratch root alone: PATH without the source tree's
# commands, GT_SHARE the unpacked share/gt, GT_BIN unset
P=$R/usr/bin:/usr/bin:/bin
run() { env -u GT_BIN PATH="$P" GT_SHARE="$R/usr/share/gt" "$@"; }
is "$(run sh -c 'command -v gt-selfplay')" "$R/usr/bin/gt-selfplay" "gt-selfplay from the scratch root"
S=$T/store
mkdir -p "$S"
run gt-model init b1c8 --series deb --seed 3 -o "$T/net.bin.gz" 2>"$T/err"; ok $? "the package's gt-model makes a network"
echo '{"a":"x","b":"y","games":10,"wins":7,"draws":0,"losses":3,"score":0.7,"elo":147.2,"elo_ci95":[-80.5,374.9],"los":0.9}' |
	run gt-publish --candidate "$T/net.bin.gz" --store "$S" --threshold 0 >/dev/null 2>"$T/err"
ok $? "its gt-publish publishes it in a file:// store"
net=$(jq -r .name "$S/models/latest.json")
net=${net%.bin.gz}
worker_cfg vol "board_size = 5" "visits = 8" "cheap_visits = 4" "parallel_games = 3" "games_per_batch = 3"
run gt-worker -c "$T/vol.cfg" --once >"$T/out" 2>"$T/err"; ok $? "the installed gt-worker --once" || sed 's/^/# /' "$T/err"
set -- "$S"/games/vol-*.ndjson.gz
is "$#" 1 "one batch in the store's games/"
zcat "$1" >"$T/games" 2>/dev/null
is "$(wc -l <"$T/games")" 3 "three games"
is "$(jq -r '[.worker, .model, .board_size] | join(" ")' "$T/games" | sort -u)" "vol $net 5" \
	"played by vol with $net on 5x5"
gt-validate --board-size 5 <"$T/games" >"$T/valid" 2>"$T/err"   # the source tree's
is "$(wc -l <"$T/valid")" 3 "each a record the source tree's gt-validate accepts"
grep -q "uploaded vol-" "$T/vol/worker.log"; ok $? "the worker's log names the upload"

# the commands on an x86-64-v2 CPU (no AVX2, FMA, BMI): a game with the network
# (OPENBLAS_CORETYPE: under qemu-user on a Zen 5 class host Debian's
# OpenBLAS 0.3.21 took its Haswell kernels though cpuid said Nehalem, and
# its AVX faulted there; gt's own code is what this checks)
if command -v qemu-x86_64 >/dev/null && [ "$(uname -m)" = x86_64 ]; then
	run env OPENBLAS_CORETYPE=Nehalem qemu-x86_64 -cpu Nehalem "$R/usr/bin/gt-selfplay" --model "$T/net.bin.gz" --games 1 \
		--board-size 5 --visits 8 --cheap-visits 4 --seed 5 -v >"$T/q.ndjson" 2>"$T/qerr"
	ok $? "gt-selfplay under qemu-x86_64 -cpu Nehalem" || sed 's/^/# /' "$T/qerr" | tail -5
	gt-validate --board-size 5 <"$T/q.ndjson" 2>/dev/null | wc -l >"$T/qn"
	is "$(cat "$T/qn")" 1 "its game a valid record"
	diag "$(grep -i kernel "$T/qerr" | head -n 2)"
else
	diag "no qemu-x86_64: the commands not run on an emulated x86-64-v2 CPU"
fi

# the Containerfile
C=$GT_SRC/Containerfile
cli= why="no docker or podman with a running daemon"
for c in podman docker; do
	command -v $c >/dev/null && $c info >/dev/null 2>&1 && { cli=$c; break; }
done
if [ -n "$cli" ]; then
	diag "$cli has a daemon: the Containerfile built and run"
	$cli build -q -t gt-worker-test -f "$C" "$GT_SRC" >"$T/cbuild" 2>&1
	rc=$?
	if [ $rc -ne 0 ] && grep -Eqi 'resolv|dial tcp|network is unreachable|pull access|connection (refused|timed out)' "$T/cbuild"; then
		why="$cli build could not reach the network" cli=
	else
		ok $rc "$cli build" || sed 's/^/# /' "$T/cbuild" | tail -5
	fi
fi
if [ -n "$cli" ]; then
	mkdir -p "$T/cfg"
	{ echo "store = file:///store"; echo "worker = box"; grep -v -e '^store' -e '^worker' -e '^work_dir' "$T/vol.cfg"; } >"$T/cfg/contribute.cfg"
	$cli run --rm -v "$T/cfg:/config" -v "$S:/store" gt-worker-test --once >"$T/crun" 2>&1
	ok $? "$cli run gt-worker-test --once" || sed 's/^/# /' "$T/crun" | tail -5
	set -- "$S"/games/box-*.ndjson.gz
	[ -f "$1" ] && [ "$(zcat "$1" | wc -l)" = 3 ]; ok $? "the container's worker uploaded three games"
	$cli rmi gt-worker-test >/dev/null 2>&1
else
	diag "$why: the Containerfile checked, not built"
fi
is "$(sed -n 's/^FROM \([^ ]*\).*/\1/p' "$C" | tr '\n' ' ')" "debian:12 debian:12-slim " "its base images: Debian 12"
# what it copies: the source tree (Makefile and pkg/mkdeb, not left out by
# .dockerignore) and the package the first stage writes
is "$(sed -n 's/^COPY //p' "$C" | tr '\n' ';')" ". /src;--from=build /out/ /tmp/deb/;" "it copies the source tree and the first stage's /out/"
ign=$(grep -v '^#' "$GT_SRC/.dockerignore" | tr '\n' ' ')
for f in Makefile pkg/mkdeb lib/gt.h cmd/gt-worker.sh share/gt/worker man/man1/gt-worker.1; do
	[ -e "$GT_SRC/$f" ] && ! echo " $ign" | grep -q " ${f%%/*} "; ok $? "the build context holds $f"
done
grep -q '^RUN make deb DEB_OUT=/out$' "$C"; ok $? "the first stage runs make deb into /out"
grep -q '^deb:' "$GT_SRC/Makefile"; ok $? "a target the Makefile has"
# the packages the first stage installs: the build packages of install-deps
need=$(sed -n '/^pkgs="/,/"$/p' "$GT_SRC/share/gt/install-deps" | tr ' "' '\n\n' | grep -E '^(build-essential|.*-dev)$')
for p in $need; do grep -q "[[:space:]]$p\b" "$C" || echo "$p"; done >"$T/miss"
is "$(cat "$T/miss")" "" "the first stage installs every build package of install-deps ($(echo $need | wc -w))"
grep -q 'apt-get install .*/tmp/deb/gt_\*\.deb' "$C"; ok $? "the second installs the package with apt-get (its Depends)"
ep=$(sed -n 's/^ENTRYPOINT \["\([^"]*\)".*/\1/p' "$C")
[ -x "$R/usr/bin/$ep" ]; ok $? "its ENTRYPOINT $ep is a command of the package"
grep -q '^VOLUME /config$' "$C" && grep -q '"/config/contribute.cfg"' "$C"; ok $? "a volume /config holds the settings"
done_testing
