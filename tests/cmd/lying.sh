# lying.sh: the lying store server (tests/py/lying_store.py) for the attack
# tests, sourced after tests/cmd/tap.sh:
#   lying_serve NAME ROOT [ADDRESS]  start one serving the folder ROOT on
#                 ADDRESS (default 127.0.0.1); its URL in $URL, each
#                 request it answers in $T/NAME.log; 1 if it did not start
# Every server started is killed at exit.
command -v python3 >/dev/null || skip_all "python3 is needed for the lying server"
_lying_pids=
trap 'for _p in $_lying_pids; do kill "$_p" 2>/dev/null; done; rm -rf "$T"' EXIT
lying_serve() {
	rm -f "$T/$1.port"
	python3 "$GT_SRC/tests/py/lying_store.py" "$2" "$T/$1.port" "$T/$1.log" ${3:+"$3"} &
	_lying_pids="$_lying_pids $!"
	_i=0
	while [ ! -s "$T/$1.port" ] && [ $_i -lt 100 ]; do sleep 0.1; _i=$((_i + 1)); done
	[ -s "$T/$1.port" ] || return 1
	URL=http://${3:-127.0.0.1}:$(cat "$T/$1.port")
}
