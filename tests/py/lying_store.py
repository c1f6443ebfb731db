#!/usr/bin/python3
"""A store server on 127.0.0.1 that lies, for the attack tests (tests/cmd/sync-attack.t).

    lying_store.py ROOT PORTFILE LOG [ADDRESS]

Serves the folder ROOT as gt-sync(1) expects an HTTP store to:
GET and HEAD of files, a folder URL (ending in '/') as nginx's JSON
autoindex. The first path component chooses a lie, the rest is the path
under ROOT:

    /plain/P           the truth
    /endless/P         a file is an endless body, no Content-Length (but
                       *.json files, the pointers, are the truth)
    /endless-cl/P      the same announced as 10 GB
    /redirect-once/P   the first GET of each file is a 302, then the truth
    /redirect/P        every GET of a file is a 302 (a page of text with it)

and, as an S3 endpoint (AWS_ENDPOINT_URL, path-style: /BUCKET?list-type=2...),
listings that never end, each page truncated with a new continuation token
(signatures are not checked):

    bucket s3-empty    pages without a key
    bucket s3-full     pages of 1000 new keys PREFIXkNNNNNNNNN.ndjson.gz

A PUT under /plain/ stores the body. It listens on ADDRESS (default
127.0.0.1); the port is written to PORTFILE; each request is appended to
LOG as "METHOD PATH STATUS auth=yes|no". Runs until killed.
"""
import email.utils
import http.server
import json
import os
import sys
import threading
import urllib.parse

ROOT, PORTFILE, LOG = sys.argv[1], sys.argv[2], sys.argv[3]
seen = set()
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # bodies end when the connection closes

    def log_message(self, *args):
        pass

    def note(self, status):
        with lock, open(LOG, "a") as f:
            auth = "yes" if self.headers.get("Authorization") else "no"
            f.write("%s %s %d auth=%s\n" % (self.command, self.path, status, auth))

    def answer(self, status, body=b"", ctype="application/octet-stream", extra=()):
        self.note(status)
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def endless(self, announce):
        self.note(200)
        self.send_response(200)
        if announce:
            self.send_header("Content-Length", str(10 << 30))
        self.end_headers()
        if self.command == "HEAD":
            return
        chunk = b'{"g":"endless"}\n' * 4096
        try:
            while True:
                self.wfile.write(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def s3_endless(self, bucket, query):
        q = urllib.parse.parse_qs(query)
        prefix = q.get("prefix", [""])[0]
        page = int(q.get("continuation-token", ["t0"])[0][1:])
        keys = ""
        if bucket == "s3-full":
            keys = "".join("<Contents><Key>%sk%09d.ndjson.gz</Key><Size>100</Size>"
                           "<LastModified>2026-01-01T00:00:00.000Z</LastModified></Contents>"
                           % (prefix, page * 1000 + i) for i in range(1000))
        body = ('<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>%s</Name>'
                "<Prefix>%s</Prefix>%s<IsTruncated>true</IsTruncated>"
                "<NextContinuationToken>t%d</NextContinuationToken></ListBucketResult>"
                % (bucket, prefix, keys, page + 1)).encode()
        return self.answer(200, body, "application/xml")

    def do_GET(self):
        path, _, query = self.path.partition("?")
        if "list-type=2" in query and path.strip("/") in ("s3-empty", "s3-full"):
            return self.s3_endless(path.strip("/"), query)
        parts = self.path.split("/", 2)
        if len(parts) < 3:
            return self.answer(404)
        lie, rel = parts[1], parts[2]
        local = os.path.join(ROOT, rel)
        if rel == "" or rel.endswith("/"):
            if not os.path.isdir(local):
                return self.answer(404)
            items = []
            for n in sorted(os.listdir(local)):
                p = os.path.join(local, n)
                st = os.stat(p)
                items.append({"name": n, "type": "directory" if os.path.isdir(p) else "file",
                              "mtime": email.utils.formatdate(st.st_mtime, usegmt=True),
                              "size": st.st_size})
            return self.answer(200, json.dumps(items).encode(), "application/json")
        if lie in ("endless", "endless-cl") and not rel.endswith(".json"):
            return self.endless(lie == "endless-cl")
        if lie == "redirect" or (lie == "redirect-once" and self.command == "GET"
                                 and rel not in seen):
            with lock:
                seen.add(rel)
            return self.answer(302, b"<html>moved</html>\n", "text/html",
                               [("Location", "http://elsewhere.invalid/" + rel)])
        if not os.path.isfile(local):
            return self.answer(404)
        with open(local, "rb") as f:
            return self.answer(200, f.read())

    do_HEAD = do_GET

    def do_PUT(self):
        parts = self.path.split("/", 2)
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        if len(parts) < 3 or parts[1] != "plain" or ".." in parts[2] or not parts[2]:
            return self.answer(403)
        local = os.path.join(ROOT, parts[2])
        os.makedirs(os.path.dirname(local), exist_ok=True)
        with open(local + ".tmp", "wb") as f:
            f.write(body)
        os.rename(local + ".tmp", local)
        return self.answer(201)


srv = http.server.ThreadingHTTPServer((sys.argv[4] if len(sys.argv) > 4 else "127.0.0.1", 0),
                                      Handler)
srv.daemon_threads = True
with open(PORTFILE + ".tmp", "w") as f:
    f.write("%d\n" % srv.server_address[1])
os.rename(PORTFILE + ".tmp", PORTFILE)
srv.serve_forever()
