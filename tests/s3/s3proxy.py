#!/usr/bin/python3
"""s3proxy.py: a proxy in front of an S3-compatible server (s3rver) for the
S3 tests of gt. It stands for what s3rver does not do as AWS does:

  * every request's AWS Signature Version 4 is computed again by AWS's own
    code (botocore's S3SigV4Auth) from the request as received and the one
    known secret key; a request without a valid signature, or whose
    x-amz-content-sha256 is not the hash of its body, is answered 403
    SignatureDoesNotMatch (or AccessDenied, XAmzContentSHA256Mismatch) as
    S3 answers it, and never reaches the server;
  * PUT with If-None-Match: * or If-Match: ETAG is done as S3 documents it
    (412 PreconditionFailed when the object exists, or when its ETag is not
    the one named), atomically with respect to the proxy's other requests.

  * when DIR/users exists, each of its lines "ACCESS_KEY SECRET USERNAME
    POLICY_FILE" is one more IAM user, whose requests are allowed only as
    the identity policy in POLICY_FILE allows them, evaluated as S3 does
    for the actions gt's requests need (GET and HEAD of an object:
    s3:GetObject, PUT: s3:PutObject, a ListObjectsV2 listing: s3:ListBucket
    with s3:prefix; Allow statements, Resource wildcards, ${aws:username},
    StringLike and StringEquals conditions) and answered 403 AccessDenied
    otherwise; as on S3, a missing object is 404 only to a user who may
    list the bucket (ListBucket without an s3:prefix), else 403. The key
    on the command line may do anything.

usage: s3proxy.py LISTEN_PORT UPSTREAM_PORT ACCESS_KEY SECRET_KEY DIR
It logs one line per request to DIR/requests.log:
  METHOD PATH?QUERY STATUS BYTES_IN BYTES_OUT RANGE CONDITION
(BYTES the bodies' lengths; RANGE the Range header, CONDITION the If-Match
or If-None-Match header, "-" when absent)
and, when the file DIR/race holds "KEY N FILE", after the N-th GET of the
object KEY (bucket/key, no leading '/') since the file appeared it
replaces that object on the server by the bytes of FILE and removes
DIR/race: another writer that
comes between gt's read of a pointer and its write; and when the file
DIR/drop holds "KEY", the next PUT of KEY is done on the server but its
answer lost (the connection closed without one; logged with STATUS 0),
and DIR/drop removed: a client then retries a put that took effect.
"""
import datetime
import fnmatch
import hashlib
import json
import http.client
import http.server
import os
import sys
import threading
import urllib.parse

from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

LISTEN, UPSTREAM, AKEY, SECRET, DIR = (int(sys.argv[1]), int(sys.argv[2]), sys.argv[3],
                                       sys.argv[4], sys.argv[5])
LOCK = threading.Lock()
GETS = {}
HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade",
       "proxy-authorization", "proxy-authenticate"}
# checked here, so not sent on: s3rver knows only its own key
CHECKED = {"authorization", "x-amz-date", "x-amz-content-sha256", "x-amz-security-token"}


def users():
    """{access key: (secret, username, policy)} of DIR/users"""
    out = {}
    try:
        with open(os.path.join(DIR, "users")) as f:
            for line in f:
                k, s, u, p = line.split()
                with open(p) as pf:
                    out[k] = (s, u, json.load(pf))
    except FileNotFoundError:
        pass
    return out


def as_list(x):
    return x if isinstance(x, list) else [x]


def allowed(user, policy, action, resource, context):
    """whether an Allow statement of the policy covers the request"""
    for st in policy["Statement"]:
        if st.get("Effect") != "Allow":
            continue
        if not any(fnmatch.fnmatchcase(action, a) for a in as_list(st["Action"])):
            continue
        if not any(fnmatch.fnmatchcase(resource, r.replace("${aws:username}", user))
                   for r in as_list(st["Resource"])):
            continue
        ok = True
        for op, keys in st.get("Condition", {}).items():
            for key, want in keys.items():
                got = context.get(key)
                want = [w.replace("${aws:username}", user) for w in as_list(want)]
                if got is None:
                    ok = False
                elif op == "StringLike":
                    ok = ok and any(fnmatch.fnmatchcase(got, w) for w in want)
                elif op == "StringEquals":
                    ok = ok and got in want
                else:
                    ok = False      # an operator this proxy does not know
        if ok:
            return True
    return False


def uri_encode(s, safe):
    return urllib.parse.quote(s, safe=safe)


def canonical_url(host, raw_path):
    """The URL as S3 reads it: path and query decoded and UriEncoded again,
    the query's parameters in any order (botocore sorts them)."""
    path, _, query = raw_path.partition("?")
    path = uri_encode(urllib.parse.unquote(path), "/-_.~")
    pairs = []
    for pair in query.split("&") if query else []:
        k, _, v = pair.partition("=")
        pairs.append(uri_encode(urllib.parse.unquote(k), "-_.~") + "=" +
                     uri_encode(urllib.parse.unquote(v), "-_.~"))
    return "http://%s%s%s" % (host, path, "?" + "&".join(pairs) if pairs else "")


def check_signature(method, raw_path, headers, body):
    """None if the request is signed right, else (code, message); the
    access key in headers["_akey"] (set here)."""
    auth = headers.get("Authorization", "")
    if not auth.startswith("AWS4-HMAC-SHA256 "):
        return ("AccessDenied", "no AWS4-HMAC-SHA256 Authorization header")
    fields = {}
    for part in auth[len("AWS4-HMAC-SHA256 "):].split(","):
        k, _, v = part.strip().partition("=")
        fields[k] = v
    try:
        akey, date, region, service, term = fields["Credential"].split("/")
        signed = fields["SignedHeaders"].split(";")
        sig = fields["Signature"]
    except (KeyError, ValueError):
        return ("AuthorizationHeaderMalformed", "malformed Authorization header")
    secret = SECRET if akey == AKEY else users().get(akey, (None,))[0]
    if secret is None:
        return ("InvalidAccessKeyId", "unknown access key " + akey)
    if service != "s3" or term != "aws4_request":
        return ("AuthorizationHeaderMalformed", "credential scope is not s3/aws4_request")
    amzdate = headers.get("x-amz-date", "")
    if amzdate[:8] != date:
        return ("AuthorizationHeaderMalformed", "x-amz-date does not match the scope's date")
    if "host" not in signed or "x-amz-date" not in signed:
        return ("AccessDenied", "host and x-amz-date must be signed")
    payload = headers.get("x-amz-content-sha256")
    if payload is None:
        return ("InvalidRequest", "missing x-amz-content-sha256")
    if payload != "UNSIGNED-PAYLOAD" and payload != hashlib.sha256(body).hexdigest():
        return ("XAmzContentSHA256Mismatch", "x-amz-content-sha256 is not the body's hash")
    try:
        t = datetime.datetime.strptime(amzdate, "%Y%m%dT%H%M%SZ")
    except ValueError:
        return ("AccessDenied", "bad x-amz-date")
    if abs((datetime.datetime.utcnow() - t).total_seconds()) > 900:
        return ("RequestTimeTooSkewed", "x-amz-date more than 15 minutes off")
    req = AWSRequest(method=method, url=canonical_url(headers.get("Host", ""), raw_path),
                     headers={h: " ".join((headers.get(h) or "").split()) for h in signed},
                     data=body)
    signer = S3SigV4Auth(Credentials(akey, secret), "s3", region)
    req.context["timestamp"] = amzdate
    cr = signer.canonical_request(req)
    want = signer.signature(signer.string_to_sign(req, cr), req)
    if want != sig:
        return ("SignatureDoesNotMatch",
                "The request signature we calculated does not match the signature you "
                "provided. Check your key and signing method.")
    return None


def upstream(method, path, headers=None, body=None):
    c = http.client.HTTPConnection("127.0.0.1", UPSTREAM, timeout=60)
    c.request(method, path, body=body, headers=headers or {})
    r = c.getresponse()
    data = r.read()
    c.close()
    return r, data


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def log(self, status, bin_, bout):
        with open(os.path.join(DIR, "requests.log"), "a") as f:
            f.write("%s %s %d %d %d %s %s\n" % (self.command, self.path, status, bin_, bout,
                                                self.headers.get("Range") or "-",
                                                self.headers.get("If-Match") or
                                                self.headers.get("If-None-Match") or "-"))

    def answer(self, status, body, headers=(), bin_=0, length=None):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        self.log(status, bin_, len(body) if self.command != "HEAD" else 0)

    def error(self, status, code, message, bin_=0):
        body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>%s</Code>"
                "<Message>%s</Message></Error>" % (code, message)).encode()
        self.answer(status, body, [("Content-Type", "application/xml")], bin_)

    def race(self, key):
        try:
            with open(os.path.join(DIR, "race")) as f:
                rkey, n, src = f.read().split()
        except (OSError, ValueError):
            return
        if rkey != key:
            return
        GETS[key] = GETS.get(key, 0) + 1
        if GETS[key] >= int(n):
            with open(src, "rb") as f:
                upstream("PUT", "/" + key, {"Content-Type": "application/octet-stream"}, f.read())
            os.unlink(os.path.join(DIR, "race"))
            GETS[key] = 0

    def dropped(self, key):
        """whether the answer to this put of key is to be lost (DIR/drop)"""
        path = os.path.join(DIR, "drop")
        try:
            with open(path) as f:
                if f.read().split() != [key]:
                    return False
            os.unlink(path)
        except OSError:
            return False
        return True

    def handle_any(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        bad = check_signature(self.command, self.path, self.headers, body)
        if bad:
            return self.error(403 if bad[0] != "InvalidRequest" else 400, bad[0], bad[1], n)
        fwd = {k: v for k, v in self.headers.items() if k.lower() not in HOP | CHECKED}
        key = urllib.parse.unquote(self.path.partition("?")[0]).lstrip("/")
        with LOCK:
            if self.command == "PUT" and ("If-Match" in self.headers or
                                          "If-None-Match" in self.headers):
                r, _ = upstream("HEAD", self.path.partition("?")[0])
                etag = r.getheader("ETag") if r.status == 200 else None
                im, inm = self.headers.get("If-Match"), self.headers.get("If-None-Match")
                if (inm == "*" and etag is not None) or (im is not None and im != etag):
                    return self.error(412, "PreconditionFailed",
                                      "At least one of the pre-conditions you specified did "
                                      "not hold", n)
                fwd.pop("If-Match", None)
                fwd.pop("If-None-Match", None)
            r, data = upstream(self.command, self.path, fwd, body if n else None)
            if self.command == "GET" and r.status in (200, 206):
                self.race(key)      # before the answer: the client's next request comes after
        if self.command == "PUT" and 200 <= r.status < 300 and self.dropped(key):
            self.close_connection = True
            return self.log(0, n, 0)
        if r.status == 404 and not self.may_list:
            return self.error(403, "AccessDenied", "Access Denied", n)
        hs = [(k, v) for k, v in r.getheaders() if k.lower() not in HOP | {"content-length"}]
        self.answer(r.status, data, hs, n,
                    r.getheader("Content-Length") if self.command == "HEAD" else None)

    def policy(self):
        """None, or (username, policy, action, resource, context) of a
        request by one of DIR/users"""
        akey = self.headers.get("Authorization", "").partition("Credential=")[2].partition("/")[0]
        u = users().get(akey)
        if u is None:
            return None
        path, _, query = self.path.partition("?")
        bucket, _, key = urllib.parse.unquote(path).lstrip("/").partition("/")
        q = urllib.parse.parse_qs(query)
        if not key and self.command == "GET" and "list-type" in q:
            return (u[1], u[2], "s3:ListBucket", "arn:aws:s3:::" + bucket,
                    {"s3:prefix": q.get("prefix", [""])[0]})
        action = {"GET": "s3:GetObject", "HEAD": "s3:GetObject", "PUT": "s3:PutObject",
                  "DELETE": "s3:DeleteObject"}.get(self.command, "s3:" + self.command)
        return (u[1], u[2], action, "arn:aws:s3:::%s/%s" % (bucket, key), {})

    def handle_checked(self):
        self.may_list = True
        p = self.policy()
        if p and not allowed(*p):
            n = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(n)
            return self.error(403, "AccessDenied", "Access Denied", n)
        if p and p[2] == "s3:GetObject":
            bucket = p[3].split(":::")[1].partition("/")[0]
            self.may_list = allowed(p[0], p[1], "s3:ListBucket", "arn:aws:s3:::" + bucket, {})
        return self.handle_any()

    do_GET = do_PUT = do_HEAD = do_DELETE = do_POST = handle_checked


if __name__ == "__main__":
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", LISTEN), Handler)
    with open(os.path.join(DIR, "proxy.ready"), "w") as f:
        f.write("%d\n" % srv.server_address[1])
    srv.serve_forever()
