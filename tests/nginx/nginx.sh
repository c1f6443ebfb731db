# nginx.sh: a private nginx on 127.0.0.1 for the store tests, sourced after
# tests/cmd/tap.sh. It serves $T/store as a WebDAV store (gt(7) "The
# store") at http://127.0.0.1:$NGX_PORT/, with
#   /auth/   the same store but answering 401 unless "Authorization: Bearer secret"
#   /evil/games/  a fixed JSON listing (tests/nginx/store-listing-traversal.json)
#   /basic/  the store, read-only, 401 unless user u password p (netrc)
#   /flaky/  always 503
#   /slow/   the store at 100 kB/s (to interrupt downloads)
# The access log ($NGX/access.log) has one line per request:
#   METHOD URI STATUS "RANGE-HEADER" "IF-RANGE-HEADER"
#   nginx_start / nginx_stop / nginx_need (skip_all when nginx is absent);
#   nginx_head (the conf's common part, for a test's own server).
NGX=$T/nginx
NGX_BIN=$(command -v nginx || ls /usr/sbin/nginx 2>/dev/null)

nginx_need() {
	[ -n "$NGX_BIN" ] && [ -x "$NGX_BIN" ] || skip_all "nginx is not installed"
	command -v python3 >/dev/null || skip_all "python3 is needed to find a free port"
	mkdir -p "$NGX" "$T/store" "$T/fix"
	cp "$GT_SRC/tests/nginx/store-listing-traversal.json" "$T/fix/listing.json"
	chmod 777 "$T/store"
	chmod 755 "$T" "$T/fix"
	NGX_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	NGX_URL=http://127.0.0.1:$NGX_PORT
	{ nginx_head '$request_method $uri $status "$http_range" "$http_if_range"'
	cat <<CONF
	client_max_body_size 0;
	server {
		listen 127.0.0.1:$NGX_PORT;
		root $T/store;
		location / {
			dav_methods PUT DELETE MKCOL MOVE;
			create_full_put_path on;
			autoindex on;
			autoindex_format json;
		}
		location /auth/ {
			if (\$http_authorization != "Bearer secret") { return 401; }
			alias $T/store/;
			dav_methods PUT DELETE MKCOL MOVE;
			create_full_put_path on;
			autoindex on;
			autoindex_format json;
		}
		location /basic/ {
			if (\$http_authorization != "Basic dTpw") { return 401; }
			alias $T/store/;
			autoindex on;
			autoindex_format json;
		}
		location /slow/ {
			alias $T/store/;
			limit_rate 100k;
		}
		location /flaky/ {
			return 503;
		}
		location = /evil/games/ {
			root $T/fix;
			default_type application/json;
			try_files /listing.json =404;
		}
	}
}
CONF
	} > "$NGX/nginx.conf"
	trap 'nginx_stop; rm -rf "$T"' EXIT
}

# nginx_head LOG-FORMAT: the conf up to the inside of http {} (pid, logs
# and temporary files under $NGX, the access log in that format)
nginx_head() {
	[ "$(id -u)" -eq 0 ] && echo "user root;"
	cat <<CONF
daemon on;
pid $NGX/nginx.pid;
worker_processes 1;
error_log $NGX/error.log;
events { worker_connections 64; }
http {
	log_format gt '$1';
	access_log $NGX/access.log gt;
	client_body_temp_path $NGX/body;
	proxy_temp_path $NGX/proxy;
	fastcgi_temp_path $NGX/fastcgi;
	uwsgi_temp_path $NGX/uwsgi;
	scgi_temp_path $NGX/scgi;
CONF
}

nginx_start() {
	"$NGX_BIN" -p "$NGX" -c "$NGX/nginx.conf" -e "$NGX/error.log" 2>>"$NGX/start.err" || return 1
	wait_http "$NGX_URL/"
}

nginx_stop() {
	[ -f "$NGX/nginx.pid" ] || return 0
	_p=$(cat "$NGX/nginx.pid")
	kill "$_p" 2>/dev/null
	_i=0
	while [ $_i -lt 50 ] && kill -0 "$_p" 2>/dev/null; do
		sleep 0.1
		_i=$((_i + 1))
	done
	rm -f "$NGX/nginx.pid"
}
