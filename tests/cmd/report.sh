# report.sh: what report.t and report-page.t share (sourced after tap.sh):
# gt-report's test tools and an nginx serving the content types of a stock
# nginx (nginx.sh's server sends text/plain, and a browser draws no SVG
# image of that type). Sets py (Debian's Python), chk (report_check.py)
# and GT_SHARE; unsets GT_STORE_TOKEN.
. "$GT_SRC/tests/nginx/nginx.sh"
command -v gt-report >/dev/null || skip_all "gt-report is not built"
command -v gnuplot >/dev/null || skip_all "gnuplot is not installed"
command -v tidy >/dev/null || skip_all "tidy is not installed"
nginx_need
sed -i 's|^http {|http {\n\tinclude /etc/nginx/mime.types;|' "$NGX/nginx.conf"
py=/usr/bin/python3
chk=$GT_SRC/tests/report_check.py
export GT_SHARE=$GT_SRC/share/gt
unset GT_STORE_TOKEN
