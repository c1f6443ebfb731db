#!/bin/sh
# units-link.sh: one learning unit behind an emulated wide-area link to the
# store (nginx), against the same run with every unit on the local link,
# and a synchronous data-parallel exchange through the same link.
#
# The link: a network namespace joined to this machine by a veth pair on
# its own addresses (10.231.N.0/30), shaped with tc tbf to LINK_RATE in
# both directions (these kernels have tbf and htb, not netem), and a small
# TCP proxy on the host's end of the pair that forwards to nginx on
# 127.0.0.1, delaying each direction by half of LINK_DELAY_MS and, for
# loss, holding back a segment (1448 bytes) with probability LINK_LOSS by
# a retransmission time (200 ms, Linux's least RTO) plus the delay, and
# everything after it on that connection (TCP delivers in order): what
# packet loss costs a TCP stream, since a proxy cannot drop packets.
#
# Runs of LINK_S seconds each, LINK_UNITS units (gt-unit, fixed shards of
# 9x9 self-play, LINK_ARCH, int8, H = LINK_H) and gt-outer (quorum
# LINK_QUORUM, --units): first every unit on 127.0.0.1, then the last unit
# inside the namespace, through the link. Printed: each unit's applied
# deltas and the slow unit's share of them, applied samples a second
# (training throughput), the stale ones. Then the synchronous
# data-parallel exchange of the same network: fp32 gradients all-reduced
# every step by a ring of LINK_UNITS workers, 2(U-1) hops of 4P/U bytes
# each way, each hop timed as a PUT and a GET of that many bytes on one
# kept-alive connection through the link and without it (the slowest hop
# sets every step's pace), next to a step's compute time from the first
# run: samples a second either way.
#
# Root only (namespaces, tc); skips otherwise, and when ip, tc, nginx or
# python3 are missing. Not part of make check. Environment: GT_BIN,
# GT_SRC; LINK_RATE (20mbit), LINK_DELAY_MS (40), LINK_LOSS (0.005),
# LINK_S (120), LINK_UNITS (4), LINK_QUORUM (4), LINK_H (10), LINK_ARCH
# (b2c16), LINK_BATCH (rows a step of each unit and each data-parallel
# worker: 32, the recipe's batch 128 over 4 units).
: "${GT_SRC:=.}" "${GT_BIN:=$GT_SRC/bin}"
: "${LINK_RATE:=20mbit}" "${LINK_DELAY_MS:=40}" "${LINK_LOSS:=0.005}" "${LINK_S:=120}"
: "${LINK_UNITS:=4}" "${LINK_QUORUM:=4}" "${LINK_H:=10}" "${LINK_ARCH:=b2c16}" "${LINK_BATCH:=32}"
PATH=$GT_BIN:$PATH:/usr/sbin:/sbin
PY=/usr/bin/python3
skip() { echo "units-link.sh: $*; skipped"; exit 0; }
[ "$(id -u)" = 0 ] || skip "not root (network namespaces and tc)"
for c in ip tc nginx curl jq; do command -v $c > /dev/null || skip "no $c"; done
$PY -c 'import json' 2>/dev/null || skip "no python3"
[ -x "$GT_BIN/gt-unit" ] || skip "no $GT_BIN/gt-unit"
d=$(mktemp -d "${TMPDIR:-/tmp}/gt-bench-link.XXXXXX")
chmod 755 "$d"
ns=gtlink$$
net=10.231.$(($$ % 250)).
pids=""
cleanup() {
	for p in $pids; do kill -TERM "$p" 2>/dev/null; done
	wait
	[ -f "$d/nginx/nginx.pid" ] && kill "$(cat "$d/nginx/nginx.pid")" 2>/dev/null
	ip link del "gtl$$a" 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -rf "$d"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- the data and the first network ----
gt-selfplay --model none --games 60 --visits 16 --cheap-visits 8 --board-size 9 --seed 5 \
	> "$d/g.ndjson" 2>/dev/null && gt-shard -o "$d/data" "$d/g.ndjson" > /dev/null 2>&1 &&
	gt-model init "$LINK_ARCH" --seed 1 -o "$d/m0.bin.gz" 2>/dev/null || { echo "units-link.sh: fixture failed"; exit 1; }
P=$(gt-model describe "$d/m0.bin.gz" | jq .params)

# ---- the store: nginx on 127.0.0.1 ----
mkdir -p "$d/nginx" "$d/store" && chmod 777 "$d/store"
port=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > "$d/nginx/nginx.conf" <<EOF
user root;
daemon on;
pid $d/nginx/nginx.pid;
worker_processes 2;
error_log $d/nginx/error.log;
events { worker_connections 256; }
http {
	access_log off;
	client_body_temp_path $d/nginx/body;
	client_max_body_size 0;
	server {
		listen 127.0.0.1:$port;
		root $d/store;
		location / {
			dav_methods PUT DELETE MKCOL MOVE;
			create_full_put_path on;
			autoindex on;
			autoindex_format json;
		}
	}
}
EOF
nginx -p "$d/nginx" -c "$d/nginx/nginx.conf" -e "$d/nginx/error.log" 2>/dev/null || skip "nginx did not start"

# ---- the link: namespace, veth pair, tbf both ways, the proxy ----
ip netns add "$ns" && ip link add "gtl$$a" type veth peer name "gtl$$b" &&
	ip link set "gtl$$b" netns "$ns" && ip addr add "${net}1/30" dev "gtl$$a" && ip link set "gtl$$a" up &&
	ip -n "$ns" addr add "${net}2/30" dev "gtl$$b" && ip -n "$ns" link set "gtl$$b" up &&
	ip -n "$ns" link set lo up &&
	tc qdisc add dev "gtl$$a" root tbf rate "$LINK_RATE" burst 32kbit latency 400ms &&
	ip netns exec "$ns" tc qdisc add dev "gtl$$b" root tbf rate "$LINK_RATE" burst 32kbit latency 400ms ||
	skip "cannot make the namespace and its shaped veth pair"
$PY - "${net}1" "$port" "$LINK_DELAY_MS" "$LINK_LOSS" "$d/proxy.port" <<'PYEOF' &
# a TCP proxy: each direction a delay line (half the round trip), a lost
# segment held back by a retransmission time, in order
import random, socket, sys, threading, time, heapq
host, up, delay, loss, portfile = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]) / 2000, float(sys.argv[4]), sys.argv[5]
RTO, SEG = 0.2, 1448
def pipe(a, b):
    q, cv, done = [], threading.Condition(), [False]
    def reader():
        last = 0.0
        while True:
            try:
                x = a.recv(65536)
            except OSError:
                x = b""
            t = time.monotonic() + delay
            if x and random.random() < 1 - (1 - loss) ** ((len(x) + SEG - 1) // SEG):
                t += RTO + 2 * delay
            last = max(last, t)
            with cv:
                q.append((last, x))
                cv.notify()
            if not x:
                return
    def writer():
        while True:
            with cv:
                while not q:
                    cv.wait()
                t, x = q.pop(0)
            dt = t - time.monotonic()
            if dt > 0:
                time.sleep(dt)
            if not x:
                try:
                    b.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
                return
            try:
                b.sendall(x)
            except OSError:
                return
    threading.Thread(target=reader, daemon=True).start()
    threading.Thread(target=writer, daemon=True).start()
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((host, 0))
s.listen(64)
open(portfile, "w").write("%d\n" % s.getsockname()[1])
while True:
    c, _ = s.accept()
    u = socket.create_connection(("127.0.0.1", up))
    for x in (c, u):
        x.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    pipe(c, u)
    pipe(u, c)
PYEOF
pids="$pids $!"
i=0
while [ ! -s "$d/proxy.port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
LINK_URL=http://${net}1:$(cat "$d/proxy.port")
LOCAL_URL=http://127.0.0.1:$port

# run NAME SLOW: gt-outer and the units for LINK_S seconds in a fresh store
# folder NAME; with SLOW=1 the last unit runs in the namespace, through the
# link. Prints the line of the run (jq) to $d/NAME.json
run() {
	name=$1 slow=$2
	rm -rf "${d:?}/store/$name" "${d:?}/$name" && mkdir -p "$d/store/$name" "$d/$name" && chmod 777 "$d/store/$name"
	gt-outer --store "$LOCAL_URL/$name" --state "$d/$name/outer" --init "$d/m0.bin.gz" --units "$LINK_UNITS" \
		--quorum "$LINK_QUORUM" --momentum 0.6 --grace 0.2 --poll 0.2 > "$d/$name/outer.out" 2> "$d/$name/outer.err" &
	op=$!
	up=
	k=0
	while [ $k -lt "$LINK_UNITS" ]; do
		url=$LOCAL_URL/$name inns=
		[ "$slow" = 1 ] && [ $k = $((LINK_UNITS - 1)) ] && url=$LINK_URL/$name inns="ip netns exec $ns"
		# shellcheck disable=SC2086
		$inns env PATH="$PATH" gt-unit --store "$url" --data "$d/data" --unit "u$k" --units "$LINK_UNITS" \
			--slice $k --state "$d/$name/u$k.state" --cache "$d/$name/u$k" --inner-steps "$LINK_H" \
			--batch "$LINK_BATCH" --seed $((k + 1)) > "$d/$name/u$k.out" 2> "$d/$name/u$k.err" &
		up="$up $!"
		k=$((k + 1))
	done
	pids="$pids $op $up"
	t0=$(date +%s)
	sleep "$LINK_S"
	# shellcheck disable=SC2086
	kill -TERM $up
	for p in $up; do wait "$p"; done
	kill -TERM $op
	wait $op
	t1=$(date +%s)
	cat "$d/store/$name"/diloco/versions/v*.json | jq -cs --argjson wall $((t1 - t0)) --argjson units "$LINK_UNITS" '
		[.[] | .version as $v | .deltas[] | . + {s: ($v - 1 - .base_version)}] as $a
		| {versions: length, wall_s: $wall, samples: ([$a[].samples] | add),
		   per_unit: [range($units) as $k | "u\($k)" as $u | [$a[] | select(.unit == $u)]
			| {unit: $u, applied: length, stale: (map(select(.s > 0)) | length)}]}' > "$d/$name.json"
	cat "$d/$name"/u*.out | jq -s 'map(.train_s / .inner_steps) | sort | .[length / 2 | floor]' > "$d/$name.step"
}

echo "units-link.sh: $LINK_UNITS units ($LINK_ARCH, $P parameters, H $LINK_H, batch $LINK_BATCH, int8), quorum $LINK_QUORUM, $LINK_S s a run"
echo "  link: $LINK_RATE each way (tbf), $LINK_DELAY_MS ms round trip, loss $LINK_LOSS a segment (proxy)"
run local 0
run link 1
for r in local link; do
	jq -r --arg r "$r" --argjson u "$LINK_UNITS" '
		"  \($r | if . == "local" then "every unit local:         " else "u\($u - 1) behind the link:     " end)"
		+ "\(.versions) versions, \(.samples / .wall_s * 10 | round / 10) applied samples/s; applied (stale): "
		+ ([.per_unit[] | "\(.unit) \(.applied) (\(.stale))"] | join(", "))
		+ "; u\($u - 1)'"'"'s share \((.per_unit[-1].applied / ([.per_unit[].applied] | add) * 1000 | round) / 10)%"' "$d/$r.json"
done
jq -rn --slurpfile a "$d/local.json" --slurpfile b "$d/link.json" \
	'"  with the link: throughput x\(($b[0].samples / $b[0].wall_s) / ($a[0].samples / $a[0].wall_s) * 1000 | round / 1000)"'

# ---- synchronous data-parallel through the same link ----
# one hop of the ring: 4P/U bytes up and as many down, over one kept-alive
# HTTP connection; the median of 20
hop() { # URL [ip netns exec NS]: the median seconds of a PUT and a GET
	_u=$1
	shift
	"$@" $PY - "$_u" $((4 * P / LINK_UNITS)) <<'PYEOF2'
import http.client, os, sys, time, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
body = os.urandom(int(sys.argv[2]))
c = http.client.HTTPConnection(u.hostname, u.port)
t = []
for i in range(20):
    path = "%s/hop/%d.bin" % (u.path, i)
    t0 = time.monotonic()
    c.request("PUT", path, body)
    c.getresponse().read()
    c.request("GET", path)
    r = c.getresponse().read()
    t.append(time.monotonic() - t0)
    assert len(r) == len(body)
print(sorted(t)[len(t) // 2])
PYEOF2
}
mkdir -p "$d/store/hop" && chmod 777 "$d/store/hop"
hl=$(hop "$LOCAL_URL")
hs=$(hop "$LINK_URL" ip netns exec "$ns")
step=$(cat "$d/local.step")
awk -v p="$P" -v u="$LINK_UNITS" -v b="$LINK_BATCH" -v hl="$hl" -v hs="$hs" -v c="$step" 'BEGIN {
	n = 2 * (u - 1); el = n * hl; es = n * hs
	printf "  synchronous data-parallel, %d workers, fp32 ring all-reduce of %d bytes a step (%d hops of %d bytes each way):\n", u, 4 * p, n, 4 * p / u
	printf "    a step: compute %.1f ms; exchange %.1f ms local, %.1f ms through the link\n", c * 1000, el * 1000, es * 1000
	printf "    %.0f samples/s local, %.0f through the link: x%.3f\n", u * b / (c + el), u * b / (c + es), (c + el) / (c + es)
}'
