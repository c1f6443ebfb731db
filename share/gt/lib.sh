# lib.sh: the shell functions of the scripts in share/gt (gt(7)), sourced
# from the script's own folder, in the source tree or under PREFIX/share/gt:
#   . "$(dirname "$0")/lib.sh"             (worker, trainer, unit, outer, demo)
#   . "$(dirname "$0")/../lib.sh"          (examples/*)
# The script sets prog, its name for messages, before calling these.
# POSIX sh; JSON is read with jq(1).
# shellcheck shell=sh disable=SC2034,SC2154  # prog is the caller's, cfg_error for it

# die MESSAGE...: "$prog: MESSAGE" on stderr, exit 2 (a usage or settings
# error)
die() { echo "$prog: $*" >&2; exit 2; }

# cfg_norm FILE: FILE's "key = value" lines as key=value on stdout: from '#'
# to the end of a line, blank lines, and the spaces at both ends and around
# the first '=' removed
cfg_norm() {
	sed -e 's/#.*//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' \
		-e 's/[[:space:]]*=[[:space:]]*/=/' -e '/^$/d' "$1"
}

# cfg_read FILE KEY...: for each line of FILE (cfg_norm), sets the shell
# variable KEY, one of those named, to the value, literally (the last line
# of a key wins). Returns 1 at the first line that is not key=value or
# names another key, with cfg_error set to "FILE: not a key = value line:
# LINE" or "FILE: unknown key KEY"; FILE must be readable.
cfg_read() {
	_cfg_file=$1
	shift
	_cfg_keys=" $* "
	while IFS= read -r _cfg_line; do
		case $_cfg_line in
		*=*) ;;
		*) cfg_error="$_cfg_file: not a key = value line: $_cfg_line"; return 1 ;;
		esac
		_cfg_key=${_cfg_line%%=*}
		case $_cfg_key in
		'' | *[!A-Za-z0-9_]*) ;;
		*) case $_cfg_keys in *" $_cfg_key "*) eval "$_cfg_key=\${_cfg_line#*=}"; continue ;; esac ;;
		esac
		cfg_error="$_cfg_file: unknown key $_cfg_key"
		return 1
	done <<EOF
$(cfg_norm "$_cfg_file")
EOF
	return 0
}

# jfield KEY < JSON: the value of the top-level KEY of the first object on
# stdin that has it: a string without quotes, a number, true, false or
# null, an array or object as compact JSON; nothing when no object has it
jfield() {
	jq -rn --arg k "$1" 'first(inputs | select(type == "object" and has($k)) | .[$k]
		| if type == "array" or type == "object" then tojson else . end)'
}

# log_line FILE MAX LINE: appends LINE and a newline to FILE, first
# renaming FILE to FILE.1 (replacing the one there) when it holds MAX bytes
# or more; MAX 0: never
log_line() {
	if [ "$2" -gt 0 ] && [ -f "$1" ] && [ "$(wc -c < "$1")" -ge "$2" ]; then
		mv -f "$1" "$1.1"
	fi
	printf '%s\n' "$3" >> "$1"
}

# whole_lines FILE: when FILE's last line has no newline (a write cut
# short), remove that line; 1 when FILE cannot be rewritten
whole_lines() {
	[ -s "$1" ] && [ "$(tail -c 1 "$1" | od -An -tx1 | tr -d ' ')" != 0a ] || return 0
	sed '$d' "$1" > "$1.whole" && mv "$1.whole" "$1"
}

# restart_loop NAME SECONDS COMMAND [ARG...]: runs COMMAND in the background
# and again SECONDS after it exits with any status but 0 (done) or 2 (a
# usage error), saying "$prog: NAME exited with status N; restarting" on
# stderr; exits with that 0 or 2. SIGTERM or SIGINT is passed on to
# COMMAND, and then it exits 0. Does not return.
restart_loop() {
	_rl_name=$1 _rl_wait=$2
	shift 2
	_rl_child=
	trap '[ -n "$_rl_child" ] && kill -TERM "$_rl_child" 2>/dev/null; wait; exit 0' TERM INT
	while :; do
		"$@" &
		_rl_child=$!
		wait "$_rl_child"
		_rl_rc=$?
		_rl_child=
		case $_rl_rc in
		0 | 2) exit "$_rl_rc" ;;
		esac
		echo "$prog: $_rl_name exited with status $_rl_rc; restarting" >&2
		sleep "$_rl_wait"
	done
}

# ---- the training side's settings (trainer.cfg) ----

# training_settings FILE: the settings of trainer.cfg (every key is
# documented in share/gt/trainer.cfg.example) into shell variables of the
# same names, the defaults first; read by trainer, unit, outer and release,
# so that one file runs the training side either way (mode = trainer or
# units). Dies (exit 2) on an unreadable file, an unknown key or a bad
# value. Leaves store without a trailing '/'.
training_settings() {
	[ -r "$1" ] || die "cannot read the settings file $1"
	mode=trainer store= work_dir=${HOME:-.}/.gt-trainer log= series=gt arch=b6c64 min_games=100
	rows_per_shard=10000 window=250000 steps=1000 batch=256 train_options=
	match_games=40 match_visits=100 match_board_size=9 elo_options= threshold=20
	every_steps=10000 curriculum= sign_key= verify_key= report=no public_store=
	board_size=9 komi=7 rules=chinese unit_sign_key= unit_keys= insecure_units=no
	units=4 inner_steps=10 codec=int8 unit_options= feed_poll=10 quorum=
	outer_lr=1.0 outer_momentum=0.5 max_staleness=2 outer_options= release_poll=60
	probe= probe_rows= probe_tolerance=
	cfg_read "$1" mode store work_dir log series arch min_games rows_per_shard window steps \
		batch train_options match_games match_visits match_board_size elo_options threshold \
		every_steps curriculum sign_key verify_key report public_store units inner_steps codec unit_options \
		feed_poll quorum outer_lr outer_momentum max_staleness outer_options release_poll \
		board_size komi rules unit_sign_key unit_keys insecure_units probe probe_rows \
		probe_tolerance ||
		die "$cfg_error"
	[ -n "$store" ] || die "$1: no store"
	store=${store%/}
	case $mode in trainer|units) ;; *) die "$1: mode must be trainer or units (got '$mode')" ;; esac
	for _k in min_games rows_per_shard window steps batch match_games match_visits \
		match_board_size every_steps units inner_steps feed_poll max_staleness release_poll; do
		eval "_v=\$$_k"
		case $_v in ''|*[!0-9]*) die "$1: $_k must be a number (got '$_v')" ;; esac
	done
	: "${quorum:=$units}"
	case $quorum in ''|*[!0-9]*) die "$1: quorum must be a number (got '$quorum')" ;; esac
	[ "$units" -ge 1 ] && [ "$units" -le 64 ] || die "$1: units must be 1 to 64 (got $units)"
	[ "$quorum" -ge 1 ] && [ "$quorum" -le "$units" ] || die "$1: quorum must be 1 to units (got $quorum)"
	# a unit's rows a step: batch is the step of the whole training side, so
	# U units make as many steps of batch/U rows as the trainer makes of
	# batch (local SGD's equivalence; at batch each, 4 units made a quarter
	# of the steps and their generation 1 lost: results/9x9-from-zero-units)
	unit_batch=$(((batch + units - 1) / units))
	case $codec in fp32|bf16|int8|int4) ;; *) die "$1: codec must be fp32, bf16, int8 or int4" ;; esac
	for _k in outer_lr outer_momentum; do
		eval "_v=\$$_k"
		echo "$_v" | grep -Eq '^[0-9]*\.?[0-9]+$' || die "$1: $_k must be a number (got '$_v')"
	done
	case $series in ''|*[!A-Za-z0-9._]*) die "$1: series must be letters, digits, '.' and '_'" ;; esac
	[ -z "$curriculum" ] || [ -r "$curriculum" ] || die "$1: cannot read the curriculum $curriculum"
	# what the run takes (gt-validate --board-size, --komi, --rules); the
	# first board size is the one trained on
	echo "$board_size" | grep -Eq '^[0-9]+(,[0-9]+)*$' ||
		die "$1: board_size must be sizes separated by commas (got '$board_size')"
	[ -z "$komi" ] || echo "$komi" | grep -Eq '^-?[0-9]+(\.[05])?(,-?[0-9]+(\.[05])?)*$' ||
		die "$1: komi must be numbers separated by commas (got '$komi')"
	[ -z "$rules" ] || echo "$rules" | grep -Eq '^[a-z_-]+(,[a-z_-]+)*$' ||
		die "$1: rules must be names separated by commas (got '$rules')"
	train_board_size=${board_size%%,*}
	[ -z "$unit_sign_key" ] || [ -r "$unit_sign_key" ] || die "$1: cannot read the unit key $unit_sign_key"
	[ -z "$unit_keys" ] || [ -d "$unit_keys" ] || die "$1: unit_keys $unit_keys is not a folder"
	case $probe_rows in *[!0-9]*) die "$1: probe_rows must be a number (got '$probe_rows')" ;; esac
	[ -z "$probe_tolerance" ] || echo "$probe_tolerance" | grep -Eq '^[0-9]*\.?[0-9]+$' ||
		die "$1: probe_tolerance must be a number (got '$probe_tolerance')"
	case $insecure_units in yes|no) ;; *) die "$1: insecure_units must be yes or no (got '$insecure_units')" ;; esac
	# a unit is its key: without unit_keys, the units and the outer process
	# of one machine (one work_dir) share the folder WORK/unit-keys, where
	# each unit puts the public half of the key it makes (share/gt/unit)
	[ -n "$unit_keys" ] || unit_keys=$work_dir/unit-keys
}

# run_accepts: the gt-validate and gt-shard options of what the run takes
# (board_size, komi, rules of the settings), on stdout
run_accepts() {
	printf -- '--board-size %s' "$board_size"
	[ -n "$komi" ] && printf -- ' --komi %s' "$komi"
	[ -n "$rules" ] && printf -- ' --rules %s' "$rules"
	echo
}

# ---- the steps of a run (a trainer's generation, a unit's feed cycle) ----

# run_step NAME: runs the caller's do_NAME unless $G/NAME.done exists, and
# marks the step done when do_NAME returns 0 (its seconds appended to
# $G/times). Says "WHAT: NAME" as it starts (unless quiet_steps=1) and
# when it is done. The caller sets G (the run's folder), what (its name in
# messages, "generation 3") and stopping (1: stop before the next step),
# and defines say MESSAGE. Returns 0 done (now or before), 10 do_NAME
# asked to wait (its own 10), 20 a stop was requested before the step, 1
# do_NAME failed (the next run starts at this step).
run_step() {
	[ -f "$G/$1.done" ] && return 0
	if [ "$stopping" = 1 ]; then
		say "$what: stopped before $1; the next run starts there"
		return 20
	fi
	[ "${quiet_steps:-0}" = 1 ] || say "$what: $1"
	_t0=$(date +%s)
	do_"$1"
	_rc=$?
	[ $_rc = 10 ] && return 10
	if [ $_rc != 0 ]; then
		say "$what: $1 failed (exit $_rc); the next run starts here"
		return 1
	fi
	_dt=$(($(date +%s) - _t0))
	echo "$1 $_dt" >> "$G/times"
	touch "$G/$1.done"
	say "$what: $1 done in $_dt s"
}

# The data steps the trainer and a unit's feeder share, in the folder $G
# of the run (run_step); commands' messages go to $log.

# data_pull STATE MIN [gt-sync pull options...]: the records of the batches
# of STORE/games/ that STATE does not list appended to $G/pulled.ndjson,
# a line of counts and bytes per try in $G/pull.ndjson (gt-sync pull
# --stats); the records of a worker's folder that name another worker in
# $G/pull-rejects.ndjson (--rejects); 10 (wait) while pulled.ndjson holds
# fewer than MIN records. A
# line cut by a crash is dropped; its batch comes again (not in the state
# yet) and duplicates are gt-validate's to reject.
data_pull() {
	_st=$1 _min=$2
	shift 2
	whole_lines "$G/pulled.ndjson" || return 1
	rm -f "$G/pull.json"
	gt-sync -q pull "$store/games/" --state "$_st" --stats "$G/pull.json" \
		--rejects "$G/pull-rejects.ndjson" "$@" >> "$G/pulled.ndjson" 2>> "$log" || return 1
	# (a try that found nothing leaves no line)
	grep -qv '"batches":0,"bad":0,"old":0,' "$G/pull.json" 2>/dev/null && cat "$G/pull.json" >> "$G/pull.ndjson"
	_n=$(wc -l < "$G/pulled.ndjson")
	if [ "$_n" -lt "$_min" ]; then
		[ "${quiet_wait:-0}" = 1 ] || say "$what: $_n new games of the $_min needed; waiting"
		return 10
	fi
	say "$what: $_n new games"
}

# data_validate SEEN: $G/pulled.ndjson through gt-validate (with the
# board sizes, komi and rules of the run: run_accepts) into
# $G/valid.ndjson, rejects in $G/rejects.ndjson, the summary in
# $G/validate.json (with the pull's rejects added); SEEN (the hashes of the
# games taken before) gains this
# run's. Every try starts from the hashes seen before this run. 10 (wait)
# when no record passed: the pull step is then undone, so that the next
# try pulls more records onto these.
data_validate() {
	if [ ! -f "$G/seen.before" ]; then
		cp "$1" "$G/seen.tmp" 2>/dev/null || : > "$G/seen.tmp"
		mv "$G/seen.tmp" "$G/seen.before"
	fi
	cp "$G/seen.before" "$G/seen.work" || return 1
	rm -f "$G/validate.json"
	# shellcheck disable=SC2046  # the options split on spaces
	gt-validate --seen "$G/seen.work" --rejects "$G/rejects.ndjson" --stats="$G/validate.json" \
		$(run_accepts) "$G/pulled.ndjson" > "$G/valid.ndjson" 2>> "$log"
	_rc=$?
	# 1 is "some records were rejected" when the summary was written
	[ $_rc = 0 ] || { [ $_rc = 1 ] && [ -s "$G/validate.json" ]; } || return 1
	# the records the pull dropped (worker not the uploading account) are
	# rejects too, counted against the account that uploaded them
	if [ -s "$G/pull-rejects.ndjson" ]; then
		cat "$G/pull-rejects.ndjson" >> "$G/rejects.ndjson" &&
			jq -c --slurpfile r "$G/pull-rejects.ndjson" '.rejected += ($r | length)
			| .rejects_by_reason.uploader = ((.rejects_by_reason.uploader // 0) + ($r | length))
			| .rejects_by_worker = (reduce $r[] as $x (.rejects_by_worker // {}; .[$x.uploader] += 1))' \
			"$G/validate.json" > "$G/validate.tmp" && mv "$G/validate.tmp" "$G/validate.json" || return 1
	fi
	mv "$G/seen.work" "$1" || return 1
	_ok=$(wc -l < "$G/valid.ndjson")
	say "$what: $_ok games passed, $(jfield rejected < "$G/validate.json") rejected (rejects.ndjson)"
	if [ "$_ok" -eq 0 ]; then
		# the next try pulls more games onto these and validates them all
		cp "$G/seen.before" "$1"
		rm -f "$G/pull.done"
		say "$what: no valid game; waiting for more"
		return 10
	fi
}

# data_augment SEED: $G/valid.ndjson, one random symmetry a game, into
# $G/augmented.ndjson
data_augment() {
	gt-augment --random --seed "$1" "$G/valid.ndjson" > "$G/augmented.ndjson" 2>> "$log"
}

# data_shard DATA RUN SEED ROWS: $G/augmented.ndjson into shards of ROWS
# rows in DATA/run_RUN (RUN 0 to 999), their manifest lines in
# $G/shards.ndjson; what a crashed try (or the run 1000 runs before) left
# in DATA/run_RUN is removed first, so no game is in the window twice
data_shard() {
	_run=$(printf %03d "$2")
	if [ -f "$1/manifest" ]; then
		grep -v "\"file\":\"run_$_run/" "$1/manifest" > "$1/manifest.tmp"
		mv "$1/manifest.tmp" "$1/manifest" || return 1
	fi
	rm -rf "$1/run_$_run"
	gt-shard -o "$1" --run "$2" --seed "$3" --rows "$4" --board-size "$board_size" \
		"$G/augmented.ndjson" > "$G/shards.ndjson" 2>> "$log"
	_rc=$?
	[ -s "$G/shards.ndjson" ] || return 1
	[ $_rc = 0 ] || say "$what: gt-shard dropped some rows (exit $_rc; see the log)"
	return 0
}

# cpu_seconds TMP: cpu_s, the CPU seconds (user + system) of this shell's
# finished and waited-for children, from times(1) (written to the file TMP
# and read back: times in a pipe or $(...) counts a subshell's children)
cpu_seconds() {
	times > "$1"
	cpu_s=$(sed -n 2p "$1" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, a, /m|s/); t += a[1] * 60 + a[2] }
		printf "%.1f\n", t }')
	rm -f "$1"
}

# ---- the match and the release of a candidate (trainer, release) ----

# cand_match SEED: $G/candidate.bin.gz against the published network (the
# uniform evaluator while none is), fetched into $W/models and checked with
# verify_key when set; the reference is fixed at the first try
# ($G/reference). gt-elo's records in $G/match.ndjson, its summary in
# $G/summary.json. Settings: store, match_games, match_visits,
# match_board_size, elo_options, verify_key.
cand_match() {
	if [ ! -s "$G/reference" ]; then
		# shellcheck disable=SC2086
		_ref=$(gt-sync latest --or-none ${verify_key:+--verify-key=$verify_key} "$store" \
			"$W/models" 2>> "$log") || return 1
		echo "$_ref" > "$G/reference"
	fi
	_ref=$(cat "$G/reference")
	# shellcheck disable=SC2086
	gt-elo "$G/candidate.bin.gz" "$_ref" --games "$match_games" --visits "$match_visits" \
		--board-size "$match_board_size" --seed "$1" --records "$G/match.ndjson" $elo_options \
		> "$G/summary.json" 2>> "$log" || return 1
	say "$what: against $(basename "$_ref"): $(jfield wins < "$G/summary.json") wins, $(jfield draws < "$G/summary.json") draws, $(jfield losses < "$G/summary.json") losses, elo $(jfield elo < "$G/summary.json") $(jfield elo_ci95 < "$G/summary.json")"
}

# cand_publish [gt-publish options...]: gt-publish decides on
# $G/summary.json and releases $G/candidate.bin.gz by the settings
# threshold, every_steps, series, curriculum and sign_key; its line in
# $G/publish.json
cand_publish() {
	set -- --candidate "$G/candidate.bin.gz" --store "$store" --series "$series" \
		--threshold "$threshold" --every-steps "$every_steps" "$@"
	[ -n "$curriculum" ] && set -- "$@" --curriculum "$curriculum"
	[ -n "$sign_key" ] && set -- "$@" --sign-key "$sign_key"
	gt-publish "$@" < "$G/summary.json" > "$G/publish.json" 2>> "$log" || return 1
	say "$what: $(jfield candidate < "$G/publish.json") released: $(jfield released < "$G/publish.json") ($(jfield reason < "$G/publish.json"))"
}
