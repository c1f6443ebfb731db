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
